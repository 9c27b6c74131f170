"""Widgets as a front end sees them: comm_open of each model with ipywidgets'
state, the view in the display bundle, comm_info, updates from the front end
reaching observers in the cell process, `interact` redrawing its output, a
button's click, request_state, comm_close, and bad input.

Run by tests/run_kernel_tests.sh (CUPRITE_TEST_FILES=test_widgets.py).
"""
import queue
import time
import unittest

from test_protocol import CELL_TIMEOUT, KernelCase, validate

VIEW = "application/vnd.jupyter.widget-view+json"


class WidgetTests(KernelCase):
    def opened(self, r):
        """comm_open contents of a run, by comm id (with the message's metadata)."""
        return {m["content"]["comm_id"]: dict(m["content"], metadata=m["metadata"])
                for m in r.of("comm_open")}

    def models(self, r, name):
        return [c for c in self.opened(r).values()
                if c["data"]["state"]["_model_name"] == name]

    def front_end(self, msg_type, content, timeout=CELL_TIMEOUT):
        """Sends a comm message as a front end does; its iopub children until idle."""
        msg = self.kc.session.msg(msg_type, content)
        self.kc.shell_channel.send(msg)
        msg_id = msg["header"]["msg_id"]
        deadline = time.monotonic() + timeout
        out, busy = [], False
        while time.monotonic() < deadline:
            try:
                m = self.kc.iopub_channel.get_msg(timeout=1.0)
            except queue.Empty:
                continue
            validate(m)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "status":
                busy |= m["content"]["execution_state"] == "busy"
                if m["content"]["execution_state"] == "idle":
                    return out
                continue
            out.append(m)
        raise TimeoutError(f"no idle after {msg_type} (busy seen: {busy})")

    def comm_info(self, target=None):
        content = {} if target is None else {"target_name": target}
        msg = self.kc.session.msg("comm_info_request", content)
        self.kc.shell_channel.send(msg)
        while True:
            reply = self.kc.get_shell_msg(timeout=10)
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                return reply["content"]["comms"]

    def update(self, comm_id, **state):
        return self.front_end("comm_msg", {"comm_id": comm_id, "data": {
            "method": "update", "state": state, "buffer_paths": []}})

    def test_slider_opens_its_models_and_observers_see_the_front_ends_moves(self):
        r = self.ok(
            "let seen = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(-1));\n"
            "let n = cp::widgets::IntSlider::new(0, 10)?.value(3).description(\"n\");\n"
            "{ let seen = seen.clone();\n"
            "  n.observe(move |v| seen.store(v, std::sync::atomic::Ordering::SeqCst)); }\n"
            "n.clone()")
        sliders = self.models(r, "IntSliderModel")
        self.assertEqual(len(sliders), 1, r.types())
        slider = sliders[0]
        self.assertEqual(slider["target_name"], "jupyter.widget")
        self.assertEqual(slider["metadata"]["version"], "2.1.0")
        state = slider["data"]["state"]
        self.assertEqual((state["min"], state["max"]), (0, 10))
        self.assertEqual(state["_view_name"], "IntSliderView")
        self.assertEqual(state["_model_module"], "@jupyter-widgets/controls")
        # Its layout and style are models of their own, opened before it.
        opened = self.opened(r)
        for key, name in (("layout", "LayoutModel"), ("style", "SliderStyleModel")):
            ref = state[key]
            self.assertTrue(ref.startswith("IPY_MODEL_"), ref)
            self.assertEqual(opened[ref[len("IPY_MODEL_"):]]["data"]["state"]["_model_name"], name)
        # The builder's value and description reached the front end as updates.
        updates = {}
        for m in r.of("comm_msg"):
            if m["content"]["comm_id"] == slider["comm_id"]:
                updates.update(m["content"]["data"]["state"])
        self.assertEqual((updates["value"], updates["description"]), (3, "n"))
        view = r.of("execute_result")[0]["content"]["data"][VIEW]
        self.assertEqual(view["model_id"], slider["comm_id"])
        self.assertEqual(view["version_major"], 2)
        # comm_info lists the models, by target.
        self.assertIn(slider["comm_id"], self.comm_info("jupyter.widget"))
        self.assertEqual(self.comm_info("no.such.target"), {})

        self.update(slider["comm_id"], value=7)
        r = self.ok("(n.get(), seen.load(std::sync::atomic::Ordering::SeqCst))")
        self.assertEqual(self.result_text(r), "(7, 7)")

        # A page reload asks for the whole state.
        out = self.front_end("comm_msg", {"comm_id": slider["comm_id"],
                                          "data": {"method": "request_state"}})
        states = [m["content"]["data"] for m in out if m["msg_type"] == "comm_msg"]
        self.assertEqual(states[0]["method"], "update")
        self.assertEqual(states[0]["state"]["value"], 7)
        self.assertEqual(states[0]["state"]["_model_name"], "IntSliderModel")

        # Closed by the front end: gone from comm_info, later messages ignored.
        self.front_end("comm_close", {"comm_id": slider["comm_id"], "data": {}})
        self.assertNotIn(slider["comm_id"], self.comm_info())
        self.update(slider["comm_id"], value=9)
        self.assertEqual(self.result_text(self.ok("n.get()")), "7")

    def test_interact_redraws_its_output_when_a_control_moves(self):
        r = self.ok('cp::widgets::interact(|a: f64, n: i64| cp::Text(format!("a*n = {}", a * n as f64)))?')
        out = self.models(r, "OutputModel")
        self.assertEqual(len(out), 1, r.types())
        output_id = out[0]["comm_id"]

        def shown(msgs):
            texts = []
            for m in msgs:
                c = m["content"]
                if m["msg_type"] == "comm_msg" and c["comm_id"] == output_id:
                    for o in c["data"]["state"].get("outputs", []):
                        texts.append(o["data"]["text/plain"])
            return texts

        self.assertIn('a*n = 2.5', shown([m for _, m in r.outputs]), "drawn once at the start")
        a = self.models(r, "FloatSliderModel")[0]["comm_id"]
        msgs = self.update(a, value=1.0)
        self.assertEqual(shown(msgs), ['a*n = 5'])
        vbox = self.models(r, "VBoxModel")[0]["comm_id"]
        view = r.of("execute_result")[0]["content"]["data"][VIEW]
        self.assertEqual(view["model_id"], vbox)

    def test_button_clicks_and_dropdown_choices_reach_callbacks(self):
        r = self.ok(
            "let clicks = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));\n"
            "let b = cp::widgets::Button::new(\"go\");\n"
            "{ let clicks = clicks.clone();\n"
            "  b.on_click(move || { clicks.fetch_add(1, std::sync::atomic::Ordering::SeqCst); }); }\n"
            "let d = cp::widgets::Dropdown::new([\"sin\", \"cos\", \"tan\"])?;\n"
            "let chosen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));\n"
            "{ let chosen = chosen.clone(); d.observe(move |l| *chosen.lock().unwrap() = l); }\n"
            "cp::widgets::HBox::new().child(&b).child(&d)")
        button = self.models(r, "ButtonModel")[0]["comm_id"]
        dropdown = self.models(r, "DropdownModel")[0]
        self.assertEqual(dropdown["data"]["state"]["_options_labels"], ["sin", "cos", "tan"])
        for _ in range(2):
            self.front_end("comm_msg", {"comm_id": button, "data": {
                "method": "custom", "content": {"event": "click"}}})
        self.update(dropdown["comm_id"], index=2)
        r = self.ok("(clicks.load(std::sync::atomic::Ordering::SeqCst), d.get(), chosen.lock().unwrap().clone())")
        self.assertEqual(self.result_text(r), '(2, "tan", "tan")')

    def test_a_panicking_callback_is_reported_and_the_kernel_goes_on(self):
        r = self.ok("let c = cp::widgets::Checkbox::new(false);\n"
                    "c.observe(|v| if v { panic!(\"observer saw {v}\") });\nc.clone()")
        box_id = self.models(r, "CheckboxModel")[0]["comm_id"]
        msgs = self.update(box_id, value=True)
        text = "".join(m["content"].get("text", "") for m in msgs if m["msg_type"] == "stream")
        self.assertIn("observer saw true", text)
        self.assertEqual(self.result_text(self.ok("c.get()")), "true")

    def test_bad_input_and_unknown_comms(self):
        r = self.run_cell("cp::widgets::IntSlider::new(5, 1)?")
        self.assertEqual(r.content["status"], "error")
        self.assertIn("min 5 must not exceed max 1", r.content["evalue"])
        r = self.run_cell('cp::widgets::Dropdown::new(["a"])?.value("b")?')
        self.assertEqual(r.content["status"], "error")
        self.assertIn('"b" is not one of the options', r.content["evalue"])
        # A message for a comm nobody opened, and one with no comm_id: answered with idle.
        self.update("0" * 32, value=1)
        self.front_end("comm_msg", {"data": {}})
        self.assertEqual(self.result_text(self.ok("1 + 1")), "2")


if __name__ == "__main__":
    unittest.main()

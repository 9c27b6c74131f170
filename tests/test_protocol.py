"""Protocol tests of our own for cuprite-kernel, beyond jupyter_kernel_test.

Bad signatures, interrupts, panics, crashes, streaming, displays, magics,
execution counts, unknown messages, comms, shutdown and restart. Every
message is validated against the Jupyter v5 schemas.

Run through tests/run_kernel_tests.sh (it installs the kernelspec named in
CUPRITE_KERNEL_NAME into a temporary JUPYTER_PATH).
"""

import base64
import os
import queue
import time
import unittest
import uuid

import zmq
from jupyter_client.manager import KernelManager, start_new_kernel
from jupyter_client.session import Session
from jupyter_kernel_test.msgspec_v5 import schema_fragments, validate_message

KERNEL_NAME = os.environ.get("CUPRITE_KERNEL_NAME", "cuprite")
WARMUP_TIMEOUT = int(os.environ.get("CUPRITE_WARMUP_TIMEOUT", "1800"))
CELL_TIMEOUT = int(os.environ.get("CUPRITE_CELL_TIMEOUT", "120"))


def validate(msg):
    # jupyter_kernel_test 0.7 has no schema for iopub_welcome (JEP 65), comm
    # messages or replies to unknown requests; its 'abort' is the spec's 'aborted'.
    if msg["msg_type"] in schema_fragments and msg["content"].get("status") != "aborted":
        validate_message(msg)
    else:
        assert set(msg) >= {"header", "parent_header", "metadata", "content"}, msg


class Run:
    """One request's reply and iopub messages (with arrival times)."""

    def __init__(self, reply, outputs):
        self.reply = reply
        self.content = reply["content"]
        self.outputs = outputs  # [(time, msg)]

    def of(self, msg_type):
        return [m for _, m in self.outputs if m["msg_type"] == msg_type]

    def stream(self, name):
        return "".join(m["content"]["text"] for m in self.of("stream") if m["content"]["name"] == name)

    def types(self):
        return [m["msg_type"] for _, m in self.outputs]


class KernelCase(unittest.TestCase):
    """A kernel shared by the tests of a class."""

    @classmethod
    def setUpClass(cls):
        cls.km, cls.kc = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=120)
        reply = cls.kc.execute_interactive("1", timeout=WARMUP_TIMEOUT, output_hook=lambda m: None)
        assert reply["content"]["status"] == "ok", reply["content"]

    @classmethod
    def tearDownClass(cls):
        cls.kc.stop_channels()
        cls.km.shutdown_kernel(now=False)

    def flush(self):
        for ch in (self.kc.shell_channel, self.kc.iopub_channel):
            while True:
                try:
                    validate(ch.get_msg(timeout=0.05))
                except queue.Empty:
                    break

    def collect(self, msg_id, timeout, on_output=None):
        """Reads iopub until idle for msg_id, then the shell reply."""
        deadline = time.monotonic() + timeout
        outputs = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no idle for {msg_id} within {timeout} s")
            try:
                msg = self.kc.iopub_channel.get_msg(timeout=min(left, 1.0))
            except queue.Empty:
                continue
            validate(msg)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status":
                if msg["content"]["execution_state"] == "idle":
                    break
                continue
            outputs.append((time.monotonic(), msg))
            if on_output:
                on_output(msg)
        while True:
            reply = self.kc.get_shell_msg(timeout=max(deadline - time.monotonic(), 5))
            validate(reply)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        return Run(reply, outputs)

    def run_cell(self, code, timeout=CELL_TIMEOUT, **kw):
        msg_id = self.kc.execute(code, **kw)
        return self.collect(msg_id, timeout)

    def ok(self, code, **kw):
        r = self.run_cell(code, **kw)
        self.assertEqual(r.content["status"], "ok", r.content)
        return r

    def result_text(self, r):
        res = r.of("execute_result")
        self.assertEqual(len(res), 1, r.types())
        return res[0]["content"]["data"]["text/plain"]


class SessionTests(KernelCase):
    def test_prelude_and_variables(self):
        self.ok("let answer = 40;")
        r = self.ok("answer + 2")
        self.assertEqual(self.result_text(r), "42")
        r = self.ok("cp::arange(6)?.reshape([2, 3])?.size()")
        self.assertEqual(self.result_text(r), "6")

    def test_execute_result_has_transient_and_text(self):
        r = self.ok("7 * 6")
        res = r.of("execute_result")[0]["content"]
        self.assertEqual(res["transient"], {})
        self.assertEqual(res["data"]["text/plain"], "42")
        self.assertEqual(r.content["user_expressions"], {})

    def test_compile_error_traceback(self):
        r = self.run_cell('let n: i32 = "seven";')
        self.assertEqual(r.content["status"], "error")
        for key in ("ename", "evalue", "traceback"):
            self.assertIn(key, r.content)
        self.assertTrue(r.content["ename"].startswith("CompileError"), r.content["ename"])
        self.assertEqual(r.types(), ["execute_input", "error"])
        tb = "\n".join(r.of("error")[0]["content"]["traceback"])
        self.assertIn('let n: i32 = "seven";', tb)
        self.assertIn("^", tb)

    def test_cells_build_without_cargo_after_the_first(self):
        # kernel/src/cell_build.rs: cargo's build of the cell crate is
        # recorded once, then replayed (counted in `replays`); a compile error
        # still gets cargo's messages, and the session goes on.
        self.ok('let build_bin = std::path::PathBuf::from(std::env::var("CUPRITE_CELL_BUILD_BIN")?);\n'
                'let replays = build_bin.parent().unwrap().join("ctx/target/cuprite-cell-build/replays");')
        count = 'std::fs::read_to_string(&replays).map(|t| t.trim().parse::<u64>().unwrap()).unwrap_or(0)'
        before = int(self.result_text(self.ok(count)))
        for _ in range(3):
            self.ok("1 + 1")
        after = int(self.result_text(self.ok(count)))
        self.assertGreaterEqual(after - before, 3)
        r = self.run_cell('let n: i32 = "seven";')
        self.assertEqual(r.content["status"], "error")
        self.assertIn("mismatched types", "\n".join(r.of("error")[0]["content"]["traceback"]))
        self.assertEqual(self.result_text(self.ok("build_bin.is_dir()")), "true")

    def test_a_cell_evcxr_cannot_type_is_checked_without_cargo(self):
        # kernel/src/cell_build.rs `replay_check`: evcxr runs `cargo check` to
        # explain a `let` it cannot type (a closure); the recorded rustc does
        # it instead of cargo, which would first check every dependency of a
        # build folder never checked before (a minute on 2 cores).
        self.ok('let check_replays = std::path::PathBuf::from(std::env::var("CUPRITE_CELL_BUILD_BIN")?)\n'
                '    .parent().unwrap().join("ctx/target/cuprite-cell-build/replays");')
        count = 'std::fs::read_to_string(&check_replays).map(|t| t.trim().parse::<u64>().unwrap()).unwrap_or(0)'
        before = int(self.result_text(self.ok(count)))
        r = self.run_cell("let double = |x: i32| x * 2;")
        self.assertEqual(r.content["status"], "error")
        self.assertIn("is a closure", r.content["evalue"] + "\n".join(r.of("error")[0]["content"]["traceback"]))
        after = int(self.result_text(self.ok(count)))
        # The check, then the counting cell's own build.
        self.assertEqual(after - before, 2)

    def test_analyzer_sees_the_graph_cells_see(self):
        # kernel/src/analyzer_graph.rs: evcxr's rust-analyzer is shown the
        # kernel crates' public dependencies only, and every type the API
        # shows can still be inferred for a `let` (ndarray and cudarc through
        # the runtime's re-exports; before them such a `let` failed after a
        # minute of `cargo check`).
        self.ok("let grid = cp::arange(6)?.reshape([2, 3])?;")
        self.ok("let nd = grid.to_ndarray::<i64>()?;")
        self.ok("let h = cp::half::f16::from_f32(1.5);")
        self.ok("let z = cp::num_complex::Complex::new(1.0f32, 2.0);")
        self.assertEqual(self.result_text(self.ok("nd.sum() + h.to_f32() as i64 + z.im as i64")), "18")
        self.ok('let overlay = std::path::Path::new(&std::env::var("CUPRITE_CELL_BUILD_BIN")?)\n'
                '    .parent().unwrap().join("analyzer-cargo-home");')
        graph = self.result_text(self.ok('std::fs::read_to_string(overlay.join("analyzer-graph.txt"))?'))
        for shown in ("cuprite ", "cuprite-display ", "ndarray ", "half ", "cudarc "):
            self.assertIn(shown, graph)
        for hidden in ("faer", "rustfft", "npyz", "syn ", "thiserror-impl"):
            self.assertNotIn(hidden, graph)
        # The cell process (like every process the kernel starts) has the real CARGO_HOME.
        self.assertEqual(self.result_text(self.ok(
            'std::env::var_os("CARGO_HOME").map_or(true, |h| !h.to_string_lossy().contains("analyzer-cargo-home"))')),
            "true")

    def test_panic_keeps_variables(self):
        self.ok("let kept = 21;")
        r = self.run_cell('panic!("boom {}", 7);')
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "Panic")
        self.assertEqual(r.content["evalue"], "boom 7")
        self.assertEqual(r.types(), ["execute_input", "error"])
        r = self.ok("kept * 2")
        self.assertEqual(self.result_text(r), "42")

    def test_queued_cells_after_an_error_are_aborted(self):
        bad = self.kc.execute('panic!("first fails");')
        queued = self.kc.execute("1 + 1")
        r1 = self.collect(bad, CELL_TIMEOUT)
        r2 = self.collect(queued, CELL_TIMEOUT)
        self.assertEqual(r1.content["status"], "error")
        self.assertEqual(r2.content["status"], "aborted")
        self.assertEqual(self.result_text(self.ok("2 + 2")), "4")

    def test_question_mark_error(self):
        r = self.run_cell('let v: i64 = "x1".parse()?;')
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "Error")
        self.assertIn("invalid digit", r.content["evalue"])

    def test_partial_line_streaming(self):
        code = (
            'print!("step 1...");\n'
            "std::thread::sleep(std::time::Duration::from_millis(1500));\n"
            'println!(" done");'
        )
        msg_id = self.kc.execute(code)
        seen = {}

        def note(msg):
            if msg["msg_type"] == "stream":
                t = msg["content"]["text"]
                if "step 1" in t:
                    seen.setdefault("partial", time.monotonic())
                if "done" in t:
                    seen.setdefault("done", time.monotonic())

        r = self.collect(msg_id, CELL_TIMEOUT, on_output=note)
        self.assertEqual(r.content["status"], "ok")
        self.assertEqual(r.stream("stdout"), "step 1... done\n")
        self.assertIn("partial", seen)
        # The partial line arrived while the cell was still sleeping.
        self.assertGreater(seen["done"] - seen["partial"], 1.0)

    def test_stdout_and_stderr_in_order(self):
        code = (
            'println!("one");\n'
            "std::thread::sleep(std::time::Duration::from_millis(50));\n"
            'eprintln!("two");\n'
            "std::thread::sleep(std::time::Duration::from_millis(50));\n"
            'println!("three");'
        )
        r = self.ok(code)
        seq = [(m["content"]["name"], m["content"]["text"]) for m in r.of("stream")]
        self.assertEqual(seq, [("stdout", "one\n"), ("stderr", "two\n"), ("stdout", "three\n")])

    def test_three_displays_in_one_cell(self):
        code = (
            'println!("a");\n'
            'cuprite_kernel_io::display_html("<i>1</i>", "1");\n'
            'println!("b");\n'
            'cuprite_kernel_io::display_html("<i>2</i>", "2");\n'
            'cuprite_kernel_io::display_text("3");\n'
            'println!("c");'
        )
        r = self.ok(code)
        kinds = [
            (m["msg_type"], m["content"].get("text") or m["content"].get("data", {}).get("text/plain"))
            for _, m in r.outputs
            if m["msg_type"] in ("stream", "display_data")
        ]
        self.assertEqual(
            kinds,
            [("stream", "a\n"), ("display_data", "1"), ("stream", "b\n"),
             ("display_data", "2"), ("display_data", "3"), ("stream", "c\n")],
        )
        self.assertEqual(r.of("display_data")[0]["content"]["data"]["text/html"], "<i>1</i>")

    def test_update_display_by_id(self):
        code = (
            'let b = cuprite_kernel_io::Bundle::new().text("0%").display_id("progress");\n'
            "cuprite_kernel_io::display_bundle(&b);\n"
            'cuprite_kernel_io::update_display(r#"{"text/plain": "100%"}"#, "{}", "progress");'
        )
        r = self.ok(code)
        d = r.of("display_data")[0]["content"]
        u = r.of("update_display_data")[0]["content"]
        self.assertEqual(d["transient"]["display_id"], "progress")
        self.assertEqual(u["transient"]["display_id"], "progress")
        self.assertEqual(u["data"]["text/plain"], "100%")

    def test_clear_output_wait(self):
        r = self.ok("cuprite_kernel_io::clear_output(true);")
        self.assertEqual(r.of("clear_output")[0]["content"], {"wait": True})

    def test_execution_count(self):
        a = self.ok("1")
        n = a.content["execution_count"]
        s = self.ok("2", silent=True)
        self.assertEqual(s.content["execution_count"], n)
        self.assertEqual(s.of("execute_input"), [])
        self.assertEqual(s.of("execute_result"), [])
        h = self.ok("3", store_history=False)
        self.assertEqual(h.content["execution_count"], n)
        b = self.ok("4")
        self.assertEqual(b.content["execution_count"], n + 1)
        self.assertEqual(b.of("execute_input")[0]["content"]["execution_count"], n + 1)

    def test_magics(self):
        r = self.ok("%time 6 * 7")
        self.assertIn("Wall time:", r.stream("stdout"))
        self.assertEqual(self.result_text(r), "42")
        r = self.ok("%%time\nlet timed = 5;\ntimed + 1")
        self.assertIn("CPU times:", r.stream("stdout"))
        self.assertEqual(self.result_text(r), "6")
        r = self.ok("%timeit -n 100 -r 3 (0..100u64).sum::<u64>()")
        text = r.of("display_data")[0]["content"]["data"]["text/plain"]
        self.assertIn("per loop", text)
        self.assertIn("3 runs, 100 loops each", text)
        # %gpu and %mem answer with rich displays (tests/test_magics.py checks them).
        r = self.ok("%gpu")
        self.assertIn("Default device:", r.of("display_data")[0]["content"]["data"]["text/plain"])
        r = self.ok("%mem")
        self.assertIn("resident", r.of("display_data")[0]["content"]["data"]["text/plain"])
        r = self.run_cell("%nosuchmagic")
        self.assertEqual(r.content["ename"], "UsageError")

    def test_quit_is_refused(self):
        r = self.run_cell(":quit")
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(self.result_text(self.ok("1 + 1")), "2")

    def test_evcxr_commands_pass_through(self):
        self.ok("let listed_var = 3;")
        r = self.ok(":vars")
        data = r.of("execute_result")[0]["content"]["data"]
        self.assertIn("listed_var", data["text/plain"])

    def test_kernel_info_speaks_protocol_5_5(self):
        self.kc.kernel_info()
        while True:
            reply = self.kc.get_shell_msg(timeout=10)
            if reply["msg_type"] == "kernel_info_reply":
                break
        c = reply["content"]
        self.assertEqual(c["protocol_version"], "5.5")
        self.assertIsInstance(c["supported_features"], list)
        # nbconvert has no "rust" exporter: naming one would break `--to script`.
        self.assertNotIn("nbconvert_exporter", c["language_info"])
        self.assertEqual(c["language_info"]["file_extension"], ".rs")

    def test_unknown_request_gets_error_reply(self):
        msg = self.kc.session.msg("frobnicate_request", {})
        self.kc.shell_channel.send(msg)
        r = self.collect(msg["header"]["msg_id"], 10)
        self.assertEqual(r.reply["msg_type"], "frobnicate_reply")
        self.assertEqual(r.content["status"], "error")

    def test_input_asks_the_front_end(self):
        msg_id = self.kc.execute('cuprite_kernel_io::input("your name? ")?', allow_stdin=True)
        req = self.kc.get_stdin_msg(timeout=CELL_TIMEOUT)
        self.assertEqual(req["msg_type"], "input_request")
        self.assertEqual(req["content"]["prompt"], "your name? ")
        self.assertFalse(req["content"]["password"])
        self.kc.input("Ada")
        r = self.collect(msg_id, CELL_TIMEOUT)
        self.assertEqual(r.content["status"], "ok", r.content)
        self.assertEqual(self.result_text(r), '"Ada"')
        # A front end that takes no input: an error, not an empty answer.
        r = self.run_cell('cuprite_kernel_io::input("x? ")?', allow_stdin=False)
        self.assertEqual(r.content["status"], "error")
        self.assertIn("takes no input", r.content["evalue"] + "".join(r.content["traceback"]))
        # `cp::input` is the same function, and two answers in a row each reach their request.
        msg_id = self.kc.execute(
            'let (first, second) = (cp::input("a? ")?, cp::input_password("b? ")?); format!("{first}|{second}")',
            allow_stdin=True)
        for answer, password in (("one two ", False), ("secret", True)):
            req = self.kc.get_stdin_msg(timeout=CELL_TIMEOUT)
            self.assertEqual(req["content"]["password"], password)
            self.kc.input(answer)
        r = self.collect(msg_id, CELL_TIMEOUT)
        self.assertEqual(r.content["status"], "ok", r.content)
        self.assertEqual(self.result_text(r), '"one two |secret"')

    def test_reading_stdin_fails_at_once_with_a_hint(self):
        start = time.monotonic()
        r = self.run_cell(
            "let mut line = String::new();\n"
            "std::io::stdin().read_line(&mut line)?;", allow_stdin=True)
        self.assertLess(time.monotonic() - start, CELL_TIMEOUT / 2)
        self.assertEqual(r.content["status"], "error")
        text = "\n".join(r.content["traceback"])
        self.assertIn("os error 21", text)
        self.assertIn("cp::input", text)
        # The session still runs cells (evcxr's commands were not taken).
        self.assertEqual(self.result_text(self.ok("40 + 2")), "42")

    def test_usage_request_on_control_as_ipykernel_answers_it(self):
        self.ok("let busy: u64 = (0..20_000_000u64).map(|i| i % 7).sum();")
        replies = []
        for _ in range(2):
            msg = self.kc.session.msg("usage_request", {})
            self.kc.control_channel.send(msg)
            while True:
                reply = self.kc.control_channel.get_msg(timeout=10)
                if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                    break
            self.assertEqual(reply["msg_type"], "usage_reply")
            replies.append(reply["content"])
            time.sleep(0.3)
        c = replies[1]
        for key in ("hostname", "pid", "kernel_cpu", "kernel_memory", "cpu_count", "host_virtual_memory"):
            self.assertIn(key, c)
        self.assertGreater(c["kernel_memory"], 1 << 20)
        self.assertGreaterEqual(c["kernel_cpu"], 0.0)
        mem = c["host_virtual_memory"]
        self.assertTrue(0 < mem["available"] <= mem["total"], mem)
        # The cell process is below the kernel and counted in its memory.
        cell = c["cuprite"]["cell_process"]
        self.assertIsNotNone(cell)
        self.assertGreater(cell["memory"], 0)
        self.assertLessEqual(cell["memory"], c["kernel_memory"])
        # The GPU pools as of the end of the last cell (none opened on a machine without a GPU).
        gpu = c["cuprite"]["gpu_memory"]
        self.assertLess(gpu["as_of_seconds_ago"], 60)
        for d in gpu["devices"]:
            self.assertTrue(0 <= d["used"] <= d["reserved"] <= d["total"], d)

    def test_comm_to_unknown_target_is_closed(self):
        comm_id = uuid.uuid4().hex
        msg = self.kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": "nope", "data": {}})
        self.kc.shell_channel.send(msg)
        deadline = time.monotonic() + 10
        closed = False
        while time.monotonic() < deadline and not closed:
            try:
                m = self.kc.iopub_channel.get_msg(timeout=1)
            except queue.Empty:
                continue
            validate(m)
            closed = m["msg_type"] == "comm_close" and m["content"]["comm_id"] == comm_id
        self.assertTrue(closed)
        info = self.kc.comm_info()
        reply = self.kc.get_shell_msg(timeout=10)
        while reply["parent_header"].get("msg_id") != info:
            reply = self.kc.get_shell_msg(timeout=10)
        self.assertEqual(reply["content"], {"status": "ok", "comms": {}})

    def test_is_complete_indent(self):
        self.flush()
        msg_id = self.kc.is_complete("fn f() {\n    if true {")
        reply = self.kc.get_shell_msg(timeout=10)
        validate(reply)
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"], {"status": "incomplete", "indent": "        "})

    def test_bad_signature_is_dropped(self):
        marker = f"/tmp/cuprite-bad-signature-{uuid.uuid4().hex}"
        ctx = zmq.Context.instance()
        sock = ctx.socket(zmq.DEALER)
        sock.linger = 0
        ci = self.km.get_connection_info()
        sock.connect(f"{ci['transport']}://{ci['ip']}:{ci['shell_port']}")
        forger = Session(key=b"not-the-kernel-key", username="intruder")
        content = {"code": f'std::fs::write("{marker}", "ran").unwrap();', "silent": False,
                   "store_history": True, "user_expressions": {}, "allow_stdin": False,
                   "stop_on_error": True}
        forged = forger.send(sock, "execute_request", content)
        try:
            # No reply and no status for the forged request.
            time.sleep(2)
            self.assertEqual(sock.poll(100), 0)
            while True:
                try:
                    m = self.kc.iopub_channel.get_msg(timeout=0.1)
                except queue.Empty:
                    break
                self.assertNotEqual(m["parent_header"].get("msg_id"), forged["header"]["msg_id"])
            self.assertFalse(os.path.exists(marker))
            # The kernel still works.
            self.assertEqual(self.result_text(self.ok("2 + 2")), "4")
        finally:
            sock.close()
            if os.path.exists(marker):
                os.remove(marker)


class InterruptAndCrashTests(KernelCase):
    def interrupt_when_started(self, code):
        msg_id = self.kc.execute(code)
        started = {}

        def note(msg):
            if msg["msg_type"] == "stream" and "started" in msg["content"].get("text", ""):
                if "t" not in started:
                    started["t"] = time.monotonic()
                    self.km.interrupt_kernel()

        return self.collect(msg_id, CELL_TIMEOUT, on_output=note), started

    def test_cooperative_interrupt_keeps_variables(self):
        self.ok("let survivor = 41;")
        code = (
            'println!("started");\n'
            "while !cuprite_kernel_io::interrupted() {\n"
            "    std::thread::sleep(std::time::Duration::from_millis(10));\n"
            "}\n"
            'println!("stopped cleanly");'
        )
        r, started = self.interrupt_when_started(code)
        self.assertIn("t", started)
        self.assertEqual(r.content["status"], "ok", r.content)
        self.assertIn("stopped cleanly", r.stream("stdout"))
        self.assertEqual(self.result_text(self.ok("survivor + 1")), "42")

    def test_interrupt_array_loop_keeps_variables(self):
        # Runtime calls stop at the interrupt (an operator panics with it):
        # the cell fails at once and the process, with its variables, stays.
        self.ok("let kept = cp::arange(4)?;\nlet mut acc = cp::zeros([256], cp::f64)?;")
        r, started = self.interrupt_when_started('println!("started");\nloop { acc = &acc + 1.0; }')
        self.assertIn("t", started)
        self.assertEqual(r.content["status"], "error", r.content)
        self.assertEqual(r.content["ename"], "KeyboardInterrupt")
        self.assertIn("interrupted", r.content["evalue"])
        self.assertNotIn("variables were lost", r.content["evalue"])
        errors = r.of("error")
        self.assertEqual(len(errors), 1, r.types())
        text = self.result_text(self.ok('format!("{} {}", kept.size(), acc.size())'))
        self.assertEqual(text, '"4 256"')

    def test_interrupt_question_mark_loop_keeps_variables(self):
        # With `?` the runtime's Error::Interrupted ends the cell as an error.
        self.ok("let mut total = cp::zeros([16], cp::f32)?;")
        code = 'println!("started");\nloop { total = cp::add(&total, 1.0)?; }'
        r, started = self.interrupt_when_started(code)
        self.assertIn("t", started)
        self.assertEqual(r.content["status"], "error", r.content)
        self.assertEqual(r.content["ename"], "KeyboardInterrupt")
        self.assertEqual(self.result_text(self.ok("total.size()")), "16")

    def test_interrupt_infinite_loop(self):
        r, started = self.interrupt_when_started('println!("started");\nloop {}')
        self.assertIn("t", started)
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "KeyboardInterrupt")
        self.assertIn("variables were lost", r.content["evalue"])
        self.assertEqual(self.result_text(self.ok("1 + 1")), "2")

    def test_interrupt_long_computation(self):
        code = (
            'println!("started");\n'
            "let mut acc = 0u64;\n"
            "for i in 0..u64::MAX { acc = std::hint::black_box(acc.wrapping_add(i)); }\n"
            "acc"
        )
        r, started = self.interrupt_when_started(code)
        self.assertIn("t", started)
        self.assertEqual(r.content["ename"], "KeyboardInterrupt")
        self.assertLess(r.outputs[-1][0] - started["t"], 15)
        self.assertEqual(self.result_text(self.ok("3 + 3")), "6")

    def test_interrupt_during_compilation_keeps_the_session(self):
        self.ok("let before_compile = 7;")
        # Constant evaluation keeps rustc busy for a long time.
        code = (
            "const SLOW: u64 = { let mut i = 0u64; let mut s = 0u64;\n"
            "    while i < 3_000_000_000 { s = s.wrapping_add(i ^ (s >> 3)); i += 1; } s };\n"
            "SLOW"
        )
        msg_id = self.kc.execute(code)
        time.sleep(4)
        t = time.monotonic()
        self.km.interrupt_kernel()
        r = self.collect(msg_id, CELL_TIMEOUT)
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "KeyboardInterrupt")
        self.assertIn("Compilation was cancelled", r.content["evalue"])
        self.assertLess(time.monotonic() - t, 10)
        self.assertEqual(self.result_text(self.ok("before_compile * 6")), "42")

    def test_crash_restarts_the_cell_process(self):
        self.ok("let doomed = 1;")
        r = self.run_cell("std::process::abort();")
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "SessionRestarted")
        self.assertIn("variables were lost", r.content["evalue"])
        self.assertEqual(self.result_text(self.ok("5 + 5")), "10")
        # Output capture works again in the new cell process.
        self.assertEqual(self.ok('print!("again")').stream("stdout"), "again")
        r = self.run_cell("doomed")
        self.assertEqual(r.content["status"], "error")


class RichDisplayTests(KernelCase):
    """Values of the display crate reach the notebook with their MIME types,
    in order with the cell's text, and update in place by display id."""

    def result_data(self, r):
        res = r.of("execute_result")
        self.assertEqual(len(res), 1, r.types())
        return res[0]["content"]["data"]

    def test_array_is_an_html_table(self):
        r = self.ok("let m = cp::arange(6)?.reshape([2, 3])?;\nm")
        data = self.result_data(r)
        self.assertEqual(data["text/plain"], "array([[0, 1, 2],\n       [3, 4, 5]])")
        self.assertIn("<table>", data["text/html"])

    def test_final_question_mark_is_rich(self):
        data = self.result_data(self.ok("cp::arange(6)?.reshape([2, 3])?.sum_axis(1)?"))
        self.assertEqual(data["text/plain"], "array([ 3, 12])")
        self.assertIn("<table>", data["text/html"])

    def test_ok_result_value_is_rich(self):
        data = self.result_data(self.ok("cp::arange(6)?.reshape([2, 3])"))
        self.assertIn("<table>", data["text/html"])

    def test_err_result_value_fails_the_cell(self):
        for code, ename, start in [
            ("cp::arange(10)?.reshape([3, 4])", "ShapeError", "reshape"),
            ("cp::arange(10)?.slice(s![..;0])", "InvalidArgumentError", "slice"),
        ]:
            r = self.run_cell(code)
            self.assertEqual(r.content["status"], "error", r.content)
            self.assertEqual(r.content["ename"], ename, r.content)
            self.assertTrue(r.content["evalue"].startswith(start), r.content)
            self.assertEqual([t for t in r.types() if t != "execute_input"], ["error"])
        # The session goes on.
        self.assertEqual(self.result_text(self.ok("1 + 1")), "2")

    def test_figure_is_an_image(self):
        r = self.ok("cp::plot::line(&cp::linspace(0.0, 1.0, 20)?)?.title(\"ramp\")")
        data = self.result_data(r)
        self.assertTrue(base64.b64decode(data["image/png"]).startswith(b"\x89PNG\r\n\x1a\n"))
        self.assertIn("<svg", data["image/svg+xml"])
        self.assertTrue(data["text/plain"], data)

    def test_reports(self):
        # (bound to a name first: evcxr shows a trailing struct literal with Debug)
        code = ('let t = cp::Timings { name: "loop".into(), cpu_seconds: vec![1e-3, 2e-3, 1.5e-3],'
                ' ..Default::default() };\nt')
        data = self.result_data(self.ok(code))
        self.assertIn("<table>", data["text/html"])
        self.assertIn("loop", data["text/plain"])
        data = self.result_data(self.ok("cp::memory_report()"))
        self.assertIn("Memory pools", data["text/html"])
        data = self.result_data(self.ok("cp::Device::cpu()"))
        self.assertIn("logical cores", data["text/plain"])
        self.assertIn("<table>", data["text/html"])

    def test_displays_in_order_with_stdout(self):
        code = (
            'println!("a");\n'
            "display(&cp::arange(3)?);\n"
            'println!("b");\n'
            "cp::display(&cp::plot::hist(&cp::arange(10)?, 5)?);\n"
            'display(&Html::new("<i>x</i>", "x"));\n'
            'print!("c");'
        )
        r = self.ok(code)
        seq = []
        for _, m in r.outputs:
            if m["msg_type"] == "stream":
                seq.append(("stream", m["content"]["text"]))
            elif m["msg_type"] == "display_data":
                data = m["content"]["data"]
                self.assertIn("text/plain", data)
                seq.append(("display", sorted(k for k in data if k != "text/plain")))
        self.assertEqual(seq, [
            ("stream", "a\n"),
            ("display", ["text/html"]),
            ("stream", "b\n"),
            ("display", ["image/png", "image/svg+xml"]),
            ("display", ["text/html"]),
            ("stream", "c"),
        ])
        png = r.of("display_data")[1]["content"]
        self.assertEqual(set(png["metadata"]["image/png"]), {"width", "height"})

    def test_update_display_by_id(self):
        code = (
            'display_with_id(&Text("0%".into()), "job");\n'
            'update_display(&Html::new("<b>done</b>", "done"), "job");\n'
            "let h = DisplayHandle::show(&cp::arange(2)?);\n"
            "h.update(&cp::arange(3)?);"
        )
        r = self.ok(code)
        shown = r.of("display_data")
        updates = r.of("update_display_data")
        self.assertEqual(len(shown), 2, r.types())
        self.assertEqual(len(updates), 2, r.types())
        self.assertEqual(shown[0]["content"]["transient"], {"display_id": "job"})
        self.assertEqual(updates[0]["content"]["transient"], {"display_id": "job"})
        self.assertEqual(updates[0]["content"]["data"]["text/html"], "<b>done</b>")
        hid = shown[1]["content"]["transient"]["display_id"]
        self.assertEqual(updates[1]["content"]["transient"]["display_id"], hid)
        self.assertEqual(updates[1]["content"]["data"]["text/plain"], "array([0, 1, 2])")
        self.assertIn("text/html", updates[1]["content"]["data"])

    def test_progress_updates_in_place(self):
        code = (
            "let total: u64 = cp::progress(0..5u64).map(|i| {\n"
            "    std::thread::sleep(std::time::Duration::from_millis(120)); i\n"
            "}).sum();\n"
            "total"
        )
        r = self.ok(code)
        shown = r.of("display_data")
        self.assertEqual(len(shown), 1, r.types())
        bar = shown[0]["content"]
        self.assertIn("<progress", bar["data"]["text/html"])
        bid = bar["transient"]["display_id"]
        updates = r.of("update_display_data")
        self.assertGreaterEqual(len(updates), 2, r.types())
        self.assertTrue(all(u["content"]["transient"]["display_id"] == bid for u in updates))
        self.assertIn("100%", updates[-1]["content"]["data"]["text/plain"])
        self.assertEqual(self.result_text(r), "10")

    def test_clear_output_from_the_display_crate(self):
        r = self.ok('println!("old");\nclear_output(true);\ndisplay(&Text("new".into()));')
        types = [t for t in r.types() if t != "execute_input"]
        self.assertEqual(types, ["stream", "clear_output", "display_data"])
        self.assertEqual(r.of("clear_output")[0]["content"], {"wait": True})


class CompletionTests(KernelCase):
    """Completion and inspection of `cp::` paths (cp is the runtime re-exported
    by the display crate)."""

    def shell(self, msg_id):
        while True:
            reply = self.kc.get_shell_msg(timeout=CELL_TIMEOUT)
            validate(reply)
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply["content"]

    def test_cp_paths_complete(self):
        code = "let v = cp::lins"
        c = self.shell(self.kc.complete(code, len(code)))
        self.assertEqual(c["status"], "ok")
        self.assertIn("linspace", c["matches"], c)
        self.assertEqual(code[c["cursor_start"]:c["cursor_end"]], "lins", c)

    def test_cp_paths_inspect(self):
        code = "cp::linspace"
        c = self.shell(self.kc.inspect(code, len(code)))
        self.assertEqual(c["status"], "ok")
        self.assertTrue(c["found"], c)
        self.assertIn("evenly spaced", c["data"]["text/plain"])


class LifecycleTests(unittest.TestCase):
    def test_kernel_info_at_once_then_restart_and_shutdown(self):
        km = KernelManager(kernel_name=KERNEL_NAME)
        t0 = time.monotonic()
        km.start_kernel()
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            self.assertLess(time.monotonic() - t0, 20)
            msg_id = kc.execute("std::process::id()")
            pid = None
            while pid is None:
                m = kc.get_iopub_msg(timeout=WARMUP_TIMEOUT)
                if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_result":
                    pid = int(m["content"]["data"]["text/plain"])
            self.assertTrue(os.path.exists(f"/proc/{pid}"))

            km.restart_kernel(now=False)
            kc.wait_for_ready(timeout=60)
            reply = kc.execute_interactive("2 * 21", timeout=WARMUP_TIMEOUT, output_hook=lambda m: None)
            self.assertEqual(reply["content"]["status"], "ok")
            deadline = time.monotonic() + 10
            while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
                time.sleep(0.1)
            self.assertFalse(os.path.exists(f"/proc/{pid}"), "the old cell process outlived its kernel")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=False)
        self.assertFalse(km.is_alive())


if __name__ == "__main__":
    unittest.main()

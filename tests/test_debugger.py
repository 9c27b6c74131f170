"""The debug protocol subset that JupyterLab's Variables panel uses, through
the control channel as a front end sends it: initialize (with its
`initialized` event), attach, debugInfo, configurationDone, inspectVariables
(arrays with shape, dtype and device), richInspectVariables (an array's HTML
table), breakpoints answered as not verified, refusals, disconnect.

Run by tests/run_kernel_tests.sh (CUPRITE_TEST_FILES=test_debugger.py).
"""
import queue
import time
import unittest

from test_protocol import CELL_TIMEOUT, KernelCase


class DebuggerTests(KernelCase):
    seq = 0

    def debug(self, command, arguments=None, timeout=CELL_TIMEOUT):
        DebuggerTests.seq += 1
        content = {"type": "request", "seq": DebuggerTests.seq, "command": command,
                   "arguments": arguments or {}}
        msg = self.kc.session.msg("debug_request", content)
        self.kc.control_channel.send(msg)
        deadline = time.monotonic() + timeout
        while True:
            reply = self.kc.control_channel.get_msg(timeout=max(deadline - time.monotonic(), 1))
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                break
        r = reply["content"]
        self.assertEqual(reply["msg_type"], "debug_reply")
        self.assertEqual((r["type"], r["command"], r["request_seq"]),
                         ("response", command, DebuggerTests.seq))
        return msg["header"]["msg_id"], r

    def events(self, parent_id):
        found = []
        end = time.monotonic() + 5
        while time.monotonic() < end:
            try:
                m = self.kc.iopub_channel.get_msg(timeout=0.5)
            except queue.Empty:
                continue
            if m["parent_header"].get("msg_id") == parent_id and m["msg_type"] == "debug_event":
                found.append(m["content"])
            if m["parent_header"].get("msg_id") == parent_id and m["msg_type"] == "status" \
                    and m["content"]["execution_state"] == "idle":
                break
        return found

    def test_variables_panel_session(self):
        msg_id, r = self.debug("initialize", {"clientID": "jupyterlab", "adapterID": "rust",
                                              "linesStartAt1": True, "columnsStartAt1": True})
        self.assertTrue(r["success"], r)
        self.assertTrue(r["body"]["supportsConfigurationDoneRequest"])
        self.assertIn("initialized", [e["event"] for e in self.events(msg_id)])
        self.assertTrue(self.debug("attach")[1]["success"])
        info = self.debug("debugInfo")[1]["body"]
        self.assertTrue(info["isStarted"])
        self.assertEqual(info["breakpoints"], [])
        self.assertEqual(info["stoppedThreads"], [])
        self.assertTrue(info["richRendering"])
        self.assertTrue(self.debug("configurationDone")[1]["success"])

        self.ok("let grid = cp::zeros([3, 4], cp::float32)?;\nlet steps: usize = 40;\n"
                "let name = String::from(\"heat\");")
        r = self.debug("inspectVariables")[1]
        self.assertTrue(r["success"], r)
        by_name = {v["name"]: v for v in r["body"]["variables"]}
        self.assertEqual(by_name["grid"]["value"].split(" on ")[0], "(3, 4) float32")
        self.assertIn("Array", by_name["grid"]["type"])
        self.assertEqual(by_name["steps"]["value"], "40")
        self.assertEqual(by_name["name"]["value"], '"heat"')
        self.assertEqual(by_name["steps"]["variablesReference"], 0)

        r = self.debug("richInspectVariables", {"variableName": "grid"})[1]
        self.assertTrue(r["success"], r)
        self.assertIn("<table", r["body"]["data"]["text/html"])
        self.assertIn("float32", r["body"]["data"]["text/plain"])
        # Not a variable, not a name: refused with a message, nothing run.
        r = self.debug("richInspectVariables", {"variableName": "nope"})[1]
        self.assertFalse(r["success"])
        self.assertIn("not a variable", r["message"])
        r = self.debug("richInspectVariables", {"variableName": "grid); std::process::exit(1"})[1]
        self.assertFalse(r["success"])

        r = self.debug("setBreakpoints", {"source": {"path": "/tmp/x.rs"},
                                          "breakpoints": [{"line": 2}]})[1]
        self.assertTrue(r["success"])
        bp = r["body"]["breakpoints"][0]
        self.assertFalse(bp["verified"])
        self.assertIn("breakpoints and stepping are not available", bp["message"])
        r = self.debug("stackTrace", {"threadId": 1})[1]
        self.assertFalse(r["success"])
        r = self.debug("frobnicate")[1]
        self.assertFalse(r["success"])
        self.assertIn("frobnicate", r["message"])

        self.assertTrue(self.debug("disconnect", {"restart": False})[1]["success"])
        self.assertFalse(self.debug("debugInfo")[1]["body"]["isStarted"])
        # The session is untouched: the variables are still there.
        self.assertEqual(self.result_text(self.ok("steps + 2")), "42")


if __name__ == "__main__":
    unittest.main()

"""Malformed and hostile Jupyter messages against cuprite-kernel.

A corpus of messages no well-behaved front end sends, on the shell, control
and stdin channels (and raw bytes on every port): bad signatures, missing and
extra frames, invalid JSON, wrong JSON types in every header and content
field, unknown message types, oversized frames, cursors out of range, a flood
of requests, clients that disconnect before their reply. The property, for
each: the kernel answers (an error reply where the protocol has one, a
well-formed and signed one in any case) or ignores the message, its process
stays alive, and the next valid cell runs.

One kernel serves the whole module (the first cell compiles the crates cells
link); a probe request after each hostile message, on the same socket, shows
that everything before it was handled (the kernel handles a channel's
messages in order) without waiting on timeouts.

Run through tests/run_kernel_tests.sh (it installs the kernelspec named in
CUPRITE_KERNEL_NAME into a temporary JUPYTER_PATH).
"""

import hashlib
import hmac
import json
import os
import queue
import socket
import struct
import threading
import time
import unittest
import uuid
from datetime import datetime, timezone

import zmq
from jupyter_client.manager import start_new_kernel

KERNEL_NAME = os.environ.get("CUPRITE_KERNEL_NAME", "cuprite")
WARMUP_TIMEOUT = int(os.environ.get("CUPRITE_WARMUP_TIMEOUT", "1800"))
CELL_TIMEOUT = int(os.environ.get("CUPRITE_CELL_TIMEOUT", "120"))
# How long one request (a probe, a reply to a hostile message) may take.
REPLY_TIMEOUT = 60

DELIM = b"<IDS|MSG>"
MB = 1 << 20

# Values of every JSON type, and edge cases of each, put where a field of
# another type belongs.
BAD_VALUES = [
    None, True, 0, -1, 1.5, 1e308, 2**63, -(2**63), 2**64 + 1, -(2**63) - 1, 10**30,
    "", "x", "\u00e9\U0001F600\x00", [], [1, "a", None], {}, {"nested": {"deep": [None, {"a": 1}]}},
]

KM = None
KC = None


def setUpModule():
    global KM, KC
    KM, KC = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=120)
    reply = KC.execute_interactive("1", timeout=WARMUP_TIMEOUT, output_hook=lambda m: None)
    assert reply["content"]["status"] == "ok", reply["content"]


def tearDownModule():
    KC.stop_channels()
    KM.shutdown_kernel(now=False)


def dumps(value):
    """A frame: JSON of value, or value itself when it is already bytes."""
    return value if isinstance(value, bytes) else json.dumps(value).encode()


class Raw:
    """A raw DEALER on one channel that signs with the kernel's key."""

    def __init__(self, channel, key=None, identity=None):
        ci = KM.get_connection_info()
        self.key = ci["key"] if key is None else key
        if isinstance(self.key, str):
            self.key = self.key.encode()
        self.sock = zmq.Context.instance().socket(zmq.DEALER)
        self.sock.linger = 0
        self.sock.identity = identity or uuid.uuid4().hex.encode()
        self.sock.connect(f"{ci['transport']}://{ci['ip']}:{ci[channel + '_port']}")
        self.session = uuid.uuid4().hex

    def close(self):
        self.sock.close(linger=0)

    def sign(self, parts):
        h = hmac.new(self.key, digestmod=hashlib.sha256)
        for p in parts:
            h.update(p)
        return h.hexdigest().encode()

    def header(self, msg_type, /, **override):
        h = {
            "msg_id": uuid.uuid4().hex,
            "username": "fuzz",
            "session": self.session,
            "date": datetime.now(timezone.utc).isoformat(),
            "msg_type": msg_type,
            "version": "5.3",
        }
        h.update(override)
        return h

    def frames(self, header, content, parent=None, metadata=None, buffers=()):
        """Signed frames; any of the four parts may be raw bytes."""
        parts = [dumps(header), dumps({} if parent is None else parent),
                 dumps({} if metadata is None else metadata), dumps(content)]
        return [DELIM, self.sign(parts)] + parts + list(buffers)

    def send(self, frames):
        self.sock.send_multipart(frames, copy=False)

    def request(self, msg_type, content, **header_override):
        header = self.header(msg_type, **header_override)
        self.send(self.frames(header, content))
        return header["msg_id"]

    def recv(self, timeout):
        """The next reply, decoded and checked to be well-formed; None on timeout."""
        if not self.sock.poll(int(timeout * 1000)):
            return None
        frames = self.sock.recv_multipart()
        assert DELIM in frames, frames[:3]
        at = frames.index(DELIM)
        sig, parts = frames[at + 1], frames[at + 2:at + 6]
        assert len(parts) == 4, f"a reply of {len(frames)} frames"
        assert hmac.compare_digest(sig, self.sign(parts)), "a reply with a bad signature"
        header, parent, metadata, content = (json.loads(p) for p in parts)
        for d in (header, parent, metadata, content):
            assert isinstance(d, dict), parts
        for key in ("msg_id", "msg_type", "session", "username", "version", "date"):
            assert isinstance(header.get(key), str), header
        return {"header": header, "parent_header": parent, "metadata": metadata, "content": content,
                "msg_type": header["msg_type"]}

    def until(self, msg_id, timeout=REPLY_TIMEOUT):
        """Replies up to the one to msg_id: (that reply, the replies before it)."""
        deadline = time.monotonic() + timeout
        before = []
        while True:
            left = deadline - time.monotonic()
            reply = self.recv(max(left, 0)) if left > 0 else None
            if reply is None:
                raise AssertionError(f"no reply to {msg_id} within {timeout} s "
                                     f"(kernel alive: {KM.is_alive()})")
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply, before
            before.append(reply)

    def probe(self, timeout=REPLY_TIMEOUT):
        """The replies the kernel sent before answering a valid kernel_info_request."""
        reply, before = self.until(self.request("kernel_info_request", {}), timeout)
        assert reply["msg_type"] == "kernel_info_reply", reply
        assert reply["content"]["status"] == "ok", reply["content"]
        return before


def describe(frames):
    """A hostile message, shortened, for a failure's message."""
    return [bytes(f[:120]) + (b"..." if len(f) > 120 else b"") for f in frames[:8]]


def drain_iopub():
    while True:
        try:
            KC.iopub_channel.get_msg(timeout=0.01)
        except queue.Empty:
            return


class FuzzCase(unittest.TestCase):
    def setUp(self):
        self.sockets = []

    def tearDown(self):
        for s in self.sockets:
            s.close()
        drain_iopub()

    def raw(self, channel, **kw):
        r = Raw(channel, **kw)
        self.sockets.append(r)
        return r

    def assert_alive(self):
        self.assertTrue(KM.is_alive(), "the kernel process died")

    def assert_runs(self):
        """The kernel is alive and a valid cell still runs."""
        self.assert_alive()
        outputs = []
        reply = KC.execute_interactive("1 + 1", timeout=CELL_TIMEOUT,
                                       output_hook=lambda m: outputs.append(m))
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        results = [m["content"]["data"]["text/plain"] for m in outputs if m["msg_type"] == "execute_result"]
        self.assertEqual(results, ["2"])

    def assert_handled(self, raw, frames, replies=None, reply_type=None):
        """Sends frames, then a probe: the kernel answered them with `replies`
        well-formed replies (None: any number), of reply_type when given, and
        an error status where the reply has one."""
        raw.send(frames)
        try:
            before = raw.probe()
        except AssertionError as e:
            raise AssertionError(f"{e}, after {describe(frames)}") from None
        if replies is not None:
            # Debug replies come from a task of their own, maybe after the probe's.
            while len(before) < replies:
                late = raw.recv(REPLY_TIMEOUT)
                if late is None:
                    break
                before.append(late)
            self.assertEqual(len(before), replies, [b["msg_type"] for b in before])
        for b in before:
            if reply_type is not None:
                self.assertEqual(b["msg_type"], reply_type)
            if b["msg_type"].endswith("_reply") and b["msg_type"] != "debug_reply":
                self.assertIn(b["content"].get("status"),
                              ("ok", "error", "aborted", "complete", "incomplete", "invalid", "unknown"), b)
        return before


class SignatureAndFramingTests(FuzzCase):
    def test_bad_signatures_are_dropped(self):
        for channel in ("shell", "control"):
            raw = self.raw(channel)
            forger = Raw(channel, key=b"not-the-kernel-key")
            try:
                good = raw.frames(raw.header("kernel_info_request"), {})
                sig = good[1]
                for bad_sig in (forger.frames(raw.header("kernel_info_request"), {})[1],
                                sig[:10], sig + b"00", sig.upper(), b"zz" * 32, b"", b"\xff" * 64,
                                b"0" * 64):
                    self.assert_handled(raw, [DELIM, bad_sig] + good[2:], replies=0)
                # Signed, then changed.
                changed = good[:]
                changed[5] = b'{"changed": true}'
                self.assert_handled(raw, changed, replies=0)
            finally:
                forger.close()
        stdin = self.raw("stdin", key=b"not-the-kernel-key")
        stdin.send(stdin.frames(stdin.header("input_reply"), {"value": "forged"}))
        self.assert_runs()

    def test_missing_and_extra_frames(self):
        for channel in ("shell", "control", "stdin"):
            raw = self.raw(channel)
            h, c = raw.header("kernel_info_request"), {}
            parts = [dumps(h), b"{}", b"{}", dumps(c)]
            cases = [
                [b"no delimiter"],
                [b""],
                [DELIM],
                [DELIM, b""],
                [b"", b"", b""],
                [DELIM, raw.sign([])],
            ] + [[DELIM, raw.sign(parts[:n])] + parts[:n] for n in range(1, 4)]
            for frames in cases:
                if channel == "stdin":
                    raw.send(frames)
                else:
                    self.assert_handled(raw, frames, replies=0)
            if channel == "stdin":
                continue
            # Extra routing frames before the delimiter and buffers after the
            # content are allowed: answered.
            self.assert_handled(raw, [b"route-1", b"", b"\x00\xff"] + raw.frames(raw.header("kernel_info_request"), {}),
                                replies=1, reply_type="kernel_info_reply")
            self.assert_handled(raw, raw.frames(raw.header("kernel_info_request"), {},
                                                buffers=[b"", b"\x00" * 1000, b"buf"]),
                                replies=1, reply_type="kernel_info_reply")
            # A second delimiter inside the message.
            self.assert_handled(raw, [DELIM] + raw.frames(raw.header("kernel_info_request"), {}))
        self.assert_runs()

    def test_invalid_json_in_each_part(self):
        junk = [b"{", b"\xff\xfe\x00", b"", b"null", b"[1, 2]", b'"text"', b"1e400", b"42",
                b"[" * 100_000 + b"]" * 100_000, b'{"a": ' * 10_000 + b"1" + b"}" * 10_000,
                b'{"msg_id": "\\ud800"}']
        for channel in ("shell", "control"):
            raw = self.raw(channel)
            for part in range(4):
                for bad in junk:
                    parts = [raw.header("kernel_info_request"), None, None, {}]
                    parts[part] = bad
                    before = self.assert_handled(raw, raw.frames(*parts))
                    if part == 0:
                        self.assertEqual(before, [], "a message without a header was answered")
        self.assert_runs()

    def test_oversized_frames(self):
        raw = self.raw("shell")
        big = "a" * (64 * MB)
        # 64 MB of content, buffers, metadata: answered.
        self.assert_handled(raw, raw.frames(raw.header("kernel_info_request"), {"padding": big}),
                            replies=1, reply_type="kernel_info_reply")
        self.assert_handled(raw, raw.frames(raw.header("kernel_info_request"), {},
                                            buffers=[b"\x00" * (64 * MB)]),
                            replies=1, reply_type="kernel_info_reply")
        self.assert_handled(raw, raw.frames(raw.header("kernel_info_request"), {}, metadata={"m": big}),
                            replies=1, reply_type="kernel_info_reply")
        # 64 MB with a bad signature: dropped.
        frames = raw.frames(raw.header("kernel_info_request"), {"padding": big})
        frames[1] = b"0" * 64
        self.assert_handled(raw, frames, replies=0)
        # 64 MB of code to check, complete and inspect.
        for msg_type, content in (
            ("is_complete_request", {"code": "(" * (64 * MB)}),
            ("is_complete_request", {"code": "let x = 1;\n" * (6 * MB)}),
            ("complete_request", {"code": "let x = 1;\n" * (6 * MB) + "cp::lins", "cursor_pos": 66 * MB + 8}),
            ("inspect_request", {"code": "(" * (64 * MB), "cursor_pos": 1, "detail_level": 0}),
        ):
            self.assert_handled(raw, raw.frames(raw.header(msg_type), content),
                                replies=1, reply_type=msg_type.replace("_request", "_reply"))
        del big
        # A long header field comes back in the reply's parent header.
        self.assert_handled(raw, raw.frames(raw.header("kernel_info_request", msg_id="m" * (8 * MB)), {}),
                            replies=1, reply_type="kernel_info_reply")
        self.assert_runs()


class FieldTypeTests(FuzzCase):
    def test_wrong_types_in_every_header_field(self):
        fields = ("msg_id", "username", "session", "date", "msg_type", "version")
        for channel in ("shell", "control"):
            raw = self.raw(channel)
            for field in fields:
                h = raw.header("kernel_info_request")
                del h[field]
                self.assert_handled(raw, raw.frames(h, {}))
                for bad in BAD_VALUES:
                    self.assert_handled(raw, raw.frames(raw.header("kernel_info_request", **{field: bad}), {}))
            for header in ([], "header", 5, None, {}):
                self.assertEqual(self.assert_handled(raw, raw.frames(header, {})), [])
            # Dates of any shape.
            for date in ("yesterday", "9999-99-99T99:99:99Z", "1970-01-01T00:00:00Z", "+275760-09-13T00:00:00Z",
                         "2020-01-01T00:00:00+99:00"):
                self.assert_handled(raw, raw.frames(raw.header("kernel_info_request", date=date), {}),
                                    replies=1)
            # The parent header and the metadata of wrong types.
            for bad in BAD_VALUES:
                self.assert_handled(raw, raw.frames(raw.header("kernel_info_request"), {}, parent=bad),
                                    replies=1)
                self.assert_handled(raw, raw.frames(raw.header("kernel_info_request"), {}, metadata=bad),
                                    replies=1)
                self.assert_handled(raw, raw.frames(raw.header("kernel_info_request"), {},
                                                    parent=raw.header("execute_request", msg_id=bad)),
                                    replies=1)
        self.assert_runs()

    def test_wrong_types_in_every_content_field(self):
        shell_fields = {
            "kernel_info_request": ["x"],
            "complete_request": ["code", "cursor_pos"],
            "inspect_request": ["code", "cursor_pos", "detail_level"],
            "is_complete_request": ["code"],
            "history_request": ["output", "raw", "hist_access_type", "session", "start", "stop", "n",
                                "pattern", "unique"],
            "comm_info_request": ["target_name"],
            "comm_open": ["comm_id", "target_name", "data", "target_module"],
            "comm_msg": ["comm_id", "data"],
            "comm_close": ["comm_id", "data"],
            "shutdown_request": [],
        }
        control_fields = {
            "kernel_info_request": ["x"],
            "usage_request": ["x"],
            "interrupt_request": ["x"],
            "debug_request": ["seq", "type", "command", "arguments"],
        }
        valid = {
            "complete_request": {"code": "cp::lins", "cursor_pos": 8},
            "inspect_request": {"code": "cp::linspace", "cursor_pos": 5, "detail_level": 0},
            "is_complete_request": {"code": "let x = (1,"},
            "history_request": {"output": True, "raw": True, "hist_access_type": "range", "session": 0,
                                "start": 0, "stop": 5, "n": 3, "pattern": "*", "unique": True},
            "debug_request": {"seq": 1, "type": "request", "command": "debugInfo", "arguments": {}},
        }
        for channel, table in (("shell", shell_fields), ("control", control_fields)):
            raw = self.raw(channel)
            for msg_type, fields in table.items():
                # The whole content of a wrong type (a shutdown only this way:
                # any content asks for one).
                if msg_type == "shutdown_request":
                    continue
                reply_type = msg_type.replace("_request", "_reply") if msg_type.endswith("_request") else None
                expected = 1 if reply_type else 0
                for content in (None, [], "content", 5, [{"code": "1"}]):
                    self.assert_handled(raw, raw.frames(raw.header(msg_type), content),
                                        replies=expected, reply_type=reply_type)
                for field in fields:
                    for bad in BAD_VALUES + ["\u00e9" * 1000, "[" * 5000, "*" * 200 + "?", "[!]]" * 50]:
                        content = dict(valid.get(msg_type, {}))
                        content[field] = bad
                        self.assert_handled(raw, raw.frames(raw.header(msg_type), content),
                                            replies=expected, reply_type=reply_type)
                    content = dict(valid.get(msg_type, {}))
                    content.pop(field, None)
                    self.assert_handled(raw, raw.frames(raw.header(msg_type), content),
                                        replies=expected, reply_type=reply_type)
        self.assert_runs()

    def test_wrong_types_in_execute_request(self):
        raw = self.raw("shell")
        fields = ("code", "silent", "store_history", "user_expressions", "allow_stdin", "stop_on_error")
        cases = [{"code": bad} for bad in (None, 5, [], {"a": 1}, True)]
        for field in fields[1:]:
            for bad in (None, "yes", 5, [], {"a": {"b": 1}}):
                cases.append({"code": "", field: bad})
        cases.append({"code": "", "user_expressions": {"a": 5, "b": None, "": [], "\u00e9": {"x": 1}}})
        cases.append({"code": "", "user_expressions": {str(i): "1" for i in range(1000)}})
        for content in cases:
            before = self.assert_handled(raw, raw.frames(raw.header("execute_request"), content),
                                         replies=1, reply_type="execute_reply")
            self.assertIsInstance(before[0]["content"].get("user_expressions", {}), dict)
        self.assert_runs()


class RequestTests(FuzzCase):
    def test_unknown_message_types(self):
        for channel in ("shell", "control"):
            raw = self.raw(channel)
            for msg_type, reply_type in (
                ("frobnicate_request", "frobnicate_reply"),
                ("_request", "_reply"),
                ("x" * 10_000 + "_request", "x" * 10_000 + "_reply"),
                ("\u00fcn\u00efcode_request", "\u00fcn\u00efcode_reply"),
                ("nul\x00_request", "nul\x00_reply"),
                ("execute_request_request", "execute_request_reply"),
            ):
                before = self.assert_handled(raw, raw.frames(raw.header(msg_type), {}),
                                             replies=1, reply_type=reply_type)
                self.assertEqual(before[0]["content"]["status"], "error")
            for msg_type in ("", "execute_reply", "status", "input_reply", "stream", "kernel_info",
                             "x" * 10_000, "\x00"):
                self.assert_handled(raw, raw.frames(raw.header(msg_type), {}), replies=0)
        # Requests of the other channel.
        shell = self.raw("shell")
        for msg_type in ("debug_request", "interrupt_request", "usage_request"):
            before = self.assert_handled(shell, shell.frames(shell.header(msg_type), {}), replies=1)
            self.assertEqual(before[0]["content"]["status"], "error")
        control = self.raw("control")
        for msg_type in ("complete_request", "history_request", "comm_info_request", "is_complete_request"):
            before = self.assert_handled(control, control.frames(control.header(msg_type), {}), replies=1)
            self.assertEqual(before[0]["content"]["status"], "error")
        self.assert_runs()

    def test_cursor_out_of_range(self):
        raw = self.raw("shell")
        codes = [
            "let \u00e9t\u00e9 = 1; cp::lins",
            "\U0001F600\U0001F600 cp::lin",
            "%ti",
            "let s = \"\u4e2d\u6587\"; s.len",
            "",
            "\n\n\n",
        ]
        for code in codes:
            n = len(code)
            cursors = [-1, -(2**63), -(2**63) - 1, 2**63, 2**64 + 1, 10**30, n + 1, 10**9, 1.5, -0.5, "3",
                       None, [], {}]
            # Inside a multi-byte character when counted in bytes or UTF-16 units.
            cursors += [len(code.encode()) - 1, len(code.encode("utf-16-le")) // 2 - 1]
            for cursor in cursors:
                for msg_type in ("complete_request", "inspect_request"):
                    content = {"code": code, "cursor_pos": cursor, "detail_level": 0}
                    before = self.assert_handled(raw, raw.frames(raw.header(msg_type), content),
                                                 replies=1, reply_type=msg_type.replace("_request", "_reply"))
                    c = before[0]["content"]
                    self.assertEqual(c["status"], "ok", c)
                    if msg_type == "complete_request":
                        self.assertTrue(0 <= c["cursor_start"] <= c["cursor_end"] <= n, (code, cursor, c))
        self.assert_runs()

    def test_comm_messages_for_unknown_comms(self):
        raw = self.raw("shell")
        for msg_type in ("comm_msg", "comm_close", "comm_open"):
            for comm_id in [uuid.uuid4().hex, "", "x" * 100_000] + BAD_VALUES:
                for data in ({}, None, [], "data", {"method": "update", "state": {"value": 3}}):
                    self.assert_handled(raw, raw.frames(raw.header(msg_type),
                                                        {"comm_id": comm_id, "data": data, "target_name": "nope"}),
                                        replies=0)
        before = self.assert_handled(raw, raw.frames(raw.header("comm_info_request"), {}), replies=1)
        self.assertEqual(before[0]["content"], {"status": "ok", "comms": {}})
        self.assert_runs()

    def test_debug_requests_with_garbage(self):
        raw = self.raw("control")
        contents = [
            {},
            {"command": 5},
            {"command": "richInspectVariables", "arguments": {"variableName": "x; std::process::exit(1)"}},
            {"command": "richInspectVariables", "arguments": {"variableName": "no_such_variable"}},
            {"command": "richInspectVariables", "arguments": {"variableName": "a" * 100_000}},
            {"command": "richInspectVariables", "arguments": "x"},
            {"command": "setBreakpoints", "arguments": {"breakpoints": "x"}},
            {"command": "setBreakpoints", "arguments": {"breakpoints": [1, None, {"line": "a"}, []]}},
            {"command": "setBreakpoints", "arguments": {"breakpoints": [{"line": 1}] * 10_000}},
            {"command": "dumpCell", "arguments": []},
            {"command": "dumpCell", "arguments": {"code": 5}},
            {"command": "inspectVariables", "arguments": 5},
            {"command": "x" * 10_000},
            {"command": "initialize", "seq": {"a": [1]}},
            {"command": "attach", "seq": -1},
            {"command": "disconnect", "seq": 2**64 + 1},
            {"command": "evaluate", "arguments": {"expression": "1 + 1"}},
            {"command": "debugInfo", "type": 5},
            {"command": ["debugInfo"]},
        ]
        for content in contents:
            before = self.assert_handled(raw, raw.frames(raw.header("debug_request"), content),
                                         replies=1, reply_type="debug_reply")
            self.assertIsInstance(before[0]["content"].get("success"), bool, before[0]["content"])
        self.assert_runs()

    def test_debug_request_during_a_cell_leaves_control_open(self):
        # inspectVariables waits for the running cell; an interrupt_request
        # sent after it must still be answered, and stop that cell.
        msg_id = KC.execute("loop { std::thread::sleep(std::time::Duration::from_millis(20)); }")
        deadline = time.monotonic() + CELL_TIMEOUT
        while time.monotonic() < deadline:
            m = KC.get_iopub_msg(timeout=CELL_TIMEOUT)
            if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_input":
                break
        time.sleep(3)
        control = self.raw("control")
        debug_id = control.request("debug_request", {"seq": 7, "type": "request", "command": "inspectVariables",
                                                     "arguments": {}})
        interrupt_id = control.request("interrupt_request", {})
        reply, _ = control.until(interrupt_id, timeout=15)
        self.assertEqual(reply["msg_type"], "interrupt_reply")
        reply = KC.get_shell_msg(timeout=CELL_TIMEOUT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = KC.get_shell_msg(timeout=CELL_TIMEOUT)
        self.assertEqual(reply["content"]["status"], "error")
        reply, _ = control.until(debug_id, timeout=CELL_TIMEOUT)
        self.assertEqual(reply["msg_type"], "debug_reply")
        self.assertTrue(reply["content"]["success"], reply["content"])
        self.assert_runs()

    def test_stdin_garbage_does_not_answer_a_later_input(self):
        stdin = self.raw("stdin")
        stdin.send(stdin.frames(stdin.header("input_reply"), {"value": "stale"}))
        stdin.send(stdin.frames(stdin.header("input_reply"), {"value": 5}))
        stdin.send(stdin.frames(stdin.header("input_reply"), []))
        stdin.send(stdin.frames(stdin.header("input_reply"), b"{"))
        stdin.send([DELIM, b"0" * 64, b"{}", b"{}", b"{}", b'{"value": "unsigned"}'])
        stdin.send(stdin.frames(stdin.header("execute_request"), {"code": "1"}))
        time.sleep(0.5)
        msg_id = KC.execute('cp::input("name? ")?', allow_stdin=True)
        req = KC.get_stdin_msg(timeout=CELL_TIMEOUT)
        self.assertEqual(req["msg_type"], "input_request")
        KC.input("fresh")
        result = None
        deadline = time.monotonic() + CELL_TIMEOUT
        while time.monotonic() < deadline:
            m = KC.get_iopub_msg(timeout=CELL_TIMEOUT)
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "execute_result":
                result = m["content"]["data"]["text/plain"]
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        self.assertEqual(result, '"fresh"')
        reply = KC.get_shell_msg(timeout=10)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = KC.get_shell_msg(timeout=10)
        self.assertEqual(reply["content"]["status"], "ok", reply["content"])
        self.assert_runs()


class LoadAndDisconnectTests(FuzzCase):
    def test_flood_of_requests(self):
        raw = self.raw("shell")
        stop = threading.Event()

        def keep_draining():
            # The flood's 4,000 status messages must not back up on iopub.
            while not stop.is_set():
                drain_iopub()
                time.sleep(0.05)

        drained = threading.Thread(target=keep_draining)
        drained.start()
        try:
            ids = []
            for i in range(2000):
                if i % 2:
                    ids.append(raw.request("kernel_info_request", {}))
                else:
                    ids.append(raw.request("is_complete_request", {"code": "fn f() {" * (i % 7) + "let x = 1;"}))
            start = time.monotonic()
            for msg_id in ids:
                reply = raw.recv(REPLY_TIMEOUT)
                self.assertIsNotNone(reply, f"the flood was not answered ({KM.is_alive()=})")
                self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
                self.assertEqual(reply["content"]["status"] in ("ok", "complete", "incomplete", "invalid"), True)
            self.assertLess(time.monotonic() - start, 120)
        finally:
            stop.set()
            drained.join()
        self.assert_runs()

    def test_clients_that_disconnect_before_the_reply(self):
        for code in ("1 + 1", "std::thread::sleep(std::time::Duration::from_millis(500)); 3"):
            gone = Raw("shell")
            gone.request("execute_request", {"code": code, "silent": False, "store_history": False,
                                             "user_expressions": {}, "allow_stdin": False,
                                             "stop_on_error": True})
            gone.close()
        gone = Raw("control")
        gone.request("kernel_info_request", {})
        gone.close()
        # A flood whose sender left: the replies have nowhere to go.
        gone = Raw("shell")
        for _ in range(500):
            gone.request("kernel_info_request", {})
        gone.close()
        self.assert_runs()
        # Same identity reconnecting gets its later replies.
        identity = uuid.uuid4().hex.encode()
        first = Raw("shell", identity=identity)
        first.request("is_complete_request", {"code": "1"})
        first.close()
        again = self.raw("shell", identity=identity)
        self.assertIsInstance(again.probe(), list)
        self.assert_runs()

    def test_raw_bytes_on_every_port(self):
        ci = KM.get_connection_info()
        ports = [ci[f"{c}_port"] for c in ("shell", "control", "stdin", "hb", "iopub")]
        greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" * 32
        ready_body = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
        ready = b"\x04" + bytes([len(ready_body)]) + ready_body
        payloads = [
            b"",
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
            os.urandom(4096),
            greeting[:10],                                   # a greeting cut short
            greeting,                                        # a greeting, then nothing
            greeting + ready + b"\x02" + struct.pack(">Q", (1 << 64) - 1),  # longer than memory can be
            greeting + ready + b"\x02" + struct.pack(">Q", 64 * MB) + b"cut short",
            greeting + ready + b"\x01\x05hello",                        # a message cut after a 'more' frame
            greeting + b"\x04\xff" + os.urandom(255),                   # a garbage command
        ]
        held = []
        try:
            for port in ports:
                for payload in payloads:
                    s = socket.create_connection((ci["ip"], port), timeout=5)
                    try:
                        s.sendall(payload)
                    except OSError:
                        pass
                    held.append(s)
            time.sleep(1)
            self.assert_alive()
            # While those connections stay open, new clients are served.
            for channel in ("shell", "control"):
                self.raw(channel).probe()
            self.assertEqual(KC.kernel_info(reply=True, timeout=REPLY_TIMEOUT)["content"]["status"], "ok")
        finally:
            for s in held:
                s.close()
        time.sleep(0.5)
        self.assert_runs()


class HugeFrameTests(unittest.TestCase):
    """A ZMTP frame header announcing a frame of terabytes, on a kernel of its own."""

    @unittest.expectedFailure
    def test_a_frame_of_terabytes_announced(self):
        # zeromq 0.7's decoder (codec/zmq_codec.rs) reserves the announced
        # length before any byte of it arrives; the allocation fails and Rust
        # aborts the process ("memory allocation of 4611686018427453543 bytes
        # failed"). Nothing in the kernel's code runs before that: the fix
        # belongs in zeromq (a bound on a frame's length). Expected to fail
        # until then; an unexpected success means it was fixed.
        km, kc = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=120)
        try:
            ci = km.get_connection_info()
            greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" * 32
            ready_body = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
            ready = b"\x04" + bytes([len(ready_body)]) + ready_body
            for length in (1 << 62, 1 << 40):
                with socket.create_connection((ci["ip"], ci["shell_port"]), timeout=5) as s:
                    s.sendall(greeting + ready + b"\x02" + struct.pack(">Q", length))
                    time.sleep(1)
            self.assertTrue(km.is_alive(), "the kernel process died")
            self.assertEqual(kc.kernel_info(reply=True, timeout=REPLY_TIMEOUT)["content"]["status"], "ok")
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)


if __name__ == "__main__":
    unittest.main()

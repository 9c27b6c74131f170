"""The kernel's magics as Jupyter sees them: %time / %%time (CPU, wall and,
with a GPU, CUDA-event time, printed; the cell's value and variables kept),
%timeit / %%timeit (one display_data: text and an HTML report with a
histogram), %gpu and %mem (display_data with text/plain and text/html), and
the cells the kernel runs itself: `!cmd`, %%bash/%%sh, %%writefile, %cd,
%pwd and %env (their output streamed, interruptible, their effects seen by the
Rust cells that follow).

On a machine without a GPU the GPU parts say why; the lead runs this file on
the GPU machine once, where the GPU assertions below apply.

Run through tests/run_kernel_tests.sh.
"""

import os
import tempfile
import time

from jupyter_client.manager import start_new_kernel
from test_protocol import KERNEL_NAME, WARMUP_TIMEOUT, KernelCase

GPU_ONLY_CHECK = 'cuprite::device::cuda_status().usable'


class MagicTests(KernelCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        r = cls.kc.execute_interactive(GPU_ONLY_CHECK, timeout=120, output_hook=cls._keep)
        assert r["content"]["status"] == "ok", r["content"]
        cls.gpu = cls._last.strip() == "true"

    _last = ""

    @classmethod
    def _keep(cls, msg):
        if msg["msg_type"] == "execute_result":
            cls._last = msg["content"]["data"]["text/plain"]

    def display(self, r):
        shown = r.of("display_data")
        self.assertEqual(len(shown), 1, r.types())
        data = shown[0]["content"]["data"]
        self.assertIn("text/plain", data)
        self.assertIn("text/html", data)
        return data

    def test_line_time_of_an_expression_keeps_the_value(self):
        r = self.ok("%time 6 * 7")
        out = r.stream("stdout")
        self.assertRegex(out, r"CPU times: user .+, sys .+, total .+\nWall time: .+\n")
        self.assertEqual(self.result_text(r), "42")
        if self.gpu:
            self.assertIn("GPU time:", out)
            self.assertIn("CUDA events on the default stream of cuda:0", out)
        else:
            self.assertNotIn("GPU time", out)

    def test_line_time_of_a_let_keeps_the_variable(self):
        r = self.ok("%time let timed_let = vec![1u32, 2, 3];")
        self.assertIn("Wall time:", r.stream("stdout"))
        self.assertEqual(r.of("execute_result"), [])
        self.assertEqual(self.result_text(self.ok("timed_let.len()")), "3")

    def test_cell_time_times_the_whole_cell_and_keeps_value_and_variables(self):
        r = self.ok("%%time\nlet timed = 5;\nlet other = vec![timed; 3];\nother.iter()\n    .sum::<i32>()")
        self.assertIn("CPU times:", r.stream("stdout"))
        self.assertEqual(self.result_text(r), "15")
        # The value was borrowed, not moved: both variables are still there.
        self.assertEqual(self.result_text(self.ok("timed + other.len() as i32")), "8")
        r = self.ok("%%time\nlet no_value = 1;")
        self.assertIn("Wall time:", r.stream("stdout"))
        self.assertEqual(r.of("execute_result"), [])

    def test_cell_time_on_the_gpu(self):
        r = self.ok("%%time\nlet g = cp::arange(1 << 20)?.astype(cp::f32)?;\n(&g * 2.0).sum()?")
        out = r.stream("stdout")
        self.assertIn("Wall time:", out)
        self.assertEqual(len(r.of("execute_result")), 1)
        if self.gpu:
            self.assertRegex(out, r"GPU time: [0-9.]+ (ns|µs|ms|s) \(CUDA events")

    def test_timeit_reports_cpu_and_gpu_per_loop(self):
        r = self.ok("%timeit -n 100 -r 3 (0..100u64).sum::<u64>()")
        data = self.display(r)
        text = data["text/plain"]
        self.assertIn("CPU: ", text)
        self.assertIn("per loop (median ± std. dev. of 3 runs, 100 loops each)", text)
        html = data["text/html"]
        self.assertIn("%timeit (0..100u64).sum::&lt;u64&gt;() — 3 runs of 100 loops", html)
        self.assertIn("<table", html)
        self.assertIn("data:image/png;base64,", html)  # the histogram of the runs
        if self.gpu:
            self.assertIn("GPU: ", text)
        else:
            self.assertNotIn("GPU", text)

    def test_cell_timeit_with_setup(self):
        r = self.ok("%%timeit -n 5 -r 2 let v = vec![1u8; 1000];\nv.iter().map(|&x| x as u64).sum::<u64>()")
        text = self.display(r)["text/plain"]
        self.assertIn("2 runs, 5 loops each", text)
        r = self.ok("%timeit -n 3 -r 2 cp::ones([1000], cp::f32)?.sum()?;")
        self.assertIn("2 runs, 3 loops each", self.display(r)["text/plain"])

    def test_gpu(self):
        data = self.display(self.ok("%gpu"))
        text = data["text/plain"]
        self.assertIn("Default device:", text)
        self.assertIn("CUDA_VISIBLE_DEVICES=", text)
        for lib in ("cuda", "cudart", "nvrtc", "cublas", "cufft", "curand", "cusolver", "cusparse", "nccl"):
            self.assertIn(lib, text)
        if self.gpu:
            self.assertIn("cuda:0", text)
            self.assertIn("compute capability", text)
            self.assertIn("memory free", text)
            self.assertRegex(text, r"CUDA libraries found: CUDA 1[23]")
        else:
            self.assertTrue(text.startswith("No usable GPU: cells run on the CPU backend"), text)
            self.assertIn("Why: ", text)
            self.assertIn("No usable GPU", data["text/html"])

    def test_mem(self):
        data = self.display(self.ok("%mem"))
        text = data["text/plain"]
        self.assertIn("Cell process memory: resident", text)
        if self.gpu:
            self.assertIn("device pool (cuda:0)", text)
            self.assertIn("pinned host pool", text)
            self.assertIn("cached for reuse", text)
        else:
            self.assertIn("No device memory pools:", text)

    def test_gpu_watch_updates_one_display_until_interrupted(self):
        if not self.gpu:
            text = self.display(self.ok("%gpu --watch 0.2"))["text/plain"]
            self.assertIn("No usable GPU", text)
            return
        self.ok("let watched = cp::ones([1 << 20], cp::f32)?;")
        msg_id = self.kc.execute("%gpu --watch 0.2")
        updates = []

        def note(msg):
            if msg["msg_type"] == "update_display_data":
                updates.append(msg)
                if len(updates) == 3:
                    self.km.interrupt_kernel()

        r = self.collect(msg_id, 60, on_output=note)
        self.assertEqual(r.content["status"], "ok", r.content)
        self.assertGreaterEqual(len(updates), 3)
        self.assertIn("Session pool", updates[-1]["content"]["data"]["text/plain"])

    def test_whos_lists_variables_with_array_figures(self):
        self.ok("let whos_array = cp::zeros([3, 4], cp::f32)?;\nlet whos_count = 5usize;")
        text = self.display(self.ok("%whos"))["text/plain"]
        self.assertIn("whos_count", text)
        line = next(l for l in text.splitlines() if l.startswith("whos_array"))
        for part in ("(3, 4)", "float32", "48 B"):
            self.assertIn(part, line)
        self.assertIn("Arrays hold", text)
        # The variables are still there.
        self.assertEqual(self.result_text(self.ok("whos_count + whos_array.size()")), "17")

    def test_fusion_switches_and_explains(self):
        r = self.ok("%fusion on")
        self.assertIn("fusion: on", r.stream("stdout"))
        r = self.ok("%fusion off")
        self.assertIn("fusion: off", r.stream("stdout"))
        r = self.run_cell("%fusion sometimes")
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "UsageError")

    def test_lsmagic_and_usage_errors(self):
        r = self.ok("%lsmagic")
        self.assertIn("GPU (CUDA event) time", r.stream("stdout"))
        for bad in ("%timeit", "%time", "%%time now\n1", "%%timeit\n"):
            r = self.run_cell(bad)
            self.assertEqual(r.content["status"], "error", bad)
            self.assertEqual(r.content["ename"], "UsageError", bad)


class ShellTests(KernelCase):
    """`!cmd`, `%%bash`/`%%sh`, `%%writefile`, `%cd`, `%pwd`, `%env`: run by
    the kernel itself, their effects seen by the Rust cells that follow."""

    def test_command_output_streams_and_a_failure_shows_its_status(self):
        r = self.ok("!echo shell-says-hi\n!sh -c 'echo to-stderr >&2; exit 3'")
        self.assertEqual(r.stream("stdout"), "shell-says-hi\n")
        err = r.stream("stderr")
        self.assertIn("to-stderr", err)
        self.assertIn("exited with status 3", err)

    def test_command_output_arrives_while_it_runs(self):
        msg_id = self.kc.execute("!echo first; sleep 1.5; echo second")
        seen = []
        def note(msg):
            if msg["msg_type"] == "stream":
                seen.append(time.monotonic())

        r = self.collect(msg_id, 60, on_output=note)
        self.assertEqual(r.content["status"], "ok", r.content)
        self.assertEqual(r.stream("stdout"), "first\nsecond\n")
        self.assertGreater(seen[-1] - seen[0], 1.0, "the first line came only at the end")

    def test_bash_cell_and_its_failure(self):
        r = self.ok("%%bash\nx=$((6 * 7))\necho \"x is $x\"")
        self.assertEqual(r.stream("stdout"), "x is 42\n")
        r = self.run_cell("%%sh\necho before\nexit 2")
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "CalledProcessError")
        self.assertIn("status 2", r.content["evalue"])
        self.assertIn("before", r.stream("stdout"))

    def test_writefile_then_rust_reads_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "saxpy.cu")
            r = self.ok(f"%%writefile {path}\n__global__ void saxpy() {{}}")
            self.assertIn("Writing", r.stream("stdout"))
            self.ok(f"%%writefile -a {path}\n// appended")
            r = self.ok(f'std::fs::read_to_string("{path}").unwrap()')
            self.assertEqual(self.result_text(r), '"__global__ void saxpy() {}\\n// appended\\n"')

    def test_cd_and_env_reach_the_cells(self):
        before = self.result_text(self.ok("%pwd"))
        with tempfile.TemporaryDirectory() as tmp:
            real = os.path.realpath(tmp)
            try:
                r = self.ok(f"%cd {tmp}")
                self.assertIn(real, r.stream("stdout"))
                self.assertEqual(self.result_text(self.ok("%pwd")), f'"{real}"')
                r = self.ok("std::env::current_dir().unwrap().display().to_string()")
                self.assertEqual(self.result_text(r), f'"{real}"')
                r = self.ok("!pwd")
                self.assertEqual(r.stream("stdout").strip(), real)
            finally:
                self.ok(f"%cd {before.strip(chr(34))}")
        r = self.ok("%env CUPRITE_SHELL_TEST=from the kernel")
        self.assertIn("env: CUPRITE_SHELL_TEST=from the kernel", r.stream("stdout"))
        r = self.ok('std::env::var("CUPRITE_SHELL_TEST").unwrap()')
        self.assertEqual(self.result_text(r), '"from the kernel"')
        self.assertEqual(self.ok("!echo $CUPRITE_SHELL_TEST").stream("stdout"), "from the kernel\n")
        self.assertEqual(self.ok("%env CUPRITE_SHELL_TEST").stream("stdout"), "from the kernel\n")
        r = self.run_cell("%env CUPRITE_NO_SUCH_VARIABLE")
        self.assertEqual(r.content["ename"], "UsageError")

    def test_interrupt_stops_a_command_and_the_session_goes_on(self):
        self.ok("let before_sleep = 7;")
        msg_id = self.kc.execute("!echo started; sleep 60")
        sent = {}

        def note(msg):
            if msg["msg_type"] == "stream" and "started" in msg["content"].get("text", ""):
                if "t" not in sent:
                    sent["t"] = time.monotonic()
                    self.km.interrupt_kernel()

        start = time.monotonic()
        r = self.collect(msg_id, 60, on_output=note)
        self.assertIn("t", sent)
        self.assertLess(time.monotonic() - start, 20)
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "KeyboardInterrupt")
        self.assertEqual(self.result_text(self.ok("before_sleep * 6")), "42")

    def test_indented_negation_is_rust_and_mixed_cells(self):
        self.ok("let flag_value = false;")
        self.assertEqual(self.result_text(self.ok("  !flag_value")), "true")
        # Commands mixed with Rust: evcxr runs the commands, then the Rust.
        r = self.ok("!echo from-evcxr\nflag_value")
        self.assertIn("from-evcxr", r.stream("stdout") + self.result_text(r))
        r = self.run_cell("let a = 1;\n%cd /tmp")
        self.assertEqual(r.content["status"], "error")
        self.assertEqual(r.content["ename"], "UsageError")
        self.assertIn("cell of their own", r.content["evalue"])


class PagerTests(KernelCase):
    def test_question_mark_before_or_after_a_path_pages_its_documentation(self):
        for cell in ("?cp::zeros", "cp::zeros?", "cp::zeros??"):
            r = self.ok(cell)
            pages = [p for p in r.content["payload"] if p.get("source") == "page"]
            self.assertEqual(len(pages), 1, (cell, r.content))
            self.assertIn("zeros", pages[0]["data"]["text/plain"], cell)
        # `?` after a value is Rust's: a cell's error, not the pager.
        r = self.ok("let maybe: Result<i32, String> = Ok(4);")
        r = self.run_cell("maybe?")
        self.assertEqual(r.content["payload"], [])


class SavedStateTests(KernelCase):
    def test_the_next_kernel_of_a_notebook_whose_kernel_died_names_its_newest_save(self):
        import signal
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "lost.npz")
            env = dict(os.environ, JPY_SESSION_NAME=os.path.join(tmp, "lost.ipynb"))
            km, kc = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=120, env=env)
            try:
                for code in ("let kept: usize = 3;", f"%save_vars {path}"):
                    reply = kc.execute_interactive(code, timeout=WARMUP_TIMEOUT)
                    self.assertEqual(reply["content"]["status"], "ok", reply["content"])
                # Killed as the out-of-memory killer or a preempted job kills it.
                os.kill(km.provisioner.pid, signal.SIGKILL)
            finally:
                kc.stop_channels()
                km.shutdown_kernel(now=True)
            km, kc = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=120, env=env)
            try:
                errs = []
                hook = lambda m: errs.append(m["content"]["text"]) if m["msg_type"] == "stream" \
                    and m["content"]["name"] == "stderr" else None
                kc.execute_interactive("1", timeout=WARMUP_TIMEOUT, output_hook=hook)
                self.assertIn(f"`%load_vars {path}` brings its variables back", "".join(errs))
                # Said once.
                errs.clear()
                kc.execute_interactive("2", timeout=120, output_hook=hook)
                self.assertEqual(errs, [])
            finally:
                kc.stop_channels()
                km.shutdown_kernel(now=True)
            # A clean shutdown leaves nothing to say.
            km, kc = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=120, env=env)
            try:
                errs = []
                kc.execute_interactive("1", timeout=WARMUP_TIMEOUT, output_hook=hook)
                self.assertEqual(errs, [])
            finally:
                kc.stop_channels()
                km.shutdown_kernel(now=True)

    def test_save_vars_then_load_them_in_another_kernel(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "state.npz")
            self.ok(
                "let field = cp::arange(12)?.reshape([3, 4])?.astype(cp::f32)?;\n"
                "let steps: usize = 200;\n"
                "let alpha = -0.0f64;\n"
                "let label = String::from(\"heat \\\"run\\\" 1\");\n"
                "let history = vec![1.5f64, f64::NAN];\n"
                "let unsaved = (1, 2);"
            )
            r = self.ok(f"%save_vars {path}")
            out = r.stream("stdout")
            self.assertIn("Saved 5 variables", out)
            self.assertIn("not saved", out)
            self.assertIn("unsaved", out)
            r = self.run_cell(f"%save_vars {path} nosuchvar")
            self.assertEqual(r.content["ename"], "UsageError")
            # The cell process crashes: the error names the newest save.
            r = self.run_cell("std::process::abort();")
            self.assertEqual(r.content["ename"], "SessionRestarted")
            self.assertIn(f"%load_vars {path}", "\n".join(r.content["traceback"]))
            # A second kernel: a new session with nothing defined.
            km, kc = start_new_kernel(kernel_name=KERNEL_NAME, startup_timeout=120)
            try:
                reply = kc.execute_interactive(f"%load_vars {path}", timeout=WARMUP_TIMEOUT)
                self.assertEqual(reply["content"]["status"], "ok", reply["content"])
                results = []
                check = (
                    "format!(\"{:?} {} {} {} {:?} {}\", field.shape(), field.to_vec::<f32>()?[11], steps, "
                    "alpha.is_sign_negative(), label, history[1].is_nan())"
                )
                reply = kc.execute_interactive(
                    check, timeout=120,
                    output_hook=lambda m: results.append(m) if m["msg_type"] == "execute_result" else None,
                )
                self.assertEqual(reply["content"]["status"], "ok", reply["content"])
                text = results[0]["content"]["data"]["text/plain"]
                self.assertEqual(text, '"[3, 4] 11 200 true \\"heat \\\\\\"run\\\\\\" 1\\" true"')
            finally:
                kc.stop_channels()
                km.shutdown_kernel(now=True)

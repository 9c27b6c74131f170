"""The kernel's magics as Jupyter sees them: %time / %%time (CPU, wall and,
with a GPU, CUDA-event time, printed; the cell's value and variables kept),
%timeit / %%timeit (one display_data: text and an HTML report with a
histogram), %gpu and %mem (display_data with text/plain and text/html).

On a machine without a GPU the GPU parts say why; the lead runs this file on
the GPU machine once, where the GPU assertions below apply.

Run through tests/run_kernel_tests.sh.
"""

from test_protocol import KernelCase

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

    def test_lsmagic_and_usage_errors(self):
        r = self.ok("%lsmagic")
        self.assertIn("GPU (CUDA event) time", r.stream("stdout"))
        for bad in ("%timeit", "%time", "%%time now\n1", "%%timeit\n"):
            r = self.run_cell(bad)
            self.assertEqual(r.content["status"], "error", bad)
            self.assertEqual(r.content["ename"], "UsageError", bad)

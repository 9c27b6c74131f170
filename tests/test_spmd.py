"""An interactive SPMD kernel with 2 ranks on the CPU (or N GPU ranks), as Jupyter sees it:
`cuprite-kernel install --spmd-ranks 2 --env CUPRITE_COMM=host` (the
kernelspec run_kernel_tests.sh installs as $CUPRITE_SPMD_KERNEL_NAME). Every
cell runs on both ranks; rank 1's output shows tagged only where it differs
from rank 0's; an error on rank 1 alone fails the cell and names it; `%%rank`
picks ranks; a collective joins both; an interrupt stops both, and the next
cell runs on both.

Run by tests/run_kernel_tests.sh (CUPRITE_TEST_FILES=test_spmd.py).
"""
import os
import unittest

from jupyter_client.manager import start_new_kernel

from test_protocol import WARMUP_TIMEOUT, InterruptAndCrashTests, KernelCase

SPMD_KERNEL = os.environ.get("CUPRITE_SPMD_KERNEL_NAME", "cuprite-test-spmd")
# Set (to the rank count) where the kernel's ranks run on GPUs, one each
# (kernel/scripts/gpu-run.sh --spmd-test on the GPU machine).
EXPECT_GPUS = int(os.environ.get("CUPRITE_SPMD_EXPECT_GPUS", "0"))


class SpmdTests(KernelCase):
    @classmethod
    def setUpClass(cls):
        cls.km, cls.kc = start_new_kernel(kernel_name=SPMD_KERNEL, startup_timeout=180)
        reply = cls.kc.execute_interactive("1", timeout=WARMUP_TIMEOUT, output_hook=lambda m: None)
        assert reply["content"]["status"] == "ok", reply["content"]

    interrupt_when_started = InterruptAndCrashTests.interrupt_when_started

    def test_every_rank_runs_the_cell_and_equal_output_shows_once(self):
        r = self.ok('println!("same everywhere");\ncp::nccl::world()?.world_size()')
        self.assertEqual(r.stream("stdout"), "same everywhere\n")
        self.assertNotIn("[rank", r.stream("stdout") + r.stream("stderr"))
        self.assertEqual(self.result_text(r), "2")

    def test_output_that_differs_is_tagged_with_the_rank(self):
        r = self.ok('println!("I am rank {}", cp::nccl::world()?.rank());')
        out = r.stream("stdout")
        self.assertIn("I am rank 0\n", out)
        self.assertIn("[rank 1] I am rank 1\n", out)

    def test_an_error_on_one_rank_fails_the_cell_and_names_it(self):
        code = (
            "if cp::nccl::world()?.rank() == 1 {\n"
            '    Err::<(), _>(cp::Error::InvalidArgument { op: "test", detail: "only rank 1 fails".into() })?;\n'
            "}\n"
            "7"
        )
        r = self.run_cell(code)
        self.assertEqual(r.content["status"], "error", r.content)
        self.assertEqual(r.content["ename"], "RankError")
        self.assertIn("rank 1", r.content["evalue"])
        self.assertIn("only rank 1 fails", r.content["evalue"])
        self.assertIn("[rank 1]", r.stream("stderr"))
        # The session goes on, on both ranks.
        self.assertEqual(self.result_text(self.ok("cp::nccl::world()?.rank() + 40")), "40")

    def test_rank_magic_runs_a_cell_on_some_ranks(self):
        r = self.ok('%%rank 1\nprintln!("only here");')
        self.assertEqual(r.stream("stdout"), "[rank 1] only here\n")
        r = self.ok('%%rank 0\nprintln!("rank zero alone");')
        self.assertEqual(r.stream("stdout"), "rank zero alone\n")
        r = self.run_cell("%%rank 5\n1")
        self.assertEqual(r.content["status"], "error")
        self.assertIn("rank 5", r.content["evalue"])

    def test_a_distributed_array_spans_both_ranks(self):
        r = self.ok("let d = cp::dist::DistArray::arange(10, Some(0))?;\n"
                    "(d.local().size(), d.sum()?.local().item::<i64>()?)")
        self.assertEqual(self.result_text(r), "(5, 45)")

    @unittest.skipUnless(EXPECT_GPUS, "CUPRITE_SPMD_EXPECT_GPUS is not set (CPU ranks)")
    def test_each_rank_computes_on_a_gpu_of_its_own(self):
        r = self.ok('println!("{}", cp::current_device());\n'
                    "let d = cp::dist::DistArray::ones([1usize << 20], cp::DType::Float32, Some(0))?;\n"
                    "(d.local().device().is_cuda(), d.sum()?.local().item::<f32>()?)")
        self.assertEqual(self.result_text(r), "(true, 1048576.0)")
        out = r.stream("stdout")
        self.assertIn("cuda:0\n", out)
        for rank in range(1, EXPECT_GPUS):
            self.assertIn(f"[rank {rank}] cuda:{rank}\n", out)

    def test_interrupt_reaches_every_rank(self):
        self.ok("let kept = 5usize;")
        code = 'println!("started");\nloop { std::thread::sleep(std::time::Duration::from_millis(20)); cp::interrupt::check("loop")?; }'
        r, started = self.interrupt_when_started(code)
        self.assertIn("t", started)
        self.assertEqual(r.content["status"], "error", r.content)
        self.assertEqual(r.content["ename"], "KeyboardInterrupt")
        self.assertEqual(self.result_text(self.ok("kept + cp::nccl::world()?.world_size()")), "7")


# Only this module's tests: the imported cases run in their own file.
del KernelCase, InterruptAndCrashTests

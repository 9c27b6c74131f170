#!/usr/bin/env python3
"""Latency benchmark for cuprite-kernel (a report, not a timed test).

Measures, through jupyter_client as a frontend sees it (execute request ->
idle on iopub):
  1. kernel start -> kernel_info reply;
  2. the first cell sent at once after kernel_info (it waits for the
     session's start and hidden warm-up);
  3. in a second kernel, the first cell after a pause (--think seconds, a
     user opening a notebook): the realistic first cell, a `let` with `?`;
  4. typical cells, each run --repeat times (median): a `let` with `?`, an
     array display, a reduction, a plot, a loop of array operations, a
     function definition and the same function as a `cp::jit` kernel;
  5. a trivial cell (`1 + 1`), median of --cells runs;
  6. interrupting a loop of array operations: interrupt request -> the
     error reply's idle (median of 3), and that the variables survived.
With --new-user, kernels start as a user with an empty cache (a temporary
CUPRITE_KERNEL_CACHE_DIR and data directory), so their build folder starts
from the prebuilt cache (`cuprite-kernel prewarm`, or --shared-cache DIR
for a shared one) or compiles everything.

Usage (with the kernelspec installed, e.g. by tests/run_kernel_tests.sh or
`cuprite-kernel install`):
  python tests/bench_kernel_latency.py [--kernel NAME] [--think 20] [--repeat 5]
      [--cells 20] [--new-user [--shared-cache DIR]] [--json]
"""

import argparse
import json
import os
import queue
import shutil
import statistics
import tempfile
import time

from jupyter_client.manager import KernelManager

TYPICAL = [
    ("let with ?", "let a = cp::arange(1000)?.astype(cp::f64)?;"),
    ("array display", "cp::arange(12)?.reshape([3, 4])?"),
    ("reduction", "a.sum()?"),
    ("plot", "cp::plot::line(&a)?"),
    ("loop of array ops",
     "let mut acc = cp::zeros([256], cp::f64)?;\nfor _ in 0..100 { acc = &acc + 1.0; }\nacc.sum()?"),
    # A cell defining a GPU kernel in Rust (the cp::jit proc macro runs in the
    # cell's build) beside one defining the same function as plain Rust.
    ("fn definition",
     "fn lat_axpy(a: f32, x: &[f32], out: &mut [f32]) {\n    for i in 0..x.len() {\n"
     "        out[i] = a * x[i] + out[i];\n    }\n}"),
    ("jit kernel definition",
     "#[cp::jit::kernel]\nfn lat_axpy_jit(a: f32, x: &[f32], out: &mut [f32]) {\n"
     "    let i = (block_dim().x * block_idx().x + thread_idx().x) as usize;\n"
     "    if i < x.len() {\n        out[i] = a * x[i] + out[i];\n    }\n}"),
]
FIRST = "let x = cp::arange(6)?.reshape([2, 3])?;\nx"


def run_cell(kc, code, timeout):
    """Sends an execute request; returns (seconds to idle, reply content)."""
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 1))
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "idle"):
            break
    elapsed = time.perf_counter() - t0
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            if reply["content"]["status"] != "ok":
                raise SystemExit(f"cell failed: {code!r}: {reply['content'].get('evalue')}")
            return elapsed, reply["content"]


def start(kernel, env):
    """Starts a kernel; returns (manager, client, seconds to the kernel_info reply)."""
    km = KernelManager(kernel_name=kernel)
    t0 = time.perf_counter()
    km.start_kernel(env=env)
    kc = km.client()
    kc.start_channels()
    # Ask until a kernel_info reply comes (any of them: replies to earlier
    # requests arrive late when the kernel was slow to start).
    while True:
        kc.kernel_info()
        try:
            reply = kc.get_shell_msg(timeout=0.5)
            if reply["msg_type"] == "kernel_info_reply":
                break
        except queue.Empty:
            if time.perf_counter() - t0 > 120:
                raise SystemExit("no kernel_info reply within 120 s")
    info_s = time.perf_counter() - t0
    time.sleep(0.2)
    for ch in (kc.shell_channel, kc.iopub_channel):
        while True:
            try:
                ch.get_msg(timeout=0.05)
            except queue.Empty:
                break
    return km, kc, info_s, t0


def interrupt_latency(km, kc, runs=3):
    """Interrupts `loop { acc = &acc + 1.0; }` once it runs; returns the median
    milliseconds from the interrupt request to idle (the cell must fail with
    KeyboardInterrupt and `acc` must survive)."""
    run_cell(kc, "let mut acc = cp::zeros([256], cp::f64)?;", 300)
    times = []
    for _ in range(runs):
        msg_id = kc.execute('println!("started");\nloop { acc = &acc + 1.0; }')
        t_int = None
        while True:
            msg = kc.get_iopub_msg(timeout=300)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if t_int is None and msg["msg_type"] == "stream" and "started" in msg["content"]["text"]:
                time.sleep(0.5)
                t_int = time.perf_counter()
                km.interrupt_kernel()
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        times.append(time.perf_counter() - t_int)
        while True:
            reply = kc.get_shell_msg(timeout=60)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        if reply["content"].get("ename") != "KeyboardInterrupt":
            raise SystemExit(f"interrupt gave {reply['content']}")
    run_cell(kc, "acc.size()", 120)
    return round(statistics.median(times) * 1000, 1)


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", default="cuprite", help="kernelspec name (default: cuprite)")
    ap.add_argument("--think", type=float, default=20,
                    help="seconds between kernel start and the first cell of the second kernel (default: 20)")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each typical cell (default: 5)")
    ap.add_argument("--cells", type=int, default=20, help="runs of the trivial cell (default: 20)")
    ap.add_argument("--code", default="1 + 1", help="the trivial cell (default: 1 + 1)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds to wait for a first cell")
    ap.add_argument("--new-user", action="store_true",
                    help="start the kernels with an empty per-user cache (temporary folders)")
    ap.add_argument("--shared-cache", help="with --new-user: the shared prebuilt cache (CUPRITE_KERNEL_SHARED_CACHE)")
    ap.add_argument("--skip-immediate", action="store_true", help="do not measure the cell sent at once")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()

    env = dict(os.environ)
    tmp = None
    if args.new_user:
        tmp = tempfile.mkdtemp(prefix="cuprite-bench-user-")
        env["CUPRITE_KERNEL_CACHE_DIR"] = os.path.join(tmp, "cache")
        env["CUPRITE_KERNEL_DATA_DIR"] = os.path.join(tmp, "data")
        env.pop("CUPRITE_KERNEL_SEED_DIR", None)
        env.pop("CUPRITE_KERNEL_BUILD_DIR", None)
        if args.shared_cache:
            env["CUPRITE_KERNEL_SHARED_CACHE"] = os.path.abspath(args.shared_cache)
    figures = {"code": args.code, "new_user": args.new_user}
    try:
        # The first cell sent at once: start, warm-up and the cell.
        if not args.skip_immediate:
            km, kc, info_s, t0 = start(args.kernel, env)
            try:
                first_s, _ = run_cell(kc, FIRST, args.timeout)
                figures["kernel_info_reply_s"] = round(info_s, 3)
                figures["first_cell_sent_at_once_s"] = round(first_s, 3)
                figures["first_cell_sent_at_once_from_start_s"] = round(time.perf_counter() - t0, 3)
            finally:
                stop(km, kc)

        # A new kernel (same build folder, now warm): the first cell after a pause.
        km, kc, info_s, t0 = start(args.kernel, env)
        try:
            figures.setdefault("kernel_info_reply_s", round(info_s, 3))
            left = args.think - (time.perf_counter() - t0)
            if left > 0:
                time.sleep(left)
            first_s, _ = run_cell(kc, FIRST, args.timeout)
            figures["think_s"] = args.think
            figures["first_cell_after_think_s"] = round(first_s, 3)

            typical = {}
            for name, code in TYPICAL:
                times = [run_cell(kc, code, 300)[0] for _ in range(args.repeat)]
                typical[name] = round(statistics.median(times) * 1000, 1)
            figures["typical_cell_median_ms"] = typical
            figures["typical_cells_median_of_medians_ms"] = round(statistics.median(typical.values()), 1)

            figures["interrupt_to_idle_ms"] = interrupt_latency(km, kc)

            trivial = [run_cell(kc, args.code, 120)[0] for _ in range(args.cells)]
            figures["trivial_cell_median_ms"] = round(statistics.median(trivial) * 1000, 1)
            figures["trivial_cell_min_ms"] = round(min(trivial) * 1000, 1)
            figures["trivial_cell_max_ms"] = round(max(trivial) * 1000, 1)
        finally:
            stop(km, kc)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"kernel start -> kernel_info reply: {figures['kernel_info_reply_s']:.3f} s")
    if "first_cell_sent_at_once_s" in figures:
        print(f"first cell sent at once after kernel_info: {figures['first_cell_sent_at_once_s']:.3f} s "
              f"({figures['first_cell_sent_at_once_from_start_s']:.3f} s after kernel start)")
    print(f"first cell {args.think:.0f} s after kernel start: {figures['first_cell_after_think_s']:.3f} s")
    for name, ms in figures["typical_cell_median_ms"].items():
        print(f"  {name:<20} median of {args.repeat}: {ms:.1f} ms")
    print(f"typical cells, median of the medians: {figures['typical_cells_median_of_medians_ms']:.1f} ms")
    print(f"interrupt of a loop of array ops -> idle, median of 3: {figures['interrupt_to_idle_ms']:.1f} ms (variables kept)")
    print(f"trivial cell ({args.code!r}), median of {args.cells}: {figures['trivial_cell_median_ms']:.1f} ms "
          f"(min {figures['trivial_cell_min_ms']:.1f}, max {figures['trivial_cell_max_ms']:.1f})")


if __name__ == "__main__":
    main()

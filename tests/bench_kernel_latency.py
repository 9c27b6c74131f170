#!/usr/bin/env python3
"""Latency benchmark for cuprite-kernel (a report, not a timed test).

Measures, through jupyter_client as a frontend sees it:
  1. kernel start -> kernel_info reply,
  2. the first cell (it waits for the evcxr session; a cold build directory
     also compiles the runtime, which is reported separately with --cold),
  3. trivial warm cells: execute request -> idle, median of N (default 20).

Usage (with the kernelspec installed, e.g. by tests/run_kernel_tests.sh or
`cuprite-kernel install`):
  python tests/bench_kernel_latency.py [--kernel NAME] [--cells 20] [--code "1 + 1"] [--json]
"""

import argparse
import json
import queue
import statistics
import time

from jupyter_client.manager import KernelManager


def run_cell(kc, code, timeout):
    """Sends an execute request; returns (seconds to idle, reply content)."""
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "idle"):
            break
    elapsed = time.perf_counter() - t0
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return elapsed, reply["content"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", default="cuprite", help="kernelspec name (default: cuprite)")
    ap.add_argument("--cells", type=int, default=20, help="warm cells to time (default: 20)")
    ap.add_argument("--code", default="1 + 1", help="the trivial cell (default: 1 + 1)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds to wait for the first cell")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()

    km = KernelManager(kernel_name=args.kernel)
    t0 = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        # kernel_info: keep asking until the reply comes (as wait_for_ready does).
        info_s = None
        while info_s is None:
            msg_id = kc.kernel_info()
            try:
                reply = kc.get_shell_msg(timeout=0.2)
                if reply["parent_header"].get("msg_id") == msg_id:
                    info_s = time.perf_counter() - t0
            except queue.Empty:
                if time.perf_counter() - t0 > 120:
                    raise SystemExit("no kernel_info reply within 120 s")
        # Drain what kernel_info published.
        time.sleep(0.2)
        while True:
            try:
                kc.get_iopub_msg(timeout=0.05)
            except queue.Empty:
                break

        first_s, content = run_cell(kc, args.code, args.timeout)
        if content["status"] != "ok":
            raise SystemExit(f"first cell failed: {content}")
        first_from_start_s = time.perf_counter() - t0

        warm = []
        for _ in range(args.cells):
            s, content = run_cell(kc, args.code, 120)
            if content["status"] != "ok":
                raise SystemExit(f"warm cell failed: {content}")
            warm.append(s)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)

    figures = {
        "kernel_info_reply_s": round(info_s, 3),
        "first_cell_s": round(first_s, 3),
        "first_cell_from_start_s": round(first_from_start_s, 3),
        "warm_cell_median_ms": round(statistics.median(warm) * 1000, 1),
        "warm_cell_min_ms": round(min(warm) * 1000, 1),
        "warm_cell_max_ms": round(max(warm) * 1000, 1),
        "warm_cells": len(warm),
        "code": args.code,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"kernel start -> kernel_info reply: {figures['kernel_info_reply_s']:.3f} s")
        print(f"first cell ({args.code!r}): {figures['first_cell_s']:.3f} s "
              f"({figures['first_cell_from_start_s']:.3f} s after kernel start)")
        print(f"warm cell ({args.code!r}), median of {len(warm)}: {figures['warm_cell_median_ms']:.1f} ms "
              f"(min {figures['warm_cell_min_ms']:.1f}, max {figures['warm_cell_max_ms']:.1f})")


if __name__ == "__main__":
    main()

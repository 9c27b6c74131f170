#!/usr/bin/env python3
"""Runs a few cells in a Cuprite kernel so that its build folder holds the
compiled crates every cell links (Cuprite, its display crate, the kernel's
cell-side crate and their dependencies).

The Docker image runs this at build time with CUPRITE_KERNEL_BUILD_DIR set to
the seed folder that new kernels copy (CUPRITE_KERNEL_SEED_DIR). It is also
how to check an installed kernel by hand: it prints each cell's time and
output and exits non-zero when a cell fails.

Usage: python3 docker/prewarm.py [--kernel NAME] [--timeout SECONDS]
"""

import argparse
import queue
import sys
import time

from jupyter_client.manager import start_new_kernel

CELLS = [
    # Compiles and links cuprite, cuprite-display and cuprite-kernel-io.
    "let x = cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)?;\nx.sum_axis(1)?",
    "%timeit -n 2 -r 2 x.sum()",
    "%gpu",
    "%mem",
]


def run(kc, code, timeout):
    msg_id = kc.execute(code)
    outputs = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no reply within {timeout} s for: {code}")
        try:
            msg = kc.get_iopub_msg(timeout=min(left, 5))
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            break
        if kind == "stream":
            outputs.append(msg["content"]["text"])
        elif kind in ("execute_result", "display_data"):
            outputs.append(msg["content"]["data"].get("text/plain", "") + "\n")
        elif kind == "error":
            outputs.append("\n".join(msg["content"]["traceback"]) + "\n")
    reply = kc.get_shell_msg(timeout=60)
    return reply["content"]["status"], "".join(outputs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", default="cuprite", help="kernelspec name (default: cuprite)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per cell")
    args = ap.parse_args()

    t0 = time.monotonic()
    km, kc = start_new_kernel(kernel_name=args.kernel, startup_timeout=120)
    print(f"kernel {args.kernel} started in {time.monotonic() - t0:.1f} s", flush=True)
    failed = False
    try:
        for code in CELLS:
            t = time.monotonic()
            status, out = run(kc, code, args.timeout)
            print(f"--- {code.splitlines()[0]!r}: {status} in {time.monotonic() - t:.1f} s")
            print(out.rstrip(), flush=True)
            failed |= status != "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    print(f"total {time.monotonic() - t0:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

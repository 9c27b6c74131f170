"""CuPy's side of cuprite-bench's all-reduce cases (nccl.rs): float32 arrays of
8 MB, 64 MB, 256 MB and 1 GB per GPU, summed across every visible GPU with
cupy.cuda.nccl (NcclCommunicator.initAll, allReduce of each rank inside one
groupStart/groupEnd, on each device's current stream).

Prints one JSON line per case with the same names and fields as cuprite-bench:
case, gpu_ms (median over repeats of the slowest rank's CUDA-event time),
cpu_us (host time of the grouped call), GB_s (algorithm bandwidth: bytes of
one rank's array / time) and busbw_GB_s (algbw * 2(n-1)/n, as nccl-tests).

Then the same all-reduce between 2 processes and, with 4 GPUs, 4 processes,
one GPU each (cuprite-bench's nccl_procs.rs): started with multiprocessing's
spawn, rank 0 making the NCCL unique id and sending it to the others through
pipes, once with NCCL's default transports (cases ..._2proc, ..._4proc) and
once with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 (..._2proc_net,
..._4proc_net); gpu_ms is the median over repeats of the slowest rank's time.

Run: python3 cupy_nccl.py [out.json] [--only SUFFIX,...]   (keep NCCL_NVLS_ENABLE=0 set)
--only runs just the process worlds named by their case suffixes (e.g.
2proc_net,4proc_net), for repeated side-by-side runs of a noisy transport.
"""
import json
import multiprocessing as mp
import os
import sys
import time

import numpy as np
import cupy as cp

SIZES = (("8MB", 8 << 20), ("64MB", 64 << 20), ("256MB", 256 << 20), ("1GB", 1 << 30))
rows = []


def emit(row):
    rows.append(row)
    print(json.dumps(row), flush=True)


def write(path):
    if path:
        with open(path, "w") as f:
            json.dump(rows, f, indent=1)


def time_case(comms, devs, xs, ys, n, nccl, n_repeat, n_warmup):
    def run():
        nccl.groupStart()
        for i, d in enumerate(devs):
            with cp.cuda.Device(d):
                comms[i].allReduce(xs[i].data.ptr, ys[i].data.ptr, n, nccl.NCCL_FLOAT32,
                                   nccl.NCCL_SUM, cp.cuda.get_current_stream().ptr)
        nccl.groupEnd()

    def sync_all():
        for d in devs:
            with cp.cuda.Device(d):
                cp.cuda.get_current_stream().synchronize()

    for _ in range(n_warmup):
        run()
    sync_all()
    starts, ends = [], []
    for d in devs:
        with cp.cuda.Device(d):
            starts.append(cp.cuda.Event())
            ends.append(cp.cuda.Event())
    gpu, cpu = [], []
    for _ in range(n_repeat):
        for d, e in zip(devs, starts):
            with cp.cuda.Device(d):
                e.record()
        t = time.perf_counter()
        run()
        cpu.append((time.perf_counter() - t) * 1e6)
        for d, e in zip(devs, ends):
            with cp.cuda.Device(d):
                e.record()
        slowest = 0.0
        for s, e in zip(starts, ends):
            e.synchronize()
            slowest = max(slowest, cp.cuda.get_elapsed_time(s, e))
        gpu.append(slowest)
    return float(np.median(gpu)), float(np.median(cpu))


ONLY = None


def main():
    global ONLY
    args = sys.argv[1:]
    if "--only" in args:
        i = args.index("--only")
        ONLY = set(args[i + 1].split(","))
        del args[i:i + 2]
    path = args[0] if args else None
    if ONLY is not None:
        two_processes()
        return write(path)
    world = cp.cuda.runtime.getDeviceCount()
    if world < 2:
        emit({"skipped": f"all-reduce across GPUs needs 2 CUDA devices, found {world}"})
        return write(path)
    try:
        from cupy.cuda import nccl
        if not getattr(nccl, "available", True):
            raise ImportError("cupy.cuda.nccl.available is False")
    except Exception as e:  # NCCL missing from this CuPy install
        emit({"skipped": f"cupy.cuda.nccl unavailable: {e}"})
        return write(path)
    devs = list(range(world))
    comms = nccl.NcclCommunicator.initAll(devs)
    print(json.dumps({"nccl": nccl.get_version(), "cupy": cp.__version__, "world": world,
                      "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}), flush=True)
    for label, nbytes in SIZES:
        n = nbytes // 4
        xs, ys = [], []
        for d in devs:
            with cp.cuda.Device(d):
                xs.append(cp.random.random(n, dtype=cp.float32))
                ys.append(cp.empty_like(xs[-1]))
        n_repeat = 10 if nbytes >= 1 << 30 else 20
        gpu_ms, cpu_us = time_case(comms, devs, xs, ys, n, nccl, n_repeat, 5)
        # A spot check that the sum is right (the first and last elements).
        for i in (0, n - 1):
            want = sum(float(x[i]) for x in xs)
            got = float(ys[-1][i])
            if abs(got - want) > 1e-5 * max(1.0, abs(want)):
                raise SystemExit(f"wrong all-reduce result at {i}: {got} != {want}")
        algbw = nbytes / (gpu_ms * 1e-3) / 1e9
        emit({"case": f"allreduce_f32_{label}_{world}gpu", "gpu_ms": round(gpu_ms, 4),
              "cpu_us": round(cpu_us, 2), "GB_s": round(algbw, 1),
              "busbw_GB_s": round(algbw * 2 * (world - 1) / world, 1)})
        del xs, ys
        for d in devs:
            with cp.cuda.Device(d):
                cp.get_default_memory_pool().free_all_blocks()
    two_processes()
    write(path)


TRANSPORTS = (("2proc", {}), ("2proc_net", {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"}))


def rank_main(rank, nproc, env, id_pipes, results):
    """One of `nproc` processes: rank `rank` on GPU `rank`; rank 0 sends its rows to `results`."""
    os.environ.update(env)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    from cupy.cuda import nccl
    cp.cuda.Device(rank).use()
    if rank == 0:
        uid = nccl.get_unique_id()
        for p in id_pipes:
            p.send(uid)
    else:
        uid = id_pipes[0].recv()
    comm = nccl.NcclCommunicator(nproc, uid, rank)
    stream = cp.cuda.get_current_stream()
    rows = []
    for label, nbytes in SIZES:
        n = nbytes // 4
        x = cp.random.random(n, dtype=cp.float32)
        y = cp.empty_like(x)

        def run():
            comm.allReduce(x.data.ptr, y.data.ptr, n, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, stream.ptr)

        for _ in range(5):
            run()
        stream.synchronize()
        n_repeat = 10 if nbytes >= 1 << 30 else 20
        start, end = cp.cuda.Event(), cp.cuda.Event()
        gpu, cpu = [], []
        for _ in range(n_repeat):
            start.record(stream)
            t = time.perf_counter()
            run()
            cpu.append((time.perf_counter() - t) * 1e6)
            end.record(stream)
            end.synchronize()
            gpu.append(cp.cuda.get_elapsed_time(start, end))
        # The slower rank's time of each repeat.
        times = cp.asarray(gpu, dtype=cp.float64)
        comm.allReduce(times.data.ptr, times.data.ptr, len(gpu), nccl.NCCL_FLOAT64, nccl.NCCL_MAX,
                       stream.ptr)
        stream.synchronize()
        if rank == 0:
            rows.append((label, float(np.median(times.get())), float(np.median(cpu)), nbytes))
        del x, y
        cp.get_default_memory_pool().free_all_blocks()
    if rank == 0:
        results.send(rows)


def two_processes():
    gpus = cp.cuda.runtime.getDeviceCount()
    if gpus < 2:
        emit({"skipped": "processes with a GPU each need 2 CUDA devices"})
        return
    for nproc in (2, 4):
        if nproc <= gpus:
            processes(nproc)


def processes(nproc):
    ctx = mp.get_context("spawn")
    for base, env in TRANSPORTS:
        suffix = base.replace("2proc", f"{nproc}proc")
        if ONLY is not None and suffix not in ONLY:
            continue
        pipes = [ctx.Pipe() for _ in range(nproc - 1)]
        res_recv, res_send = ctx.Pipe(duplex=False)
        procs = [ctx.Process(target=rank_main,
                             args=(r, nproc, env,
                                   [a for a, _ in pipes] if r == 0 else [pipes[r - 1][1]],
                                   res_send))
                 for r in range(nproc)]
        for p in procs:
            p.start()
        res_send.close()  # so that a rank 0 that died ends the wait
        if not res_recv.poll(900):
            for p in procs:
                p.terminate()
            raise SystemExit(f"the {suffix} run gave no result within 900 s")
        try:
            rows = res_recv.recv()
        except EOFError:
            rows = []
        for p in procs:
            p.join()
            if p.exitcode != 0:
                raise SystemExit(f"a rank of the {suffix} run failed (exit code {p.exitcode})")
        for label, gpu_ms, cpu_us, nbytes in rows:
            algbw = nbytes / (gpu_ms * 1e-3) / 1e9
            emit({"case": f"allreduce_f32_{label}_{suffix}", "gpu_ms": round(gpu_ms, 4),
                  "cpu_us": round(cpu_us, 2), "GB_s": round(algbw, 1),
                  "busbw_GB_s": round(algbw * 2 * (nproc - 1) / nproc, 1)})


if __name__ == "__main__":
    main()

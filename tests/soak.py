#!/usr/bin/env python3
"""Soak test of the Cuprite kernel (issue 38): one kernel session runs many
cells (2,000 by default) drawn, with a fixed seed, from the course notebooks
and from generated allocation-heavy, display-heavy and interrupted cells
(tests/soak_cells.py says how), and checks that the session neither grows
nor slows down:

- memory: the resident set (VmRSS) of the kernel process and of the cell
  process, and the GPU pools' used bytes (from the kernel's usage_reply; 0
  without a GPU), at the end of the run are at most 5% above their level
  after the first 100 cells, plus an absolute slack (8 MiB of host memory,
  2 MiB of GPU memory) so that a small level is not failed for a page or
  an allocator rounding; a level that falls is not a failure. The cell
  process is read after a cell of its own returns glibc's free memory to
  the system (malloc_trim), so that a fragmented heap is not taken for a
  leak (--no-trim reads it as it is; both figures are in the summary);
- time: the median wall time of the last 100 cells (execute_request to the
  kernel's idle) is at most 10% above that of the first 100 (--time-measure
  cpu compares CPU time instead: of the kernel, its builds and the cell
  process, for a machine shared with other work);
- every cell runs: a cell other than an interrupted one that ends in an
  error fails the run, as does a kernel that dies or stops answering, a cell
  process that restarts (which would also hide a leak), and an interrupted
  cell that does not stop with a KeyboardInterrupt (or, polling, cleanly).

Before the counted cells, a warm-up pass runs every notebook that the
plan draws cells from once (its errors count too; a 2,000-cell plan draws
from all of them), so that what the runtime sets up once and keeps
(thread pools, plans, caches) is already in the level after the first 100
cells (--no-warmup counts from the first cell). The last 100 cells are the
first 100 again, run from the same held state (the notebooks' variables
are dropped after each notebook), so the two windows compare like for like.
Levels are also recorded every 100 cells, with the cell process's loaded
cell libraries: evcxr loads each cell as a library (libcode_N.so) and never
unloads one, a growth of about 130 KB per cell on the CPU that fails the
cell process's criterion on a long run; --exclude-cell-libraries judges the
cell process without them (both figures are reported either way).

Interrupted cells (every 50th) print a mark when they start running; the
driver sends interrupt_request 0.5 s after it (not during the cell's
compilation, which an interrupt would cancel instead).

It prints a JSON summary and exits 1 when a criterion fails (2 on bad
usage). Run it with a kernel binary (a kernelspec is installed for it in a
temporary JUPYTER_PATH) or an installed kernelspec:

    python3 tests/soak.py --cells 2000 --kernel PATH/cuprite-kernel
    python3 tests/soak.py --cells 300 --kernel-name cuprite

It needs jupyter_client (tests/requirements.txt). tests/test_soak.py runs
a smaller version under pytest (tests/run_kernel_tests.sh).
"""

import argparse
import atexit
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import soak_cells
from jupyter_client.manager import start_new_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1 << 20


# ------------------------------------------------------------------ kernel


class SessionFailed(RuntimeError):
    pass


class Outcome:
    """What one cell did."""

    def __init__(self, status, seconds, ename="", evalue="", text="", marked=False, interrupted=False):
        self.status = status
        self.seconds = seconds
        self.ename = ename
        self.evalue = evalue
        self.text = text  # streams and text/plain results, joined
        self.marked = marked  # an interrupted cell's start mark was seen
        self.interrupted = interrupted  # interrupt_request was sent


class Session:
    """One kernel and its client."""

    def __init__(self, kernel_name, startup_timeout=120):
        self.km, self.kc = start_new_kernel(kernel_name=kernel_name, startup_timeout=startup_timeout)
        self.cell_pid = None

    def close(self):
        self.kc.stop_channels()
        try:
            self.km.shutdown_kernel(now=False)
        except Exception:  # a dead kernel has nothing to shut down
            pass

    def kernel_pid(self):
        proc = getattr(self.km.provisioner, "process", None)
        return getattr(proc, "pid", None)

    def run(self, code, timeout, interrupt_after=None):
        """Runs a cell; with `interrupt_after`, sends interrupt_request that
        many seconds after the cell prints soak_cells.INTERRUPT_MARK."""
        t0 = time.monotonic()
        msg_id = self.kc.execute(code, store_history=True)
        deadline = t0 + timeout
        texts, error, marked_at, interrupted = [], None, None, False
        while True:
            now = time.monotonic()
            if marked_at is not None and not interrupted and now >= marked_at + interrupt_after:
                self.km.interrupt_kernel()  # interrupt_mode "message": interrupt_request on control
                interrupted = True
            if now > deadline:
                raise SessionFailed(f"no idle within {timeout} s")
            wait = 0.05 if marked_at is not None and not interrupted else 1.0
            try:
                msg = self.kc.get_iopub_msg(timeout=wait)
            except queue.Empty:
                if not self.km.is_alive():
                    raise SessionFailed("the kernel process exited")
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "status" and content["execution_state"] == "idle":
                seconds = time.monotonic() - t0
                break
            if kind == "stream":
                texts.append(content["text"])
                if interrupt_after is not None and marked_at is None and soak_cells.INTERRUPT_MARK in content["text"]:
                    marked_at = time.monotonic()
            elif kind in ("execute_result", "display_data"):
                texts.append(content["data"].get("text/plain", ""))
            elif kind == "error":
                error = content
        while True:
            try:
                reply = self.kc.get_shell_msg(timeout=max(deadline - time.monotonic(), 10))
            except queue.Empty:
                raise SessionFailed("no execute_reply after idle")
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        c = reply["content"]
        if error is None and c["status"] == "error":
            error = c
        return Outcome(c["status"], seconds, (error or {}).get("ename", ""), (error or {}).get("evalue", ""),
                       "".join(texts), marked_at is not None, interrupted)

    def cpu_seconds(self):
        """CPU time used so far by the kernel with its finished builds
        (rustc), and by the cell process: less sensitive than wall time to
        other load on the machine, and it says which side grew."""
        pid = self.kernel_pid()
        if pid is None:
            return 0.0, 0.0
        if self.cell_pid is None or not os.path.exists(f"/proc/{self.cell_pid}"):
            self.cell_pid = cell_pid_from_proc(pid)
        cell = cpu_seconds(self.cell_pid, False) if self.cell_pid else 0.0
        return cpu_seconds(pid, True), cell

    def usage(self):
        """The usage_reply's content, or None when none comes."""
        msg = self.kc.session.msg("usage_request", {})
        self.kc.control_channel.send(msg)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                reply = self.kc.control_channel.get_msg(timeout=1)
            except queue.Empty:
                continue
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                return reply["content"] if reply["msg_type"] == "usage_reply" else None
        return None


# ----------------------------------------------------------------- memory


def vm_rss(pid):
    """VmRSS of a process in bytes (None when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def cell_libraries(pid):
    """(count, resident bytes) of the cells' compiled libraries mapped in the
    cell process: evcxr loads each cell as a library of its own
    (libcode_N.so) and never unloads one, so they grow with the cells run."""
    paths, rss, current = set(), 0, None
    try:
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                first = line.split(maxsplit=6)
                if "-" in first[0] and len(first) >= 5 and ":" in first[3]:  # a mapping's header line
                    path = first[5].strip() if len(first) > 5 else ""
                    name = os.path.basename(path)
                    current = path if name.startswith("libcode_") and name.endswith(".so") else None
                    if current:
                        paths.add(current)
                elif current and line.startswith("Rss:"):
                    rss += int(line.split()[1]) * 1024
    except OSError:
        return None, None
    return len(paths), rss


def children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name is in parentheses and may hold spaces.
        if int(stat[stat.rfind(")") + 2:].split()[1]) == pid:
            out.append(int(entry))
    return out


def cpu_seconds(pid, with_children):
    """User plus system CPU time of a process; with its waited-for children's
    (the kernel's builds: rustc) when `with_children`."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return 0.0
    fields = stat[stat.rfind(")") + 2:].split()
    # utime, stime, cutime, cstime are the 14th to 17th fields of the line.
    ticks = sum(int(t) for t in fields[11:15 if with_children else 13])
    return ticks / os.sysconf("SC_CLK_TCK")


def cell_pid_from_proc(kernel_pid):
    """The cell process: the kernel's child that runs the kernel's own binary
    (builds and shell commands are other programs)."""
    try:
        exe = os.readlink(f"/proc/{kernel_pid}/exe")
    except OSError:
        return None
    for pid in children(kernel_pid):
        try:
            if os.readlink(f"/proc/{pid}/exe") == exe:
                return pid
        except OSError:
            continue
    return None


# Run in the cell process before its memory is read: glibc hands the free
# memory it keeps for reuse back to the system, so the resident set counts
# memory in use (a leak), not how fragmented the heap happens to be.
# The declaration is local to a block: evcxr keeps a cell's top-level items,
# and a second top-level declaration would clash with the first.
TRIM_CELL = '{\n    unsafe extern "C" { fn malloc_trim(pad: usize) -> i32; }\n    unsafe { malloc_trim(0) };\n}'


def measure(session, after_cells, trim, timeout):
    """The levels now: both processes' VmRSS and the GPU pools' used bytes."""
    time.sleep(0.3)  # let the cell process's end-of-cell report land
    usage = session.usage() or {}
    own = usage.get("cuprite") or {}
    kernel_pid = usage.get("pid") or session.kernel_pid()
    cell_pid = (own.get("cell_process") or {}).get("pid") or cell_pid_from_proc(kernel_pid)
    gpu = own.get("gpu_memory") or {}
    devices = gpu.get("devices") or []
    m = {
        "after_cells": after_cells,
        "kernel_pid": kernel_pid,
        "cell_pid": cell_pid,
        "kernel_rss": vm_rss(kernel_pid) if kernel_pid else None,
        "cell_rss": vm_rss(cell_pid) if cell_pid else None,
        "gpu_used": sum(d.get("used", 0) for d in devices),
        "gpu_reserved": sum(d.get("reserved", 0) for d in devices),
        "gpu_devices": len(devices),
        "usage_reply": bool(usage),
        "load_average": round(os.getloadavg()[0], 2),
    }
    if trim and cell_pid:
        m["cell_rss_untrimmed"] = m["cell_rss"]
        out = session.run(TRIM_CELL, timeout)
        m["trim_cell"] = out.status
        if out.status != "ok":
            raise SessionFailed(f"the cell that trims the cell process's heap failed: {out.ename}: {out.evalue[:300]}")
        m["cell_rss"] = vm_rss(cell_pid)
    if cell_pid:
        m["cell_libraries"], m["cell_libraries_rss"] = cell_libraries(cell_pid)
    return m


# ------------------------------------------------------------------- run


def run_interrupt(cell, outcome, failures, label):
    if not outcome.marked:
        failures.append(f"{label}: the interrupted cell never started ({outcome.status} "
                        f"{outcome.ename}: {outcome.evalue[:300]})")
    elif "variables were lost" in outcome.evalue:
        failures.append(f"{label}: the interrupt lost the cell process: {outcome.evalue[:300]}")
    elif outcome.status == "ok":
        if "stopped after" not in outcome.text:
            failures.append(f"{label}: ok without stopping: {outcome.text[-300:]!r}")
    elif outcome.ename != "KeyboardInterrupt":
        failures.append(f"{label}: ended in {outcome.ename}: {outcome.evalue[:300]}")


class Runner:
    """Runs cells in one session, checking each; keeps the counted cells'
    times and the failures."""

    def __init__(self, opts, session, log):
        self.opts, self.session, self.log = opts, session, log
        self.failures, self.times, self.cpu, self.kinds = [], [], [], []
        self.errors = 0
        self.ran = 0  # every cell run, warm-up included
        self.vars_listing = ""
        self.previous_kind = None

    def run(self, cell, label, counted):
        """Runs one cell; False when the run should stop."""
        opts = self.opts
        code = cell.code
        if cell.kind == "drop":
            code = soak_cells.drop_code(self.vars_listing) or "()"
        timeout = opts.first_cell_timeout if self.ran == 0 else opts.cell_timeout
        interrupt_after = opts.interrupt_after if cell.kind == "interrupt" else None
        k0, c0 = self.session.cpu_seconds()
        out = self.session.run(code, timeout, interrupt_after)
        k1, c1 = self.session.cpu_seconds()
        self.ran += 1
        # A restarted cell process starts its count again.
        cpu = (k1 - k0, c1 - c0 if c1 >= c0 else c1)
        if counted:
            self.times.append(out.seconds)
            self.cpu.append(cpu)
            self.kinds.append(cell.kind)
        if opts.verbose:
            print(f"{label:<28} {out.status:<6} {out.seconds:7.2f} s, CPU {cpu[0]:5.2f} s kernel {cpu[1]:5.2f} s cell "
                  f"{out.ename}", file=self.log, flush=True)
        if cell.kind == "vars":
            self.vars_listing = out.text
        after_interrupt = self.previous_kind == "interrupt"
        self.previous_kind = cell.kind
        if cell.kind == "interrupt":
            run_interrupt(cell, out, self.failures, label)
        elif out.status != "ok":
            self.errors += 1
            after = " (the cell after an interrupted one)" if after_interrupt else ""
            self.failures.append(f"{label}{after}: {out.ename}: {out.evalue[:300]}")
            if self.errors >= opts.max_errors:
                self.failures.append(f"stopped after {self.errors} failing cells")
                return False
        return True


def soak(opts, log=sys.stderr):
    """Runs the soak; returns the summary (its "failures" empty on success)."""
    plan = soak_cells.make_plan(opts.cells, opts.window, opts.seed, opts.notebooks, opts.interrupt_every)
    warmup = soak_cells.warmup_cells(opts.notebooks, plan) if opts.warmup else []
    levels = []
    started = time.monotonic()
    session = Session(opts.kernel_name)
    r = Runner(opts, session, log)
    first_cell_pid = None
    done = 0
    where = "warm-up"
    try:
        for i, cell in enumerate(warmup):
            where = f"warm-up cell {i} ({cell.label})"
            if not r.run(cell, where, counted=False):
                break
        if warmup:
            print(f"warm-up: {len(warmup)} cells in {time.monotonic() - started:.0f} s", file=log, flush=True)
        for i, cell in enumerate(plan if not r.failures else []):
            where = f"cell {i} ({cell.label})"
            if not r.run(cell, where, counted=True):
                break
            done = i + 1
            if done % opts.window == 0 or done == len(plan):
                m = measure(session, done, opts.trim, opts.cell_timeout)
                levels.append(m)
                if first_cell_pid is None:
                    first_cell_pid = m["cell_pid"]
                elif m["cell_pid"] != first_cell_pid:
                    r.failures.append(f"after {done} cells: the cell process is {m['cell_pid']}, was "
                                      f"{first_cell_pid} (it restarted)")
                    first_cell_pid = m["cell_pid"]
                print(f"after {done} cells ({time.monotonic() - started:.0f} s): kernel {fmt_mib(m['kernel_rss'])}, "
                      f"cell process {fmt_mib(m['cell_rss'])} ({m.get('cell_libraries')} cell libraries: "
                      f"{fmt_mib(m.get('cell_libraries_rss'))}), GPU used {fmt_mib(m['gpu_used'])}",
                      file=log, flush=True)
        # The session still answers after the last (interrupted) cell.
        if done == len(plan):
            where = "the check after the last cell"
            last = session.run("40 + 2", opts.cell_timeout)
            if last.status != "ok" or "42" not in last.text:
                r.failures.append(f"{where}: {last.status} {last.ename} {last.text[:200]!r}")
    except SessionFailed as e:
        r.failures.append(f"the session failed at {where}: {e}")
    finally:
        session.close()
    summary = summarize(opts, plan, done, r.times, r.cpu, r.kinds, levels, r.failures, time.monotonic() - started)
    summary["warmup_cells"] = len(warmup)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
    return summary


def fmt_mib(n):
    return "-" if n is None else f"{n / MIB:.1f} MiB"


def summarize(opts, plan, done, times, cpu, kinds, levels, failures, seconds):
    w = opts.window
    summary = {
        "cells": opts.cells,
        "cells_run": done,
        "window": w,
        "seed": opts.seed,
        "seconds": round(seconds, 1),
        "cell_kinds": {k: kinds.count(k) for k in sorted(set(kinds))},
        "criteria": {
            "memory_growth_max": opts.memory_tolerance,
            "host_slack_bytes": opts.slack_mb * MIB,
            "gpu_slack_bytes": opts.gpu_slack_mb * MIB,
            "median_time_growth_max": opts.time_tolerance,
            "time_measure": opts.time_measure,
            "cell_process_trimmed": opts.trim,
            "cell_libraries_excluded": opts.exclude_cell_libraries,
        },
        "levels": levels,
    }
    if done < len(plan) or len(levels) < 2:
        failures.append(f"only {done} of {len(plan)} cells ran")
    else:
        first, end = levels[0], levels[-1]
        for m in (first, end):
            if m.get("cell_rss") is not None and m.get("cell_libraries_rss") is not None:
                m["cell_rss_without_libraries"] = m["cell_rss"] - m["cell_libraries_rss"]
        # The cell process is judged with or without its cells' libraries
        # (--exclude-cell-libraries); the other figure is reported beside it.
        cell_keys = ["cell_rss", "cell_rss_without_libraries"]
        judged_cell = cell_keys[1] if opts.exclude_cell_libraries else cell_keys[0]
        memory = {}
        for key, slack in (("kernel_rss", opts.slack_mb), ("cell_rss", opts.slack_mb),
                           ("cell_rss_without_libraries", opts.slack_mb), ("gpu_used", opts.gpu_slack_mb)):
            judged = key not in cell_keys or key == judged_cell
            a, b = first.get(key), end.get(key)
            if a is None or b is None:
                if judged:
                    failures.append(f"{key}: not measured ({a} after {w} cells, {b} at the end)")
                continue
            limit = a * (1 + opts.memory_tolerance) + slack * MIB
            memory[key] = {"after_window": a, "end": b, "ratio": round(b / a, 4) if a else None, "limit": int(limit),
                           "ok": b <= limit, "judged": judged}
            if judged and b > limit:
                failures.append(f"{key} grew from {fmt_mib(a)} after {w} cells to {fmt_mib(b)} at the end "
                                f"(limit {fmt_mib(limit)})")
        libs = (first.get("cell_libraries"), end.get("cell_libraries"))
        memory["cell_libraries"] = {"after_window": libs[0], "end": libs[1],
                                    "rss_after_window": first.get("cell_libraries_rss"),
                                    "rss_end": end.get("cell_libraries_rss")}
        summary["memory"] = memory
        total_cpu = [k + c for k, c in cpu]
        medians = {}
        for measure_name, series in (("wall", times), ("cpu", total_cpu)):
            a, b = statistics.median(series[:w]), statistics.median(series[-w:])
            medians[measure_name] = {"first_window": round(a, 4), "last_window": round(b, 4),
                                     "ratio": round(b / a, 4) if a else None}
        summary["median_cell_seconds"] = medians["wall"]
        summary["median_cell_cpu_seconds"] = medians["cpu"]
        # Which side the CPU time went to (means: a cell's share is often under one clock tick).
        summary["mean_cell_cpu_seconds"] = {
            side: {"first_window": round(statistics.mean(c[j] for c in cpu[:w]), 4),
                   "last_window": round(statistics.mean(c[j] for c in cpu[-w:]), 4)}
            for side, j in (("kernel_and_builds", 0), ("cell_process", 1))}
        judged = medians[opts.time_measure]
        judged["ok"] = judged["last_window"] <= judged["first_window"] * (1 + opts.time_tolerance)
        if not judged["ok"]:
            failures.append(f"median cell {opts.time_measure} time grew from {judged['first_window']:.3f} s "
                            f"(first {w}) to {judged['last_window']:.3f} s (last {w})")
        summary["slowest_cell_seconds"] = round(max(times[1:]), 3)
    summary["failures"] = failures
    summary["ok"] = not failures
    return summary


def install_kernelspec(binary):
    """Installs a kernelspec for `binary` in a temporary JUPYTER_PATH entry;
    returns its name."""
    tmp = tempfile.mkdtemp(prefix="cuprite-soak-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    old = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = tmp + (os.pathsep + old if old else "")
    subprocess.run([binary, "install", "--name", "cuprite-soak", "--display-name", "Rust (Cuprite soak)"],
                   check=True, stdout=subprocess.DEVNULL)
    return "cuprite-soak"


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", type=int, default=2000, help="cells to run (default 2000)")
    ap.add_argument("--window", type=int, default=100,
                    help="cells compared at the start and the end; levels recorded every WINDOW cells (default 100)")
    ap.add_argument("--seed", type=int, default=38, help="the plan's seed (default 38)")
    kernel = ap.add_mutually_exclusive_group()
    kernel.add_argument("--kernel", help="a cuprite-kernel binary (a kernelspec for it is installed in a temporary "
                                         "JUPYTER_PATH)")
    kernel.add_argument("--kernel-name", default=os.environ.get("CUPRITE_KERNEL_NAME", "cuprite"),
                        help="an installed kernelspec (default: $CUPRITE_KERNEL_NAME or cuprite)")
    ap.add_argument("--notebooks", default=os.path.join(HERE, "..", "notebooks"), help="the course notebooks' folder")
    ap.add_argument("--interrupt-every", type=int, default=50, help="every Nth cell is interrupted (0: none)")
    ap.add_argument("--interrupt-after", type=float, default=0.5, help="seconds after its start mark (default 0.5)")
    ap.add_argument("--memory-tolerance", type=float, default=0.05, help="relative growth allowed (default 0.05)")
    ap.add_argument("--time-tolerance", type=float, default=0.10, help="median time growth allowed (default 0.10)")
    ap.add_argument("--time-measure", choices=["wall", "cpu"], default="wall",
                    help="the cell time the criterion compares: wall (execute_request to idle; the default) or "
                         "cpu (CPU time of the kernel, its builds and the cell process: for a machine shared "
                         "with other work, where wall time measures the neighbours)")
    ap.add_argument("--no-trim", dest="trim", action="store_false",
                    help="read the cell process's memory without first returning glibc's free memory "
                         "(malloc_trim) to the system")
    ap.add_argument("--no-warmup", dest="warmup", action="store_false",
                    help="start counting at the session's first cell, without first running every notebook once")
    ap.add_argument("--exclude-cell-libraries", action="store_true",
                    help="judge the cell process's memory without the cells' compiled libraries, which evcxr "
                         "keeps loaded (one per cell; both figures are reported either way)")
    ap.add_argument("--slack-mb", type=float, default=8, help="absolute host-memory slack in MiB (default 8)")
    ap.add_argument("--gpu-slack-mb", type=float, default=2, help="absolute GPU-memory slack in MiB (default 2)")
    ap.add_argument("--cell-timeout", type=float, default=600, help="seconds per cell (default 600)")
    ap.add_argument("--first-cell-timeout", type=float, default=3600,
                    help="seconds for the first cell, which may compile the crates cells link (default 3600)")
    ap.add_argument("--max-errors", type=int, default=20, help="stop after this many failing cells (default 20)")
    ap.add_argument("--json", help="also write the summary to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every cell's status and time")
    return ap.parse_args(argv)


def main(argv=None):
    opts = parse_args(argv)
    if opts.kernel:
        opts.kernel_name = install_kernelspec(os.path.abspath(opts.kernel))
    try:
        summary = soak(opts)
    except ValueError as e:
        print(f"soak: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=1))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Writes not_fuzzed.txt: each public function (as coverage.rs finds them)
with no row in the fuzz tables, with a reason taken from where it is
defined. Edit the reasons by hand afterwards; rerun to add new names
(existing lines are kept)."""
import os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..", "..", "src")

# The first matching fragment of the defining file's path gives the reason.
REASONS = [
    ("api/dist/", "needs a multi-process world (cp::dist); tested in tests/dist*"),
    ("api/nccl/", "needs several GPUs and NCCL"),
    ("api/io/", "needs a file; the corrupt-file tests cover it"),
    ("api/interop/", "takes a foreign buffer (DLPack, cudarc, ndarray) made by the caller"),
    ("api/jit/", "takes kernel source text; tests/api/jit.rs"),
    ("api/kernels/", "takes kernel source text; tests/api/custom_kernels.rs"),
    ("api/fuse", "takes a closure building a fused expression"),
    ("api/profiler", "process-wide profiler state"),
    ("api/format", "process-wide print options"),
    ("core/error", "constructs an Error (no input to fuzz)"),
    ("core/global", "process-wide state for the notebook kernel"),
    ("core/interrupt", "process-wide interrupt flag"),
    ("backend/probe", "device discovery (no input to fuzz)"),
    ("backend/", "backend plumbing (no array input)"),
    ("core/", "core type accessor or builder (covered by every row that builds arrays)"),
]

def pub_fns(path):
    names = []
    for line in open(path):
        if line.lstrip().startswith("#[cfg(test)]"):
            break
        m = re.match(r"\s*pub (?:const |unsafe )?fn ([A-Za-z0-9_]+)", line)
        if m:
            names.append(m.group(1))
    return names

where = {}
for d in ("api", "core", "backend"):
    for root, _, files in os.walk(os.path.join(SRC, d)):
        for f in sorted(files):
            if f.endswith(".rs"):
                p = os.path.join(root, f)
                for n in pub_fns(p):
                    where.setdefault(n, os.path.relpath(p, SRC))
for line in open(os.path.join(SRC, "ops/ufunc.rs")):
    w = line.split()
    if len(w) >= 3 and w[1] == w[0] + "_out" and w[2].endswith(":"):
        where.setdefault(w[0], "ops/ufunc.rs")
        where.setdefault(w[1], "ops/ufunc.rs")
for part in open(os.path.join(SRC, "ops/reduce.rs")).read().split("api: [")[1:]:
    for n in part.split("]")[0].split():
        if re.fullmatch(r"\w+", n):
            where.setdefault(n, "ops/reduce.rs")

rows = set()
for f in os.listdir(HERE):
    if f.endswith(".rs"):
        for m in re.finditer(r'^\s*"([^"]+)" =>', open(os.path.join(HERE, f)).read(), re.M):
            rows.add(m.group(1).split("(")[0].rsplit(".", 1)[-1])

path = os.path.join(HERE, "not_fuzzed.txt")
kept = {}
header = []
if os.path.exists(path):
    for line in open(path):
        if line.startswith("#") or not line.strip():
            header.append(line.rstrip("\n"))
        else:
            n, r = line.split(":", 1)
            kept[n.strip()] = r.strip()
out = []
for n in sorted(where):
    if n in rows:
        continue
    reason = kept.get(n)
    if not reason:
        reason = next((r for frag, r in REASONS if frag in where[n]),
                      f"pending: no row yet ({where[n]})")
    out.append(f"{n}: {reason}")
with open(path, "w") as fh:
    fh.write("\n".join(header or [
        "# Public functions the fuzz table does not call, each with why.",
        "# `name: reason`; regenerate pending lines with write_not_fuzzed.py.",
    ]) + "\n" + "\n".join(out) + "\n")
print(len(where), "public functions,", len(rows), "row names,", len(out), "not fuzzed;",
      sum("pending" in l for l in out), "pending")

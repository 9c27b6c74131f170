"""Every notebook in notebooks/ executed with nbclient through the installed
kernelspec, with its key outputs checked; and `cuprite-kernel run` on the
notebooks in tests/notebooks/ (a failing cell, parameters, the HTML report).

What a cell must show is written in the notebook itself, in the cell's
metadata:

    "metadata": {"cuprite": {"expect": {
        "mimes": ["text/html", "image/png"],     # each in some output's data
        "contains": ["dtype=float32"],           # each in the cell's text
        "output_types": ["execute_result"]       # each among its outputs
    }}}

The cell's text is its stream output plus the `text/plain` (and
`text/markdown`) of its results and displays, after display updates.

Notebooks that verify a computation also print the measured error; BOUNDS
below reads those numbers back and checks them against their bounds, and
the checks in DEVICE_CHECKS depend on whether the notebook ran on a GPU
(cells that need CUDA must say so on the CPU, and must have run on a GPU).

The notebooks are stored with the outputs of a run on an H100
(notebooks/refresh-outputs): the stored-outputs tests check, with no kernel,
that every code cell's outputs were made from its current source (its
`metadata.cuprite.source_sha256`), that the run was on an H100, that images
are PNG under 200 KB, that the stored outputs show what the cells promise, and
that `jupyter nbconvert --to script` and `--to html` export every notebook.

Run through tests/run_kernel_tests.sh (it installs the kernelspec named in
CUPRITE_KERNEL_NAME and says where the kernel binary is in CUPRITE_KERNEL_BIN).
"""

import base64
import copy
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import zlib
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter, ScriptExporter

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TEST_NOTEBOOKS = ROOT / "tests" / "notebooks"
KERNEL_NAME = os.environ.get("CUPRITE_KERNEL_NAME", "cuprite")
KERNEL_BIN = os.environ.get("CUPRITE_KERNEL_BIN", "cuprite-kernel")
# The first cell of a cold build directory compiles the runtime: minutes.
CELL_TIMEOUT = int(os.environ.get("CUPRITE_WARMUP_TIMEOUT", "1800"))

# All kernels of these tests share the build directory of the protocol tests
# (keyed like a Jupyter session), so cells link what those already built.
os.environ.setdefault("JPY_SESSION_NAME", str(ROOT / "tests"))


def cell_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append(out["text"])
        elif out["output_type"] in ("execute_result", "display_data"):
            for mime in ("text/plain", "text/markdown"):
                if mime in out["data"]:
                    parts.append(out["data"][mime])
        elif out["output_type"] == "error":
            parts.append(f"{out['ename']}: {out['evalue']}")
    return "\n".join(parts)


def check_outputs(nb, name):
    """Checks a notebook executed by nbclient or `cuprite-kernel run`."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        where = f"{name} cell {i}:\n{cell.source}\n--- outputs:\n{cell_text(cell)}"
        tags = cell.metadata.get("tags", [])
        if cell.source.strip():
            assert cell.execution_count is not None, where
        for out in cell.outputs:
            if out["output_type"] == "error":
                assert "raises-exception" in tags, where
            if out["output_type"] in ("execute_result", "display_data"):
                assert "text/plain" in out["data"], where
        expect = cell.metadata.get("cuprite", {}).get("expect", {})
        mimes = {m for out in cell.outputs for m in out.get("data", {})}
        for mime in expect.get("mimes", []):
            assert mime in mimes, f"{mime} missing in {where}"
        types = {out["output_type"] for out in cell.outputs}
        for t in expect.get("output_types", []):
            assert t in types, f"{t} missing in {where}"
        text = cell_text(cell)
        for s in expect.get("contains", []):
            assert s in text, f"{s!r} missing in {where}"


def notebook_text(nb):
    return "\n".join(cell_text(c) for c in nb.cells if c.cell_type == "code")


def ran_on_gpu(nb):
    """Whether the notebook's arrays were on a CUDA device (it prints where)."""
    return re.search(r"\bon cuda:\d", notebook_text(nb)) is not None


# Numbers the notebooks print as evidence, each below its bound: (pattern
# capturing one number, bound). Every pattern must match at least once, and
# every match must be below the bound.
NUM = r"(\d[\d.]*(?:e[-+]?\d+)?)"
BOUNDS = {
    "04-random-numbers": [
        (r"normal float64: max \|difference\| = " + NUM, 1e-12),
        (r"pi is about \S+ \(error " + NUM, 1e-2),
    ],
    "05-linear-algebra": [
        (r"relative error vs a float64 CPU product: " + NUM, 1e-5),
        (r"backward error " + NUM, 1e-5),
        (r"inv: ‖A A⁻¹ − I‖ / ‖I‖ = " + NUM, 1e-10),
        (r"reconstruction error .* = " + NUM, 1e-10),
        (r"eigvalsh\(\S+\) vs \S+: relative difference " + NUM, 1e-9),
        (r"cholesky: ‖L Lᵀ − M‖ / ‖M‖ = " + NUM, 1e-12),
        (r"qr: Q .* = " + NUM, 1e-12),
        (r"over the batch \(largest entry\) = " + NUM, 1e-4),
    ],
    "06-fft": [
        (r"round trip of \d+ complex64 values: max error " + NUM, 1e-5),
    ],
    "07-sparse": [
        (r"relative residual ‖Ax − b‖/‖b‖ = " + NUM, 1e-8),
        (r"SpMM vs dense: relative error " + NUM, 1e-12),
        (r"SpGEMM vs dense: relative error " + NUM, 1e-12),
        (r"vs the CPU backend: relative difference " + NUM, 1e-12),
    ],
    "08-signal-processing": [
        (r"direct vs fft: max difference " + NUM, 1e-9),
        (r"lfilter and convolve agree: max difference " + NUM, 1e-12),
        (r"vs the CPU backend: max relative error " + NUM, 1e-5),
        (r"passband gain at the tones' ends \(40 and 110 Hz\): within " + NUM, 0.2),
        (r"zero-phase \(sosfiltfilt\) lag: " + NUM, 0.5),
        (r"RMS of what is not the tone: raw \S+, after sosfiltfilt " + NUM, 0.6),
        (r"vs the tones: max error " + NUM, 0.25),
        (r"filtered spectrum: peaks other than the tone: " + NUM, 0.5),
        (r"sosfiltfilt on \S+ vs the CPU backend: max relative difference " + NUM, 1e-9),
    ],
    "09-custom-kernels": [
        (r"fused and unfused agree: max difference " + NUM, 1e-6),
    ],
    "16-scipy-on-the-gpu": [
        (r"relative residual ‖Ax − b‖/‖b‖ = " + NUM, 1e-7),
        (r"gmres and cg agree on that grid: relative difference " + NUM, 1e-4),
        (r"residual recomputed on the CPU backend: ‖Ax − b‖/‖b‖ = " + NUM, 1e-7),
        (r"IC\(0\) factor on \S+ vs the CPU backend: max relative difference " + NUM, 1e-10),
        (r"eigenvalues vs the closed form: max absolute error " + NUM, 1e-9),
        (r"eigsh on \S+ vs the CPU backend: max absolute difference " + NUM, 1e-9),
        (r"fit errors: \|mu − 2\| = " + NUM, 1e-2),
        (r"\|sigma − 0\.5\| = " + NUM, 1e-2),
        (r"max pdf difference " + NUM, 1e-2),
        (r"max cdf difference " + NUM, 1e-2),
        (r"KS distance D = " + NUM, 1e-2),
        (r"Norm::cdf vs \(1 \+ erf\(z/√2\)\)/2: max difference " + NUM, 1e-12),
        (r"gamma fit errors: \|a − 3\|/3 = " + NUM, 2e-2),
        (r"\|theta − 2\|/2 = " + NUM, 2e-2),
        (r"by hand with gammaln: relative difference " + NUM, 1e-10),
        (r"normal fit on \S+ vs the CPU backend: relative difference " + NUM, 1e-9),
        (r"fitted pdf on \S+ vs the CPU backend: max relative difference " + NUM, 1e-9),
    ],
    "17-images-on-the-gpu": [
        (r"RMS error vs the clean image, everywhere: .*, median then gaussian " + NUM, 0.15),
        (r"RMS error vs the clean image, where the image is flat: .*, median then gaussian " + NUM, 0.05),
        (r"strong edges vs the circles drawn: largest distance " + NUM, 6.0),
        (r"centres vs the discs drawn: largest distance " + NUM, 0.5),
        (r"areas vs π r²: largest relative error " + NUM, 8e-2),
        (r"bounding boxes vs 2r \+ 1: largest difference " + NUM, 3),
        (r"largest distance inside each disc vs its radius: max \|difference\| " + NUM, 1.5),
        (r"zoom: centres vs c \(2n − 1\)/\(n − 1\): largest distance " + NUM, 1.0),
        (r"zoom: areas vs 4 x the original: largest relative error " + NUM, 5e-2),
        (r"centres vs the drawn ones rotated: largest distance " + NUM, 1.0),
        (r"rotate 90° vs rot90: max difference " + NUM, 1e-9),
        (r"profile vs the tent r − \|x − cx\| inside the disc: max difference " + NUM, 1.5),
        (r"on \S+ vs the CPU backend: max abs difference \S+, max relative difference " + NUM, 1e-9),
        (r"every step on \S+ vs the CPU backend: max relative difference " + NUM, 1e-9),
    ],
    "15-multi-node": [
        (r"largest relative residual difference: " + NUM, 1e-12),
        (r"\|QR - A\| = " + NUM, 1e-9),
    ],
    "12-case-study-convolution": [
        (r"each bright pixel became a copy of the kernel: \S+ \(max difference " + NUM, 1e-6),
        (r"GPU-vs-CPU check on .*\nmax relative error " + NUM, 1e-5),
        (r"fftconvolve vs convolve2d\(fill\): max relative error " + NUM, 1e-4),
        (r"circular FFT vs convolve2d\(wrap\): max relative error " + NUM, 1e-4),
    ],
}


def check_bounds(nb, name):
    text = notebook_text(nb)
    for pattern, bound in BOUNDS.get(name, []):
        values = re.findall(pattern, text)
        assert values, f"{name}: nothing printed matches {pattern!r}"
        for v in values:
            assert float(v) < bound, f"{name}: {pattern!r} gave {v}, not below {bound}"


def timing_reports(nb):
    """The text of every timing report (`cp::profiler::Timing` / `cp::Timings`)."""
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            plain = o.get("data", {}).get("text/plain", "")
            if re.search(r" — \d+ runs\n", plain):
                out.append(plain)
    return out


def check_timings_match_the_device(nb, name):
    """Reports have a CPU row always and a GPU (CUDA event) row exactly on a GPU."""
    reports = timing_reports(nb)
    assert reports, f"{name} shows no timing report"
    gpu = ran_on_gpu(nb)
    for r in reports:
        rows = {line.split()[0] for line in r.splitlines() if line.strip()}
        assert "CPU" in rows, r
        assert ("GPU" in rows) == gpu, f"{name} (GPU: {gpu}):\n{r}"


JIT_RUNS = ["saxpy_jit", "transpose_tiled", "block_sum_jit", "histogram_jit", "axpb_jit float32", "axpb_jit float64"]


def check_custom_kernels(nb, name):
    text = notebook_text(nb)
    # cp::jit kernels run on every device, each checked against the CPU backend
    # (on a GPU they must have run there).
    device = r"cuda:\d+" if ran_on_gpu(nb) else "cpu"
    for k in JIT_RUNS:
        assert re.search(rf"{k} on {device} vs the CPU backend: max difference \S+, agree: true", text), k
    for s in ["equals m.T: true", "equals bincount: true", "results are float32 and float64",
              "z = 2 x + y: max difference from the array expression 0.0e0"]:
        assert s in text, s
    assert re.search(r"block_sum_jit: \S+ \(sum\(\): \S+\), equal: true", text)
    if ran_on_gpu(nb):
        assert "not run:" not in text, text
        for s in ["matches data * data: true", "equals 285: true",
                  "z = 2 x + y, max difference from the array expression:",
                  "kernel_a then kernel_b: [3. 3. 3. 3. 3.]", "compiling `broken` failed"]:
            assert s in text, s
    else:
        # Every launch says why it did not run; nothing fails.
        for k in ["square_f32", "scale_bias", "leaky_relu", "sum_squares", "l2norm",
                  "saxpy", "block_sum", "kernel_a"]:
            assert re.search(rf"`{k}`.*needs the CUDA backend|needs the CUDA backend.*`{k}`|{k}.*not run: .*needs the CUDA backend", text), k


def check_distributed_results(nb, name):
    text = notebook_text(nb)
    for s in ["distributed grid equals one array: true", "fft2 matches one array: true",
              "R is [8, 8]", "the spectrum is split along axis Some(1)"]:
        assert s in text, f"{name}: {s!r} missing"


def check_no_host_round_trips(nb, name):
    """The last cell counts the host round trips; on a GPU there are none
    (the solvers, the preconditioner, eigsh and the statistics stay on it)."""
    text = notebook_text(nb)
    counts = re.findall(r"host round trips on (\S+): (\d+)", text)
    assert counts, f"{name}: the host round trips are not printed"
    if ran_on_gpu(nb):
        assert all(n == "0" for _, n in counts), f"{name}: {counts}\n{text[-2000:]}"


DEVICE_CHECKS = {
    "04-random-numbers": [check_timings_match_the_device],
    "05-linear-algebra": [check_timings_match_the_device],
    "06-fft": [check_timings_match_the_device],
    "07-sparse": [check_timings_match_the_device],
    "08-signal-processing": [check_timings_match_the_device],
    "09-custom-kernels": [check_timings_match_the_device, check_custom_kernels],
    "11-profiling": [check_timings_match_the_device],
    "12-case-study-convolution": [check_timings_match_the_device],
    "15-multi-node": [check_distributed_results],
    "16-scipy-on-the-gpu": [check_no_host_round_trips],
    "17-images-on-the-gpu": [check_timings_match_the_device, check_no_host_round_trips],
}


def check_notebook(nb, name):
    """Everything a notebook's executed outputs must show."""
    check_outputs(nb, name + ".ipynb")
    check_bounds(nb, name)
    for check in DEVICE_CHECKS.get(name, []):
        check(nb, name)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook(path):
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), path
    assert "teach" in first.source, "the first cell says what the notebook teaches"
    client = NotebookClient(
        nb,
        kernel_name=KERNEL_NAME,
        timeout=CELL_TIMEOUT,
        startup_timeout=120,
        resources={"metadata": {"path": str(path.parent)}},
    )
    stored = path.read_bytes()
    client.execute()
    # nbclient replaced the stored outputs in memory only.
    assert path.read_bytes() == stored, f"{path} was written while executing it"
    check_notebook(nb, path.stem)
    nbformat.validate(nb)
    # Saved with the kernel's language_info, it exports (nbconvert has no
    # "rust" exporter: a kernel naming one breaks `--to script`).
    script, resources = ScriptExporter().from_notebook_node(nb)
    assert resources["output_extension"] == ".rs" and script.strip(), path
    html, _ = HTMLExporter().from_notebook_node(nb)
    assert "<html" in html, path


# ---------------------------------------------------------------- stored outputs

REFRESH = ROOT / "notebooks" / "refresh-outputs"
REFRESH_HINT = (
    "refresh the stored outputs: run the notebooks on an H100 and write them back "
    "(`notebooks/refresh-outputs device` prints the device calls, then "
    "`notebooks/refresh-outputs write-back RESULTS...`; README.md, "
    "'The course notebooks and their outputs')"
)
# The workshop's GPU, or the H200 (the same Hopper generation) that the GPU
# machine lends when no H100 is.
STORED_GPUS = ("H100", "H200")
IMAGE_LIMIT = 200_000  # bytes per image
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def source_sha256(cell):
    src = cell.get("source", "")
    src = "".join(src) if isinstance(src, list) else src
    return hashlib.sha256(src.encode("utf-8")).hexdigest()


def joined(value):
    return "".join(value) if isinstance(value, list) else value


def stored_problems(path):
    """Why the outputs stored in the notebook at `path` are not those of an
    H100 run of its current sources (empty when they are). Reads the file
    as JSON: nothing here runs a kernel."""
    name = Path(path).name
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    problems = []
    try:
        nbformat.validate(nbformat.from_dict(copy.deepcopy(raw)))
    except nbformat.ValidationError as e:
        problems.append(f"{name}: not a valid notebook: {e.message}")
    if raw["metadata"].get("kernelspec", {}).get("name") != "cuprite":
        problems.append(f"{name}: the kernelspec is not cuprite")
    meta = raw["metadata"].get("cuprite", {})
    env = meta.get("environment")
    if not isinstance(env, dict):
        return problems + [f"{name}: stored without the outputs of a GPU run "
                           "(no metadata.cuprite.environment)"]
    if not any(g in (env.get("gpu") or "") for g in STORED_GPUS):
        problems.append(f"{name}: metadata.cuprite.environment names GPU {env.get('gpu')!r}, "
                        f"not an {' or '.join(STORED_GPUS)}")
    if not str(env.get("device", "")).startswith("cuda"):
        problems.append(f"{name}: its arrays were on {env.get('device')!r}, not a CUDA device")
    if meta.get("status") != "ok":
        problems.append(f"{name}: metadata.cuprite.status is {meta.get('status')!r}, not 'ok'")
    code = [(i, c) for i, c in enumerate(raw["cells"]) if c["cell_type"] == "code"]
    order = "".join(source_sha256(c) + "\n" for _, c in code)
    if meta.get("sources_sha256") != hashlib.sha256(order.encode()).hexdigest():
        problems.append(f"{name}: code cells were added, removed or moved since the run "
                        "(metadata.cuprite.sources_sha256)")
    count = 0
    for i, cell in code:
        stamp = cell["metadata"].get("cuprite", {}).get("source_sha256")
        if stamp is None:
            problems.append(f"{name} cell {i}: no outputs from the run (no source_sha256)")
        elif stamp != source_sha256(cell):
            problems.append(f"{name} cell {i}: the source changed since its outputs were made "
                            "(source_sha256)")
        if joined(cell["source"]).strip():
            count += 1
            if cell.get("execution_count") != count:
                problems.append(f"{name} cell {i}: execution_count {cell.get('execution_count')}, "
                                f"not {count} (one run, in order)")
        for j, out in enumerate(cell.get("outputs", [])):
            where = f"{name} cell {i} output {j}"
            for mime, value in out.get("data", {}).items():
                if mime == "image/png":
                    png = base64.b64decode("".join(joined(value).split()))
                    if not png.startswith(PNG_SIGNATURE):
                        problems.append(f"{where}: image/png is not a PNG")
                    elif len(png) >= IMAGE_LIMIT:
                        problems.append(f"{where}: a PNG of {len(png):,} bytes, over {IMAGE_LIMIT:,}")
                elif mime == "image/svg+xml":
                    if len(joined(value).encode()) >= IMAGE_LIMIT:
                        problems.append(f"{where}: an SVG over {IMAGE_LIMIT:,} bytes")
                elif mime.startswith("image/"):
                    problems.append(f"{where}: an image as {mime}, not PNG")
    return problems


def assert_fresh(path):
    problems = stored_problems(path)
    assert not problems, "\n".join(problems) + "\n" + REFRESH_HINT


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_stored_outputs_are_fresh(path):
    """CI's freshness check: a changed cell without fresh outputs fails here."""
    assert_fresh(path)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_stored_outputs_show_what_the_cells_promise(path):
    """The H100 outputs pass the checks the CPU run passes (cell metadata,
    printed errors within bounds, GPU rows in timing reports...)."""
    if stored_problems(path):
        pytest.skip("not stored fresh (test_stored_outputs_are_fresh says why)")
    nb = nbformat.read(path, as_version=4)
    check_notebook(nb, path.stem)


def test_nbconvert_exports_every_stored_notebook(tmp_path):
    """`jupyter nbconvert --to script` and `--to html` on copies of the stored notebooks."""
    src = tmp_path / "notebooks"
    src.mkdir()
    for p in NOTEBOOKS:
        shutil.copy(p, src / p.name)
    copies = sorted(str(p) for p in src.glob("*.ipynb"))
    jupyter = Path(sys.executable).with_name("jupyter")
    cmd = [str(jupyter), "nbconvert"] if jupyter.exists() else [sys.executable, "-m", "nbconvert"]
    for to in ("script", "html"):
        out = tmp_path / to
        r = subprocess.run([*cmd, "--to", to, "--output-dir", str(out), *copies],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"nbconvert --to {to}:\n{r.stderr}"
    for p in NOTEBOOKS:
        script = (tmp_path / "script" / p.with_suffix(".rs").name).read_text()
        first = next(c for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code")
        assert first.source.strip().splitlines()[0] in script, p
        page = (tmp_path / "html" / p.with_suffix(".html").name).read_text()
        assert "<html" in page, p
        # Each stored plot is in the page: as SVG where the output has one
        # (nbconvert prefers it), else as an inlined PNG.
        for c in nbformat.read(p, as_version=4).cells:
            for o in c.get("outputs", []):
                data = o.get("data", {})
                if "image/svg+xml" in data:
                    assert "data:image/svg+xml;base64," in page, p
                elif "image/png" in data:
                    assert f"data:image/png;base64,{data['image/png'][:40]}" in page, p
    for p in NOTEBOOKS:
        assert p.read_bytes() == (src / p.name).read_bytes(), f"nbconvert changed {p}"


def load_refresh():
    loader = importlib.machinery.SourceFileLoader("refresh_outputs", str(REFRESH))
    spec = importlib.util.spec_from_loader("refresh_outputs", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def png(width, height, noise=False):
    """An RGB PNG: flat grey, or random pixels (which do not compress)."""
    row = lambda: b"\0" + (os.urandom(3 * width) if noise else b"\x80" * (3 * width))
    pixels = b"".join(row() for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (PNG_SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(pixels, 0))
            + chunk(b"IEND", b""))


H100_ENV = {"gpu": "NVIDIA H100 80GB HBM3", "gpus": ["NVIDIA H100 80GB HBM3"], "device": "cuda:0",
            "driver": "580.95.05", "cuda": "13.0", "cuprite": "0.1.0", "evcxr": "0.22.0",
            "rustc": "rustc 1.95.0", "date": "2026-11-28T00:00:00Z", "host": "gpu", "run_seconds": 9.9}


def executed_copy(stored, image=None):
    """What `cuprite-kernel run` writes for `stored` on an H100 (made-up outputs;
    the run's string sources and added metadata as the kernel writes them)."""
    nb = copy.deepcopy(stored)
    count = 0
    for cell in nb["cells"]:
        cell["source"] = joined(cell["source"])
        if cell["cell_type"] != "code":
            continue
        if cell["source"].strip():
            count += 1
            cell["execution_count"] = count
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": f"cell {count}\nok\n"}]
            if count == 1 and image is not None:
                cell["outputs"].append({"output_type": "display_data", "metadata": {}, "data": {
                    "text/plain": "<plot>", "image/png": base64.b64encode(image).decode()}})
    nb["metadata"]["cuprite"] = {"environment": dict(H100_ENV), "status": "ok"}
    return nb


def test_write_back_then_the_freshness_check_fails_on_a_changed_cell(tmp_path):
    """The write-back stores an H100 run; the freshness check passes on it and
    fails, naming the notebook and the cell, once a cell, the cells' order or
    the images change."""
    refresh = load_refresh()
    path = ROOT / "notebooks" / "01-hello-gpu-arrays.ipynb"
    stored = json.loads(path.read_text(encoding="utf-8"))
    flat = png(64, 48)
    merged, saved = refresh.merge(stored, executed_copy(stored, flat), path.stem)
    assert saved > 0  # the level-0 PNG was deflated again
    fresh = tmp_path / path.name
    fresh.write_text(refresh.dumps(merged), encoding="utf-8")
    assert stored_problems(fresh) == []
    nb = json.loads(fresh.read_text())
    # Sources, ids and markdown as stored, byte for byte.
    for a, b in zip(stored["cells"], nb["cells"]):
        assert (a["id"], a["source"], a["cell_type"]) == (b["id"], b["source"], b["cell_type"])
        if a["cell_type"] == "markdown":
            assert a == b
    assert nb["metadata"]["cuprite"]["environment"] == H100_ENV
    shown = next(o for c in nb["cells"] for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
    new_png = base64.b64decode(shown["data"]["image/png"])
    assert new_png.startswith(PNG_SIGNATURE) and len(new_png) < len(flat)

    def pixels(raw):
        return zlib.decompress(b"".join(d for k, d in refresh.png_chunks(raw) if k == b"IDAT"))
    assert pixels(new_png) == pixels(flat)  # the same image

    def tampered(change):
        nb = json.loads(fresh.read_text())
        change(nb)
        bad = tmp_path / "bad" / path.name
        bad.parent.mkdir(exist_ok=True)
        bad.write_text(json.dumps(nb, indent=1))
        problems = stored_problems(bad)
        assert problems
        with pytest.raises(AssertionError) as e:
            assert_fresh(bad)
        assert "notebooks/refresh-outputs" in str(e.value)
        return "\n".join(problems)

    code = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]

    def edit(nb):
        nb["cells"][code[2]]["source"][-1] += "  // changed"
    msg = tampered(edit)
    assert f"{path.name} cell {code[2]}: the source changed" in msg, msg
    assert f"cell {code[1]}" not in msg and f"cell {code[3]}" not in msg, msg

    def swap(nb):
        c = nb["cells"]
        c[code[1]], c[code[2]] = c[code[2]], c[code[1]]
    assert "added, removed or moved" in tampered(swap)

    def new_cell(nb):
        nb["cells"].append({"cell_type": "code", "id": "new", "metadata": {}, "source": "1 + 1",
                            "outputs": [], "execution_count": None})
    msg = tampered(new_cell)
    assert f"cell {len(nb['cells'])}: no outputs from the run" in msg, msg

    def on_a100(nb):
        nb["metadata"]["cuprite"]["environment"]["gpu"] = "NVIDIA A100-SXM4-80GB"
    assert "not an H100" in tampered(on_a100)

    def cleared(nb):
        for c in nb["cells"]:
            if c["cell_type"] == "code":
                c["outputs"], c["execution_count"] = [], None
    assert "execution_count None" in tampered(cleared)

    def big_image(nb):
        out = shown_in(nb)
        out["data"]["image/png"] = base64.b64encode(png(300, 300, noise=True)).decode()
    def shown_in(nb):
        return next(o for c in nb["cells"] for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
    assert "output 1: a PNG of 270," in tampered(big_image)

    def jpeg(nb):
        out = shown_in(nb)
        out["data"]["image/jpeg"] = out["data"].pop("image/png")
    assert "image/jpeg, not PNG" in tampered(jpeg)


def test_write_back_shrinks_pngs_inlined_in_svg():
    """An SVG `imshow` carries its raster as a PNG data URL: deflated again too."""
    refresh = load_refresh()
    flat = png(200, 100)
    url = "data:image/png;base64," + base64.b64encode(flat).decode()
    out = {"output_type": "display_data", "metadata": {}, "data": {
        "text/plain": "<Figure>", "image/svg+xml": f'<svg><image href="{url}"/></svg>'}}
    assert refresh.shrink_images(out) > 0
    svg = out["data"]["image/svg+xml"]
    inlined = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", svg).group(1))
    assert len(inlined) < len(flat) and svg.startswith('<svg><image href="data:image/png;base64,')

    def pixels(raw):
        return zlib.decompress(b"".join(d for k, d in refresh.png_chunks(raw) if k == b"IDAT"))
    assert pixels(inlined) == pixels(flat)


def test_write_back_refuses_other_revisions_gpus_and_big_images(tmp_path):
    refresh = load_refresh()
    path = ROOT / "notebooks" / "02-ufuncs-broadcasting-reductions.ipynb"
    stored = json.loads(path.read_text(encoding="utf-8"))

    def refused(executed, **kw):
        with pytest.raises(refresh.Refused) as e:
            refresh.merge(stored, executed, path.stem, **kw)
        return str(e.value)

    other = executed_copy(stored)
    i = next(i for i, c in enumerate(other["cells"]) if c["cell_type"] == "code")
    other["cells"][i]["source"] += "\n// another revision"
    assert f"cell {i}'s source differs" in refused(other)
    other = executed_copy(stored)
    other["cells"][0]["id"] = "renamed"
    assert "cell 0's id differs" in refused(other)
    other = executed_copy(stored)
    del other["cells"][-1]
    assert "another revision" in refused(other)

    on_cpu = executed_copy(stored)
    on_cpu["metadata"]["cuprite"]["environment"].update(gpu=None, gpus=[], device="cpu")
    assert "without a GPU" in refused(on_cpu)
    a100 = executed_copy(stored)
    a100["metadata"]["cuprite"]["environment"]["gpu"] = "NVIDIA A100-SXM4-80GB"
    assert "--allow-gpu" in refused(a100)
    merged, _ = refresh.merge(stored, a100, path.stem, allow_gpu="A100")
    assert merged["metadata"]["cuprite"]["environment"]["gpu"] == "NVIDIA A100-SXM4-80GB"

    failed = executed_copy(stored)
    failed["metadata"]["cuprite"]["status"] = "failed"
    assert "did not finish" in refused(failed)
    params = executed_copy(stored)
    params["metadata"]["cuprite"]["parameters"] = {"n": "3"}
    assert "--param" in refused(params)

    # Random pixels do not compress: still over the limit after deflating again.
    assert "a PNG of" in refused(executed_copy(stored, png(300, 300, noise=True)))


def test_write_back_command_reads_the_device_results(tmp_path):
    """`refresh-outputs write-back` on a results.tar.xz as gpu-run.sh packs it
    (into a copy of notebooks/), then `check` on what it wrote."""
    nbdir = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", nbdir, ignore=shutil.ignore_patterns("refresh-outputs"))
    results = tmp_path / "out"
    results.mkdir()
    names = [p.name for p in NOTEBOOKS[:2]]
    for n in names:
        stored = json.loads((ROOT / "notebooks" / n).read_text(encoding="utf-8"))
        (results / n).write_text(json.dumps(executed_copy(stored, png(20, 10)), indent=2))
    with tarfile.open(results / "results.tar.xz", "w:xz") as tar:
        for n in names:
            tar.add(results / n, arcname=n)
            (results / n).unlink()
    (results / "run.log").write_text("gpu-run: ...\n")
    before = {p.name: p.read_bytes() for p in NOTEBOOKS}
    r = subprocess.run([sys.executable, str(REFRESH), "write-back", "--notebooks", str(nbdir), str(results)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "not in the results (left as they are): " in r.stdout, r.stdout
    for n in names:
        assert stored_problems(nbdir / n) == [], r.stdout
    r = subprocess.run([sys.executable, str(REFRESH), "check", *(str(nbdir / n) for n in names)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([sys.executable, str(REFRESH), "check", str(nbdir / NOTEBOOKS[2].name)],
                       capture_output=True, text=True, timeout=120)
    if stored_problems(ROOT / "notebooks" / NOTEBOOKS[2].name):
        assert r.returncode == 1 and "refresh-outputs write-back" in r.stdout, r.stdout
    assert before == {p.name: p.read_bytes() for p in NOTEBOOKS}


def test_the_gallery_shows_every_kind_of_output():
    nb = nbformat.read(ROOT / "notebooks" / "00-display-gallery.ipynb", as_version=4)
    expected = set()
    for cell in nb.cells:
        expected.update(cell.metadata.get("cuprite", {}).get("expect", {}).get("mimes", []))
    assert {"text/html", "image/png", "image/svg+xml", "text/markdown"} <= expected


def run_notebook(*args, cwd=None):
    return subprocess.run(
        [KERNEL_BIN, "run", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=CELL_TIMEOUT,
    )


def test_kernel_features_notebook():
    """Shell cells, %whos, %cd and the GPU pools through `cuprite-kernel run`
    (on the GPU machine the array is on cuda:0 and one pool is open)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "kernel_features.out.ipynb"
        r = run_notebook(str(TEST_NOTEBOOKS / "kernel_features.ipynb"), "--output", str(out))
        assert r.returncode == 0, r.stderr
        cells = [c for c in nbformat.read(out, as_version=4).cells if c.cell_type == "code"]
        text = [cell_text(c) for c in cells]
        assert "shell-ok" in text[0] and "Linux" in text[0], text[0]
        assert "bash-ok 42" in text[1], text[1]
        on_gpu = "cuda:0" in text[2]
        whos = next(l for l in text[3].splitlines() if l.startswith("features"))
        assert "(3, 4)" in whos and "float32" in whos and "48 B" in whos, text[3]
        assert f"pools: {1 if on_gpu else 0}" in text[4], text[4]
        if on_gpu:
            used = int(re.search(r"used (\d+) reserved (\d+)", text[4]).group(1))
            assert used >= 48, text[4]
        # Saved and loaded again: back on the device it was saved from.
        assert "Saved 1 variable" in text[5], text[5]
        assert "Loaded 1 variable" in text[6] and "features" in text[6], text[6]
        assert f"restored on {'cuda:0' if on_gpu else 'cpu'}: 11" in text[7], text[7]
        assert ("cuda:0" in text[8]) if on_gpu else ("No usable GPU" in text[8]), text[8]
        assert "/tmp" in text[10], text[10]


def test_run_stops_at_the_failing_cell():
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "failing.out.ipynb"
        r = run_notebook(str(TEST_NOTEBOOKS / "failing.ipynb"), "--output", str(out))
        assert r.returncode == 1, r.stderr
        # The fifth cell (index 4) is named, with the head of its source and the error.
        assert "cell 5 of 6 (index 4" in r.stderr, r.stderr
        assert "let bad = cp::ones([3], cp::f32)?.reshape([7])?;" in r.stderr, r.stderr
        assert "cannot reshape" in r.stderr, r.stderr
        nb = nbformat.read(out, as_version=4)
        cells = nb.cells
        # The cell tagged raises-exception failed and the run went on.
        assert any(o["output_type"] == "error" for o in cells[2].outputs)
        assert cells[3].outputs == [
            {"output_type": "stream", "name": "stdout", "text": "b = 2\n"}
        ]
        assert cells[4].outputs[-1]["output_type"] == "error"
        assert cells[5].execution_count is None and cells[5].outputs == []
        assert [c.execution_count for c in cells[1:5]] == [1, 2, 3, 4]
        assert nb.metadata["cuprite"]["status"] == "failed"
        nbformat.validate(nb)


def test_run_with_parameters_and_html_report():
    with tempfile.TemporaryDirectory() as tmp:
        default = Path(tmp) / "default.ipynb"
        r = run_notebook(str(TEST_NOTEBOOKS / "parameters.ipynb"), "--output", str(default))
        assert r.returncode == 0, r.stderr
        nb = nbformat.read(default, as_version=4)
        assert "default: sum 1..=5 = 15" in cell_text(nb.cells[2])

        out = Path(tmp) / "ten.ipynb"
        html = Path(tmp) / "ten.html"
        r = run_notebook(
            str(TEST_NOTEBOOKS / "parameters.ipynb"),
            "--output", str(out),
            "--html", str(html),
            "--param", "n=10",
            "--param", 'label="ten"',
        )
        assert r.returncode == 0, r.stderr
        nb = nbformat.read(out, as_version=4)
        nbformat.validate(nb)
        assert nb.cells[1].source == 'let n: i64 = 10;\nlet label = "ten";'
        text = cell_text(nb.cells[2])
        assert "ten: sum 1..=10 = 55" in text, text
        assert "array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])" in text, text
        result = [o for o in nb.cells[2].outputs if o["output_type"] == "execute_result"][0]
        assert "text/html" in result["data"] and result["execution_count"] == 2
        assert "image/png" in nb.cells[3].outputs[0]["data"]
        meta = nb.metadata["cuprite"]
        env = meta["environment"]
        for key in ("gpu", "driver", "cuda", "cuprite", "evcxr", "rustc", "date", "host"):
            assert key in env, env
        assert env["rustc"].startswith("rustc "), env
        assert meta["parameters"] == {"n": "10", "label": '"ten"'}

        page = html.read_text()
        assert "ten: sum 1..=10 = 55" in page
        assert "<table" in page  # the array's HTML table
        assert "data:image/png;base64," in page  # the plot, inlined
        assert env["evcxr"] in page and env["host"] in page
        assert "src=\"http" not in page  # self-contained


def test_run_rejects_an_unknown_parameter():
    r = run_notebook(str(TEST_NOTEBOOKS / "parameters.ipynb"), "--param", "nope=1")
    assert r.returncode != 0
    assert "nope" in r.stderr and "parameters" in r.stderr, r.stderr


def test_case_study_takes_its_size_as_a_parameter():
    """12's parameters cell: a small image through `cuprite-kernel run --param`,
    with every check of the notebook still passing at that size."""
    path = ROOT / "notebooks" / "12-case-study-convolution.ipynb"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "12.ipynb"
        r = run_notebook(
            str(path),
            "--output", str(out),
            "--param", "size=192",
            "--param", "check_size=96",
            "--param", "n_repeat=2",
        )
        assert r.returncode == 0, r.stderr
        nb = nbformat.read(out, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["cuprite"]["parameters"] == {
            "size": "192", "check_size": "96", "n_repeat": "2"}
        check_notebook(nb, path.stem)
        text = notebook_text(nb)
        assert "image: 192 x 192 float32 on" in text, text
        assert "GPU-vs-CPU check on 96 x 96" in text, text
        assert "timed runs per benchmark: 2" in text, text
        assert all(" — 2 runs\n" in r for r in timing_reports(nb)[:3]), timing_reports(nb)


def test_second_notebook_compiles_no_dependency(tmp_path):
    """A user's second notebook, in another folder, starts from the first
    one's build folder: cargo compiles no dependency again (evcxr prints
    `Compiling <crate>` on the kernel's stderr for each dependency it builds)."""
    env = dict(os.environ)
    # A user whose cache holds nothing yet.
    env["CUPRITE_KERNEL_CACHE_DIR"] = str(tmp_path / "cache")
    env.pop("JPY_SESSION_NAME", None)
    runs = []
    for name in ("first", "second"):
        folder = tmp_path / name
        folder.mkdir()
        nb = folder / "parameters.ipynb"
        nb.write_text((TEST_NOTEBOOKS / "parameters.ipynb").read_text())
        if name == "second":
            # Nothing set: the second notebook finds the first one's build by itself.
            env.pop("CUPRITE_KERNEL_SEED_DIR", None)
        r = subprocess.run(
            [KERNEL_BIN, "run", str(nb), "--output", str(folder / "out.ipynb")],
            capture_output=True, text=True, cwd=folder, env=env, timeout=CELL_TIMEOUT,
        )
        assert r.returncode == 0, r.stderr
        runs.append(r)
    builds = sorted(p.name for p in (tmp_path / "cache" / "builds").iterdir())
    assert len(builds) == 2, builds
    compiling = [l.strip() for l in runs[1].stderr.splitlines() if l.strip().startswith("Compiling")]
    assert compiling == [], runs[1].stderr


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_spmd(notebook, tmp, world=2, extra_env=None):
    """`cuprite-kernel run --spmd` on `world` ranks started the way torchrun
    would (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT set per rank)."""
    port = free_port()
    out = Path(tmp) / "out.ipynb"
    html = Path(tmp) / "out.html"
    procs = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), CUPRITE_NCCL_TIMEOUT="600",
                   **(extra_env or {}))
        procs.append(subprocess.Popen(
            [KERNEL_BIN, "run", "--spmd", str(notebook), "--output", str(out), "--html", str(html)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp))
    results = [p.communicate(timeout=CELL_TIMEOUT) + (p.returncode,) for p in procs]
    return results, out, html


def test_spmd_ranks_run_every_cell_and_rank_0_writes_the_world():
    with tempfile.TemporaryDirectory() as tmp:
        results, out, html = run_spmd(TEST_NOTEBOOKS / "spmd_ok.ipynb", tmp)
        for rank, (_, err, code) in enumerate(results):
            assert code == 0, f"rank {rank}: {err}"
        nb = nbformat.read(out, as_version=4)
        # Rank 0's own outputs; the world of two ranks in the metadata and the report.
        assert "rank 0: 6" in cell_text(nb.cells[1]), cell_text(nb.cells[1])
        world = nb.metadata["cuprite"]["environment"]["spmd"]
        assert world["ranks"] == 2 and [g["rank"] for g in world["gpus"]] == [0, 1], world
        assert nb.metadata["cuprite"]["status"] == "ok"
        assert "spmd" in html.read_text()


def test_multi_node_notebook_on_two_cpu_ranks():
    """Notebook 15 as `srun -n 2 cuprite-kernel run --spmd` runs it, on CPU ranks."""
    with tempfile.TemporaryDirectory() as tmp:
        # CPU processes: a world over TCP (on the GPU machine, NCCL instead).
        extra = {} if os.environ.get("CUPRITE_REQUIRE_GPU") else {"CUPRITE_COMM": "host"}
        results, out, _ = run_spmd(ROOT / "notebooks" / "15-multi-node.ipynb", tmp, extra_env=extra)
        for rank, (_, err, code) in enumerate(results):
            assert code == 0, f"rank {rank}: {err}"
        nb = nbformat.read(out, as_version=4)
        check_notebook(nb, "15-multi-node")
        assert "rank 0 of 2" in notebook_text(nb)


def test_spmd_cell_failing_on_one_rank_stops_every_rank():
    with tempfile.TemporaryDirectory() as tmp:
        results, out, _ = run_spmd(TEST_NOTEBOOKS / "spmd_fail.ipynb", tmp)
        for rank, (_, err, code) in enumerate(results):
            assert code == 1, f"rank {rank} exited {code}: {err}"
        # Rank 0 was inside an endless loop of array operations: it was
        # interrupted because rank 1 failed, and the notebook names rank 1 first.
        nb = nbformat.read(out, as_version=4)
        text = cell_text(nb.cells[3])
        assert "cell 4 failed on rank(s) 1, 0 of 2" in text, text
        assert "rank 1: " in text and "rank 1 fails here" in text, text
        assert "rank 0: stopped after another rank failed" in text, text
        assert nb.cells[4].execution_count is None and nb.cells[4].outputs == []
        assert nb.metadata["cuprite"]["status"] == "failed"
        assert "rank 1 fails here" in results[0][1]

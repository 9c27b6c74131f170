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

Run through tests/run_kernel_tests.sh (it installs the kernelspec named in
CUPRITE_KERNEL_NAME and says where the kernel binary is in CUPRITE_KERNEL_BIN).
"""

import json
import os
import re
import subprocess
import tempfile
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
    ],
    "09-custom-kernels": [
        (r"fused and unfused agree: max difference " + NUM, 1e-6),
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


def check_custom_kernels(nb, name):
    text = notebook_text(nb)
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


DEVICE_CHECKS = {
    "04-random-numbers": [check_timings_match_the_device],
    "05-linear-algebra": [check_timings_match_the_device],
    "06-fft": [check_timings_match_the_device],
    "07-sparse": [check_timings_match_the_device],
    "08-signal-processing": [check_timings_match_the_device],
    "09-custom-kernels": [check_timings_match_the_device, check_custom_kernels],
    "11-profiling": [check_timings_match_the_device],
    "12-case-study-convolution": [check_timings_match_the_device],
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
    client.execute()
    check_notebook(nb, path.stem)
    nbformat.validate(nb)
    # Saved with the kernel's language_info, it exports (nbconvert has no
    # "rust" exporter: a kernel naming one breaks `--to script`).
    script, resources = ScriptExporter().from_notebook_node(nb)
    assert resources["output_extension"] == ".rs" and script.strip(), path
    html, _ = HTMLExporter().from_notebook_node(nb)
    assert "<html" in html, path


def test_notebooks_are_stored_without_outputs():
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata.kernelspec.name == "cuprite", path
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, path


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


def run_spmd(notebook, tmp, world=2):
    """`cuprite-kernel run --spmd` on `world` ranks started the way torchrun
    would (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/PORT set per rank)."""
    port = free_port()
    out = Path(tmp) / "out.ipynb"
    html = Path(tmp) / "out.html"
    procs = []
    for rank in range(world):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(rank),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), CUPRITE_NCCL_TIMEOUT="600")
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

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

Run through tests/run_kernel_tests.sh (it installs the kernelspec named in
CUPRITE_KERNEL_NAME and says where the kernel binary is in CUPRITE_KERNEL_BIN).
"""

import json
import os
import subprocess
import tempfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

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
    check_outputs(nb, path.name)
    nbformat.validate(nb)


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

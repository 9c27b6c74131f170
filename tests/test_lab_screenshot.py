"""JupyterLab in headless Chromium: notebooks/00-display-gallery.ipynb opened,
all cells run, the page checked for a rendered table and an image, and a
screenshot kept as a CI artifact at

    $CARGO_TARGET_DIR/lab-screenshots/00-display-gallery.png   (or target/...)

and the gallery as stored (with the outputs of the H100 run) opened without
running anything: its stored table and plots render (`-stored.png`).

Needs Chromium at /usr/bin/chromium (Debian's `chromium`; CUPRITE_CHROMIUM
overrides) and Playwright's Python package (no browser download). Run through
tests/run_kernel_tests.sh, which installs the kernelspec named in
CUPRITE_KERNEL_NAME into a temporary JUPYTER_PATH.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GALLERY = ROOT / "notebooks" / "00-display-gallery.ipynb"
STORED = "stored-" + GALLERY.name
KERNEL_NAME = os.environ.get("CUPRITE_KERNEL_NAME", "cuprite")
CHROMIUM = os.environ.get("CUPRITE_CHROMIUM", "/usr/bin/chromium")
RUN_TIMEOUT = int(os.environ.get("CUPRITE_WARMUP_TIMEOUT", "1800"))
ARTIFACTS = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "lab-screenshots"
os.environ.setdefault("JPY_SESSION_NAME", str(ROOT / "tests"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    work = Path(tempfile.mkdtemp(prefix="cuprite-lab-"))
    # The gallery, pointed at the kernelspec these tests installed: as stored
    # (with the outputs of the H100 run), and with its outputs cleared for the
    # test that runs it (else every cell would count as done before it ran).
    nb = json.loads(GALLERY.read_text())
    nb["metadata"]["kernelspec"] = {"name": KERNEL_NAME, "display_name": "Rust (Cuprite tests)",
                                    "language": "rust"}
    (work / STORED).write_text(json.dumps(nb, indent=1))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    (work / GALLERY.name).write_text(json.dumps(nb, indent=1))
    settings = work / "lab-settings"
    (settings / "labconfig").mkdir(parents=True)
    (settings / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
    port = free_port()
    token = "cuprite-screenshot-test"
    env = dict(os.environ)
    # Lab reads page_config.json from the first config directory.
    env["JUPYTER_CONFIG_DIR"] = str(settings)
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
        f"--ServerApp.token={token}", f"--ServerApp.root_dir={work}",
        "--LabApp.expose_app_in_browser=True", "--ServerApp.disable_check_xsrf=True",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(work / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
            break
        except Exception:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("JupyterLab did not start:\n" + (work / "lab.log").read_text())
            time.sleep(0.5)
    try:
        yield base, token, work
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        shutil.rmtree(work, ignore_errors=True)


READY = """() => {
  const app = window.jupyterapp;
  const w = app && app.shell.currentWidget;
  if (!w || !w.context || !w.context.isReady || !w.sessionContext) return false;
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
}"""

DONE = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const cells = w.content.widgets.filter(c => c.model.type === 'code');
  const error = cells.some(c => c.model.outputs.toJSON().some(o => o.output_type === 'error'));
  const busy = w.sessionContext.session.kernel.status !== 'idle';
  const counted = cells.every(c => c.model.executionCount !== null);
  return error || (counted && !busy);
}"""

ERRORS = """() => window.jupyterapp.shell.currentWidget.content.widgets
  .filter(c => c.model.type === 'code')
  .flatMap(c => c.model.outputs.toJSON())
  .filter(o => o.output_type === 'error')
  .map(o => o.ename + ': ' + o.evalue)"""


def test_gallery_renders_in_jupyterlab(lab):
    from playwright.sync_api import sync_playwright

    base, token, _ = lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "00-display-gallery.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/lab/tree/{GALLERY.name}?token={token}")
        page.wait_for_function(READY, timeout=180_000, polling=500)
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(DONE, timeout=RUN_TIMEOUT * 1000, polling=1000)
        error_text = "\n".join(page.evaluate(ERRORS))
        # Scroll the rendered outputs into view for the screenshot: the
        # first table, then the whole page as Lab lays it out.
        table = page.locator('[data-mime-type="text/html"] table')
        images = page.locator('[data-mime-type="image/png"] img, [data-mime-type="image/svg+xml"]')
        n_tables, n_images = table.count(), images.count()
        if n_tables:
            table.first.scroll_into_view_if_needed()
        page.screenshot(path=str(shot))
        # A second view further down, where the plots are.
        if n_images:
            images.first.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "00-display-gallery-plots.png"))
        browser.close()
    print(f"screenshots: {shot} (and -plots.png)")
    assert not error_text, error_text
    assert n_tables >= 1, "no rendered HTML table"
    assert n_images >= 1, "no rendered image"


CELLS_WITH = """mime => window.jupyterapp.shell.currentWidget.content.widgets
  .map((c, i) => [i, c])
  .filter(([i, c]) => c.model.type === 'code' &&
          c.model.outputs.toJSON().some(o => o.data && o.data[mime] !== undefined))
  .map(([i, c]) => i)"""


def test_stored_gallery_opens_with_its_outputs(lab):
    """What a student sees on opening the notebook, before the first build:
    the H100 run's table and plots, rendered by Lab (nothing executed)."""
    from playwright.sync_api import sync_playwright

    stored = json.loads(GALLERY.read_text())
    if "environment" not in stored["metadata"].get("cuprite", {}):
        pytest.skip("the gallery is stored without outputs (test_stored_outputs_are_fresh fails)")
    base, token, _ = lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/lab/tree/{STORED}?token={token}")
        # (Lab may restore the other test's notebook too: wait for this one.)
        page.wait_for_function(
            "name => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
            " return !!w && !!w.context && w.context.path === name && w.context.isReady"
            " && w.content.widgets.length > 0; }",
            arg=STORED, timeout=180_000, polling=500)
        counts = page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.widgets
          .filter(c => c.model.type === 'code' && c.model.sharedModel.getSource().trim())
          .map(c => c.model.executionCount)""")
        assert all(c is not None for c in counts), counts
        found = {}
        # Lab renders only the cells in view: bring the first cell with each
        # kind of output into view, then look for its rendered element.
        for mime, selector in [("text/html", '[data-mime-type="text/html"] table'),
                               # PNG, as Lab shows an untrusted notebook's plots (SVG once trusted).
                               ("image/png", '[data-mime-type="image/png"] img, [data-mime-type="image/svg+xml"]')]:
            cells = page.evaluate(CELLS_WITH, mime)
            assert cells, f"no stored output has {mime}"
            page.evaluate("i => { const nb = window.jupyterapp.shell.currentWidget.content;"
                          " nb.activeCellIndex = i; nb.scrollToItem(i); }", cells[0])
            page.wait_for_selector(selector, state="visible", timeout=30_000)
            found[mime] = page.locator(selector).count()
        page.screenshot(path=str(ARTIFACTS / "00-display-gallery-stored.png"))
        browser.close()
    assert found["text/html"] >= 1 and found["image/png"] >= 1, found

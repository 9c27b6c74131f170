"""JupyterLab in headless Chromium, driving what a student touches: a slider of
`cp::widgets::interact` moved with the keyboard redraws the output, and the
debugger's Variables panel lists the session's variables with their types.
Screenshots are kept beside the gallery's:

    $CARGO_TARGET_DIR/lab-screenshots/widgets-*.png

Uses the JupyterLab fixture of test_lab_screenshot.py (Chromium, Playwright,
the kernelspec of run_kernel_tests.sh) and ipywidgets from tests/requirements.txt.
"""

import json

from test_lab_screenshot import ARTIFACTS, CHROMIUM, DONE, ERRORS, KERNEL_NAME, READY, RUN_TIMEOUT, lab  # noqa: F401

CELLS = [
    "let x = cp::arange(12)?.reshape([3, 4])?;\nlet label = String::from(\"twelve\");",
    "cp::widgets::interact(|n: i64| cp::Text(format!(\"n squared is {}\", n * n)))?",
]

OUTPUT_TEXT = """() => Array.from(document.querySelectorAll('.widget-output'))
  .map(e => e.innerText).join('\\n')"""


def notebook():
    return {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {},
                   "outputs": [], "source": src} for i, src in enumerate(CELLS)],
        "metadata": {"kernelspec": {"name": KERNEL_NAME, "display_name": "Rust (Cuprite tests)",
                                    "language": "rust"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


def test_slider_redraws_interact_and_variables_panel_lists_the_session(lab):  # noqa: F811
    from playwright.sync_api import sync_playwright

    base, token, work = lab
    (work / "widgets.ipynb").write_text(json.dumps(notebook(), indent=1))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        console = []
        page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
        page.goto(f"{base}/lab/tree/widgets.ipynb?token={token}")
        page.wait_for_function(READY, timeout=180_000, polling=500)
        page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(DONE, timeout=RUN_TIMEOUT * 1000, polling=1000)
        errors = page.evaluate(ERRORS)
        assert not errors, errors

        # The default control of an i64 starts at 5; one step right is 6.
        try:
            page.wait_for_function(f"() => ({OUTPUT_TEXT})().includes('n squared is 25')",
                                   timeout=60_000, polling=250)
        finally:
            page.screenshot(path=str(ARTIFACTS / "widgets-start.png"))
            print("\n".join(console[-60:]))
            print(page.evaluate("() => document.querySelector('.jp-Notebook').innerText"))
        handle = page.locator(".widget-slider .noUi-handle").first
        handle.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => ({OUTPUT_TEXT})().includes('n squared is 36')",
                               timeout=60_000, polling=250)
        page.screenshot(path=str(ARTIFACTS / "widgets-interact.png"))

        # The debugger: its toggle in the notebook's toolbar, then the Variables panel.
        try:
            page.locator(".jp-DebuggerBugButton").first.click(timeout=30_000)
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_function(DONE, timeout=300_000, polling=1000)
            panel = page.locator(".jp-DebuggerVariables")
            panel.first.wait_for(timeout=60_000)
            page.wait_for_function(
                "() => { const t = document.querySelector('.jp-DebuggerVariables').innerText;"
                " return t.includes('label') && t.includes('Array'); }",
                timeout=120_000, polling=500)
            text = panel.first.inner_text()
        finally:
            page.screenshot(path=str(ARTIFACTS / "widgets-variables.png"))
            print("\n".join(console[-40:]))
        browser.close()
    # The tree view shows each variable with its type (the values, an array's
    # shape and dtype included, are in inspectVariables: tests/test_debugger.py).
    lines = [line.strip().rstrip(":") for line in text.splitlines() if line.strip()]
    assert lines[lines.index("label") + 1] == "String", lines
    assert lines[lines.index("x") + 1] == "Array", lines

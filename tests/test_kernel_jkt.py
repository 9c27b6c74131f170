"""The jupyter_kernel_test suite for cuprite-kernel, with every sample filled in.

Run through tests/run_kernel_tests.sh, which installs the kernelspec named in
CUPRITE_KERNEL_NAME into a temporary JUPYTER_PATH.
"""

import os
import unittest

import jupyter_kernel_test as jkt
from jupyter_client.manager import start_new_kernel

KERNEL_NAME = os.environ.get("CUPRITE_KERNEL_NAME", "cuprite")
# The first cell of a fresh build directory compiles the runtime: minutes.
WARMUP_TIMEOUT = int(os.environ.get("CUPRITE_WARMUP_TIMEOUT", "1800"))
# A cell in a warm session takes well under a second, but CI machines are shared.
CELL_TIMEOUT = int(os.environ.get("CUPRITE_CELL_TIMEOUT", "120"))


def warm_up(kc):
    """Runs a first cell (it waits for the session and builds what cells link)."""
    reply = kc.execute_interactive("1", timeout=WARMUP_TIMEOUT, output_hook=lambda msg: None)
    assert reply["content"]["status"] == "ok", reply["content"]


class CupriteKernelTests(jkt.KernelTests):
    kernel_name = KERNEL_NAME
    language_name = "rust"
    file_extension = ".rs"

    code_hello_world = 'println!("hello, world");'
    code_stderr = 'eprintln!("this goes to stderr");'

    # "matches" is compared as a set; the magics are the kernel's own, the Rust
    # samples come from rust-analyzer and are checked for a valid reply only.
    completion_samples = [
        {"text": "%ti", "matches": ["%time", "%timeit"]},
        {"text": "%%ti", "matches": ["%%time", "%%timeit"]},
        {"text": "std::mem::sw"},
        {"text": "let numbers = vec![1, 2, 3];\nnumbers.it"},
    ]
    complete_code_samples = [
        "1 + 1",
        "let x = 5;",
        "fn double(x: i32) -> i32 { x * 2 }",
        'let s = "a { b";',
        ":dep regex",
        "%timeit 1 + 1",
    ]
    incomplete_code_samples = [
        "fn f() {",
        'let s = "abc',
        "let v = vec![1,",
        "let total = 1 +",
        "/* open comment",
    ]
    invalid_code_samples = [")", "let x = (1];", "fn f() { }}"]

    code_page_something = "?Vec::new"
    code_generate_error = 'let x: i32 = "not a number";'
    code_execute_result = [
        {"code": "40 + 2", "result": "42"},
        {"code": '"cuprite".len() * 2', "result": "14"},
        {"code": "cp::arange(4)?.to_vec::<i64>()?", "result": "[0, 1, 2, 3]"},
    ]
    code_display_data = [
        {"code": 'cuprite_kernel_io::display_html("<b>bold</b>", "bold");', "mime": "text/html"},
        {"code": 'cuprite_kernel_io::display_text("plain text");', "mime": "text/plain"},
        {"code": "display(&cp::arange(3)?);", "mime": "text/html"},
        {"code": "cp::display(&cp::plot::line(&cp::arange(5)?)?);", "mime": "image/png"},
    ]
    code_history_pattern = "40 + ?"
    supported_history_operations = ("tail", "range", "search")
    code_inspect_sample = "std::vec::Vec"
    code_clear_output = 'println!("before"); cuprite_kernel_io::clear_output(false);'

    @classmethod
    def setUpClass(cls):
        cls.km, cls.kc = start_new_kernel(kernel_name=cls.kernel_name, startup_timeout=120)
        warm_up(cls.kc)

    def execute_helper(self, code, timeout=CELL_TIMEOUT, silent=False, store_history=True,
                       stop_on_error=True):
        # jupyter_kernel_test binds its 15 s timeout as a default argument.
        return super().execute_helper(code, timeout=timeout, silent=silent,
                                      store_history=store_history, stop_on_error=stop_on_error)


class CupriteIopubWelcomeTests(jkt.IopubWelcomeTests):
    kernel_name = KERNEL_NAME
    support_iopub_welcome = True


if __name__ == "__main__":
    unittest.main()

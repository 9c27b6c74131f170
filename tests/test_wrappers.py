"""The cluster kernelspecs: `cuprite-kernel install --wrapper SCRIPT` writes a
kernel.json whose argv runs the wrapper from {resource_dir}; these tests let
jupyter_client start the kernel through that argv and run a cell.

- kernelspec/cluster/cuprite-module-kernel with a stand-in `module` command
  (an --init file defining it), checking the cell sees what the module set;
- kernelspec/cluster/cuprite-apptainer-kernel with a stand-in `apptainer`
  that checks the options it was given (--nv, --cleanenv, --bind of the
  connection file's folder, no network isolation), empties the environment
  as --cleanenv does and runs the command, checking what was forwarded.

Run through tests/run_kernel_tests.sh (CUPRITE_KERNEL_BIN names the binary).
"""

import json
import os
import queue
import shutil
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path

from jupyter_client.manager import start_new_kernel

ROOT = Path(__file__).resolve().parent.parent
KERNEL_BIN = os.environ.get("CUPRITE_KERNEL_BIN", "")
TIMEOUT = int(os.environ.get("CUPRITE_WARMUP_TIMEOUT", "1800"))

FAKE_MODULES = """\
module() {
  case "$1" in
    load) export CUPRITE_TEST_MODULES="${CUPRITE_TEST_MODULES:-}$2;" ;;
    purge) export CUPRITE_TEST_MODULES="purged;" ;;
    *) return 1 ;;
  esac
}
"""

# What `apptainer exec` does with these options, for a test: the log says what
# it was asked; the environment is emptied except APPTAINERENV_* (prefix
# removed), PATH and HOME (the image's own); the command runs on the host.
FAKE_APPTAINER = """\
#!/usr/bin/env bash
set -euo pipefail
printf '%s\\n' "$@" > "$FAKE_APPTAINER_LOG"
[ "$1" = exec ] || { echo "fake apptainer: expected exec" >&2; exit 2; }
shift
while [ $# -gt 0 ]; do
  case "$1" in
    --bind) shift 2 ;;
    --nv | --cleanenv | --writable-tmpfs) shift ;;
    --net* | --network*) echo "fake apptainer: network isolation" >&2; exit 3 ;;
    -*) echo "fake apptainer: unexpected option $1" >&2; exit 4 ;;
    *) break ;;
  esac
done
image="$1"; shift
[ -e "$image" ] || { echo "fake apptainer: no image $image" >&2; exit 5; }
envs=(PATH="$PATH" HOME="$HOME")
while IFS='=' read -r k v; do
  case "$k" in APPTAINERENV_*) envs+=("${k#APPTAINERENV_}=$v") ;; esac
done < <(env)
exec env -i "${envs[@]}" "$@"
"""


def install(prefix, name, wrapper, *wrapper_args):
    cmd = [KERNEL_BIN, "install", "--prefix", str(prefix), "--name", name, "--wrapper", str(wrapper)]
    for a in wrapper_args:
        cmd += ["--wrapper-arg", a]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    kdir = Path(prefix) / "share/jupyter/kernels" / name
    return kdir, json.loads((kdir / "kernel.json").read_text())


def run_cell(kc, code):
    """Runs code; returns (status, text of stdout and results)."""
    out = []

    def hook(msg):
        c = msg["content"]
        if msg["msg_type"] == "stream":
            out.append(c["text"])
        elif msg["msg_type"] in ("execute_result", "display_data"):
            out.append(c["data"]["text/plain"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(c["traceback"]))

    reply = kc.execute_interactive(code, timeout=TIMEOUT, output_hook=hook)
    return reply["content"]["status"], "".join(out)


@unittest.skipUnless(KERNEL_BIN, "CUPRITE_KERNEL_BIN is not set (tests/run_kernel_tests.sh sets it)")
class WrapperTests(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="cuprite-wrappers-"))
        self.prefix = self.tmp / "prefix"
        self.old_path = os.environ.get("JUPYTER_PATH", "")
        os.environ["JUPYTER_PATH"] = os.pathsep.join(
            p for p in [str(self.prefix / "share/jupyter"), self.old_path] if p
        )

    def tearDown(self):
        os.environ["JUPYTER_PATH"] = self.old_path
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start(self, name, **env):
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            km, kc = start_new_kernel(kernel_name=name, startup_timeout=120)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self.addCleanup(km.shutdown_kernel, now=True)
        self.addCleanup(kc.stop_channels)
        return km, kc

    def test_module_wrapper_loads_modules_then_runs_the_kernel(self):
        init = self.tmp / "fake-modules.sh"
        init.write_text(FAKE_MODULES)
        kdir, spec = install(
            self.prefix,
            "cuprite-module-test",
            ROOT / "kernelspec/cluster/cuprite-module-kernel",
            f"--init={init}",
            "--module=cuda/12.4",
            "--module",
            "rust/1.95",
        )
        self.assertEqual(spec["argv"][0], "{resource_dir}/cuprite-module-kernel")
        self.assertEqual(spec["argv"][5], "--")
        self.assertTrue(os.access(kdir / "cuprite-module-kernel", os.X_OK))
        _, kc = self.start("cuprite-module-test", CUPRITE_MODULES="extra/1")
        status, out = run_cell(kc, 'std::env::var("CUPRITE_TEST_MODULES").unwrap()')
        self.assertEqual(status, "ok", out)
        self.assertIn("cuda/12.4;rust/1.95;extra/1;", out)
        status, out = run_cell(kc, "cp::arange(3)?.sum()?")
        self.assertEqual(status, "ok", out)
        self.assertIn("3", out)

    def test_module_wrapper_stops_when_a_module_fails(self):
        init = self.tmp / "failing-modules.sh"
        init.write_text("module() { echo \"no module $2\" >&2; return 1; }\n")
        wrapper = ROOT / "kernelspec/cluster/cuprite-module-kernel"
        r = subprocess.run(
            [str(wrapper), f"--init={init}", "--module=CUDA/99", "--", "true"],
            capture_output=True,
            text=True,
        )
        self.assertEqual(r.returncode, 1)
        self.assertIn("module load CUDA/99 failed", r.stderr)
        r = subprocess.run([str(wrapper), "--", "echo", "ran"], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, "ran\n"))

    def test_apptainer_wrapper_binds_the_connection_file_and_forwards_the_gpu(self):
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir()
        fake = bin_dir / "apptainer"
        fake.write_text(FAKE_APPTAINER)
        fake.chmod(0o755)
        image = self.tmp / "cuprite.sif"
        image.write_text("not really an image")
        log = self.tmp / "apptainer-args.txt"
        _, spec = install(
            self.prefix,
            "cuprite-apptainer-test",
            ROOT / "kernelspec/cluster/cuprite-apptainer-kernel",
            f"--image={image}",
            "--bind=/tmp",
        )
        self.assertEqual(spec["argv"][0], "{resource_dir}/cuprite-apptainer-kernel")
        _, kc = self.start(
            "cuprite-apptainer-test",
            PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            FAKE_APPTAINER_LOG=str(log),
            CUDA_VISIBLE_DEVICES="0",
            CUPRITE_TEST_FORWARDED="yes",
            NOT_FORWARDED="leak",
        )
        code = textwrap.dedent(
            """\
            ["CUDA_VISIBLE_DEVICES", "CUPRITE_TEST_FORWARDED", "NOT_FORWARDED"]
                .iter().map(|k| std::env::var(k).unwrap_or_else(|_| "-".into()))
                .collect::<Vec<_>>().join(",")"""
        )
        status, out = run_cell(kc, code)
        self.assertEqual(status, "ok", out)
        self.assertIn("0,yes,-", out)
        args = log.read_text().splitlines()
        self.assertEqual(args[:3], ["exec", "--nv", "--cleanenv"])
        conn = args[args.index("--connection-file") + 1]
        self.assertEqual(args[3:7], ["--bind", str(Path(conn).parent.resolve()), "--bind", "/tmp"])
        self.assertEqual(args[7], str(image))
        self.assertEqual(args[8], spec["argv"][4])  # the kernel binary, as installed
        self.assertFalse(any(a.startswith("--net") for a in args), args)

    def test_apptainer_wrapper_refuses_network_isolation_and_needs_an_image(self):
        wrapper = ROOT / "kernelspec/cluster/cuprite-apptainer-kernel"
        env = dict(os.environ)
        env.pop("CUPRITE_IMAGE", None)
        r = subprocess.run([str(wrapper), "--", "true"], capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no image", r.stderr)
        r = subprocess.run(
            [str(wrapper), f"--image={self.tmp}", "--apptainer=/bin/false", "--apptainer-arg=--net", "--", "true"],
            capture_output=True,
            text=True,
        )
        self.assertEqual(r.returncode, 1)
        self.assertIn("must share the host network", r.stderr)


if __name__ == "__main__":
    unittest.main()

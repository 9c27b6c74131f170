#!/usr/bin/env bash
# Runs the kernel's Jupyter-level tests: the jupyter_kernel_test suite, our
# protocol tests, every notebook (nbclient, `cuprite-kernel run`), the
# JupyterLab screenshot test (headless Chromium) and the soak test at CI size
# (test_soak.py, tests/soak.py; it runs beside the others, see below). Builds the kernel (unless CUPRITE_KERNEL_BIN names one),
# makes or reuses a virtual environment with the Python test tools, installs
# the kernelspec into a temporary JUPYTER_PATH pointing at the built binary,
# and runs pytest. Extra arguments go to pytest (e.g. -k panic).
#
# Environment:
#   CUPRITE_KERNEL_BIN        use this kernel binary instead of building one
#   CUPRITE_KERNEL_PROFILE    cargo profile to build: debug (default) or release
#   CUPRITE_TEST_VENV         the virtual environment (default: <repo>/.venv)
#   CUPRITE_KERNEL_CACHE_DIR  where cells' build directories live (default:
#                             <target dir>/kernel-test-cache, kept between runs)
#   CUPRITE_SOAK_ALONGSIDE    0 runs test_soak.py after the other files instead
#                             of beside them (default 1)
#   CUPRITE_TEST_WORKERS      pytest-xdist workers for the other files (default
#                             2; 0 runs them in one process, in file order)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${CUPRITE_TEST_VENV:-$ROOT/.venv}"
PROFILE="${CUPRITE_KERNEL_PROFILE:-debug}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

if [ -z "${CUPRITE_KERNEL_BIN:-}" ]; then
  if [ "$PROFILE" = release ]; then
    cargo build -p cuprite-kernel --release --manifest-path "$ROOT/Cargo.toml"
  else
    cargo build -p cuprite-kernel --manifest-path "$ROOT/Cargo.toml"
  fi
  CUPRITE_KERNEL_BIN="$TARGET_DIR/$PROFILE/cuprite-kernel"
fi
CUPRITE_KERNEL_BIN="$(cd "$(dirname "$CUPRITE_KERNEL_BIN")" && pwd)/$(basename "$CUPRITE_KERNEL_BIN")"
[ -x "$CUPRITE_KERNEL_BIN" ] || { echo "no kernel binary at $CUPRITE_KERNEL_BIN" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/tests/requirements.txt"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export JUPYTER_PATH="$TMP/jupyter"
export JUPYTER_DATA_DIR="$TMP/jupyter-data"
export JUPYTER_RUNTIME_DIR="$TMP/jupyter-runtime"
export JUPYTER_CONFIG_DIR="$TMP/jupyter-config"
# The kernel's data (unpacked sources, history) and the cells' build
# directories are kept under the target directory, so later runs start warm
# (the unpacked sources' path is part of what cargo caches on).
export CUPRITE_KERNEL_DATA_DIR="${CUPRITE_KERNEL_DATA_DIR:-$TARGET_DIR/kernel-test-data}"
export CUPRITE_KERNEL_CACHE_DIR="${CUPRITE_KERNEL_CACHE_DIR:-$TARGET_DIR/kernel-test-cache}"
export CUPRITE_KERNEL_NAME="cuprite-test"

"$CUPRITE_KERNEL_BIN" install --name "$CUPRITE_KERNEL_NAME" --display-name "Rust (Cuprite tests)"
# The interactive SPMD kernel of test_spmd.py: 2 ranks, CPU processes.
export CUPRITE_SPMD_KERNEL_NAME="cuprite-test-spmd"
"$CUPRITE_KERNEL_BIN" install --name "$CUPRITE_SPMD_KERNEL_NAME" --display-name "Rust (Cuprite tests, 2 ranks)" \
  --spmd-ranks 2 --launcher local --env CUPRITE_COMM=host >/dev/null
"$CUPRITE_KERNEL_BIN" --version

# Tests start kernels in several build folders (one per notebook or working
# directory, a sibling while one is busy). One folder compiles the crates that
# cells link; every folder created later starts as a copy of it
# (CUPRITE_KERNEL_SEED_DIR), so those crates compile once per run, not once per
# folder.
if [ -z "${CUPRITE_KERNEL_SEED_DIR:-}" ]; then
  echo "== compiling the crates cells link (seed build folder)"
  CUPRITE_KERNEL_BUILD_DIR="$CUPRITE_KERNEL_CACHE_DIR/seed" \
    "$VENV/bin/python" "$ROOT/docker/prewarm.py" --kernel "$CUPRITE_KERNEL_NAME" >/dev/null
  export CUPRITE_KERNEL_SEED_DIR="$CUPRITE_KERNEL_CACHE_DIR/seed"
  # Folders of earlier runs would each rebuild what changed since; fresh
  # copies of the seed are cheaper.
  rm -rf "$CUPRITE_KERNEL_CACHE_DIR/builds"
fi

cd "$ROOT/tests"
if [ -n "${CUPRITE_TEST_FILES:-}" ]; then
  read -r -a FILES <<< "$CUPRITE_TEST_FILES"
else
  FILES=(test_kernel_jkt.py test_protocol.py test_fuzz_messages.py test_magics.py test_widgets.py test_debugger.py test_wrappers.py test_notebooks.py test_lab_screenshot.py test_lab_widgets.py test_spmd.py test_soak.py)
fi
# The soak test (about 8 minutes on 2 cores) runs beside the others in its own
# pytest: it judges CPU time, not wall time, so that a machine shared with
# other work does not fail it (test_soak.py), and most of its wall time is
# then hidden behind the rest. CUPRITE_SOAK_ALONGSIDE=0 runs it after them.
SOAK_PID=""
if [ "${CUPRITE_SOAK_ALONGSIDE:-1}" != 0 ] && [ "${#FILES[@]}" -gt 1 ] && [[ " ${FILES[*]} " == *" test_soak.py "* ]]; then
  REST=()
  for f in "${FILES[@]}"; do [ "$f" = test_soak.py ] || REST+=("$f"); done
  FILES=("${REST[@]}")
  echo "== test_soak.py runs beside the other tests; its output follows theirs"
  "$VENV/bin/python" -m pytest -v -p no:cacheprovider "$@" test_soak.py >"$TMP/soak.log" 2>&1 &
  SOAK_PID=$!
fi
# Two workers (pytest-xdist): a kernel test keeps about one core busy (a
# cell's rustc, the cell process, cargo), so on CI's 2 cores two of them take
# about half the wall time of one after the other. `loadscope` keeps a test
# class's tests, which share one kernel, on one worker, and the module-level
# tests of test_notebooks.py (each with a kernel of its own) together: that
# module is about half of the work, the other files the other half.
WORKERS="${CUPRITE_TEST_WORKERS:-2}"
XDIST=(-n "$WORKERS")
[ "$WORKERS" = 0 ] || XDIST+=(--dist loadscope)
# --durations: the slowest tests, for a CI run that grows too long.
status=0
"$VENV/bin/python" -m pytest -v -p no:cacheprovider --durations=15 "${XDIST[@]}" "$@" "${FILES[@]}" || status=$?
if [ -n "$SOAK_PID" ]; then
  soak_status=0
  wait "$SOAK_PID" || soak_status=$?
  echo "== test_soak.py (ran beside the tests above), exit status $soak_status"
  cat "$TMP/soak.log"
  # pytest's 5 is "no test selected": a -k may match tests of one side only.
  [ "$status" = 5 ] && [ "$soak_status" != 5 ] && status=0
  [ "$soak_status" = 5 ] && soak_status=0
  [ "$status" = 0 ] && status=$soak_status
fi
exit "$status"

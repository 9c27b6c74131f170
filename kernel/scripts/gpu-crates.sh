#!/usr/bin/env bash
# Helpers shared by pack-gpu-run (here) and gpu-run.sh (on the GPU machine), about the
# crates every cell links (cuprite, cuprite-display, cuprite-kernel-io, and cuprite-cells,
# the dylib that re-exports them).
#
#   gpu-crates.sh tree REPO DEST   copies REPO's crates into DEST in the layout that
#       CUPRITE_KERNEL_SOURCES expects (DEST/cuprite, DEST/cuprite-display,
#       DEST/cuprite-kernel-io, DEST/cuprite-cells), so that cells build against a working tree's runtime
#       rather than the one embedded in the kernel binary. The crates keep their
#       `workspace = true` fields: DEST/Cargo.toml is REPO's workspace manifest with the
#       members and path dependencies renamed, and cargo finds it above each crate.
#   gpu-crates.sh sha A B C        one hash of the src/ folders of crates A, B, C
#       (src/bin left out: binaries are not built for a dependency), to tell whether a
#       working tree's crates are the ones the kernel binary embeds.
set -euo pipefail
case $1 in
tree)
    repo=$2 dest=$3
    rm -rf "$dest"
    mkdir -p "$dest"
    cp -r "$repo/runtime" "$dest/cuprite"
    cp -r "$repo/display" "$dest/cuprite-display"
    cp -r "$repo/kernel/io" "$dest/cuprite-kernel-io"
    cp -r "$repo/kernel/cells" "$dest/cuprite-cells"
    # cells names io by its place beside it in kernel/.
    sed -i 's|path = "../io"|path = "../cuprite-kernel-io"|' "$dest/cuprite-cells/Cargo.toml"
    python3 - "$repo/Cargo.toml" "$dest/Cargo.toml" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
t = re.sub(r'(?ms)^members\s*=\s*\[.*?\]',
           'members = ["cuprite", "cuprite-display", "cuprite-kernel-io", "cuprite-cells"]', t)
t = re.sub(r'path\s*=\s*"runtime"', 'path = "cuprite"', t)
t = re.sub(r'path\s*=\s*"display"', 'path = "cuprite-display"', t)
open(sys.argv[2], "w").write(t)
PY
    ;;
sha)
    shift
    for d in "$@"; do
        (cd "$d/src" && find . -path ./bin -prune -o -type f -print | LC_ALL=C sort | xargs -d '\n' sha256sum)
    done | sha256sum | cut -c1-16
    ;;
*)
    echo "usage: $0 tree REPO DEST | sha CRATE_DIR..." >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# Runs notebooks with `cuprite-kernel run` on the GPU machine, which has no Rust toolchain
# and no network, from the parts that kernel/scripts/pack-gpu-run made (it copies this
# script to .gpunb/run/run.sh). Each device call carries some part folders (.gpunb/1, 2,
# ...) plus .gpunb/run and runs this from the repository root:
#
#   bash .gpunb/run/run.sh [--crates auto|embedded|tree] [--no-html]
#                          [NOTEBOOK [--param NAME=VALUE]... [--ranks N]]...
#
# It unpacks the parts carried into $GPUNB_ROOT (default /tmp/gpunb, which lasts while the
# machine stays warm) and, once every part is there, runs the notebooks named (paths in
# the working tree; --param applies to the notebook before it). Results go to $OUT:
# NAME.ipynb, NAME.html and run.log (per-notebook timings at its end); when that would
# be more than the 8 files a call brings back, the notebooks go into results.tar.xz.
#
# --ranks N runs the notebook before it as N ranks of an SPMD job (`cuprite-kernel run
# --spmd`), one GPU each, started as torchrun starts them (RANK, WORLD_SIZE, LOCAL_RANK,
# MASTER_ADDR/PORT); rank 0 writes the results, every rank's output goes to run.log, and
# the job fails when any rank does. Each rank builds its cells in a folder of its own,
# seeded from the one single-rank notebooks share.
#
# --spmd-test N runs tests/test_spmd.py (jupyter_client, as Jupyter sees the kernel) against
# an interactive kernel of N ranks installed with `--spmd-ranks N --launcher local`, one GPU
# each, after the notebooks. jupyter_client and its needs must be importable (the machine
# has none: carry wheels and put them on PYTHONPATH before calling this script).
#
# --soak N runs tests/soak.py for N cells against the kernel (one GPU), after the above,
# writing its JSON summary to soak.json (jupyter_client needed, as for --spmd-test);
# CUPRITE_SOAK_ARGS adds soak.py options (e.g. "--no-warmup --window 50").
#
# --crates: which sources of cuprite, cuprite-display and cuprite-kernel-io cells build
# against. embedded: those inside the kernel binary (what it was packed with). tree: the
# working tree's runtime/, display/, kernel/io/ (a branch that changed the runtime).
# auto (default): tree when the tree's src/ differ from the embedded ones, else embedded.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${GPUNB_ROOT:-/tmp/gpunb}
out=${OUT:-$root/out}
mkdir -p "$root" "$out"
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/run.log") 2>&1
# Let tee finish writing before the call returns (what it leaves running is killed).
tee_pid=$!
trap 'exec >&- 2>&-; wait $tee_pid' EXIT
now() { date +%s.%N; }
since() { awk "BEGIN { printf \"%.1f\", $(now) - $1 }"; }

# Unpack whatever parts this call carried (markers make later calls skip them).
for f in "$here"/../*/*.tar.xz; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .tar.xz)
    [ -e "$root/.have-$name" ] && continue
    case $name in tc-*) dest=$root/tc ;; *) dest=$root ;; esac
    mkdir -p "$dest"
    t0=$(now)
    if xz -dc "$f" | tar -x -C "$dest"; then
        touch "$root/.have-$name"
        echo "gpu-run: unpacked $name in $(since "$t0") s"
    else
        echo "gpu-run: could not unpack $f" && exit 1
    fi
done
missing=""
while read -r p; do [ -e "$root/.have-$p" ] || missing="$missing $p"; done <"$here/parts"

crates=auto html=1 jobs=() cur="" spmd_test=0 soak=0
while [ $# -gt 0 ]; do
    case $1 in
    --crates) crates=$2; shift ;;
    --crates=*) crates=${1#*=} ;;
    --no-html) html=0 ;;
    --spmd-test) [[ $2 =~ ^[2-9][0-9]*$ ]] || { echo "gpu-run: --spmd-test $2: 2 or more ranks" && exit 2; }
        spmd_test=$2; shift ;;
    --soak) [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "gpu-run: --soak $2: a number of cells" && exit 2; }
        soak=$2; shift ;;
    -p | --param) [ -z "$cur" ] && echo "gpu-run: $1 before any notebook" && exit 2
        cur+=$'\n'"--param"$'\n'"$2"; shift ;;
    --ranks) [ -z "$cur" ] && echo "gpu-run: $1 before any notebook" && exit 2
        [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "gpu-run: --ranks $2: a positive number" && exit 2; }
        cur+=$'\n'"--ranks"$'\n'"$2"; shift ;;
    --param=*) [ -z "$cur" ] && echo "gpu-run: $1 before any notebook" && exit 2
        cur+=$'\n'"--param"$'\n'"${1#*=}" ;;
    *.ipynb) [ -n "$cur" ] && jobs+=("$cur"); cur=$1 ;;
    *) echo "gpu-run: unknown argument $1" && exit 2 ;;
    esac
    shift
done
[ -n "$cur" ] && jobs+=("$cur")
if [ -n "$missing" ]; then
    echo "gpu-run: parts not yet on this machine:$missing (carry their folders next; the machine keeps /tmp only while warm)"
    [ ${#jobs[@]} -eq 0 ] && exit 0 || exit 3
fi
[ ${#jobs[@]} -eq 0 ] && [ "$spmd_test" = 0 ] && [ "$soak" = 0 ] && echo "gpu-run: all parts unpacked; no notebook named" && exit 0

# The carried toolchain (its rustlib folder on the loader path: cells are dylibs linked
# against its libstd), CUDA's libraries, cargo reading crates.io crates from the vendored
# folder only, and the kernel's folders in $root. One build folder for every notebook,
# as across kernel restarts: the dependencies compile once, in the first notebook.
tc=$root/tc
export PATH=$root/bin:$tc/bin:$PATH
export LD_LIBRARY_PATH=$tc/lib/rustlib/x86_64-unknown-linux-gnu/lib:$tc/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CARGO_HOME=$root/cargo CARGO_NET_OFFLINE=true
mkdir -p "$CARGO_HOME"
printf '[source.crates-io]\nreplace-with = "vendored"\n[source.vendored]\ndirectory = "%s"\n[net]\noffline = true\n' \
    "$root/vendor" >"$CARGO_HOME/config.toml"
export CUPRITE_KERNEL_DATA_DIR=$root/data CUPRITE_KERNEL_CACHE_DIR=$root/cache
export CUPRITE_KERNEL_BUILD_DIR=$root/build CUPRITE_KERNEL_DEBUG=1 CUPRITE_KERNEL_NO_HISTORY=1
# Multi-GPU notebooks: NVLink multicast must stay off on the shared hosts (KINDS.md).
export NCCL_NVLS_ENABLE=0

# Which crates cells link (see --crates above).
repo=$PWD
if [ "$crates" = auto ]; then
    crates=embedded
    if [ -d runtime/src ] && [ -d display/src ] && [ -d kernel/io/src ]; then
        sha=$(bash "$here/gpu-crates.sh" sha runtime display kernel/io kernel/cells)
        [ "$sha" != "$(cat "$here/crates.sha")" ] && crates=tree
    fi
fi
echo "gpu-run: cells build against the $crates crates"
case $crates in embedded | tree) ;; *) echo "gpu-run: --crates $crates?" && exit 2 ;; esac
if [ "$crates" = tree ]; then
    # Copied again only when changed: new copies would make cargo rebuild them.
    sha=$(bash "$here/gpu-crates.sh" sha runtime display kernel/io kernel/cells)
    if [ "$sha" != "$(cat "$root/tree-crates.sha" 2>/dev/null)" ]; then
        bash "$here/gpu-crates.sh" tree "$repo" "$root/tree-crates" || exit 1
        echo "$sha" >"$root/tree-crates.sha"
    fi
    export CUPRITE_KERNEL_SOURCES=$root/tree-crates
    # Pin the tree's versions; crates it adds beyond the vendored set cannot be fetched here.
    mkdir -p "$root/build/ctx" && cp Cargo.lock "$root/build/ctx/Cargo.lock"
    cmp -s Cargo.lock "$here/Cargo.lock" ||
        echo "gpu-run: warning: Cargo.lock differs from the packed one; a crate missing from the vendored set fails offline"
fi

# N ranks of `cuprite-kernel run --spmd ARGS`, as torchrun starts them; the largest exit
# status of the ranks. Their build folders are new ones seeded from the shared one.
run_ranks() {
    local n=$1 port rank pids=() rc=0 r
    shift
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    for ((rank = 0; rank < n; rank++)); do
        (
            unset CUPRITE_KERNEL_BUILD_DIR
            export CUPRITE_KERNEL_SEED_DIR=$root/build RANK=$rank WORLD_SIZE=$n LOCAL_RANK=$rank \
                MASTER_ADDR=127.0.0.1 MASTER_PORT=$port
            cuprite-kernel run --spmd "$@" 2>&1 | sed -u "s/^/[rank $rank] /"
            exit "${PIPESTATUS[0]}"
        ) &
        pids+=($!)
    done
    for p in "${pids[@]}"; do
        wait "$p"
        r=$?
        [ $r -gt $rc ] && rc=$r
    done
    return $rc
}

cuprite-kernel --version
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1
summary="" failed=0 files=0
for job in "${jobs[@]}"; do
    mapfile -t a <<<"$job"
    nb=${a[0]} ranks=1 rest=()
    for ((i = 1; i < ${#a[@]}; i++)); do
        if [ "${a[i]}" = --ranks ]; then ranks=${a[i + 1]} && i=$((i + 1)); else rest+=("${a[i]}"); fi
    done
    name=$(basename "${a[0]}" .ipynb)
    [ "$ranks" -gt 1 ] && name=$name-$ranks-ranks
    case $nb in /*) ;; *) nb=$repo/$nb ;; esac
    args=("$nb" --output "$out/$name.ipynb" "${rest[@]}")
    [ "$html" = 1 ] && args+=(--html "$out/$name.html") && files=$((files + 1))
    files=$((files + 1))
    echo "gpu-run: === ${a[*]}"
    t0=$(now)
    if [ "$ranks" = 1 ]; then
        cuprite-kernel run "${args[@]}"
        rc=$?
    else
        run_ranks "$ranks" "${args[@]}"
        rc=$?
    fi
    t=$(since "$t0")
    [ $rc -ne 0 ] && failed=$((failed + 1))
    summary+=$(printf '\n  %-45s rc=%d %8s s' "${a[0]}" "$rc" "$t")
done
if [ "$spmd_test" != 0 ]; then
    # A kernelspec of N GPU ranks in a Jupyter path of its own; the ranks' build
    # folders are seeded from the shared one, as run_ranks' are.
    jp=$root/jupyter-spmd && rm -rf "$jp" && mkdir -p "$jp"
    echo "gpu-run: === tests/test_spmd.py with $spmd_test GPU ranks"
    t0=$(now)
    (
        export JUPYTER_PATH=$jp JUPYTER_DATA_DIR=$jp/data JUPYTER_RUNTIME_DIR=$jp/runtime
        export CUPRITE_SPMD_KERNEL_NAME=cuprite-gpu-spmd CUPRITE_SPMD_EXPECT_GPUS=$spmd_test
        unset CUPRITE_KERNEL_BUILD_DIR
        export CUPRITE_KERNEL_SEED_DIR=$root/build
        cuprite-kernel install --name "$CUPRITE_SPMD_KERNEL_NAME" --spmd-ranks "$spmd_test" \
            --launcher local >/dev/null &&
            cd "$repo/tests" && python3 -m pytest -q -p no:cacheprovider test_spmd.py 2>&1
    )
    rc=$?
    [ $rc -ne 0 ] && failed=$((failed + 1))
    summary+=$(printf '\n  %-45s rc=%d %8s s' "tests/test_spmd.py ($spmd_test ranks)" "$rc" "$(since "$t0")")
fi
if [ "$soak" != 0 ]; then
    echo "gpu-run: === tests/soak.py, $soak cells"
    t0=$(now)
    (
        jp=$root/jupyter-soak && rm -rf "$jp" && mkdir -p "$jp"
        export JUPYTER_PATH=$jp JUPYTER_DATA_DIR=$jp/data JUPYTER_RUNTIME_DIR=$jp/runtime
        # shellcheck disable=SC2086 # CUPRITE_SOAK_ARGS: more soak.py options, split on spaces.
        python3 "$repo/tests/soak.py" --cells "$soak" --kernel "$(command -v cuprite-kernel)" \
            --notebooks "$repo/notebooks" --json "$out/soak.json" ${CUPRITE_SOAK_ARGS:-} 2>&1
    )
    rc=$?
    [ $rc -ne 0 ] && failed=$((failed + 1))
    files=$((files + 1))
    summary+=$(printf '\n  %-45s rc=%d %8s s' "tests/soak.py ($soak cells)" "$rc" "$(since "$t0")")
fi
echo "gpu-run: timings (first notebook includes compiling the dependencies):$summary"
if [ $((files + 1)) -gt 8 ]; then
    (cd "$out" && shopt -s nullglob && tar -cJf results.tar.xz -- *.ipynb *.html && rm -f -- *.ipynb *.html)
    echo "gpu-run: more than 8 result files: packed into results.tar.xz"
fi
exit $((failed > 0))

//! `cumsum` / `cumprod` on the GPU along any axis, with the CPU backend's
//! dtypes: bool and signed integers accumulate (wrapping) in int64,
//! unsigned integers in uint64, float16 and bfloat16 in float32 (each
//! output rounded), other types in themselves.
//!
//! The input is seen as lanes (`outer x inner`) of `n` elements each.
//!
//! - Lanes of one element stride in the output (`inner == 1`, which covers
//!   the flattened scan) with `n >= 128`: a block scans a tile of
//!   `256 * ITEMS` consecutive elements (loads through shared memory, a
//!   sequential scan of `ITEMS` per thread, a block scan of the thread
//!   totals). Rows of several tiles take three phases: tile totals, a scan
//!   of the totals (the same machinery, recursively), and the tiles again
//!   with their offsets.
//! - Other lanes: a thread per lane walks its elements, so neighbouring
//!   threads touch neighbouring elements. When the lanes are too few to
//!   fill the device, each lane is cut into chunks with the same three
//!   phases.

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::CudaStorage;
use crate::cuda::kernel_gen::helpers::{
    grid_1d, kernel, key, merged, ptr, session_of, unravel, Dims, Geo,
};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::transfer::alloc;
use crate::ops::c_types::{cast_expr, ctype, scalar_literal};
// The result dtype of a scan (the table's).
use crate::core::view::View;
use crate::ops::reduce::sum_dtype as out_dtype;

const THREADS: usize = 256;
/// Shortest lane scanned by blocks of tiles; shorter lanes get a thread each.
const MIN_TILED: usize = 128;

/// The accumulator dtype of a scan of `dt` (`Num::Sum`).
pub(crate) fn acc_dtype(dt: DType) -> DType {
    out_dtype(dt).compute_dtype()
}

/// `a op b` in the accumulator type; integers wrap (computed unsigned, so
/// signed overflow is defined).
fn op_expr(acc: DType, prod: bool, a: &str, b: &str) -> String {
    let o = if prod { "*" } else { "+" };
    if acc == DType::Int64 {
        format!("((long long)((unsigned long long)({a}) {o} (unsigned long long)({b})))")
    } else {
        format!("(({a}) {o} ({b}))")
    }
}

/// Running sums (`prod == false`) or products of `x` along `axis` (`None`:
/// over the flattened array) into `out` (C-contiguous, `x.size()` elements
/// of `out_dtype(x.dtype())`, not overlapping `x`).
pub(crate) fn scan(x: View<'_>, prod: bool, axis: Option<usize>, out: View<'_>) -> Result<()> {
    let name: &'static str = if prod { "cumprod" } else { "cumsum" };
    let s = session_of(name, x)?;
    if x.size() == 0 {
        return Ok(());
    }
    let job = match axis {
        None => Job {
            outer: (vec![], vec![]),
            k: merged(x.shape(), x.strides()),
            n: x.size(),
            inner: (vec![], vec![]),
        },
        Some(a) => {
            let (sh, st) = (x.shape(), x.strides());
            Job {
                outer: merged(&sh[..a], &st[..a]),
                k: (vec![sh[a]], vec![st[a]]),
                n: sh[a],
                inner: merged(&sh[a + 1..], &st[a + 1..]),
            }
        }
    };
    run(
        s,
        name,
        prod,
        ptr(name, x)?,
        x.dtype(),
        acc_dtype(x.dtype()),
        (ptr(name, out)?, out.dtype()),
        &job,
    )
}

/// Lanes of a scan: `outer` x `inner` lanes of `n` elements along `k`.
#[derive(Debug, Clone)]
struct Job {
    outer: (Vec<usize>, Vec<isize>),
    k: (Vec<usize>, Vec<isize>),
    n: usize,
    inner: (Vec<usize>, Vec<isize>),
}

/// How a specialisation walks its lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// Blocks of tiles along lanes with `inner == 1`.
    Tiles { items: usize },
    /// A thread per (lane, chunk).
    Lanes,
}

/// What determines a generated source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Spec {
    in_dt: DType,
    acc: DType,
    out_dt: DType,
    prod: bool,
    kind: Kind,
    outer: Dims,
    k: Dims,
    inner: Dims,
    /// The scanned elements are consecutive in memory (stride 1).
    k_contig: bool,
    geo_len: usize,
}

/// Scans `job` of the input at `x` (dtype `in_dt`) into `out` (address and
/// dtype of a C-contiguous buffer of shape outer x n x inner, not
/// overlapping the input) with accumulator `acc`.
#[allow(clippy::too_many_arguments)]
fn run(
    s: &'static DeviceSession,
    name: &'static str,
    prod: bool,
    x: u64,
    in_dt: DType,
    acc: DType,
    out: (u64, DType),
    job: &Job,
) -> Result<()> {
    let (out, out_dt) = out;
    let rows: usize = job.outer.0.iter().product();
    let m: usize = job.inner.0.iter().product();
    let n = job.n;
    if rows == 0 || m == 0 || n == 0 {
        return Ok(());
    }
    let max = crate::cuda::kernel_gen::elementwise::MAX_DIMS;
    if job.outer.0.len() > max || job.k.0.len() > max || job.inner.0.len() > max {
        return Err(Error::Shape {
            op: name,
            detail: format!("too many dimensions for a GPU scan (at most {max})"),
        });
    }
    let mut geo = Geo::new();
    let outer = geo.dims(&job.outer.0, &job.outer.1);
    let k = geo.dims(&job.k.0, &job.k.1);
    let inner = geo.dims(&job.inner.0, &job.inner.1);
    let k_contig = job.k.1.len() == 1 && job.k.1[0] == 1;
    let kind = if m == 1 && n >= MIN_TILED {
        Kind::Tiles {
            items: if n >= THREADS * 8 { 8 } else { 1 },
        }
    } else {
        Kind::Lanes
    };
    let spec = Spec {
        in_dt,
        acc,
        out_dt,
        prod,
        kind,
        outer,
        k,
        inner,
        k_contig,
        geo_len: geo.len(),
    };
    let geo_bytes = geo.bytes();
    match kind {
        Kind::Tiles { items } => {
            let tile = THREADS * items;
            let tiles = n.div_ceil(tile);
            let f = kernel(s, key(("scan", &spec)), name, "cuprite_scan_tiles", || {
                source(&spec)
            })?;
            let grid = (tiles as u32, rows.min(65535) as u32);
            let sizes = [rows, n, tiles];
            let totals = if tiles > 1 {
                let t = alloc(name, s.info.ordinal, acc, rows * tiles)?;
                // Phase 1: the total of every tile.
                launch_pass(
                    s,
                    name,
                    f,
                    grid,
                    [x, 0, t.buffer.ptr, 0],
                    &geo_bytes,
                    &sizes,
                    0,
                )?;
                // Phase 2: running totals of the tiles of each row.
                let tjob = Job {
                    outer: merged(&[rows], &[tiles as isize]),
                    k: (vec![tiles], vec![1]),
                    n: tiles,
                    inner: (vec![], vec![]),
                };
                Some(running_totals(s, name, prod, t.buffer.ptr, acc, &tjob)?)
            } else {
                None
            };
            // Phase 3: every tile scanned from the running total before it.
            let off = totals.as_ref().map_or(0, |t| t.buffer.ptr);
            launch_pass(s, name, f, grid, [x, out, 0, off], &geo_bytes, &sizes, 1)
        }
        Kind::Lanes => {
            let lanes = rows * m;
            let target = s.info.sm_count.max(1) * 2048;
            let chunks = if lanes >= target {
                1
            } else {
                (target / lanes).clamp(1, (n / 64).max(1))
            };
            let f = kernel(s, key(("scan", &spec)), name, "cuprite_scan_lanes", || {
                source(&spec)
            })?;
            let grid = (grid_1d(s, rows * m * chunks, THREADS), 1);
            let sizes = [rows, n, m, chunks];
            let totals = if chunks > 1 {
                let t = alloc(name, s.info.ordinal, acc, rows * chunks * m)?;
                launch_pass(
                    s,
                    name,
                    f,
                    grid,
                    [x, 0, t.buffer.ptr, 0],
                    &geo_bytes,
                    &sizes,
                    0,
                )?;
                // Phase 2: running totals along the chunk axis.
                let tjob = Job {
                    outer: merged(&[rows], &[(chunks * m) as isize]),
                    k: (vec![chunks], vec![m as isize]),
                    n: chunks,
                    inner: merged(&[m], &[1]),
                };
                Some(running_totals(s, name, prod, t.buffer.ptr, acc, &tjob)?)
            } else {
                None
            };
            let off = totals.as_ref().map_or(0, |t| t.buffer.ptr);
            launch_pass(s, name, f, grid, [x, out, 0, off], &geo_bytes, &sizes, 1)
        }
    }
}

/// The inclusive scan of the partial totals at `totals` (dtype `acc`,
/// laid out as `job` says), in a new buffer.
fn running_totals(
    s: &'static DeviceSession,
    name: &'static str,
    prod: bool,
    totals: u64,
    acc: DType,
    job: &Job,
) -> Result<CudaStorage> {
    let size =
        job.outer.0.iter().product::<usize>() * job.n * job.inner.0.iter().product::<usize>();
    let ts = alloc(name, s.info.ordinal, acc, size)?;
    run(s, name, prod, totals, acc, acc, (ts.buffer.ptr, acc), job)?;
    Ok(ts)
}

/// One pass of a scan kernel over `grid` (x, y) blocks: its buffers (`x`, `out`,
/// `totals`, `offsets`; 0 where the pass has none), the geometry, the
/// sizes the kernel takes after it, and the mode (0: tile or chunk totals
/// only, 1: the scan from the running totals).
#[allow(clippy::too_many_arguments)]
fn launch_pass(
    s: &DeviceSession,
    name: &str,
    f: crate::cuda::runtime::compile::Function,
    grid: (u32, u32),
    buffers: [u64; 4],
    geo: &[u8],
    sizes: &[usize],
    mode: i32,
) -> Result<()> {
    let mut args = KernelArgs::new();
    for b in buffers {
        args.push(b);
    }
    args.push_bytes(geo, 8);
    for &n in sizes {
        args.push(n as i64);
    }
    args.push(mode);
    let cfg = LaunchConfig {
        grid: (grid.0, grid.1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, name, f, cfg, &current_stream(), &mut args)
}

/// The kernel source of one specialisation.
const TEMPLATE: &str = include_str!("kernels/scan.cu");

fn source(spec: &Spec) -> String {
    let k_off = if spec.k_contig {
        "off += k;\n".to_string()
    } else {
        unravel("k", "off", spec.k)
    };
    let (flag, items) = match spec.kind {
        Kind::Tiles { items } => ("TILES", items),
        Kind::Lanes => ("LANES", 1),
    };
    let t = THREADS;
    render(
        TEMPLATE,
        &[
            ("PRELUDE", PRELUDE),
            ("IN_T", ctype(spec.in_dt)),
            ("ACC_T", ctype(spec.acc)),
            ("OUT_T", ctype(spec.out_dt)),
            ("GEO", &Geo::decl(spec.geo_len)),
            (
                "IDENT",
                &scalar_literal(crate::Scalar::Int(i64::from(spec.prod)), spec.acc),
            ),
            ("OP", &op_expr(spec.acc, spec.prod, "a", "b")),
            ("LOAD", &cast_expr(spec.in_dt, spec.acc, "raw")),
            ("STORE", &cast_expr(spec.acc, spec.out_dt, "v")),
            ("THREADS", &t.to_string()),
            ("ITEMS", &items.to_string()),
            ("TILE", &(t * items).to_string()),
            ("LAST", &(t - 1).to_string()),
            ("OUTER_ROW", &unravel("row", "base", spec.outer)),
            ("OUTER_O", &unravel("o", "base", spec.outer)),
            ("INNER_I", &unravel("i", "base", spec.inner)),
            ("K_OFF", &k_off),
        ],
        &[flag],
    )
}

// The Scan family of the backend interface (`ops::backend`).
impl crate::ops::reduce::Scan for super::CudaBackend {
    fn scan(&self, prod: bool, x: View<'_>, axis: Option<usize>, out: View<'_>) -> Result<()> {
        scan(x, prod, axis, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(in_dt: DType, prod: bool, kind: Kind, k_contig: bool) -> Spec {
        let mut g = Geo::new();
        let outer = g.dims(&[4], &[100]);
        let k = g.dims(&[5, 20], &[20, 1]);
        let inner = g.dims(&[], &[]);
        Spec {
            in_dt,
            acc: acc_dtype(in_dt),
            out_dt: out_dtype(in_dt),
            prod,
            kind,
            outer,
            k,
            inner,
            k_contig,
            geo_len: g.len(),
        }
    }

    #[test]
    fn dtypes_widen_as_the_cpu_does() {
        assert_eq!(out_dtype(DType::Bool), DType::Int64);
        assert_eq!(out_dtype(DType::UInt16), DType::UInt64);
        assert_eq!(acc_dtype(DType::BFloat16), DType::Float32);
        assert_eq!(out_dtype(DType::BFloat16), DType::BFloat16);
        assert_eq!(acc_dtype(DType::Complex64), DType::Complex64);
    }

    #[test]
    fn integer_arithmetic_wraps_without_signed_overflow() {
        assert_eq!(
            op_expr(DType::Int64, true, "a", "b"),
            "((long long)((unsigned long long)(a) * (unsigned long long)(b)))"
        );
        assert_eq!(op_expr(DType::Float32, false, "a", "b"), "((a) + (b))");
    }

    #[test]
    fn tile_kernel_scans_through_shared_memory() {
        let src = source(&spec(DType::Float16, false, Kind::Tiles { items: 8 }, true));
        assert!(src.contains("typedef f16 in_t;"));
        assert!(src.contains("typedef float acc_t;"));
        assert!(src.contains("__shared__ acc_t sh[2048];"));
        assert!(src.contains("return make_f16((float)(v));"));
        assert!(src.contains("off += k;"));
        assert!(src.contains("if (tid == 0) totals[row * tiles + tile] = tsum[255];"));
        assert!(src.contains("prefix = op(offsets[row * tiles + tile - 1], prefix);"));
        assert!(src.contains("#define IDENT (((float)(0e0)))"));
        // A strided walk unravels k over its dimensions.
        let src = source(&spec(DType::Int8, true, Kind::Tiles { items: 1 }, false));
        assert!(src.contains("q_ = r_ / g.v[3]; off += (r_ - q_ * g.v[3]) * g.v[5];"));
        assert!(src.contains("#define IDENT (((int64_t)(1LL)))"));
        assert!(src.contains("return (int64_t)(raw);"));
    }

    #[test]
    fn lane_kernel_walks_chunks_from_their_offsets() {
        let src = source(&spec(DType::Complex128, true, Kind::Lanes, false));
        assert!(src.contains("extern \"C\" __global__ void cuprite_scan_lanes("));
        assert!(src.contains("run = offsets[(o * chunks + c - 1) * m + i];"));
        assert!(src.contains("out[(o * n + k) * m + i] = store(run);"));
        assert!(src.contains("totals[(o * chunks + c) * m + i] = run;"));
    }

    #[test]
    fn every_dtype_and_kind_generates_a_source() {
        for dt in DType::ALL {
            for prod in [false, true] {
                for (kind, contig) in [
                    (Kind::Tiles { items: 8 }, true),
                    (Kind::Tiles { items: 1 }, false),
                    (Kind::Lanes, false),
                ] {
                    let src = source(&spec(dt, prod, kind, contig));
                    assert!(src.contains("extern \"C\" __global__"));
                    assert_eq!(
                        crate::cuda::kernel_gen::template::unfilled(&src),
                        None,
                        "{src}"
                    );
                    let label = format!("scan_{}_{prod}_{kind:?}_{contig}", dt.name())
                        .replace([' ', '{', '}', ':'], "");
                    // Compiles it too.
                    crate::cuda::kernel_gen::helpers::dump_source(&label, &src);
                }
            }
        }
    }
}

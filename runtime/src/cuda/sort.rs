//! `sort` / `argsort` on the GPU: a stable LSD radix sort, 8 bits a pass.
//!
//! Keys are the elements' own bits; each pass takes its digit from an
//! order-preserving transform of them (the sign bit flipped for signed
//! integers; for floats, every NaN mapped above +inf and -0.0 read as
//! +0.0, then the usual sign flip), so the original bits move and NaNs
//! and zeros keep their input order, as the CPU backend's stable sort
//! keeps them. Every lane along the sorted axis is sorted at once: the
//! lane number is the most significant digit, sorted in the last passes
//! (so several lanes cost one or more extra passes).
//!
//! A pass is three kernels: per-block histograms of the digit (one tile of
//! elements per block), one block per digit scanning its counts over the
//! blocks (and summing them), and a stable scatter in which each warp
//! ranks its run of the block's tile against warp-private digit counters
//! (ballots over the digit bits), and the block adds up the digits' totals
//! to find where each digit starts. argsort carries each element's position as the value. A single
//! contiguous lane sorted without positions is read in place by the first
//! pass instead of being packed first.
//!
//! Complex values (lexicographic order with NaNs) are not sorted here; the
//! caller falls back to the host.

use std::fmt::Write;

use super::compile::PRELUDE;
use super::elementwise::{ctype, new_array, MAX_DIMS};
use super::helpers::{grid_1d, kernel, key, merged, ptr, session_of, unravel, Dims, Geo};
use super::launch::{launch, KernelArgs, LaunchConfig};
use super::session::DeviceSession;
use super::stream::current_stream;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;

const THREADS: usize = 256;
/// Threads of the per-digit scan (one block per digit).
const SCAN_THREADS: usize = 1024;
/// Shared memory for the tile staged by the scatter (keys, carried values
/// and digits), kept with the kernel's other arrays under the 48 KB that
/// needs no opt-in.
const STAGE_BYTES: usize = 36 << 10;

/// Rounds of `THREADS` elements per block in the histogram and scatter: as
/// many as let the scatter stage a whole tile in shared memory.
fn rounds(spec: &Spec) -> usize {
    let per = key_dtype(spec.dt).itemsize() + if spec.carry { spec.vdt.itemsize() } else { 0 } + 1;
    [16, 8, 4, 2, 1]
        .into_iter()
        .find(|r| r * THREADS * per <= STAGE_BYTES)
        .unwrap_or(1)
}

/// The unsigned type holding the bits of `dt`.
fn key_dtype(dt: DType) -> DType {
    match dt.itemsize() {
        1 => DType::UInt8,
        2 => DType::UInt16,
        4 => DType::UInt32,
        _ => DType::UInt64,
    }
}

/// Bytes needed to write `v` (0 for 0).
fn bytes_for(v: usize) -> usize {
    let bits = usize::BITS - v.leading_zeros();
    (bits as usize).div_ceil(8)
}

/// The sorted copy (`arg == false`) or the int64 indices that sort `x`
/// along `axis` (stable), or `None` for dtypes sorted on the host.
pub(crate) fn sort(x: &Array, axis: usize, arg: bool) -> Result<Option<Array>> {
    let name: &'static str = if arg { "argsort" } else { "sort" };
    let dt = x.dtype();
    if dt.is_complex() {
        return Ok(None);
    }
    let s = session_of(name, x)?;
    let ord = s.info.ordinal;
    let shape = x.shape().to_vec();
    let out_dt = if arg { DType::Int64 } else { dt };
    let total = x.size();
    if total == 0 {
        return Ok(Some(new_array(name, ord, out_dt, &shape)?));
    }
    let n = shape[axis];
    let lanes = total / n;
    let m: usize = shape[axis + 1..].iter().product();
    let outer = merged(&shape[..axis], &x.strides()[..axis]);
    let inner = merged(&shape[axis + 1..], &x.strides()[axis + 1..]);
    if outer.0.len() > MAX_DIMS || inner.0.len() > MAX_DIMS {
        return Err(Error::Shape {
            op: name,
            detail: format!("too many dimensions for a GPU sort (at most {MAX_DIMS})"),
        });
    }
    let kdt = key_dtype(dt);
    let vdt = if total > u32::MAX as usize {
        DType::UInt64
    } else {
        DType::UInt32
    };
    let carry = arg || lanes > 1;
    let mut geo = Geo::new();
    let spec = Spec {
        dt,
        vdt,
        carry,
        outer: geo.dims(&outer.0, &outer.1),
        inner: geo.dims(&inner.0, &inner.1),
        geo_len: 0,
    };
    let spec = Spec {
        geo_len: geo.len(),
        ..spec
    };
    let keys = [
        new_array(name, ord, kdt, &[total])?,
        new_array(name, ord, kdt, &[total])?,
    ];
    let vals = if carry {
        Some([
            new_array(name, ord, vdt, &[total])?,
            new_array(name, ord, vdt, &[total])?,
        ])
    } else {
        None
    };
    let vptr = |v: &Option<[Array; 2]>, i: usize| -> Result<u64> {
        match v {
            Some(v) => ptr(name, &v[i]),
            None => Ok(0),
        }
    };
    // A single contiguous lane sorted without positions needs no packing:
    // the first pass reads the input itself (keys are its bits).
    let direct = !carry && lanes == 1 && (n == 1 || x.strides()[axis] == 1);
    // The buffer the next pass reads: the input, or keys/vals[cur].
    let mut cur: Option<usize> = None;
    if !direct {
        // Lane-major keys (and their positions) from any layout.
        let f = kernel(
            s,
            key(("sort-pack", &spec)),
            name,
            "cuprite_sort_pack",
            || source(&spec),
        )?;
        let mut args = KernelArgs::new();
        args.push(ptr(name, x)?);
        args.push(ptr(name, &keys[0])?);
        args.push(vptr(&vals, 0)?);
        args.push_bytes(&geo.bytes(), 8);
        args.push(total as i64);
        args.push(n as i64);
        args.push(m as i64);
        args.push(x.strides()[axis] as i64);
        launch(s, name, f, grid(s, total), &current_stream(), &mut args)?;
        cur = Some(0);
    }

    let key_passes = dt.itemsize();
    let lane_passes = if lanes > 1 { bytes_for(lanes - 1) } else { 0 };
    let blocks = total.div_ceil(THREADS * rounds(&spec));
    let fh = kernel(
        s,
        key(("sort-hist", &spec)),
        name,
        "cuprite_sort_hist",
        || source(&spec),
    )?;
    let fd = kernel(
        s,
        key(("sort-digit-scan", &spec)),
        name,
        "cuprite_sort_digit_scan",
        || source(&spec),
    )?;
    let fs = kernel(
        s,
        key(("sort-scatter", &spec)),
        name,
        "cuprite_sort_scatter",
        || source(&spec),
    )?;
    // Per-pass scratch, reused by every pass.
    let hist = new_array(name, ord, DType::UInt32, &[256 * blocks])?;
    let excl = new_array(name, ord, DType::UInt64, &[256 * blocks])?;
    let totals = new_array(name, ord, DType::UInt64, &[256])?;
    for pass in 0..key_passes + lane_passes {
        let (lane_pass, shift) = if pass < key_passes {
            (0i32, (8 * pass) as i32)
        } else {
            (1i32, (8 * (pass - key_passes)) as i32)
        };
        let (kin, vin) = match cur {
            Some(c) => (ptr(name, &keys[c])?, vptr(&vals, c)?),
            None => (ptr(name, x)?, 0),
        };
        let next = cur.map_or(0, |c| 1 - c);
        let mut args = KernelArgs::new();
        args.push(kin);
        args.push(vin);
        args.push(ptr(name, &hist)?);
        args.push(total as i64);
        args.push(n as i64);
        args.push(shift);
        args.push(lane_pass);
        launch(
            s,
            name,
            fh,
            blocks_cfg(blocks),
            &current_stream(),
            &mut args,
        )?;
        // Each digit's running counts over the blocks, and its total.
        let mut args = KernelArgs::new();
        args.push(ptr(name, &hist)?);
        args.push(ptr(name, &excl)?);
        args.push(ptr(name, &totals)?);
        args.push(blocks as i64);
        let cfg = LaunchConfig {
            grid: (256, 1, 1),
            block: (SCAN_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        launch(s, name, fd, cfg, &current_stream(), &mut args)?;
        let mut args = KernelArgs::new();
        args.push(kin);
        args.push(ptr(name, &keys[next])?);
        args.push(vin);
        args.push(vptr(&vals, next)?);
        args.push(ptr(name, &excl)?);
        args.push(ptr(name, &totals)?);
        args.push(total as i64);
        args.push(n as i64);
        args.push(shift);
        args.push(lane_pass);
        launch(
            s,
            name,
            fs,
            blocks_cfg(blocks),
            &current_stream(),
            &mut args,
        )?;
        cur = Some(next);
    }
    let cur = cur.expect("every dtype has at least one key pass");

    if !arg && m == 1 {
        // Lanes are already in the output's order: the sorted keys are the result.
        let k = keys[cur].clone();
        return Ok(Some(Array::from_parts(
            k.storage().clone(),
            Layout::contiguous(&shape),
            dt,
        )));
    }
    let out = new_array(name, ord, out_dt, &shape)?;
    let fu = kernel(
        s,
        key(("sort-unpack", &spec, arg)),
        name,
        if arg {
            "cuprite_sort_unpack_arg"
        } else {
            "cuprite_sort_unpack"
        },
        || source(&spec),
    )?;
    let mut args = KernelArgs::new();
    args.push(ptr(name, &keys[cur])?);
    args.push(vptr(&vals, cur)?);
    args.push(ptr(name, &out)?);
    args.push(total as i64);
    args.push(n as i64);
    args.push(m as i64);
    launch(s, name, fu, grid(s, total), &current_stream(), &mut args)?;
    Ok(Some(out))
}

fn grid(s: &DeviceSession, n: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (grid_1d(s, n, THREADS), 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn blocks_cfg(blocks: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (blocks as u32, 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// What determines the generated source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Spec {
    /// The dtype sorted (its bits are the keys).
    dt: DType,
    /// The dtype of carried positions.
    vdt: DType,
    /// Whether positions are carried (argsort, or several lanes).
    carry: bool,
    outer: Dims,
    inner: Dims,
    geo_len: usize,
}

/// The body of `xform(u)`: the order-preserving transform of key bits.
fn xform_body(dt: DType) -> String {
    // (sign bit, the bits of +inf for floats)
    let (sign, inf) = match dt {
        DType::Float16 => ("0x8000u", Some("0x7c00u")),
        DType::BFloat16 => ("0x8000u", Some("0x7f80u")),
        DType::Float32 => ("0x80000000u", Some("0x7f800000u")),
        DType::Float64 => ("0x8000000000000000ull", Some("0x7ff0000000000000ull")),
        DType::Int8 => ("0x80u", None),
        DType::Int16 => ("0x8000u", None),
        DType::Int32 => ("0x80000000u", None),
        DType::Int64 => ("0x8000000000000000ull", None),
        _ => return "return u;".into(),
    };
    match inf {
        None => format!("return (key_t)(u ^ {sign});"),
        Some(inf) => format!(
            "if ((u & (key_t)~(key_t){sign}) > {inf}) return (key_t)~(key_t)0; if (u == (key_t){sign}) u = 0; return (u & {sign}) ? (key_t)~u : (key_t)(u | {sign});",
        ),
    }
}

/// Blocks per multiprocessor the scatter's register use must allow
/// (`__launch_bounds__`), 0 for no bound. Its speed is set by occupancy:
/// left alone, the compiler spent 99 registers a thread on 16 M float32
/// keys, two blocks fitted, and a pass took 205 us; capped at 64 registers
/// (four blocks, no spills) it took 118 us. The cap is chosen from the
/// registers the tile's elements keep (key, carried value, digit and rank).
fn scatter_min_blocks(spec: &Spec) -> u32 {
    let words = |bytes: usize| bytes.div_ceil(4);
    let per = words(key_dtype(spec.dt).itemsize())
        + if spec.carry {
            words(spec.vdt.itemsize())
        } else {
            0
        }
        + 1;
    match rounds(spec) * per {
        0..=32 => 4,
        33..=48 => 3,
        _ => 0,
    }
}

fn source(spec: &Spec) -> String {
    let t = THREADS;
    let rounds = rounds(spec);
    let tile = t * rounds;
    let mut s = String::from(PRELUDE);
    let _ = writeln!(s, "\ntypedef {} key_t;", ctype(key_dtype(spec.dt)));
    let _ = writeln!(s, "typedef {} val_t;", ctype(spec.vdt));
    s.push_str(&Geo::decl(spec.geo_len));
    let _ = writeln!(
        s,
        "__device__ __forceinline__ key_t xform(key_t u) {{ {} }}",
        xform_body(spec.dt)
    );
    // The digit of pass (shift, lane_pass) of an element with key bits `k`
    // and carried position `v`.
    let _ = writeln!(s, "__device__ __forceinline__ unsigned digit(key_t k, val_t v, long long n, int shift, int lane_pass) {{");
    let _ = writeln!(s, "  if (lane_pass) return (unsigned)((((unsigned long long)v) / (unsigned long long)n >> shift) & 0xffull);");
    let _ = writeln!(s, "  return (unsigned)((xform(k) >> shift) & 0xffu);");
    let _ = writeln!(s, "}}");

    // Pack: lane-major keys (lane = o * m + i) and their positions.
    let _ = writeln!(s, "extern \"C\" __global__ void cuprite_sort_pack(const key_t* __restrict__ x, key_t* __restrict__ keys, val_t* __restrict__ vals, Geo g, long long total, long long n, long long m, long long step) {{");
    let _ = writeln!(
        s,
        "  const long long stride = (long long)gridDim.x * blockDim.x;"
    );
    let _ = writeln!(s, "  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < total; p += stride) {{");
    let _ = writeln!(s, "    const long long lane = p / n, k = p - lane * n;");
    let _ = writeln!(s, "    const long long o = lane / m, i = lane - o * m;");
    let _ = writeln!(s, "    long long off = k * step;");
    s.push_str(&unravel("o", "off", spec.outer));
    s.push_str(&unravel("i", "off", spec.inner));
    let _ = writeln!(s, "    keys[p] = x[off];");
    if spec.carry {
        let _ = writeln!(s, "    vals[p] = (val_t)p;");
    }
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");

    // Every thread loads all of its elements of the tile before using any,
    // so a block waits for memory once per tile rather than once per round.
    let vr = if spec.carry { "vr[r]" } else { "(val_t)0" };
    let prefetch = |s: &mut String, kin: &str, vin: &str, at: &str| {
        let _ = writeln!(s, "  key_t kr[{rounds}];");
        let _ = writeln!(s, "  val_t vr[{rounds}];");
        let _ = writeln!(s, "  #pragma unroll");
        let _ = writeln!(s, "  for (int r = 0; r < {rounds}; ++r) {{");
        let _ = writeln!(s, "    const long long p = {at};");
        let _ = writeln!(s, "    kr[r] = (key_t)0; vr[r] = (val_t)0;");
        if spec.carry {
            let _ = writeln!(
                s,
                "    if (p < total) {{ kr[r] = {kin}[p]; vr[r] = {vin}[p]; }}"
            );
        } else {
            let _ = writeln!(s, "    if (p < total) kr[r] = {kin}[p];");
        }
        let _ = writeln!(s, "  }}");
    };

    // Histogram of one tile per block, written digit-major.
    let _ = writeln!(s, "extern \"C\" __global__ void cuprite_sort_hist(const key_t* __restrict__ keys, const val_t* __restrict__ vals, unsigned* __restrict__ hist, long long total, long long n, int shift, int lane_pass) {{");
    let _ = writeln!(s, "  __shared__ unsigned cnt[256];");
    let _ = writeln!(s, "  const int tid = threadIdx.x;");
    let _ = writeln!(
        s,
        "  const long long start = (long long)blockIdx.x * {tile};"
    );
    let tile_at = format!("start + r * {t} + tid");
    prefetch(&mut s, "keys", "vals", &tile_at);
    let _ = writeln!(s, "  cnt[tid] = 0;");
    let _ = writeln!(s, "  __syncthreads();");
    let _ = writeln!(s, "  #pragma unroll");
    let _ = writeln!(s, "  for (int r = 0; r < {rounds}; ++r) {{");
    let _ = writeln!(s, "    const long long p = start + r * {t} + tid;");
    let _ = writeln!(
        s,
        "    if (p < total) atomicAdd(&cnt[digit(kr[r], {vr}, n, shift, lane_pass)], 1u);"
    );
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  __syncthreads();");
    let _ = writeln!(
        s,
        "  hist[(long long)tid * gridDim.x + blockIdx.x] = cnt[tid];"
    );
    let _ = writeln!(s, "}}");

    // One block per digit: the exclusive running count of the digit over
    // the blocks (where each block's run of it starts among the digit's
    // elements) and the digit's total. Chunks of SCAN_THREADS counts:
    // shuffles within warps, then across the warps' sums.
    let ds = SCAN_THREADS;
    let _ = writeln!(s, "__device__ __forceinline__ unsigned long long warp_incl_scan(unsigned long long x, int lane) {{");
    let _ = writeln!(s, "  #pragma unroll");
    let _ = writeln!(s, "  for (int o = 1; o < 32; o <<= 1) {{");
    let _ = writeln!(
        s,
        "    const unsigned long long y = __shfl_up_sync(0xffffffffu, x, o);"
    );
    let _ = writeln!(s, "    if (lane >= o) x += y;");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  return x;");
    let _ = writeln!(s, "}}");
    let _ = writeln!(s, "extern \"C\" __global__ void cuprite_sort_digit_scan(const unsigned* __restrict__ hist, unsigned long long* __restrict__ excl, unsigned long long* __restrict__ totals, long long blocks) {{");
    let _ = writeln!(s, "  __shared__ unsigned long long wsum[{}];", ds / 32);
    let _ = writeln!(
        s,
        "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;"
    );
    let _ = writeln!(s, "  const long long row = (long long)blockIdx.x * blocks;");
    let _ = writeln!(s, "  unsigned long long carry = 0;");
    let _ = writeln!(s, "  for (long long c = 0; c < blocks; c += {ds}) {{");
    let _ = writeln!(s, "    const long long b = c + tid;");
    let _ = writeln!(
        s,
        "    const unsigned long long v = b < blocks ? (unsigned long long)hist[row + b] : 0ull;"
    );
    let _ = writeln!(
        s,
        "    const unsigned long long x = warp_incl_scan(v, lane);"
    );
    let _ = writeln!(s, "    if (lane == 31) wsum[warp] = x;");
    let _ = writeln!(s, "    __syncthreads();");
    let _ = writeln!(
        s,
        "    const unsigned long long ws = lane < {} ? wsum[lane] : 0ull;",
        ds / 32
    );
    let _ = writeln!(
        s,
        "    const unsigned long long wi = warp_incl_scan(ws, lane);"
    );
    let _ = writeln!(
        s,
        "    const unsigned long long before = __shfl_sync(0xffffffffu, wi - ws, warp);"
    );
    let _ = writeln!(
        s,
        "    const unsigned long long all = __shfl_sync(0xffffffffu, wi, 31);"
    );
    let _ = writeln!(
        s,
        "    if (b < blocks) excl[row + b] = carry + before + x - v;"
    );
    let _ = writeln!(s, "    carry += all;");
    let _ = writeln!(s, "    __syncthreads();");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  if (tid == 0) totals[blockIdx.x] = carry;");
    let _ = writeln!(s, "}}");

    let w = t / 32;
    // Stable scatter. Each warp ranks its own run of the tile (rounds of
    // 32 consecutive elements) against warp-private digit counters: within
    // a round, lanes with the same digit find each other with one ballot
    // per digit bit, and only the first of them reads and bumps the
    // counter. No block-wide barrier is needed until the tile is ranked;
    // then the per-warp counts give each warp's start within each digit.
    // (This needs three block barriers per tile instead of three per
    // round; what set the speed, though, was occupancy: see
    // `scatter_min_blocks`.) Each element then goes
    // to its place in the tile sorted by digit, staged in shared memory,
    // and the tile is written out in that order, so runs of one digit land
    // on consecutive addresses (coalesced stores).
    let run = rounds * 32;
    let lb = match scatter_min_blocks(spec) {
        0 => String::new(),
        m => format!("__launch_bounds__({t}, {m}) "),
    };
    let _ = writeln!(s, "extern \"C\" __global__ void {lb}cuprite_sort_scatter(const key_t* __restrict__ kin, key_t* __restrict__ kout, const val_t* __restrict__ vin, val_t* __restrict__ vout, const unsigned long long* __restrict__ excl, const unsigned long long* __restrict__ totals, long long total, long long n, int shift, int lane_pass) {{");
    let _ = writeln!(s, "  __shared__ unsigned long long gbase[256];");
    let _ = writeln!(s, "  __shared__ unsigned lstart[256];");
    let _ = writeln!(s, "  __shared__ unsigned wcnt[{w}][256];");
    let _ = writeln!(s, "  __shared__ key_t skey[{tile}];");
    if spec.carry {
        let _ = writeln!(s, "  __shared__ val_t sval[{tile}];");
    }
    let _ = writeln!(s, "  __shared__ unsigned char sdig[{tile}];");
    let _ = writeln!(
        s,
        "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;"
    );
    let _ = writeln!(
        s,
        "  const long long start = (long long)blockIdx.x * {tile};"
    );
    let _ = writeln!(
        s,
        "  const long long wstart = start + (long long)warp * {run};"
    );
    prefetch(&mut s, "kin", "vin", "wstart + r * 32 + lane");
    let _ = writeln!(s, "  for (int v = 0; v < {w}; ++v) wcnt[v][tid] = 0u;");
    let _ = writeln!(s, "  const unsigned long long dtotal = totals[tid];");
    let _ = writeln!(s, "  gbase[tid] = dtotal;");
    let _ = writeln!(s, "  __syncthreads();");
    let _ = writeln!(s, "  const unsigned below = (1u << lane) - 1u;");
    // digit | (its place among the warp's elements of that digit) << 8
    let _ = writeln!(s, "  unsigned dr[{rounds}];");
    let _ = writeln!(s, "  #pragma unroll");
    let _ = writeln!(s, "  for (int r = 0; r < {rounds}; ++r) {{");
    let _ = writeln!(s, "    const long long p = wstart + r * 32 + lane;");
    let _ = writeln!(s, "    const bool valid = p < total;");
    let _ = writeln!(
        s,
        "    const unsigned d = valid ? digit(kr[r], {vr}, n, shift, lane_pass) : 0u;"
    );
    let _ = writeln!(s, "    unsigned peers = __ballot_sync(0xffffffffu, valid);");
    let _ = writeln!(s, "    if (!valid) peers = ~peers;");
    let _ = writeln!(s, "    #pragma unroll");
    let _ = writeln!(s, "    for (int b = 0; b < 8; ++b) {{");
    let _ = writeln!(s, "      const unsigned bit = (d >> b) & 1u;");
    let _ = writeln!(
        s,
        "      const unsigned set = __ballot_sync(0xffffffffu, bit);"
    );
    let _ = writeln!(s, "      peers &= bit ? set : ~set;");
    let _ = writeln!(s, "    }}");
    let _ = writeln!(s, "    const int leader = __ffs(peers) - 1;");
    let _ = writeln!(s, "    unsigned before = 0u;");
    let _ = writeln!(
        s,
        "    if (valid && lane == leader) before = wcnt[warp][d];"
    );
    let _ = writeln!(s, "    before = __shfl_sync(0xffffffffu, before, leader);");
    let _ = writeln!(
        s,
        "    dr[r] = d | ((before + __popc(peers & below)) << 8);"
    );
    let _ = writeln!(
        s,
        "    if (valid && lane == leader) wcnt[warp][d] = before + __popc(peers);"
    );
    let _ = writeln!(s, "    __syncwarp();");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  __syncthreads();");
    // Per digit: each warp's start among the tile's elements of the digit,
    // and the tile's count of it.
    let _ = writeln!(s, "  unsigned count = 0u;");
    let _ = writeln!(
        s,
        "  for (int v = 0; v < {w}; ++v) {{ const unsigned c = wcnt[v][tid]; wcnt[v][tid] = count; count += c; }}"
    );
    // Where each digit starts in the output (a scan of the digits' totals)
    // and in this tile (a scan of the tile's counts), both exclusive.
    let _ = writeln!(s, "  lstart[tid] = count;");
    let _ = writeln!(s, "  __syncthreads();");
    let _ = writeln!(s, "  for (int off = 1; off < 256; off <<= 1) {{");
    let _ = writeln!(
        s,
        "    const unsigned add = tid >= off ? lstart[tid - off] : 0u;"
    );
    let _ = writeln!(
        s,
        "    const unsigned long long gadd = tid >= off ? gbase[tid - off] : 0ull;"
    );
    let _ = writeln!(s, "    __syncthreads();");
    let _ = writeln!(s, "    lstart[tid] += add;");
    let _ = writeln!(s, "    gbase[tid] += gadd;");
    let _ = writeln!(s, "    __syncthreads();");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  lstart[tid] -= count;");
    let _ = writeln!(
        s,
        "  gbase[tid] += excl[(long long)tid * gridDim.x + blockIdx.x] - dtotal;"
    );
    let _ = writeln!(s, "  __syncthreads();");
    let _ = writeln!(s, "  #pragma unroll");
    let _ = writeln!(s, "  for (int r = 0; r < {rounds}; ++r) {{");
    let _ = writeln!(s, "    if (wstart + r * 32 + lane < total) {{");
    let _ = writeln!(s, "      const unsigned d = dr[r] & 0xffu;");
    let _ = writeln!(
        s,
        "      const unsigned at = lstart[d] + wcnt[warp][d] + (dr[r] >> 8);"
    );
    let _ = writeln!(s, "      skey[at] = kr[r];");
    if spec.carry {
        let _ = writeln!(s, "      sval[at] = vr[r];");
    }
    let _ = writeln!(s, "      sdig[at] = (unsigned char)d;");
    let _ = writeln!(s, "    }}");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "  __syncthreads();");
    // The staged tile in digit order: element j of digit d is the
    // (j - lstart[d])-th of that digit in this tile.
    let _ = writeln!(s, "  const long long left = total - start;");
    let _ = writeln!(s, "  const int held = left < {tile} ? (int)left : {tile};");
    let _ = writeln!(s, "  for (int j = tid; j < held; j += {t}) {{");
    let _ = writeln!(s, "    const unsigned d = sdig[j];");
    let _ = writeln!(
        s,
        "    const unsigned long long pos = gbase[d] + (unsigned long long)(j - lstart[d]);"
    );
    let _ = writeln!(s, "    kout[pos] = skey[j];");
    if spec.carry {
        let _ = writeln!(s, "    vout[pos] = sval[j];");
    }
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");

    // Unpack: element p of the sorted lane-major order goes to its place
    // in the C-ordered output.
    for (fname, value, out_t) in [
        ("cuprite_sort_unpack", "keys[p]", "key_t"),
        (
            "cuprite_sort_unpack_arg",
            "(long long)((unsigned long long)vals[p] % (unsigned long long)n)",
            "long long",
        ),
    ] {
        if fname.ends_with("arg") && !spec.carry {
            continue;
        }
        let _ = writeln!(s, "extern \"C\" __global__ void {fname}(const key_t* __restrict__ keys, const val_t* __restrict__ vals, {out_t}* __restrict__ out, long long total, long long n, long long m) {{");
        let _ = writeln!(
            s,
            "  const long long stride = (long long)gridDim.x * blockDim.x;"
        );
        let _ = writeln!(s, "  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < total; p += stride) {{");
        let _ = writeln!(s, "    const long long lane = p / n, k = p - lane * n;");
        let _ = writeln!(s, "    const long long o = lane / m, i = lane - o * m;");
        let _ = writeln!(s, "    out[(o * n + k) * m + i] = {value};");
        let _ = writeln!(s, "  }}");
        let _ = writeln!(s, "}}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dt: DType, carry: bool) -> Spec {
        let mut g = Geo::new();
        let outer = g.dims(&[3], &[40]);
        let inner = g.dims(&[4, 2], &[-2, 1]);
        Spec {
            dt,
            vdt: DType::UInt32,
            carry,
            outer,
            inner,
            geo_len: g.len(),
        }
    }

    /// The transform written in Rust, to check the C spelling's intent:
    /// order-preserving, NaN last, -0.0 equal to +0.0.
    fn xform_f32(u: u32) -> u32 {
        if (u & 0x7fff_ffff) > 0x7f80_0000 {
            return u32::MAX;
        }
        let u = if u == 0x8000_0000 { 0 } else { u };
        if u & 0x8000_0000 != 0 {
            !u
        } else {
            u | 0x8000_0000
        }
    }

    #[test]
    fn float_keys_order_like_the_cpu_sort() {
        let vals = [
            f32::NEG_INFINITY,
            -3.5,
            -1e-40,
            -0.0,
            0.0,
            1e-40,
            2.0,
            f32::INFINITY,
        ];
        let keys: Vec<u32> = vals.iter().map(|v| xform_f32(v.to_bits())).collect();
        // -0.0 and 0.0 are one key; everything else strictly increases.
        assert_eq!(keys[3], keys[4]);
        for w in keys.windows(2) {
            assert!(w[0] <= w[1]);
        }
        assert!(keys[..3].windows(2).all(|w| w[0] < w[1]));
        // Every NaN (either sign, any payload) is one key above +inf.
        for nan in [0x7fc0_0000u32, 0xffc0_0001, 0x7f80_0001] {
            assert_eq!(xform_f32(nan), u32::MAX);
        }
        assert!(xform_f32(f32::INFINITY.to_bits()) < u32::MAX);
        let body = xform_body(DType::Float32);
        assert_eq!(
            body,
            "if ((u & (key_t)~(key_t)0x80000000u) > 0x7f800000u) return (key_t)~(key_t)0; if (u == (key_t)0x80000000u) u = 0; return (u & 0x80000000u) ? (key_t)~u : (key_t)(u | 0x80000000u);"
        );
        assert_eq!(xform_body(DType::Int16), "return (key_t)(u ^ 0x8000u);");
        assert_eq!(xform_body(DType::UInt64), "return u;");
        assert_eq!(xform_body(DType::Bool), "return u;");
    }

    #[test]
    fn the_scatter_keeps_four_blocks_where_its_registers_allow() {
        // float32 keys alone: 16 rounds of key + digit words.
        assert_eq!(scatter_min_blocks(&spec(DType::Float32, false)), 4);
        assert_eq!(scatter_min_blocks(&spec(DType::Int16, false)), 4);
        assert_eq!(scatter_min_blocks(&spec(DType::Float64, false)), 3);
        // float32 keys with 32-bit positions: 16 rounds of 3 words.
        assert_eq!(scatter_min_blocks(&spec(DType::Float32, true)), 3);
        let src = source(&spec(DType::Float32, false));
        assert!(src.contains("__global__ void __launch_bounds__(256, 4) cuprite_sort_scatter("));
    }

    #[test]
    fn lanes_need_their_bytes() {
        assert_eq!(bytes_for(0), 0);
        assert_eq!(bytes_for(1), 1);
        assert_eq!(bytes_for(255), 1);
        assert_eq!(bytes_for(256), 2);
        assert_eq!(bytes_for(65536), 3);
        assert_eq!(key_dtype(DType::BFloat16), DType::UInt16);
        assert_eq!(key_dtype(DType::Bool), DType::UInt8);
    }

    #[test]
    fn scatter_ranks_stably() {
        let src = source(&spec(DType::Float32, true));
        assert!(src.contains("unsigned peers = __ballot_sync(0xffffffffu, valid);"));
        assert!(src.contains("dr[r] = d | ((before + __popc(peers & below)) << 8);"));
        assert!(src.contains("const unsigned at = lstart[d] + wcnt[warp][d] + (dr[r] >> 8);"));
        assert!(src.contains("sval[at] = vr[r];"));
        assert!(src.contains("vout[pos] = sval[j];"));
        assert!(src.contains("hist[(long long)tid * gridDim.x + blockIdx.x] = cnt[tid];"));
        assert!(
            src.contains("gbase[tid] += excl[(long long)tid * gridDim.x + blockIdx.x] - dtotal;")
        );
        assert!(src.contains("cuprite_sort_digit_scan"));
        assert!(src.contains("if (p < total) { kr[r] = kin[p]; vr[r] = vin[p]; }"));
        assert!(src.contains("cuprite_sort_unpack_arg"));
        let keys_only = source(&spec(DType::Int8, false));
        assert!(!keys_only.contains("vout[pos]"));
        assert!(!keys_only.contains("sval"));
        assert!(!keys_only.contains("cuprite_sort_unpack_arg"));
        assert!(!keys_only.contains("vals[p] = (val_t)p;"));
    }

    #[test]
    fn the_staged_tile_fits_in_static_shared_memory() {
        for dt in DType::ALL {
            for carry in [false, true] {
                for vdt in [DType::UInt32, DType::UInt64] {
                    let sp = Spec {
                        vdt,
                        ..spec(dt, carry)
                    };
                    let per = key_dtype(dt).itemsize() + if carry { vdt.itemsize() } else { 0 } + 1;
                    let tile = THREADS * rounds(&sp);
                    // staged tile + gbase + lstart + per-warp counts
                    let total = tile * per + 256 * 8 + 256 * 4 + (THREADS / 32) * 256 * 4;
                    assert!(total <= 48 << 10, "{dt:?} carry={carry}: {total} bytes");
                }
            }
        }
        // float32 keys alone keep the largest tile.
        assert_eq!(rounds(&spec(DType::Float32, false)), 16);
    }

    #[test]
    fn every_dtype_generates_a_source() {
        for dt in DType::ALL {
            if dt.is_complex() {
                continue;
            }
            for carry in [false, true] {
                let src = source(&spec(dt, carry));
                super::super::helpers::dump_source(&format!("sort_{}_{carry}", dt.name()), &src);
            }
        }
    }
}

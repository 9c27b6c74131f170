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
//! One kernel counts every pass's digits in a single read of the keys;
//! then each pass is one kernel (a "one-sweep" pass): blocks take tiles
//! in order, rank them, find where each digit's run of the tile goes from
//! the digit's total before it (published by the earlier tiles and read
//! back through their status words: decoupled look-back), and scatter the
//! tile in digit order. argsort carries each element's position as the
//! value. A single contiguous lane sorted without positions is read in
//! place by the first pass instead of being packed first.
//!
//! Complex values sort in NumPy's order (non-NaN values lexicographically
//! by (real, imaginary), then `R+nanj`, then `nan+Rj`, then `nan+nanj`;
//! NaN parts equal) by three stable argsorts of real keys, least
//! significant first: the imaginary parts, the real parts in that order,
//! then the NaN class in that order (see [`sort_complex`]).

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::{CudaStorage, Storage};
use crate::core::view::{OwnedView, View};
use crate::cuda::kernel_gen::elementwise::MAX_DIMS;
use crate::cuda::kernel_gen::helpers::{
    grid_1d, kernel, key, memset, merged, ptr, unravel, Dims, Geo,
};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::{session, DeviceSession};
use crate::cuda::runtime::stream::current_stream;
use crate::ops::c_types::ctype;
use crate::ops::create::Create;
use crate::ops::sort::{SearchSorted, Sort, UniqueParts, UniqueWant};

/// Threads of the pass kernel's blocks: one per digit.
const THREADS: usize = 256;
/// Threads and elements a thread loads at once in the histogram kernel.
const HIST_THREADS: usize = 1024;
const HIST_UNROLL: usize = 8;
/// Flags of a tile's status word (bits 62..63): the tile's own count of a
/// digit, or the count of every tile up to it; bits 56..61 hold the pass's
/// epoch, bits 0..55 the count.
const STATUS_COUNT: &str = "0x4000000000000000ull";
const STATUS_PREFIX: &str = "0x8000000000000000ull";
const STATUS_EPOCH_MASK: &str = "0x3f00000000000000ull";
const STATUS_VALUE_MASK: &str = "0x00ffffffffffffffull";
/// The epoch field of pass `pass`'s status words (bits 56..61).
fn status_epoch(pass: usize) -> u64 {
    (pass as u64 + 1) << 56
}
/// Status words a look-back step reads at once. Measured on 16 M float32
/// keys (H200): 4 was fastest; 2, 8, 16 and 32 were slower (every step
/// reads all of its words, needed or not, and the walk is seldom long).
const LOOK_BACK_WORDS: usize = 4;

/// The one-sweep pass kernel, with `@NAME@` placeholders filled in by
/// `source`; lines marked `@CARRY@` are kept only when positions are
/// carried.
const ONESWEEP: &str = include_str!("kernels/sort_onesweep.cu");
/// The kernels of a sort around the pass: pack, every histogram, unpack.
const SORT: &str = include_str!("kernels/sort.cu");
/// The row gather of the complex sort.
const TAKE_ROWS: &str = include_str!("kernels/sort_take_rows.cu");
/// Shared memory for the tile staged by a pass (keys, carried values
/// and digits), kept with the kernel's other arrays under the 48 KB that
/// needs no opt-in.
const STAGE_BYTES: usize = 36 << 10;

/// Rounds of `THREADS` elements per block in a pass: as many as let the
/// pass stage a whole tile in shared memory, up to 24. Larger tiles mean
/// fewer tiles, so fewer look-back steps and per-tile scans per pass.
/// Measured on 16 M float32 keys (H200, three blocks per multiprocessor
/// unless said): 16 rounds (four blocks) 0.551-0.556 ms, 20 rounds 0.532-0.535,
/// 22 rounds 0.532-0.534, 24 rounds 0.530-0.535, 26 rounds 0.552-0.556,
/// 28 rounds 0.564; 24 rounds with four blocks 0.599 (registers spill), two
/// blocks 0.546, no cap 0.557.
fn rounds(spec: &Spec) -> usize {
    let per = key_dtype(spec.dt).itemsize() + if spec.carry { spec.vdt.itemsize() } else { 0 } + 1;
    [24, 16, 8, 4, 2, 1]
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

// The Sort family of the backend interface (`ops::backend`).
impl Sort for super::CudaBackend {
    fn sort(&self, op: &'static str, x: View<'_>, axis: usize, arg: bool) -> Result<Storage> {
        if x.dtype().is_complex() {
            return sort_complex(op, self, x, axis, arg);
        }
        sort(op, self.ordinal, x, axis, arg).map(Storage::Cuda)
    }

    fn searchsorted(&self, op: &'static str, s: SearchSorted<'_>) -> Result<()> {
        super::search::searchsorted(op, self, s)
    }

    fn unique(&self, op: &'static str, x: View<'_>, want: UniqueWant) -> Result<UniqueParts> {
        super::search::unique(op, self, x, want)
    }
}

/// A new device buffer of `len` elements of `dt` on `ordinal`.
fn buffer(op: &'static str, ordinal: usize, dt: DType, len: usize) -> Result<CudaStorage> {
    crate::cuda::runtime::transfer::alloc(op, ordinal, dt, len)
}

/// The sorted copy (`arg == false`) or the int64 indices that sort the
/// real (non-complex) `x` along `axis` (stable), as a new C-contiguous
/// buffer of `x`'s shape on cuda:`ord`.
pub(crate) fn sort(
    name: &'static str,
    ord: usize,
    x: View<'_>,
    axis: usize,
    arg: bool,
) -> Result<CudaStorage> {
    let dt = x.dtype();
    let s = session(ord)?;
    let shape = x.shape();
    let out_dt = if arg { DType::Int64 } else { dt };
    let total = x.size();
    if total == 0 {
        return buffer(name, ord, out_dt, 0);
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
    let bufs = Buffers::new(name, ord, &spec, total)?;
    let job = Job {
        name,
        ord,
        s,
        spec: &spec,
        x,
        total,
        n,
        lanes,
    };
    // A single contiguous lane sorted without positions needs no packing:
    // the first pass reads the input itself (keys are its bits).
    let direct = !carry && lanes == 1 && (n == 1 || x.strides()[axis] == 1);
    // The buffer the next pass reads: the input, or keys/vals[cur].
    let cur = if direct {
        None
    } else {
        job.pack(&bufs, &geo, m, x.strides()[axis])?;
        Some(0)
    };
    let cur = job.radix_passes(&bufs, cur)?;
    if !arg && m == 1 {
        // Lanes are already in the output's order: the sorted keys are the result.
        let [k0, k1] = bufs.keys;
        return Ok(if cur == 0 { k0 } else { k1 });
    }
    let out = buffer(name, ord, out_dt, total)?;
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
    args.push(bufs.kptr(cur));
    args.push(bufs.vptr(cur));
    args.push(out.buffer.ptr);
    args.push(total as i64);
    args.push(n as i64);
    args.push(m as i64);
    launch(s, name, fu, grid(s, total), &current_stream(), &mut args)?;
    Ok(out)
}

/// The double buffers of a radix sort: keys, and their positions when the
/// sort carries them.
struct Buffers {
    keys: [CudaStorage; 2],
    vals: Option<[CudaStorage; 2]>,
}

impl Buffers {
    fn new(name: &'static str, ord: usize, spec: &Spec, total: usize) -> Result<Buffers> {
        let kdt = key_dtype(spec.dt);
        let keys = [
            buffer(name, ord, kdt, total)?,
            buffer(name, ord, kdt, total)?,
        ];
        let vals = if spec.carry {
            Some([
                buffer(name, ord, spec.vdt, total)?,
                buffer(name, ord, spec.vdt, total)?,
            ])
        } else {
            None
        };
        Ok(Buffers { keys, vals })
    }

    fn kptr(&self, i: usize) -> u64 {
        self.keys[i].buffer.ptr
    }

    /// The positions of buffer `i` (0 when none are carried).
    fn vptr(&self, i: usize) -> u64 {
        self.vals.as_ref().map_or(0, |v| v[i].buffer.ptr)
    }
}

/// One sort's launch context.
struct Job<'a, 'v> {
    name: &'static str,
    ord: usize,
    s: &'a DeviceSession,
    spec: &'a Spec,
    x: View<'v>,
    total: usize,
    n: usize,
    lanes: usize,
}

impl Job<'_, '_> {
    /// Lane-major keys (and their positions) from any layout, into buffer 0.
    fn pack(&self, bufs: &Buffers, geo: &Geo, m: usize, axis_stride: isize) -> Result<()> {
        let (name, s, spec) = (self.name, self.s, self.spec);
        let f = kernel(
            s,
            key(("sort-pack", spec)),
            name,
            "cuprite_sort_pack",
            || source(spec),
        )?;
        let mut args = KernelArgs::new();
        args.push(ptr(name, self.x)?);
        args.push(bufs.kptr(0));
        args.push(bufs.vptr(0));
        args.push_bytes(&geo.bytes(), 8);
        args.push(self.total as i64);
        args.push(self.n as i64);
        args.push(m as i64);
        args.push(axis_stride as i64);
        launch(
            s,
            name,
            f,
            grid(s, self.total),
            &current_stream(),
            &mut args,
        )
    }

    /// Every radix pass (the key bytes, then the lane number's): one
    /// histogram of all passes, then one one-sweep pass each. Returns the
    /// buffer holding the sorted keys.
    fn radix_passes(&self, bufs: &Buffers, mut cur: Option<usize>) -> Result<usize> {
        let (name, s, spec, total, n) = (self.name, self.s, self.spec, self.total, self.n);
        let key_passes = spec.dt.itemsize();
        let lane_passes = if self.lanes > 1 {
            bytes_for(self.lanes - 1)
        } else {
            0
        };
        let passes = key_passes + lane_passes;
        let tiles = total.div_ceil(THREADS * rounds(spec));
        let fh = kernel(
            s,
            key(("sort-hist-all", spec)),
            name,
            "cuprite_sort_hist_all",
            || source(spec),
        )?;
        let fs = kernel(
            s,
            key(("sort-onesweep", spec)),
            name,
            "cuprite_sort_onesweep",
            || source(spec),
        )?;
        // Scratch, zeroed once: every pass's digit totals, a tile counter per
        // pass, and the tiles' status words (reused by every pass).
        let words = passes * 256 + passes + tiles * 256;
        let scratch = buffer(name, self.ord, DType::UInt64, words)?;
        let hist = scratch.buffer.ptr;
        let counters = hist + (passes * 256 * 8) as u64;
        let status = counters + (passes * 8) as u64;
        memset(s, name, hist, 0, words * 8)?;
        let mut args = KernelArgs::new();
        args.push(match cur {
            Some(c) => bufs.kptr(c),
            None => ptr(name, self.x)?,
        });
        args.push(hist);
        args.push(total as i64);
        args.push(n as i64);
        args.push(lane_passes as i32);
        let cfg = LaunchConfig {
            grid: (hist_blocks(s, total), 1, 1),
            block: (HIST_THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        launch(s, name, fh, cfg, &current_stream(), &mut args)?;
        for pass in 0..passes {
            let (lane_pass, shift) = if pass < key_passes {
                (0i32, (8 * pass) as i32)
            } else {
                (1i32, (8 * (pass - key_passes)) as i32)
            };
            let (kin, vin) = match cur {
                Some(c) => (bufs.kptr(c), bufs.vptr(c)),
                None => (ptr(name, self.x)?, 0),
            };
            let next = cur.map_or(0, |c| 1 - c);
            let mut args = KernelArgs::new();
            args.push(kin);
            args.push(bufs.kptr(next));
            args.push(vin);
            args.push(bufs.vptr(next));
            args.push(hist + (pass * 256 * 8) as u64);
            args.push(status);
            args.push(counters + (pass * 8) as u64);
            args.push(total as i64);
            args.push(n as i64);
            args.push(shift);
            args.push(lane_pass);
            args.push(status_epoch(pass));
            launch(s, name, fs, blocks_cfg(tiles), &current_stream(), &mut args)?;
            cur = Some(next);
        }
        Ok(cur.expect("every dtype has at least one key pass"))
    }
}

/// Sorts complex `x` along `axis` (values, or int64 indices when `arg`):
/// the lanes are made the rows of a C-contiguous (lanes, n) copy, whose
/// real and imaginary parts are strided real views; three stable argsorts
/// of real keys (imaginary parts; real parts gathered in that order; the
/// NaN class, `2 * isnan(re) + isnan(im)`, gathered in the order so far)
/// compose into the permutation that sorts by (class, re, im), the CPU
/// backend's order. NaN parts have one key, as do -0.0 and +0.0, so equal
/// values keep their input order (stable, as on the CPU).
fn sort_complex(
    name: &'static str,
    b: &super::CudaBackend,
    x: View<'_>,
    axis: usize,
    arg: bool,
) -> Result<Storage> {
    let ord = b.ordinal;
    let s = session(ord)?;
    let (dt, total) = (x.dtype(), x.size());
    let out_dt = if arg { DType::Int64 } else { dt };
    if total == 0 {
        return b.empty(name, out_dt, 0);
    }
    // The lanes as the rows of a C-contiguous (lanes, n) buffer.
    let nd = x.ndim();
    let mut perm: Vec<usize> = (0..nd).filter(|&i| i != axis).collect();
    perm.push(axis);
    let moved = x.layout.permuted(&perm);
    let xt_copy = contiguous(name, b, View::new(x.storage, &moved, dt))?;
    let (xs, off) = match &xt_copy {
        Some(c) => (&c.storage, c.layout.offset()),
        None => (x.storage, moved.offset()),
    };
    let n = x.shape()[axis];
    let lanes = total / n;
    let rows = [lanes, n];
    let part_layouts =
        [0, 1].map(|im| Layout::from_parts(rows.to_vec(), vec![2 * n as isize, 2], 2 * off + im));
    let part = |im: usize| View::new(xs, &part_layouts[im], dt.real_dtype());
    let argsort = |keys: View<'_>| -> Result<OwnedView> {
        let o = sort(name, ord, keys, 1, true)?;
        Ok(OwnedView::contiguous(Storage::Cuda(o), &rows, DType::Int64))
    };
    let take = |src: View<'_>, idx: &OwnedView, what: Take| -> Result<OwnedView> {
        take_rows(name, s, src, idx.view(), what, n)
    };
    let xt2_layout = Layout::from_parts(rows.to_vec(), vec![n as isize, 1], off);
    let xt2 = View::new(xs, &xt2_layout, dt);
    let perm_ = argsort(part(1))?;
    let by_re = argsort(take(xt2, &perm_, Take::Real)?.view())?;
    let perm_ = take(perm_.view(), &by_re, Take::Same)?;
    let by_class = argsort(take(xt2, &perm_, Take::NanClass)?.view())?;
    let perm_ = take(perm_.view(), &by_class, Take::Same)?;
    let out = if arg {
        perm_
    } else {
        take(xt2, &perm_, Take::Same)?
    };
    // Back from (lanes, n) to x's axes: the inverse of `perm`.
    let moved_shape: Vec<usize> = perm.iter().map(|&p| x.shape()[p]).collect();
    let mut inverse = vec![0; nd];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    let back = Layout::contiguous(&moved_shape).permuted(&inverse);
    let copied = contiguous(name, b, View::new(&out.storage, &back, out.dtype))?;
    Ok(copied.map_or(out.storage, |c| c.storage))
}

/// A C-contiguous copy of `v`, or `None` when `v` already is C-contiguous.
pub(crate) fn contiguous(
    name: &'static str,
    b: &super::CudaBackend,
    v: View<'_>,
) -> Result<Option<OwnedView>> {
    if v.is_c_contiguous() {
        return Ok(None);
    }
    copy(name, b, v).map(Some)
}

/// A new C-contiguous copy of `v`.
pub(crate) fn copy(name: &'static str, b: &super::CudaBackend, v: View<'_>) -> Result<OwnedView> {
    let out = OwnedView::contiguous(b.empty(name, v.dtype(), v.size())?, v.shape(), v.dtype());
    b.copy_cast(name, v, out.view())?;
    Ok(out)
}

/// What [`take_rows`] keeps of each gathered element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Take {
    /// The element itself.
    Same,
    /// The real part of a complex element.
    Real,
    /// `2 * isnan(re) + isnan(im)` of a complex element, as uint8.
    NanClass,
}

/// `out[l, j] = what(src[l, idx[l, j]])` over C-contiguous (lanes, n) rows;
/// `idx` holds int64 positions within each row.
fn take_rows(
    op: &'static str,
    s: &DeviceSession,
    src: View<'_>,
    idx: View<'_>,
    what: Take,
    n: usize,
) -> Result<OwnedView> {
    let out_dt = match what {
        Take::Same => src.dtype(),
        Take::Real => src.dtype().real_dtype(),
        Take::NanClass => DType::UInt8,
    };
    let total = idx.size();
    let out = OwnedView::contiguous(
        Storage::Cuda(buffer(op, s.info.ordinal, out_dt, total)?),
        idx.shape(),
        out_dt,
    );
    let f = kernel(
        s,
        key(("sort-take-rows", src.dtype(), what)),
        op,
        "cuprite_sort_take_rows",
        || take_rows_source(src.dtype(), what),
    )?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, src)?);
    args.push(ptr(op, idx)?);
    args.push(ptr(op, out.view())?);
    args.push(total as i64);
    args.push(n as i64);
    launch(s, op, f, grid(s, total), &current_stream(), &mut args)?;
    Ok(out)
}

fn take_rows_source(dt: DType, what: Take) -> String {
    let (out_dt, value) = match what {
        Take::Same => (dt, "v"),
        Take::Real => (dt.real_dtype(), "v.re"),
        // x != x: NaN, without relying on a library isnan.
        Take::NanClass => (
            DType::UInt8,
            "(uint8_t)((v.re != v.re ? 2 : 0) | (v.im != v.im ? 1 : 0))",
        ),
    };
    let kernel = render(
        TAKE_ROWS,
        &[
            ("SRC_T", ctype(dt)),
            ("OUT_T", ctype(out_dt)),
            ("VALUE", value),
        ],
        &[],
    );
    format!("{PRELUDE}{kernel}")
}

fn grid(s: &DeviceSession, n: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (grid_1d(s, n, THREADS), 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Blocks of the histogram kernel: two per multiprocessor, fewer for
/// small inputs.
fn hist_blocks(s: &DeviceSession, total: usize) -> u32 {
    let needed = total.div_ceil(HIST_THREADS * HIST_UNROLL).max(1);
    needed.min(2 * s.info.sm_count.max(1)) as u32
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
        // Unsigned bits already sort in order; complex values sort as
        // argsorts of real keys (`sort_complex`) and never reach here.
        DType::Bool
        | DType::UInt8
        | DType::UInt16
        | DType::UInt32
        | DType::UInt64
        | DType::Complex64
        | DType::Complex128 => return "return u;".into(),
    };
    match inf {
        None => format!("return (key_t)(u ^ {sign});"),
        Some(inf) => format!(
            "if ((u & (key_t)~(key_t){sign}) > {inf}) return (key_t)~(key_t)0; if (u == (key_t){sign}) u = 0; return (u & {sign}) ? (key_t)~u : (key_t)(u | {sign});",
        ),
    }
}

/// Blocks per multiprocessor a pass's register use must allow
/// (`__launch_bounds__`), 0 for no bound. Occupancy sets its speed: left
/// alone, the compiler spent 99 registers a thread on 16 M float32 keys,
/// two blocks fitted, and a pass took 205 us; capped at 64 registers (four
/// blocks) it took 118 us. Measured on the one-sweep pass (16 M float32
/// keys, H200): 64 registers with a few spilled words and 80 without
/// spills (three blocks) ran the same; 512-thread blocks of 8 rounds
/// (three blocks, 40 registers) were 12% slower. The cap is chosen from the
/// registers the tile's elements keep (key, carried value, digit and rank);
/// 24-round float32 tiles get three blocks (see [`rounds`]).
fn pass_min_blocks(spec: &Spec) -> u32 {
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
    let kp = key_dtype(spec.dt).itemsize();
    let (ht, hu) = (HIST_THREADS, HIST_UNROLL);
    // One pass: each block takes the next tile (a counter hands them out in
    // launch order, so every earlier tile is running or done), ranks it,
    // learns where each digit's run of it starts from the tiles before it
    // (decoupled look-back over per-tile, per-digit status words), and
    // writes it out. The status word of (tile, digit): flag << 62 | epoch
    // << 56 | count, flag 1 = this tile's count, 2 = the count of every tile
    // up to this one; the epoch (pass + 1) tells this pass's words from the
    // last one's, so the words are zeroed once per sort.
    //
    // Ranking: each warp ranks its own run of the tile (rounds of 32
    // consecutive elements) against warp-private digit counters. Lanes of
    // one digit find each other by setting their bit in the digit's word
    // of a warp-private mask array (shared atomics); a warp whose lanes all
    // hold one digit skips that. The lowest lane of each digit reads and
    // bumps its counter. Each element then goes to its place in the tile
    // sorted by digit, staged in shared memory; the look-back comes after
    // that, so the tiles before have had time to publish their totals. The
    // tile is written out in digit order, so runs of one digit land on
    // consecutive addresses.
    let w = t / 32;
    let kb = key_dtype(spec.dt).itemsize();
    let vb = if spec.carry { spec.vdt.itemsize() } else { 0 };
    let bounds = match pass_min_blocks(spec) {
        0 => String::new(),
        m => format!("__launch_bounds__({t}, {m}) "),
    };
    let carry: &[&str] = if spec.carry { &["CARRY"] } else { &[] };
    let onesweep = render(
        ONESWEEP,
        &[
            ("BOUNDS", &bounds),
            ("WARPS", &w.to_string()),
            (
                "STAGE",
                &(tile * (kb + vb + 1)).max(w * 256 * 4).to_string(),
            ),
            ("SVAL_AT", &(tile * kb).to_string()),
            ("SDIG_AT", &(tile * (kb + vb)).to_string()),
            ("TILE", &tile.to_string()),
            ("RUN", &(rounds * 32).to_string()),
            ("ROUNDS", &rounds.to_string()),
            ("THREADS", &t.to_string()),
            ("LOOK", &LOOK_BACK_WORDS.to_string()),
            ("VR", if spec.carry { "vr[r]" } else { "(val_t)0" }),
            ("PREFIX", STATUS_PREFIX),
            ("COUNT", STATUS_COUNT),
            ("EPOCH_MASK", STATUS_EPOCH_MASK),
            ("VALUE_MASK", STATUS_VALUE_MASK),
        ],
        carry,
    );
    let kernels = render(
        SORT,
        &[
            ("KEY_T", ctype(key_dtype(spec.dt))),
            ("VAL_T", ctype(spec.vdt)),
            ("GEO", &Geo::decl(spec.geo_len)),
            ("XFORM", &xform_body(spec.dt)),
            ("UNRAVEL_O", &unravel("o", "off", spec.outer)),
            ("UNRAVEL_I", &unravel("i", "off", spec.inner)),
            ("HT", &ht.to_string()),
            ("HU", &hu.to_string()),
            ("HT_HU", &(ht * hu).to_string()),
            ("KP", &kp.to_string()),
            // Lane passes are counted only where positions are carried.
            (
                "MAX_PASSES",
                &(kp + if spec.carry { 8 } else { 0 }).to_string(),
            ),
            ("ONESWEEP", &onesweep),
        ],
        carry,
    );
    format!("{PRELUDE}{kernels}")
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
    fn the_pass_keeps_the_blocks_its_registers_allow() {
        // float32 keys alone: 24 rounds of key + digit words.
        assert_eq!(pass_min_blocks(&spec(DType::Float32, false)), 3);
        assert_eq!(pass_min_blocks(&spec(DType::Int16, false)), 3);
        // float64 keys: 16 rounds of 3 words.
        assert_eq!(pass_min_blocks(&spec(DType::Float64, false)), 3);
        // float32 keys with 32-bit positions: 16 rounds of 3 words.
        assert_eq!(pass_min_blocks(&spec(DType::Float32, true)), 3);
        // Tiles of 8 rounds with 64-bit positions: 8 x 4 words.
        let small = Spec {
            vdt: DType::UInt64,
            ..spec(DType::Float32, true)
        };
        assert_eq!(rounds(&small), 8);
        assert_eq!(pass_min_blocks(&small), 4);
        let src = source(&spec(DType::Float32, false));
        assert!(src.contains("__global__ void __launch_bounds__(256, 3) cuprite_sort_onesweep("));
    }

    #[test]
    fn complex_rows_gather_parts_and_nan_classes() {
        for dt in [DType::Complex64, DType::Complex128] {
            let re = take_rows_source(dt, Take::Real);
            assert!(re.contains(&format!("typedef {} out_t;", ctype(dt.real_dtype()))));
            assert!(re.contains("out[q] = v.re;"));
            let class = take_rows_source(dt, Take::NanClass);
            assert!(class.contains("(v.re != v.re ? 2 : 0) | (v.im != v.im ? 1 : 0)"));
            let same = take_rows_source(dt, Take::Same);
            assert!(same.contains("const src_t v = src[row * n + idx[q]];"));
            for (what, src) in [("re", re), ("class", class), ("same", same)] {
                assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
                crate::cuda::kernel_gen::helpers::dump_source(
                    &format!("sort_take_{}_{what}", dt.name()),
                    &src,
                );
            }
        }
        // Permutations compose through int64 rows.
        let perm = take_rows_source(DType::Int64, Take::Same);
        assert!(perm.contains("typedef int64_t out_t;"));
        crate::cuda::kernel_gen::helpers::dump_source("sort_take_int64", &perm);
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
        // Lanes of one digit find each other through the warp's mask word.
        assert!(src.contains("atomicOr(&wmask[warp][d], bit);"));
        assert!(src.contains("dr[r] = d | ((before + __popc(peers & below)) << 8);"));
        // Missing elements of the last tile rank after every real one.
        assert!(src.contains("if (r * 32 + lane >= wleft) d = 255u;"));
        assert!(src.contains("const unsigned at = wcnt[warp][d] + (dr[r] >> 8);"));
        assert!(src.contains("sval[at] = vr[r];"));
        assert!(src.contains("vout[pos] = sval[j];"));
        // Tiles publish their counts, then their running totals.
        assert!(src.contains(&format!(
            "store_status(mine, (tile == 0 ? {STATUS_PREFIX} : {STATUS_COUNT}) | epoch | count);"
        )));
        assert!(src.contains(&format!(
            "store_status(mine, {STATUS_PREFIX} | epoch | (before_tile + count));"
        )));
        assert!(src.contains(&format!("unsigned long long w[{LOOK_BACK_WORDS}];")));
        assert!(src.contains("cuprite_sort_unpack_arg"));
        // Lane digits are counted from positions when positions are carried.
        assert!(src.contains("lane_no >> (8 * b)"));
        assert!(!src.contains('@'), "every placeholder is filled in");
        let keys_only = source(&spec(DType::Int8, false));
        assert!(!keys_only.contains("vout[pos]"));
        assert!(!keys_only.contains("sval"));
        assert!(!keys_only.contains("lane_no"));
        assert!(!keys_only.contains("cuprite_sort_unpack_arg"));
        assert!(!keys_only.contains("vals[p] = (val_t)p;"));
        assert!(!keys_only.contains('@'));
    }

    #[test]
    fn status_words_hold_flag_epoch_and_count_apart() {
        let parse = |x: &str| u64::from_str_radix(&x[2..x.len() - 3], 16).unwrap();
        let (count, prefix) = (parse(STATUS_COUNT), parse(STATUS_PREFIX));
        let (epoch, value) = (parse(STATUS_EPOCH_MASK), parse(STATUS_VALUE_MASK));
        assert_eq!((count >> 62, prefix >> 62), (1, 2));
        assert_eq!(count | prefix | epoch | value, u64::MAX);
        assert_eq!((count | prefix) & (epoch | value), 0);
        assert_eq!(epoch & value, 0);
        // Every pass's epoch fits for the most passes a sort takes: 8 key
        // bytes and 8 lane bytes.
        for pass in 0..16 {
            assert_eq!(status_epoch(pass) & !epoch, 0);
            assert_ne!(status_epoch(pass), 0);
        }
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
                    // staged tile (or the match masks) + gbase + per-warp
                    // counts + warp sums + the tile number
                    let warps = THREADS / 32;
                    let masks = warps * 256 * 4;
                    let total = (tile * per).max(masks) + 256 * 8 + masks + warps * 12 + 8;
                    assert!(total <= 48 << 10, "{dt:?} carry={carry}: {total} bytes");
                }
            }
        }
        // float32 keys alone keep the largest tile.
        assert_eq!(rounds(&spec(DType::Float32, false)), 24);
    }

    #[test]
    fn every_dtype_generates_a_source() {
        for dt in DType::ALL {
            if dt.is_complex() {
                continue;
            }
            for carry in [false, true] {
                let src = source(&spec(dt, carry));
                crate::cuda::kernel_gen::helpers::dump_source(
                    &format!("sort_{}_{carry}", dt.name()),
                    &src,
                );
            }
        }
    }
}

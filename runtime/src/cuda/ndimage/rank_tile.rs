//! Rank filters over small windows of inputs of up to 3 dimensions
//! (`kernels/ndimage_rank_tile.cu`), and the binary erosion and dilation
//! steps, which are the minimum and maximum of a 0/1 window.
//!
//! The general rank kernel (`cuprite_nd_rank`) reads every tap from global
//! memory with its own index arithmetic and selects by counting (n^2
//! comparisons for n taps). Here a block loads its tile of outputs plus the
//! window's halo into shared memory once, with the boundary mode applied
//! while loading, and each thread reads its taps at offsets fixed in the
//! generated source. The selection is a straight-line network, also
//! generated ([`network`]): a forgetful selection that keeps in registers
//! only the values that can still be the answer, dropping the smallest
//! and largest when they are known to be outside it. The median of 25
//! takes 132 compare-exchanges (two integer min/max each) instead of the
//! counting's 1,250 comparisons. Values are compared as integer keys whose
//! order is Rust's `total_cmp` for floats (as the CPU backend sorts), so a
//! NaN is kept as a value and -0.0 sorts below 0.0.

use super::{source, THREADS};
use crate::core::dtype::DType;

const TEMPLATE: &str = include_str!("../kernels/ndimage_rank_tile.cu");

/// The most values a network keeps live: more would spill registers.
const MAX_LIVE: usize = 48;
/// The longest network generated (compare-exchanges), for compile time.
const MAX_STEPS: usize = 8192;
/// The shared tile's size limit (bytes), below the 48 KiB of static shared memory.
const MAX_TILE_BYTES: usize = 32 * 1024;

/// One step of a selection network over registers `v0, v1, ...` (one per tap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// `v{t}` takes tap `t`'s value.
    Load(usize),
    /// `Cas(a, b)`: `v{a}` takes the smaller of the two, `v{b}` the larger.
    Cas(usize, usize),
}

/// A selection network: after its steps, `v{result}` holds the window's
/// `rank`-th smallest value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Network {
    pub steps: Vec<Step>,
    pub result: usize,
    /// The most values live at once (registers the kernel needs).
    pub live_max: usize,
}

/// Moves the smallest of `slots` into `slots[0]` (compare-exchanges in order).
fn min_to_front(slots: &[usize], steps: &mut Vec<Step>) -> usize {
    for &s in &slots[1..] {
        steps.push(Step::Cas(slots[0], s));
    }
    slots[0]
}

/// Moves the largest of `slots` into `slots[0]`.
fn max_to_front(slots: &[usize], steps: &mut Vec<Step>) -> usize {
    for &s in &slots[1..] {
        steps.push(Step::Cas(s, slots[0]));
    }
    slots[0]
}

/// The slots holding the smallest and the largest of `live` (at least two):
/// pairs ordered first, the minimum taken over their smaller halves and the
/// maximum over their larger ones (3n/2 compare-exchanges, not 2n).
fn min_and_max(live: &[usize], steps: &mut Vec<Step>) -> (usize, usize) {
    let pairs = live.len() / 2;
    for p in 0..pairs {
        steps.push(Step::Cas(live[2 * p], live[2 * p + 1]));
    }
    let lows: Vec<usize> = (0..pairs).map(|p| live[2 * p]).collect();
    let mut highs: Vec<usize> = (0..pairs).map(|p| live[2 * p + 1]).collect();
    let lo = min_to_front(&lows, steps);
    if live.len() % 2 == 1 {
        // The unpaired value meets the minimum first: whichever of the two
        // stays in its slot is then at least every other low, so the
        // maximum is among the highs and that slot.
        let odd = live[live.len() - 1];
        steps.push(Step::Cas(lo, odd));
        highs.push(odd);
    }
    (lo, max_to_front(&highs, steps))
}

/// The network selecting the `rank`-th smallest of `n` values (`rank < n`).
///
/// Forgetful selection: values are loaded one at a time; with `s` held,
/// `m` not yet dropped and the answer `rr`-th among those `m`, the held
/// minimum is at most the `(m - s)`-th, so below the answer when
/// `m - s < rr`, and the held maximum at least the `(s - 1)`-th, so above
/// it when `s - 1 > rr`. Such a value is dropped (and `rr` follows); a
/// value is loaded only when none can be.
pub(crate) fn network(n: usize, rank: usize) -> Network {
    assert!(rank < n, "rank {rank} of a window of {n}");
    let mut steps = Vec::new();
    let mut live: Vec<usize> = Vec::new();
    let (mut next, mut below, mut above, mut live_max) = (0usize, 0usize, 0usize, 0usize);
    loop {
        let m = n - below - above;
        let rr = rank - below;
        let s = live.len();
        if next == n && s == 1 {
            break;
        }
        let drop_min = s >= 2 && m < rr + s;
        let drop_max = s >= 2 && s > rr + 1;
        if next < n && !(drop_min || drop_max) {
            steps.push(Step::Load(next));
            live.push(next);
            next += 1;
            live_max = live_max.max(live.len());
            continue;
        }
        // With every value loaded (m == s, s >= 2) one of the two holds.
        let (lo, hi) = match (drop_min, drop_max) {
            (true, true) => {
                let (lo, hi) = min_and_max(&live, &mut steps);
                (Some(lo), Some(hi))
            }
            (true, false) => (Some(min_to_front(&live, &mut steps)), None),
            _ => (None, Some(max_to_front(&live, &mut steps))),
        };
        live.retain(|&v| Some(v) != lo && Some(v) != hi);
        below += usize::from(lo.is_some());
        above += usize::from(hi.is_some());
    }
    Network {
        steps,
        result: live[0],
        live_max,
    }
}

/// The integer key type a dtype's values are compared as, and the C bodies
/// of `K nd_key(T v)` and `T nd_value(K k)`; `None` for a dtype the tiled
/// kernel does not take (half floats and complex: the general kernel does).
fn key_of(dt: DType) -> Option<(&'static str, &'static str, &'static str)> {
    // A float's bits with the magnitude flipped when negative: the signed
    // integer order is then `total_cmp`'s, and the map is its own inverse.
    const F32: (&str, &str, &str) = (
        "int",
        "const int b = __float_as_int(v); return b ^ ((b >> 31) & 0x7fffffff);",
        "return __int_as_float(k ^ ((k >> 31) & 0x7fffffff));",
    );
    const F64: (&str, &str, &str) = (
        "long long",
        "const long long b = __double_as_longlong(v); return b ^ ((b >> 63) & 0x7fffffffffffffffLL);",
        "return __longlong_as_double(k ^ ((k >> 63) & 0x7fffffffffffffffLL));",
    );
    let plain = |k: &'static str| Some((k, "return (K)v;", "return (T)k;"));
    match dt {
        DType::Float32 => Some(F32),
        DType::Float64 => Some(F64),
        DType::Bool | DType::Int8 | DType::Int16 | DType::Int32 | DType::UInt8 | DType::UInt16 => {
            plain("int")
        }
        DType::UInt32 => plain("unsigned int"),
        DType::Int64 => plain("long long"),
        DType::UInt64 => plain("unsigned long long"),
        DType::Float16 | DType::BFloat16 | DType::Complex64 | DType::Complex128 => None,
    }
}

/// Bytes of a key of the type `key_of` names.
fn key_bytes(k: &str) -> usize {
    if k.contains("long") {
        8
    } else {
        4
    }
}

/// How a window over an input of up to 3 dimensions is tiled: the input
/// as `(n0, n1, n2)` (leading extents of 1), a block of `bx * by` outputs
/// of one plane, and the window's bounding box `lo .. lo + span` per axis.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Tiling {
    pub dims: [usize; 3],
    pub bx: usize,
    pub by: usize,
    pub lo: [i64; 3],
    pub span: [usize; 3],
    /// Each tap's offset from `lo`, per axis.
    pub taps: Vec<[usize; 3]>,
}

impl Tiling {
    /// The tiling of `taps` taps at `offsets` (`ndim` each) over `shape`,
    /// or `None` when the input has more than 3 dimensions or the tile
    /// with its halo would not fit in shared memory as `key_size`-byte keys.
    pub(crate) fn new(
        shape: &[usize],
        offsets: &[i64],
        taps: usize,
        key_size: usize,
    ) -> Option<Tiling> {
        let nd = shape.len();
        if nd > 3 || taps == 0 || offsets.len() != taps * nd {
            return None;
        }
        let pad = 3 - nd;
        let mut dims = [1usize; 3];
        dims[pad..].copy_from_slice(shape);
        let full: Vec<[i64; 3]> = (0..taps)
            .map(|t| {
                let mut o = [0i64; 3];
                o[pad..].copy_from_slice(&offsets[t * nd..(t + 1) * nd]);
                o
            })
            .collect();
        let mut lo = [0i64; 3];
        let mut span = [0usize; 3];
        for d in 0..3 {
            let min = full.iter().map(|o| o[d]).min()?;
            let max = full.iter().map(|o| o[d]).max()?;
            lo[d] = min;
            span[d] = usize::try_from(max.checked_sub(min)?).ok()?;
        }
        // A line gets a block along it; planes get 32 x 8.
        let (bx, by) = if dims[1] == 1 && span[1] == 0 {
            (THREADS, 1)
        } else {
            (32, THREADS / 32)
        };
        let cells = (bx.checked_add(span[2])?)
            .checked_mul(by.checked_add(span[1])?)?
            .checked_mul(span[0].checked_add(1)?)?;
        if cells.checked_mul(key_size)? > MAX_TILE_BYTES {
            return None;
        }
        let taps = full
            .iter()
            .map(|o| {
                let mut r = [0usize; 3];
                for d in 0..3 {
                    r[d] = (o[d] - lo[d]) as usize;
                }
                r
            })
            .collect();
        Some(Tiling {
            dims,
            bx,
            by,
            lo,
            span,
            taps,
        })
    }

    /// Blocks along axes 1 and 2, and in all.
    pub(crate) fn blocks(&self) -> (usize, usize, usize) {
        let b1 = self.dims[1].div_ceil(self.by);
        let b2 = self.dims[2].div_ceil(self.bx);
        (b1, b2, self.dims[0] * b1 * b2)
    }
}

/// A tiled rank kernel's source, when `dt`, the window and `rank` suit it:
/// dtype `dt`, `binary` for the 0/1 erosion or dilation step (mask and
/// change flags; see the template).
pub(crate) struct TiledRank {
    pub tiling: Tiling,
    pub dt: DType,
    pub rank: usize,
    pub binary: bool,
}

impl TiledRank {
    /// The plan for the `rank`-th smallest over `taps` taps at `offsets` of
    /// a C-contiguous `shape` input of `dt`, or `None` where it does not
    /// apply (then the general kernel runs).
    pub(crate) fn plan(
        shape: &[usize],
        offsets: &[i64],
        taps: usize,
        rank: usize,
        dt: DType,
        binary: bool,
    ) -> Option<TiledRank> {
        let (k, _, _) = key_of(dt)?;
        // A network holds about this many values (checked exactly below,
        // once the cheap tests pass).
        if rank >= taps || rank.min(taps - 1 - rank) + 2 > MAX_LIVE {
            return None;
        }
        let tiling = Tiling::new(shape, offsets, taps, key_bytes(k))?;
        let net = network(taps, rank);
        if net.live_max > MAX_LIVE || net.steps.len() > MAX_STEPS {
            return None;
        }
        Some(TiledRank {
            tiling,
            dt,
            rank,
            binary,
        })
    }

    /// A key of everything the source depends on.
    pub(crate) fn key(&self) -> u64 {
        crate::cuda::kernel_gen::helpers::key((
            "nd_rank_tile",
            self.dt,
            self.rank,
            self.binary,
            &self.tiling.bx,
            &self.tiling.by,
            &self.tiling.lo,
            &self.tiling.span,
            &self.tiling.taps,
        ))
    }

    /// The kernel source.
    pub(crate) fn source(&self) -> String {
        let t = &self.tiling;
        let (k, to_key, from_key) = key_of(self.dt).expect("a planned dtype has a key");
        let net = network(t.taps.len(), self.rank);
        let tw = t.bx + t.span[2];
        let th = t.by + t.span[1];
        let mut body = String::new();
        for step in &net.steps {
            match *step {
                Step::Load(i) => {
                    let [z, y, x] = t.taps[i];
                    let at = (z * th + y) * tw + x;
                    body.push_str(&format!("        K v{i} = w[{at}];\n"));
                }
                Step::Cas(a, b) => body.push_str(&format!("        ND_CAS(v{a}, v{b});\n")),
            }
        }
        source(
            TEMPLATE,
            &[
                ("T", crate::ops::c_types::ctype(self.dt).to_string()),
                ("K", k.to_string()),
                ("TO_KEY", to_key.to_string()),
                ("FROM_KEY", from_key.to_string()),
                ("BX", t.bx.to_string()),
                ("BY", t.by.to_string()),
                ("SPAN0", t.span[0].to_string()),
                ("SPAN1", t.span[1].to_string()),
                ("SPAN2", t.span[2].to_string()),
                ("LO0", t.lo[0].to_string()),
                ("LO1", t.lo[1].to_string()),
                ("LO2", t.lo[2].to_string()),
                ("BINARY", u8::from(self.binary).to_string()),
                ("NETWORK", body),
                ("RESULT", format!("v{}", net.result)),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `net` on `vals` as the kernel does.
    fn run(net: &Network, vals: &[i64]) -> i64 {
        let mut v = vec![None; vals.len()];
        for s in &net.steps {
            match *s {
                Step::Load(t) => v[t] = Some(vals[t]),
                Step::Cas(a, b) => {
                    let (x, y) = (v[a].expect("loaded"), v[b].expect("loaded"));
                    v[a] = Some(x.min(y));
                    v[b] = Some(x.max(y));
                }
            }
        }
        v[net.result].expect("loaded")
    }

    #[test]
    fn networks_select_every_rank() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m) as i64
        };
        for n in 1..=40usize {
            for rank in 0..n {
                let net = network(n, rank);
                for trial in 0..60 {
                    // Few distinct values make ties; many make a permutation.
                    let range = if trial % 2 == 0 { 3 } else { 1000 };
                    let vals: Vec<i64> = (0..n).map(|_| rnd(range)).collect();
                    let mut sorted = vals.clone();
                    sorted.sort();
                    assert_eq!(run(&net, &vals), sorted[rank], "n {n} rank {rank} {vals:?}");
                }
            }
        }
    }

    #[test]
    fn networks_are_short() {
        let cas = |n, r| {
            network(n, r)
                .steps
                .iter()
                .filter(|s| matches!(s, Step::Cas(..)))
                .count()
        };
        // The median of 5 x 5; a minimum is a chain.
        assert_eq!(cas(25, 12), 132);
        assert_eq!(cas(1000, 0), 999);
        assert_eq!(network(1000, 999).live_max, 2);
        assert_eq!(network(25, 12).live_max, 14);
        assert!(network(81, 40).live_max <= MAX_LIVE);
    }

    #[test]
    fn tilings() {
        // 5 x 5 centred over a plane.
        let offs: Vec<i64> = (0..25).flat_map(|i| [i / 5 - 2, i % 5 - 2]).collect();
        let t = Tiling::new(&[2048, 2048], &offs, 25, 4).expect("fits");
        assert_eq!(t.dims, [1, 2048, 2048]);
        assert_eq!((t.lo, t.span), ([0, -2, -2], [0, 4, 4]));
        assert_eq!(t.blocks(), (256, 64, 256 * 64));
        // A line runs along blocks of 256.
        let t = Tiling::new(&[100], &[-1, 0, 1], 3, 8).expect("fits");
        assert_eq!((t.dims, t.bx, t.by), ([1, 1, 100], 256, 1));
        // Four dimensions, or a halo too wide for shared memory, are not tiled.
        assert!(Tiling::new(&[2, 2, 2, 2], &[0; 4], 1, 4).is_none());
        assert!(Tiling::new(&[10, 10], &[0, -5000, 0, 5000], 2, 4).is_none());
    }

    #[test]
    fn kernels_compile() {
        let box3: Vec<i64> = (0..9).flat_map(|i| [i / 3 - 1, i % 3 - 1]).collect();
        let cube: Vec<i64> = (0..27)
            .flat_map(|i| [i / 9 - 1, (i / 3) % 3 - 1, i % 3 - 1])
            .collect();
        // Shape, offsets, rank, dtype, binary.
        type Case<'a> = (&'a [usize], &'a [i64], usize, DType, bool);
        let cases: [Case<'_>; 6] = [
            (&[64, 64], &box3, 4, DType::Float32, false),
            (&[64, 64], &box3, 0, DType::UInt8, true),
            (&[64, 64], &box3, 8, DType::UInt8, true),
            (&[8, 8, 8], &cube, 13, DType::Float64, false),
            (&[100], &[-1, 0, 1, 2], 1, DType::Int64, false),
            (&[10, 10], &box3, 3, DType::UInt64, false),
        ];
        for (i, (shape, offs, rank, dt, binary)) in cases.into_iter().enumerate() {
            let taps = offs.len() / shape.len();
            let p = TiledRank::plan(shape, offs, taps, rank, dt, binary).expect("tiled");
            let src = p.source();
            assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
            crate::cuda::kernel_gen::helpers::dump_source(&format!("nd_rank_tile_{i}"), &src);
        }
        for dt in [
            DType::Bool,
            DType::Int8,
            DType::UInt16,
            DType::Int32,
            DType::UInt32,
        ] {
            let p = TiledRank::plan(&[9, 9], &box3, 9, 4, dt, false).expect("tiled");
            crate::cuda::kernel_gen::helpers::dump_source(
                &format!("nd_rank_tile_{dt}"),
                &p.source(),
            );
        }
        assert!(TiledRank::plan(&[9, 9], &box3, 9, 4, DType::Float16, false).is_none());
    }
}

//! cuFFT: plans (one LRU cache per device) and transforms.
//!
//! Each transform is one `cufftMakePlanMany64` plan of rank 1 to 3 with the
//! advanced data layout: the transformed axes must nest with one element
//! stride (`stride`, `embed`) and every other axis must merge into one batch
//! axis with a positive distance (`dist`). Arrays that fit (C-contiguous
//! arrays transformed along trailing axes, or along the first axis of a
//! matrix, slices with a step, ...) are read in place; others are first
//! copied with the transformed axes innermost. The output is a new C-order
//! array when its layout fits, else a new array with the transformed axes
//! innermost, returned as a view in the caller's axis order. C2R overwrites
//! its input, so it always gets a buffer of its own.

use cudarc::cufft::sys as cf;

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::lru::Lru;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::merged;
use crate::cuda::runtime::libs::require;
use crate::cuda::runtime::session::session;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{ordinal, Buffer};
use crate::ops::create::Create;
use crate::ops::fft::{Fft, FftJob, Transformed};
use crate::ops::{FftKind, PlanCacheInfo};

/// The cuFFT functions this module calls (checked before the first call).
const SYMBOLS: &[&str] = &[
    "cufftCreate",
    "cufftDestroy",
    "cufftMakePlanMany64",
    "cufftSetStream",
    "cufftExecC2C",
    "cufftExecZ2Z",
    "cufftExecR2C",
    "cufftExecD2Z",
    "cufftExecC2R",
    "cufftExecZ2D",
];

/// A cuFFT status as an error naming the operation and the call.
fn check(r: cf::cufftResult, op: &str, call: &str) -> Result<()> {
    if r == cf::cufftResult::CUFFT_SUCCESS {
        Ok(())
    } else {
        Err(Error::Cuda {
            op: format!("{op} ({call})"),
            detail: format!("{r:?}"),
        })
    }
}

/// One side (input or output) of cuFFT's advanced layout: element `x` of
/// batch `b` is at `b * dist + (x0 * embed[1] * ... + x_last) * stride`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Side {
    pub embed: Vec<i64>,
    pub stride: i64,
    pub dist: i64,
}

/// How a view with `shape` and `strides` (in elements) looks to cuFFT when
/// `axes` (in order, at most 3) are transformed: the batch count and the
/// layout, or `None` when the advanced layout cannot express it.
pub(crate) fn describe(shape: &[usize], strides: &[isize], axes: &[usize]) -> Option<(i64, Side)> {
    let r = axes.len();
    if r == 0 || r > 3 {
        return None;
    }
    let d: Vec<i64> = axes.iter().map(|&a| shape[a] as i64).collect();
    // Effective strides: an axis of extent 1 may have any stride; give it the
    // one that nests.
    let mut eff = vec![0i64; r];
    eff[r - 1] = if d[r - 1] == 1 {
        1
    } else {
        strides[axes[r - 1]] as i64
    };
    if eff[r - 1] <= 0 {
        return None;
    }
    let mut embed = vec![0i64; r];
    embed[0] = d[0];
    for i in (0..r - 1).rev() {
        eff[i] = if d[i] == 1 {
            eff[i + 1] * d[i + 1]
        } else {
            strides[axes[i]] as i64
        };
        if eff[i] <= 0 || eff[i] % eff[i + 1] != 0 || eff[i] / eff[i + 1] < d[i + 1] {
            return None;
        }
        embed[i + 1] = eff[i] / eff[i + 1];
    }
    let stride = eff[r - 1];
    // Every other axis merges into one batch axis.
    let (bshape, bstrides): (Vec<usize>, Vec<isize>) = (0..shape.len())
        .filter(|a| !axes.contains(a))
        .map(|a| (shape[a], strides[a]))
        .unzip();
    let (bs, bt) = merged(&bshape, &bstrides);
    let (batch, dist) = match (bs.as_slice(), bt.as_slice()) {
        ([], _) => (1, stride * embed.iter().product::<i64>()),
        ([n], [s]) if *s > 0 => (*n as i64, *s as i64),
        _ => return None,
    };
    Some((
        batch,
        Side {
            embed,
            stride,
            dist,
        },
    ))
}

/// The permutation putting the other axes first (in order), then `axes`.
fn innermost_perm(ndim: usize, axes: &[usize]) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..ndim).filter(|a| !axes.contains(a)).collect();
    perm.extend_from_slice(axes);
    perm
}

fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    inv
}

/// `a` copied into a new buffer with `axes` innermost, seen in `a`'s axis order.
fn copy_innermost(op: &'static str, a: View<'_>, axes: &[usize]) -> Result<Buffer> {
    let n = ordinal(op, a)?;
    let perm = innermost_perm(a.ndim(), axes);
    let pl = a.layout.permuted(&perm);
    let c = Buffer::new(op, n, a.dtype, pl.shape())?;
    super::backend(n)
        .expect("a device in use has a backend")
        .copy_cast(op, View::new(a.storage, &pl, a.dtype), c.view())?;
    let back = c.layout.permuted(&inverse(&perm));
    Ok(c.with_layout(back))
}

/// A new buffer of `shape` with `axes` innermost, seen in the given axis order.
fn new_innermost(
    op: &'static str,
    n: usize,
    dtype: DType,
    shape: &[usize],
    axes: &[usize],
) -> Result<Buffer> {
    let perm = innermost_perm(shape.len(), axes);
    let pshape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let c = Buffer::new(op, n, dtype, &pshape)?;
    let back = c.layout.permuted(&inverse(&perm));
    Ok(c.with_layout(back))
}

/// What identifies a plan.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PlanKey {
    ty: cf::cufftType,
    n: Vec<i64>,
    input: Side,
    output: Side,
    batch: i64,
}

/// A cuFFT plan of one device, destroyed when dropped from the cache.
pub(crate) struct Plan {
    handle: cf::cufftHandle,
    ordinal: usize,
}

impl Drop for Plan {
    fn drop(&mut self) {
        if let Ok(s) = session(self.ordinal) {
            let _ = s.bind();
        }
        // SAFETY: created by cufftCreate and destroyed once.
        let _ = unsafe { cf::cufftDestroy(self.handle) };
    }
}

fn make_plan(op: &'static str, ordinal: usize, key: &PlanKey) -> Result<Plan> {
    let mut handle: cf::cufftHandle = 0;
    // SAFETY: out pointer valid.
    check(unsafe { cf::cufftCreate(&mut handle) }, op, "cufftCreate")?;
    let plan = Plan { handle, ordinal };
    let mut n = key.n.clone();
    let mut inembed = key.input.embed.clone();
    let mut onembed = key.output.embed.clone();
    let mut work = 0usize;
    // SAFETY: the arrays hold `rank` entries and outlive the call.
    check(
        unsafe {
            cf::cufftMakePlanMany64(
                handle,
                n.len() as i32,
                n.as_mut_ptr(),
                inembed.as_mut_ptr(),
                key.input.stride,
                key.input.dist,
                onembed.as_mut_ptr(),
                key.output.stride,
                key.output.dist,
                key.ty,
                key.batch,
                &mut work,
            )
        },
        op,
        "cufftMakePlanMany64",
    )?;
    Ok(plan)
}

/// A device's plan cache, kept in its session (`DeviceSession::cufft_plans`).
pub(crate) type PlanCache = Lru<PlanKey, Plan>;

/// Runs `f` on the plan cache of cuda:`n` (made empty on first use).
fn with_cache<R>(n: usize, f: impl FnOnce(&mut PlanCache) -> Result<R>) -> Result<R> {
    session(n)?.cufft_plans.with(|| Ok(PlanCache::default()), f)
}

/// The plan cache of cuda:`n`.
fn cache_info(n: usize) -> Result<PlanCacheInfo> {
    with_cache(n, |c| {
        Ok(PlanCacheInfo {
            device: crate::Device::Cuda(n),
            size: c.entries.len(),
            capacity: c.capacity,
            hits: c.hits,
            misses: c.misses,
            entries: c
                .entries
                .iter()
                .map(|(k, _)| {
                    format!(
                        "cuFFT {:?} n={:?} batch={} in(stride={}, dist={}, embed={:?}) out(stride={}, dist={}, embed={:?})",
                        k.ty,
                        k.n,
                        k.batch,
                        k.input.stride,
                        k.input.dist,
                        k.input.embed,
                        k.output.stride,
                        k.output.dist,
                        k.output.embed
                    )
                })
                .collect(),
        })
    })
}

/// Sets the plan-cache capacity of cuda:`n`.
fn set_capacity(n: usize, capacity: usize) -> Result<()> {
    session(n)?.bind()?;
    with_cache(n, |c| {
        c.set_capacity(capacity);
        Ok(())
    })
}

/// Drops every plan of cuda:`n` and zeroes the counters (the capacity goes
/// back to the default).
fn clear(n: usize) -> Result<()> {
    let s = session(n)?;
    s.bind()?;
    // Dropped here, outside the cache's lock: each plan is destroyed.
    drop(s.cufft_plans.take());
    Ok(())
}

/// Runs a transform of the prepared array `a` (complex for C2C/C2R, real for
/// R2C, already cut or padded: for C2R the last axis holds `n/2 + 1`
/// points) over `axes` with logical lengths `lens`. `owned` says that `a`
/// is a temporary the transform may overwrite. Unscaled.
fn transform(
    op: &'static str,
    a: View<'_>,
    owned: bool,
    axes: &[usize],
    lens: &[usize],
    kind: FftKind,
) -> Result<Buffer> {
    let r = axes.len();
    // cuFFT plans have rank 1 to 3: more axes go in groups (last first),
    // the real axis (the last one) in the group of the R2C / C2R step.
    let tail = r.saturating_sub(3);
    let (first, groups_end, last) = match kind {
        FftKind::C2C { .. } => (None, r, None),
        FftKind::R2C => (Some(kind), tail, None),
        FftKind::C2R => (None, tail, Some(kind)),
    };
    let step = match kind {
        FftKind::C2C { .. } => kind,
        FftKind::R2C => FftKind::C2C { forward: true },
        FftKind::C2R => FftKind::C2C { forward: false },
    };
    let mut cur: Option<Buffer> = match first {
        Some(k) => Some(run_one(op, a, owned, &axes[tail..], &lens[tail..], k)?),
        None => None,
    };
    let mut end = groups_end;
    while end > 0 {
        let start = end.saturating_sub(3);
        let (v, own) = match &cur {
            Some(b) => (b.view(), true),
            None => (a, owned),
        };
        cur = Some(run_one(
            op,
            v,
            own,
            &axes[start..end],
            &lens[start..end],
            step,
        )?);
        end = start;
    }
    match (last, &cur) {
        (Some(k), Some(b)) => run_one(op, b.view(), true, &axes[tail..], &lens[tail..], k),
        (Some(k), None) => run_one(op, a, owned, &axes[tail..], &lens[tail..], k),
        (None, _) => Ok(cur.expect("at least one axis is transformed")),
    }
}

/// One cuFFT execution over at most 3 axes.
fn run_one(
    op: &'static str,
    a: View<'_>,
    owned: bool,
    axes: &[usize],
    lens: &[usize],
    kind: FftKind,
) -> Result<Buffer> {
    let n = ordinal(op, a)?;
    let s = session(n)?;
    let last = axes[axes.len() - 1];
    let (out_dtype, ty) = match (kind, a.dtype()) {
        (FftKind::C2C { .. }, DType::Complex64) => (DType::Complex64, cf::cufftType::CUFFT_C2C),
        (FftKind::C2C { .. }, DType::Complex128) => (DType::Complex128, cf::cufftType::CUFFT_Z2Z),
        (FftKind::R2C, DType::Float32) => (DType::Complex64, cf::cufftType::CUFFT_R2C),
        (FftKind::R2C, DType::Float64) => (DType::Complex128, cf::cufftType::CUFFT_D2Z),
        (FftKind::C2R, DType::Complex64) => (DType::Float32, cf::cufftType::CUFFT_C2R),
        (FftKind::C2R, DType::Complex128) => (DType::Float64, cf::cufftType::CUFFT_Z2D),
        (k, d) => {
            return Err(Error::DType {
                op,
                detail: format!("internal: a {k:?} transform cannot take {d}"),
            })
        }
    };
    let mut out_shape = a.shape().to_vec();
    match kind {
        FftKind::R2C => out_shape[last] = lens[lens.len() - 1] / 2 + 1,
        FftKind::C2R => out_shape[last] = lens[lens.len() - 1],
        FftKind::C2C { .. } => {}
    }
    if a.size() == 0 || out_shape.contains(&0) {
        return Buffer::new(op, n, out_dtype, &out_shape);
    }
    require("cufft", SYMBOLS, op)?;
    // The input: read in place when the layout fits (C2R overwrites its
    // input, so it must be ours).
    let mut copy = if kind == FftKind::C2R && !owned {
        Some(copy_innermost(op, a, axes)?)
    } else {
        None
    };
    let mut input = copy.as_ref().map_or(a, Buffer::view);
    let in_geo = match describe(input.shape(), input.strides(), axes) {
        Some(g) => g,
        None => {
            copy = Some(copy_innermost(op, input, axes)?);
            input = copy.as_ref().expect("just made").view();
            layout_of(op, input, axes)?
        }
    };
    let mut out = Buffer::new(op, n, out_dtype, &out_shape)?;
    let out_geo = match describe(out.layout.shape(), out.layout.strides(), axes) {
        Some(g) => g,
        None => {
            out = new_innermost(op, n, out_dtype, &out_shape, axes)?;
            layout_of(op, out.view(), axes)?
        }
    };
    if in_geo.0 != out_geo.0 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "internal: cuFFT batch counts differ ({} in, {} out)",
                in_geo.0, out_geo.0
            ),
        });
    }
    let key = PlanKey {
        ty,
        n: lens.iter().map(|&l| l as i64).collect(),
        input: in_geo.1,
        output: out_geo.1,
        batch: in_geo.0,
    };
    let (ip, optr) = (crate::cuda::runtime::vendor::ptr(op, input)?, out.ptr(op)?);
    s.bind()?;
    let stream = current_stream();
    s.cufft_plans.with(
        || Ok(PlanCache::default()),
        |cache| {
            cache.with(
                key.clone(),
                || make_plan(op, n, &key),
                |plan| {
                    let h = plan.handle;
                    // SAFETY: a live plan; the stream belongs to this device.
                    check(
                        unsafe { cf::cufftSetStream(h, stream.raw() as cf::cudaStream_t) },
                        op,
                        "cufftSetStream",
                    )?;
                    let dir = match kind {
                        FftKind::C2C { forward: true } => -1, // CUFFT_FORWARD
                        _ => 1,                               // CUFFT_INVERSE
                    };
                    // One call per plan type: `exec!(cufftExecC2C, dir)`.
                    macro_rules! exec {
                        ($f:ident $(, $dir:expr)?) => {
                            (cf::$f(h, ip as *mut _, optr as *mut _ $(, $dir)?), stringify!($f))
                        };
                    }
                    use cf::cufftType::*;
                    // SAFETY: both pointers address device buffers laid out as the
                    // plan describes (checked by `describe`); the output is new.
                    let (r, call) = unsafe {
                        match ty {
                            CUFFT_C2C => exec!(cufftExecC2C, dir),
                            CUFFT_Z2Z => exec!(cufftExecZ2Z, dir),
                            CUFFT_R2C => exec!(cufftExecR2C),
                            CUFFT_D2Z => exec!(cufftExecD2Z),
                            CUFFT_C2R => exec!(cufftExecC2R),
                            CUFFT_Z2D => exec!(cufftExecZ2D),
                        }
                    };
                    check(r, op, call)
                },
            )
        },
    )?;
    // The input temporary must live until the transform has run: buffers are
    // freed in stream order, so dropping it here is safe.
    drop(copy);
    Ok(out)
}

fn layout_of(op: &'static str, a: View<'_>, axes: &[usize]) -> Result<(i64, Side)> {
    describe(a.shape(), a.strides(), axes).ok_or_else(|| Error::Shape {
        op,
        detail: format!(
            "internal: cuFFT cannot address a copy with shape {:?} and strides {:?}",
            a.shape(),
            a.strides()
        ),
    })
}

// The Fft family of the backend interface (`ops::backend`).
impl Fft for super::CudaBackend {
    fn transform(&self, op: &'static str, a: View<'_>, job: FftJob<'_>) -> Result<Transformed> {
        // Unscaled: the front end scales the result (one elementwise kernel).
        let r = transform(op, a, job.owned, job.axes, job.lens, job.kind)?;
        let (storage, layout) = r.into_owned();
        Ok((storage, layout, job.scale))
    }

    fn plan_cache(&self) -> Result<PlanCacheInfo> {
        cache_info(self.ordinal)
    }

    fn set_plan_capacity(&self, capacity: usize) -> Result<()> {
        set_capacity(self.ordinal, capacity)
    }

    fn clear_plan_cache(&self) -> Result<()> {
        clear(self.ordinal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(embed: &[i64], stride: i64, dist: i64) -> Side {
        Side {
            embed: embed.to_vec(),
            stride,
            dist,
        }
    }

    #[test]
    fn c_order_trailing_axes_are_read_in_place() {
        // x of shape (8, 1024), fft along the last axis: 8 contiguous lanes.
        assert_eq!(
            describe(&[8, 1024], &[1024, 1], &[1]),
            Some((8, side(&[1024], 1, 1024)))
        );
        // fft2 of (4096, 4096): one plan of rank 2.
        assert_eq!(
            describe(&[4096, 4096], &[4096, 1], &[0, 1]),
            Some((1, side(&[4096, 4096], 1, 4096 * 4096)))
        );
        // fft2 over the last two axes of (3, 4, 5).
        assert_eq!(
            describe(&[3, 4, 5], &[20, 5, 1], &[1, 2]),
            Some((3, side(&[4, 5], 1, 20)))
        );
    }

    #[test]
    fn leading_axes_use_strides() {
        // fft along axis 0 of (6, 10): stride 10 between points, lanes 1 apart.
        assert_eq!(
            describe(&[6, 10], &[10, 1], &[0]),
            Some((10, side(&[6], 10, 1)))
        );
        // fft2 over axes (0, 1) of (3, 4, 5): nested with stride 5, batch 5.
        assert_eq!(
            describe(&[3, 4, 5], &[20, 5, 1], &[0, 1]),
            Some((5, side(&[3, 4], 5, 1)))
        );
        // A slice with a step: x[:, ::2] of a (4, 10) array.
        assert_eq!(
            describe(&[4, 5], &[10, 2], &[1]),
            Some((4, side(&[5], 2, 10)))
        );
        // A padded row pitch: rows of 8 in a (4, 16) buffer, rank 2.
        assert_eq!(
            describe(&[4, 8], &[16, 1], &[0, 1]),
            Some((1, side(&[4, 16], 1, 64)))
        );
    }

    #[test]
    fn layouts_cufft_cannot_express_need_a_copy() {
        // The middle axis of (2, 3, 4): batch axes 0 and 2 do not merge.
        assert_eq!(describe(&[2, 3, 4], &[12, 4, 1], &[1]), None);
        // Reversed axis (negative stride).
        assert_eq!(describe(&[5], &[-1], &[0]), None);
        // Broadcast (stride 0) along the transformed axis.
        assert_eq!(describe(&[3, 4], &[0, 1], &[0]), None);
        // Transformed axes out of nesting order (a transposed matrix, rank 2).
        assert_eq!(describe(&[4, 3], &[1, 4], &[0, 1]), None);
        // More than 3 axes in one plan.
        assert_eq!(describe(&[2, 2, 2, 2], &[8, 4, 2, 1], &[0, 1, 2, 3]), None);
        // After the copy with the axes innermost, every case fits.
        let perm = innermost_perm(3, &[1]);
        assert_eq!(perm, vec![0, 2, 1]);
        assert_eq!(inverse(&perm), vec![0, 2, 1]);
        // (2, 3, 4) copied as (2, 4, 3) in C order, viewed back: strides (12, 1, 3).
        assert_eq!(
            describe(&[2, 3, 4], &[12, 1, 3], &[1]),
            Some((8, side(&[3], 1, 3)))
        );
    }

    #[test]
    fn extent_one_axes_take_any_stride() {
        assert_eq!(describe(&[1], &[0], &[0]), Some((1, side(&[1], 1, 1))));
        assert_eq!(
            describe(&[1, 7], &[99, 1], &[0, 1]),
            Some((1, side(&[1, 7], 1, 7)))
        );
        // A batch axis of extent 1 is ignored.
        assert_eq!(
            describe(&[1, 7], &[0, 1], &[1]),
            Some((1, side(&[7], 1, 7)))
        );
    }
}

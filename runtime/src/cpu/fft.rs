//! Fast Fourier transforms on the CPU.

use std::sync::{Arc, Mutex, OnceLock};

use num_complex::Complex;
use rustfft::{Fft, FftNum, FftPlanner};

use super::CpuBackend;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::Element;
use crate::core::error::Result;
use crate::core::layout::Layout;
use crate::core::lru::Lru;
use crate::core::storage::{CpuStorage, Storage};
use crate::core::view::View;
use crate::ops::fft::{Fft as FftFamily, FftJob, FftKind as Kind, PlanCacheInfo, Transformed};

impl FftFamily for CpuBackend {
    fn transform(&self, _: &'static str, a: View<'_>, job: FftJob<'_>) -> Result<Transformed> {
        let (storage, shape) = cpu_transform(a, job.axes, job.lens, job.kind, job.scale)?;
        Ok((storage, Layout::contiguous(&shape), None))
    }

    fn plan_cache(&self) -> Result<PlanCacheInfo> {
        let c = cpu_cache().lock().unwrap_or_else(|e| e.into_inner());
        Ok(PlanCacheInfo {
            device: Device::Cpu,
            size: c.lru.entries.len(),
            capacity: c.lru.capacity,
            hits: c.lru.hits,
            misses: c.lru.misses,
            entries: c
                .lru
                .entries
                .iter()
                .map(|(k, _)| {
                    format!(
                        "rustfft n={} {} {}",
                        k.n,
                        if k.forward { "forward" } else { "inverse" },
                        if k.double { "f64" } else { "f32" }
                    )
                })
                .collect(),
        })
    }

    fn set_plan_capacity(&self, capacity: usize) -> Result<()> {
        cpu_cache()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .lru
            .set_capacity(capacity);
        Ok(())
    }

    fn clear_plan_cache(&self) -> Result<()> {
        let mut c = cpu_cache().lock().unwrap_or_else(|e| e.into_inner());
        c.lru.entries.clear();
        c.lru.hits = 0;
        c.lru.misses = 0;
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// CPU backend (rustfft)
// ---------------------------------------------------------------------------

fn cpu_transform(
    a: View<'_>,
    axes: &[usize],
    lens: &[usize],
    kind: Kind,
    scale: Option<f64>,
) -> Result<(Storage, Vec<usize>)> {
    if matches!(a.dtype(), DType::Float32 | DType::Complex64) {
        typed_transform::<f32>(a, axes, lens, kind, scale.map(|s| s as f32))
    } else {
        typed_transform::<f64>(a, axes, lens, kind, scale)
    }
}

/// [`cpu_transform`] in the precision `T` of `a`'s dtype.
fn typed_transform<T: CpuFloat>(
    a: View<'_>,
    axes: &[usize],
    lens: &[usize],
    kind: Kind,
    scale: Option<T>,
) -> Result<(Storage, Vec<usize>)>
where
    Complex<T>: crate::Element,
{
    let data: Vec<Complex<T>> = match kind {
        Kind::R2C => a
            .gather::<T>()
            .into_iter()
            .map(|v| Complex::new(v, T::zero()))
            .collect(),
        _ => a.gather::<Complex<T>>(),
    };
    let (out, shape) = run_cpu::<T>(data, a.shape().to_vec(), axes, lens, kind, scale)?;
    // Real parts for C2R, the complex values otherwise.
    let data = if kind == Kind::C2R {
        T::into_data(out.into_iter().map(|c| c.re).collect())
    } else {
        Complex::<T>::into_data(out)
    };
    Ok((Storage::Cpu(CpuStorage::new(data)), shape))
}

/// The two precisions of the CPU backend.
pub(crate) trait CpuFloat: FftNum + num_traits::Float + crate::Element {
    fn plan(n: usize, forward: bool) -> Result<Arc<dyn Fft<Self>>>;
}

impl CpuFloat for f32 {
    fn plan(n: usize, forward: bool) -> Result<Arc<dyn Fft<f32>>> {
        cpu_plan(n, forward, false).map(|p| match p {
            CpuPlan::Single(p) => p,
            CpuPlan::Double(_) => unreachable!("single-precision key gives a single plan"),
        })
    }
}

impl CpuFloat for f64 {
    fn plan(n: usize, forward: bool) -> Result<Arc<dyn Fft<f64>>> {
        cpu_plan(n, forward, true).map(|p| match p {
            CpuPlan::Double(p) => p,
            CpuPlan::Single(_) => unreachable!("double-precision key gives a double plan"),
        })
    }
}

/// The transform on a C-ordered complex buffer of `shape` (already cut or
/// padded to the input lengths). Returns the result and its shape.
fn run_cpu<T: CpuFloat>(
    mut data: Vec<Complex<T>>,
    mut shape: Vec<usize>,
    axes: &[usize],
    lens: &[usize],
    kind: Kind,
    scale: Option<T>,
) -> Result<(Vec<Complex<T>>, Vec<usize>)> {
    crate::core::layout::check_host_room(
        "fft",
        shape.iter().product::<usize>().max(1) * 2,
        std::mem::size_of::<Complex<T>>(),
    )?;
    let last = axes.len() - 1;
    match kind {
        Kind::C2C { forward } => {
            for &ax in axes {
                c2c_axis(&mut data, &shape, ax, forward)?;
            }
        }
        Kind::R2C => {
            // Full transform of the (real) last axis, then keep n/2 + 1.
            let ax = axes[last];
            c2c_axis(&mut data, &shape, ax, true)?;
            let half = lens[last] / 2 + 1;
            data = resize_axis(&data, &shape, ax, half);
            shape[ax] = half;
            for &ax in &axes[..last] {
                c2c_axis(&mut data, &shape, ax, true)?;
            }
        }
        Kind::C2R => {
            for &ax in &axes[..last] {
                c2c_axis(&mut data, &shape, ax, false)?;
            }
            // Hermitian extension of the last axis to n points, then inverse.
            let ax = axes[last];
            let n = lens[last];
            data = hermitian_extend(&data, &shape, ax, n);
            shape[ax] = n;
            c2c_axis(&mut data, &shape, ax, false)?;
        }
    }
    if let Some(s) = scale {
        for v in data.iter_mut() {
            *v = *v * s;
        }
    }
    Ok((data, shape))
}

/// In-place 1-D transforms of every lane of `axis`.
fn c2c_axis<T: CpuFloat>(
    data: &mut [Complex<T>],
    shape: &[usize],
    axis: usize,
    forward: bool,
) -> Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let plan = T::plan(n, forward)?;
    if inner == 1 {
        plan.process(data);
        return Ok(());
    }
    // Lanes with a stride: transpose each [n, inner] block to [inner, n],
    // transform the contiguous lanes, transpose back.
    let block = n * inner;
    let mut tmp = vec![Complex::new(T::zero(), T::zero()); block];
    for chunk in data.chunks_mut(block) {
        for k in 0..n {
            for i in 0..inner {
                tmp[i * n + k] = chunk[k * inner + i];
            }
        }
        plan.process(&mut tmp);
        for k in 0..n {
            for i in 0..inner {
                chunk[k * inner + i] = tmp[i * n + k];
            }
        }
    }
    Ok(())
}

/// The first `len` positions of `axis` (len <= the axis length).
fn resize_axis<T: Copy>(data: &[T], shape: &[usize], axis: usize, len: usize) -> Vec<T> {
    // An empty array has no lanes (and `chunks(0)` would panic when an
    // axis after `axis` is empty).
    if data.is_empty() {
        return Vec::new();
    }
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(data.len() / n.max(1) * len);
    for chunk in data.chunks(n * inner) {
        out.extend_from_slice(&chunk[..len * inner]);
    }
    out
}

/// The full `n`-point spectrum of a real signal from its `n/2 + 1`
/// non-negative frequencies along `axis`: `X[n-k] = conj(X[k])`.
fn hermitian_extend<T: CpuFloat>(
    data: &[Complex<T>],
    shape: &[usize],
    axis: usize,
    n: usize,
) -> Vec<Complex<T>> {
    let m = shape[axis];
    debug_assert_eq!(m, n / 2 + 1);
    let inner: usize = shape[axis + 1..].iter().product();
    let outer = data.len() / (m * inner).max(1);
    let mut out = vec![Complex::new(T::zero(), T::zero()); outer * n * inner];
    for o in 0..outer {
        let src = &data[o * m * inner..(o + 1) * m * inner];
        let dst = &mut out[o * n * inner..(o + 1) * n * inner];
        for k in 0..n {
            for i in 0..inner {
                dst[k * inner + i] = if k < m {
                    src[k * inner + i]
                } else {
                    src[(n - k) * inner + i].conj()
                };
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Plan caches
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct CpuKey {
    n: usize,
    forward: bool,
    double: bool,
}

#[derive(Clone)]
enum CpuPlan {
    Single(Arc<dyn Fft<f32>>),
    Double(Arc<dyn Fft<f64>>),
}

struct CpuCache {
    lru: Lru<CpuKey, CpuPlan>,
    single: FftPlanner<f32>,
    double: FftPlanner<f64>,
}

fn cpu_cache() -> &'static Mutex<CpuCache> {
    static CACHE: OnceLock<Mutex<CpuCache>> = OnceLock::new();
    CACHE.get_or_init(|| {
        Mutex::new(CpuCache {
            lru: Lru::default(),
            single: FftPlanner::new(),
            double: FftPlanner::new(),
        })
    })
}

fn cpu_plan(n: usize, forward: bool, double: bool) -> Result<CpuPlan> {
    let mut guard = cpu_cache().lock().unwrap_or_else(|e| e.into_inner());
    let c = &mut *guard;
    let (single, dbl) = (&mut c.single, &mut c.double);
    c.lru.with(
        CpuKey { n, forward, double },
        || {
            Ok(match (double, forward) {
                (false, true) => CpuPlan::Single(single.plan_fft_forward(n)),
                (false, false) => CpuPlan::Single(single.plan_fft_inverse(n)),
                (true, true) => CpuPlan::Double(dbl.plan_fft_forward(n)),
                (true, false) => CpuPlan::Double(dbl.plan_fft_inverse(n)),
            })
        },
        |p| Ok(p.clone()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex64;

    #[test]
    fn hermitian_extension_mirrors() {
        let c = |r: f64, i: f64| Complex64::new(r, i);
        let half = vec![c(1.0, 0.0), c(2.0, 1.0), c(3.0, 0.0)];
        let full = hermitian_extend(&half, &[3], 0, 4);
        assert_eq!(
            full,
            vec![c(1.0, 0.0), c(2.0, 1.0), c(3.0, 0.0), c(2.0, -1.0)]
        );
        let full = hermitian_extend(&half, &[3], 0, 5);
        assert_eq!(full[3], c(3.0, -0.0));
        assert_eq!(full[4], c(2.0, -1.0));
    }
}

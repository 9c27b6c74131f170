//! Convolution, correlation, linear filters and polyphase resampling on the CPU.

use num_complex::Complex64;
use num_traits::{NumAssign, Zero};

use super::create::host_buffer_as;
use super::CpuBackend;
use crate::core::dtype::DType;
use crate::core::element::Element;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::ops::signal::{
    Boundary, Cascade, Conv, Lfilter, LocalPeaks, PeakScan, PeakSet, Signal, Upfirdn,
};

/// Values the host algorithms compute with (f64 for real data, Complex64 for complex).
pub(crate) trait Val: Element + NumAssign + Zero + Copy + Send + Sync {
    fn from_c64(x: Complex64) -> Self;
}
impl Val for f64 {
    fn from_c64(x: Complex64) -> f64 {
        x.re
    }
}
impl Val for Complex64 {
    fn from_c64(x: Complex64) -> Complex64 {
        x
    }
}

/// Runs `$body` with `$V` f64 (real `$dt`) or Complex64.
macro_rules! with_val {
    ($dt:expr, $V:ident => $body:expr) => {{
        if $dt.is_complex() {
            type $V = Complex64;
            $body
        } else {
            type $V = f64;
            $body
        }
    }};
}

/// A host copy of `a` in C order as `V`.
fn host<V: Val>(a: View<'_>) -> Vec<V> {
    a.gather_as::<V>()
}

/// `v` (C order, `shape`) as a host buffer of `dt`.
fn finish<V: Val>(v: Vec<V>, dt: DType) -> Storage {
    if dt.is_integer() && dt != V::DTYPE {
        // Exact sums of integers come back as integers (rounded half to
        // even, as `rint`, not truncated).
        let r: Vec<f64> = v
            .iter()
            .map(|x| f64::from_scalar(x.to_scalar()).round_ties_even())
            .collect();
        return host_buffer_as(r, dt);
    }
    host_buffer_as(v, dt)
}

/// Position `x` along an axis of extent `n` under a boundary (`None`: the fill value).
#[inline]
pub(crate) fn remap(x: isize, n: usize, b: Boundary) -> Option<usize> {
    let ni = n as isize;
    if x >= 0 && x < ni {
        return Some(x as usize);
    }
    match b {
        Boundary::Fill => None,
        Boundary::Wrap => Some(x.rem_euclid(ni) as usize),
        Boundary::Symm => {
            let m = x.rem_euclid(2 * ni);
            Some(if m < ni { m } else { 2 * ni - 1 - m } as usize)
        }
    }
}

fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// Advances a C-order multi-index; false after the last.
fn next_index(idx: &mut [usize], shape: &[usize]) -> bool {
    for d in (0..idx.len()).rev() {
        idx[d] += 1;
        if idx[d] < shape[d] {
            return true;
        }
        idx[d] = 0;
    }
    false
}

/// `out[i] = sum_p A(i + off - p) k[p]` over N-D arrays (C order), `A`
/// extended by `bound` (`fill` outside for `Fill`).
#[allow(clippy::too_many_arguments)]
fn direct_nd<V: Val>(
    a: &[V],
    ash: &[usize],
    k: &[V],
    ksh: &[usize],
    osh: &[usize],
    off: &[isize],
    bound: Boundary,
    fill: V,
) -> Vec<V> {
    let nd = ash.len();
    let total: usize = osh.iter().product();
    let mut out = vec![V::zero(); total];
    if total == 0 || k.is_empty() {
        return out;
    }
    if a.is_empty() {
        // Everything comes from the boundary fill.
        let ksum = k.iter().fold(V::zero(), |s, &x| s + x);
        return vec![fill * ksum; total];
    }
    let ast = c_strides(ash);
    let kst = c_strides(ksh);
    let last = nd - 1;
    let (kl, al) = (ksh[last], ash[last]);
    let lead_k: Vec<usize> = ksh[..last].to_vec();
    let mut oi = vec![0usize; nd];
    for o in out.iter_mut() {
        let mut acc = V::zero();
        let mut pi = vec![0usize; last];
        loop {
            // Row base of A for the leading kernel index.
            let mut base = Some(0usize);
            for d in 0..last {
                let x = oi[d] as isize + off[d] - pi[d] as isize;
                base = match (base, remap(x, ash[d], bound)) {
                    (Some(b), Some(m)) => Some(b + m * ast[d]),
                    _ => None,
                };
            }
            let kbase: usize = (0..last).map(|d| pi[d] * kst[d]).sum();
            let x0 = oi[last] as isize + off[last];
            for q in 0..kl {
                let kv = k[kbase + q];
                let v = match (base, remap(x0 - q as isize, al, bound)) {
                    (Some(b), Some(m)) => a[b + m],
                    _ => fill,
                };
                acc += v * kv;
            }
            if last == 0 || !next_index(&mut pi, &lead_k) {
                break;
            }
        }
        *o = acc;
        next_index(&mut oi, osh);
    }
    out
}

/// `planner`'s FFT of every axis of `v` (C order, `shape`), forward or inverse (unscaled).
fn fft_nd(v: &mut [Complex64], shape: &[usize], inverse: bool) {
    let mut planner = rustfft::FftPlanner::<f64>::new();
    let st = c_strides(shape);
    for (d, &n) in shape.iter().enumerate() {
        if n <= 1 {
            continue;
        }
        let fft = if inverse {
            planner.plan_fft_inverse(n)
        } else {
            planner.plan_fft_forward(n)
        };
        let s = st[d];
        let mut buf = vec![Complex64::zero(); n];
        let total = v.len();
        let outer = total / (n * s);
        for o in 0..outer {
            for i in 0..s {
                let base = o * n * s + i;
                for j in 0..n {
                    buf[j] = v[base + j * s];
                }
                fft.process(&mut buf);
                for j in 0..n {
                    v[base + j * s] = buf[j];
                }
            }
        }
    }
}

/// The host part of [`fft_conv`]: the full FFT product of `a` and `k`,
/// cropped to `osh` at `off`, as a host array of `out_dt`.
fn fft_conv_host(
    a: View<'_>,
    k: View<'_>,
    osh: &[usize],
    off: &[isize],
    out_dt: DType,
) -> Result<Storage> {
    let full: Vec<usize> = a
        .shape()
        .iter()
        .zip(k.shape())
        .map(|(x, y)| x + y - 1)
        .collect();
    let n: usize = full.iter().product();
    let fst = c_strides(&full);
    let embed = |src: View<'_>| -> Vec<Complex64> {
        let vals = host::<Complex64>(src);
        let mut out = vec![Complex64::zero(); n];
        let mut idx = vec![0usize; src.ndim()];
        for v in vals {
            let at: usize = idx.iter().zip(&fst).map(|(i, s)| i * s).sum();
            out[at] = v;
            next_index(&mut idx, src.shape());
        }
        out
    };
    let mut fa = embed(a);
    let mut fk = embed(k);
    fft_nd(&mut fa, &full, false);
    fft_nd(&mut fk, &full, false);
    for (x, y) in fa.iter_mut().zip(&fk) {
        *x *= *y;
    }
    fft_nd(&mut fa, &full, true);
    let scale = 1.0 / n as f64;
    // Crop: out[i] = full[i + off].
    let total: usize = osh.iter().product();
    let mut res = Vec::with_capacity(total);
    let mut idx = vec![0usize; osh.len()];
    for _ in 0..total {
        let at: usize = idx
            .iter()
            .zip(off)
            .zip(&fst)
            .map(|((i, o), s)| (*i as isize + o) as usize * s)
            .sum();
        res.push(fa[at] * scale);
        next_index(&mut idx, osh);
    }
    if out_dt.is_complex() {
        Ok(finish(res, out_dt))
    } else {
        Ok(finish(
            res.iter().map(|c| c.re).collect::<Vec<f64>>(),
            out_dt,
        ))
    }
}

/// The median filter on the host (zero padding), as a host array of `volume`'s dtype.
fn medfilt_host(volume: View<'_>, ks: &[usize]) -> Result<Storage> {
    let nd = volume.ndim();
    let dt = volume.dtype();
    let sh = volume.shape().to_vec();
    let vals = host::<f64>(volume);
    let st = c_strides(&sh);
    let total = vals.len();
    let mut out = vec![0.0f64; total];
    let mut win: Vec<f64> = Vec::new();
    let mut idx = vec![0usize; nd];
    for o in out.iter_mut() {
        win.clear();
        let mut w = vec![0usize; nd];
        loop {
            let mut at = Some(0usize);
            for d in 0..nd {
                let x = idx[d] as isize + w[d] as isize - (ks[d] / 2) as isize;
                at = match at {
                    Some(a) if x >= 0 && (x as usize) < sh[d] => Some(a + x as usize * st[d]),
                    _ => None,
                };
            }
            win.push(at.map_or(0.0, |a| vals[a]));
            if !next_index(&mut w, ks) {
                break;
            }
        }
        let mid = win.len() / 2;
        win.select_nth_unstable_by(mid, |a, b| a.total_cmp(b));
        *o = win[mid];
        next_index(&mut idx, &sh);
    }
    Ok(host_buffer_as(out, dt))
}

impl Signal for CpuBackend {
    fn convolve(&self, _: &'static str, a: View<'_>, k: View<'_>, c: &Conv<'_>) -> Result<Storage> {
        if c.fft {
            return fft_conv_host(a, k, c.osh, c.off, c.out_dt);
        }
        with_val!(c.out_dt, V => {
            let fill = V::from_c64(c.fill.as_c64());
            let (av, kv) = (host::<V>(a), host::<V>(k));
            let v = direct_nd::<V>(&av, a.shape(), &kv, k.shape(), c.osh, c.off, c.bound, fill);
            Ok(finish(v, c.out_dt))
        })
    }

    fn medfilt(&self, _op: &'static str, v: View<'_>, ks: &[usize]) -> Result<Storage> {
        medfilt_host(v, ks)
    }

    fn lfilter(&self, f: &Lfilter<'_>) -> Result<(Storage, Option<Storage>)> {
        let Lfilter {
            b,
            a,
            x,
            zi,
            axis: ax,
            dt,
        } = *f;
        let sh = x.shape();
        let n = sh[ax];
        let m = a.size().max(b.size());
        let mut zsh = sh.to_vec();
        zsh[ax] = m - 1;
        with_val!(dt, V => {
            let mut bv: Vec<V> = host(b);
            let mut av: Vec<V> = host(a);
            bv.resize(m, V::zero());
            av.resize(m, V::zero());
            let a0 = av[0];
            if a0.is_zero() {
                return Err(Error::InvalidArgument { op: "lfilter", detail: "the first coefficient of a must not be zero".into() });
            }
            for c in bv.iter_mut().chain(av.iter_mut()) {
                *c /= a0;
            }
            let xv: Vec<V> = host(x);
            let zv: Option<Vec<V>> = zi.map(host);
            let inner: usize = sh[ax + 1..].iter().product();
            let outer: usize = sh[..ax].iter().product();
            let mut y = vec![V::zero(); xv.len()];
            let mut zf = vec![V::zero(); outer * (m - 1) * inner];
            let mut z = vec![V::zero(); m];
            for o in 0..outer {
                for i in 0..inner {
                    for (j, zj) in z.iter_mut().enumerate().take(m - 1) {
                        *zj = zv.as_ref().map_or(V::zero(), |zz| zz[(o * (m - 1) + j) * inner + i]);
                    }
                    z[m - 1] = V::zero();
                    for t in 0..n {
                        let at = (o * n + t) * inner + i;
                        let xt = xv[at];
                        let yt = z[0] + bv[0] * xt;
                        for j in 0..m - 1 {
                            z[j] = z[j + 1] + bv[j + 1] * xt - av[j + 1] * yt;
                        }
                        y[at] = yt;
                    }
                    for j in 0..m - 1 {
                        zf[(o * (m - 1) + j) * inner + i] = z[j];
                    }
                }
            }
            let ya = finish(y, dt);
            let za = zi.map(|_| finish(zf, dt));
            Ok((ya, za))
        })
    }

    fn cascade(&self, _op: &'static str, f: &Cascade<'_>) -> Result<(Storage, Storage)> {
        Ok(cascade_host(f))
    }

    fn peak_prominences(
        &self,
        _: &'static str,
        p: &PeakScan<'_>,
        wlen: i64,
    ) -> Result<[Storage; 3]> {
        let (x, peaks) = (p.x.gather::<f64>(), p.peaks.gather::<i64>());
        let (prom, lb, rb) = super::peaks::prominences(&x, &peaks, wlen);
        Ok([
            host_buffer_as(prom, DType::Float64),
            host_buffer_as(lb, DType::Int64),
            host_buffer_as(rb, DType::Int64),
        ])
    }

    fn peak_widths(
        &self,
        _: &'static str,
        p: &PeakScan<'_>,
        rel_height: f64,
        bases: [View<'_>; 3],
    ) -> Result<[Storage; 4]> {
        let (x, peaks) = (p.x.gather::<f64>(), p.peaks.gather::<i64>());
        let prom = bases[0].gather::<f64>();
        let (lb, rb) = (bases[1].gather::<i64>(), bases[2].gather::<i64>());
        let w = super::peaks::widths(&x, &peaks, rel_height, &prom, &lb, &rb);
        Ok(w.map(|v| host_buffer_as(v, DType::Float64)))
    }

    fn peaks_by_distance(
        &self,
        _: &'static str,
        peaks: View<'_>,
        priority: View<'_>,
        distance: i64,
    ) -> Result<Storage> {
        let keep =
            super::peaks::by_distance(&peaks.gather::<i64>(), &priority.gather::<f64>(), distance);
        Ok(host_buffer_as(keep, DType::Bool))
    }

    fn upfirdn(&self, _: &'static str, u: &Upfirdn<'_>) -> Result<Storage> {
        use rayon::prelude::*;
        let (lanes, n) = (u.x.shape()[0], u.x.shape()[1]);
        let x: Vec<f64> = u.x.gather_as::<f64>();
        let h: Vec<f64> = u.taps.gather::<f64>();
        let mut y = vec![0.0f64; lanes * u.len];
        if u.len > 0 && n > 0 {
            y.par_chunks_mut(u.len)
                .zip(x.par_chunks(n))
                .for_each(|(yr, xr)| upfirdn_row(xr, &h, u.up, u.down, u.t0, yr));
        }
        Ok(host_buffer_as(y, u.x.dtype()))
    }

    fn local_peaks(&self, _: &'static str, p: &LocalPeaks<'_>) -> Result<Option<PeakSet>> {
        let x = p.x.gather::<f64>();
        let found = super::peaks::local_peaks(&x, &p.conds);
        let mids = || found.iter().map(|&(l, r)| (l + r) / 2);
        let ints = |v: Vec<usize>| {
            host_buffer_as(
                v.into_iter().map(|i| i as i64).collect::<Vec<i64>>(),
                DType::Int64,
            )
        };
        let floats = |v: Vec<f64>| host_buffer_as(v, DType::Float64);
        Ok(Some(PeakSet {
            count: found.len(),
            peaks: ints(mids().collect()),
            edges: p.edges.then(|| {
                [
                    ints(found.iter().map(|e| e.0).collect()),
                    ints(found.iter().map(|e| e.1).collect()),
                ]
            }),
            heights: p.heights.then(|| floats(mids().map(|k| x[k]).collect())),
            thresholds: p.thresholds.then(|| {
                [
                    floats(mids().map(|k| x[k] - x[k - 1]).collect()),
                    floats(mids().map(|k| x[k] - x[k + 1]).collect()),
                ]
            }),
        }))
    }
}

/// `Signal::upfirdn` of one row: `y[m] = sum_k h[k] xu[t0 + m down - k]` for `m < len` over one row `x`
/// (`xu`: `x` upsampled by `up` with zeros): only the taps of the phase
/// `t mod up` meet samples, `h[phase + up q]` against `x[t / up - q]`.
pub(crate) fn upfirdn_row(x: &[f64], h: &[f64], up: usize, down: usize, t0: usize, y: &mut [f64]) {
    let n = x.len();
    for (m, out) in y.iter_mut().enumerate() {
        let t = t0 + m * down;
        let (phase, i0) = (t % up, t / up);
        let mut acc = 0.0;
        // q runs while the tap exists and the sample is inside the row.
        let q_lo = (i0 + 1).saturating_sub(n);
        let mut q = q_lo;
        while phase + up * q < h.len() && q <= i0 {
            acc += h[phase + up * q] * x[i0 - q];
            q += 1;
        }
        *out = acc;
    }
}

/// The cascade of `f` over one row `y` (filtered in place, in f64) from
/// the states `z` ((sections, order) for this row), which end as the final states.
fn cascade_row(coefs: &[f64], order: usize, y: &mut [f64], z: &mut [f64]) {
    let width = 2 * (order + 1);
    for (c, zs) in coefs
        .chunks_exact(width)
        .zip(z.chunks_exact_mut(order.max(1)))
    {
        let (b, a) = c.split_at(order + 1);
        for v in y.iter_mut() {
            let x = *v;
            // Direct form II transposed, as lfilter's loop.
            let out = if order == 0 {
                b[0] * x
            } else {
                zs[0] + b[0] * x
            };
            for j in 0..order {
                let next = if j + 1 < order { zs[j + 1] } else { 0.0 };
                zs[j] = next + b[j + 1] * x - a[j + 1] * out;
            }
            *v = out;
        }
    }
}

/// `cascade` on the host: rows in parallel, each through every section in f64.
fn cascade_host(f: &Cascade<'_>) -> (Storage, Storage) {
    use rayon::prelude::*;
    let (lanes, n) = (f.x.shape()[0], f.x.shape()[1]);
    let (sections, order) = (f.sections(), f.order);
    let mut y: Vec<f64> = f.x.gather_as::<f64>();
    let zi: Option<Vec<f64>> = f.zi.map(|z| z.gather_as::<f64>());
    // States per row: (sections, order), gathered from (sections, lanes, order).
    let stride = order.max(1);
    let mut z = vec![0.0f64; lanes * sections * stride];
    if let Some(zi) = &zi {
        for l in 0..lanes {
            for s in 0..sections {
                for j in 0..order {
                    z[(l * sections + s) * stride + j] = zi[(s * lanes + l) * order + j];
                }
            }
        }
    }
    if n > 0 {
        y.par_chunks_mut(n)
            .zip(z.par_chunks_mut(sections * stride))
            .for_each(|(row, zr)| cascade_row(f.coefs, order, row, zr));
    }
    let mut zf = vec![0.0f64; sections * lanes * order];
    for l in 0..lanes {
        for s in 0..sections {
            for j in 0..order {
                zf[(s * lanes + l) * order + j] = z[(l * sections + s) * stride + j];
            }
        }
    }
    (host_buffer_as(y, f.dt), host_buffer_as(zf, f.dt))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remap_rules() {
        assert_eq!(remap(-1, 4, Boundary::Wrap), Some(3));
        assert_eq!(remap(9, 4, Boundary::Wrap), Some(1));
        assert_eq!(remap(-1, 4, Boundary::Symm), Some(0));
        assert_eq!(remap(4, 4, Boundary::Symm), Some(3));
        assert_eq!(remap(-6, 4, Boundary::Symm), Some(2));
        assert_eq!(remap(-1, 4, Boundary::Fill), None);
    }
}

//! B-spline prefiltering and interpolation on the CPU, with SciPy's
//! boundary conditions (the same arithmetic as `cuda/kernels/ndimage_interp.cu`).

use super::filters::{c_strides, lines_along};
use crate::ops::ndimage::{poles, Coords, Extension, Interp, Mode};

/// Prefilters one line in place (a causal and an anti-causal pass per pole).
pub(crate) fn filter_line(c: &mut [f64], order: usize, ext: Extension) {
    let n = c.len();
    if n < 2 {
        return;
    }
    let zs = poles(order);
    let gain: f64 = zs.iter().map(|z| (1.0 - z) * (1.0 - 1.0 / z)).product();
    c.iter_mut().for_each(|v| *v *= gain);
    for &z in &zs {
        match ext {
            Extension::Mirror => {
                let zn1 = z.powi(n as i32 - 1);
                let mut s = c[0] + zn1 * c[n - 1];
                let mut zi = z;
                for i in 1..n - 1 {
                    s += zi * (c[i] + zn1 * c[n - 1 - i]);
                    zi *= z;
                }
                c[0] = s / (1.0 - zn1 * zn1);
            }
            Extension::Reflect => {
                let zn = z.powi(n as i32);
                let c0 = c[0];
                let mut s = c[0] + zn * c[n - 1];
                let mut zi = z;
                for i in 1..n {
                    s += zi * (c[i] + zn * c[n - 1 - i]);
                    zi *= z;
                }
                c[0] = s * z / (1.0 - zn * zn) + c0;
            }
            Extension::Periodic => {
                let mut zi = z;
                for i in 1..n {
                    c[0] += zi * c[n - i];
                    zi *= z;
                }
                c[0] /= 1.0 - zi;
            }
        }
        for i in 1..n {
            c[i] += z * c[i - 1];
        }
        match ext {
            Extension::Mirror => c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1.0),
            Extension::Reflect => c[n - 1] *= z / (z - 1.0),
            Extension::Periodic => {
                let mut zi = z;
                for i in 0..n - 1 {
                    c[n - 1] += zi * c[i];
                    zi *= z;
                }
                c[n - 1] *= z / (zi - 1.0);
            }
        }
        for i in (0..n - 1).rev() {
            c[i] = z * (c[i + 1] - c[i]);
        }
    }
}

/// `spline_filter1d` of the host copy `x` of `shape` along `axis`.
pub(super) fn spline_filter1d(
    x: &[f64],
    shape: &[usize],
    axis: usize,
    order: usize,
    mode: Mode,
) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    if x.is_empty() {
        return out;
    }
    let ext = Extension::of(mode);
    lines_along(x, shape, axis, |line, base, step| {
        let mut c = line.to_vec();
        filter_line(&mut c, order, ext);
        for (k, v) in c.into_iter().enumerate() {
            out[base + k * step] = v;
        }
    });
    out
}

/// The centred B-spline of degree `order` (1-5) at `t`, by its truncated-power form.
pub(crate) fn bspline(t: f64, order: usize) -> f64 {
    let half = (order + 1) as f64 / 2.0;
    if t.abs() >= half {
        return 0.0;
    }
    let mut s = 0.0;
    let mut binom = 1.0;
    for k in 0..=order + 1 {
        let u = t + half - k as f64;
        if u > 0.0 {
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            s += sign * binom * u.powi(order as i32);
        }
        binom = binom * (order + 1 - k) as f64 / (k + 1) as f64;
    }
    let fact: f64 = (1..=order).map(|k| k as f64).product();
    s / fact
}

/// The coordinate `c` along an axis of `n` samples mapped inside under
/// SciPy's interpolation `mode` (`None`: the point takes `cval`).
pub(crate) fn map_coordinate(c: f64, n: i64, mode: Mode) -> Option<f64> {
    let last = (n - 1) as f64;
    if (0.0..=last).contains(&c) {
        return Some(c);
    }
    if !c.is_finite() {
        return None;
    }
    match mode {
        Mode::Constant => return None,
        // Samples outside read cval instead (see `interpolate`).
        Mode::GridConstant => return Some(c),
        _ if n <= 1 => return Some(0.0),
        Mode::Nearest => return Some(if c < 0.0 { 0.0 } else { last }),
        _ => {}
    }
    let nf = n as f64;
    Some(match mode {
        Mode::Mirror => {
            let p = 2.0 * nf - 2.0;
            let m = c.rem_euclid(p);
            if m > last {
                p - m
            } else {
                m
            }
        }
        Mode::Wrap => (c).rem_euclid(nf - 1.0),
        Mode::GridWrap => c.rem_euclid(nf),
        _ => {
            // Reflect about the edges at -0.5 and n - 0.5.
            let p = 2.0 * nf;
            let m = (c + 0.5).rem_euclid(p) - 0.5;
            if m > last {
                p - 1.0 - m
            } else if m < 0.0 {
                -m - 1.0
            } else {
                m
            }
        }
    })
}

/// The interpolation `f` from the host coefficients `coeffs` (shape `ishape`)
/// and, for `Coords::Array`, the host coordinates `coords`.
pub(super) fn interpolate(
    coeffs: &[f64],
    ishape: &[usize],
    coords: Option<&[f64]>,
    f: &Interp<'_>,
) -> Vec<f64> {
    let nd = ishape.len();
    let total: usize = f.out_shape.iter().product();
    let mut out = vec![f.cval; total];
    let ostrides = c_strides(f.out_shape);
    let istrides = c_strides(ishape);
    let ext = Extension::of(f.mode);
    let order = f.order as i64;
    let mut point = vec![0.0; nd];
    let mut starts = vec![0i64; nd];
    let mut weights = vec![vec![0.0; f.order + 1]; nd];
    'points: for (q, o) in out.iter_mut().enumerate() {
        // The input coordinate of output point q.
        match (&f.coords, coords) {
            (Coords::Array(_), Some(c)) => {
                for (d, p) in point.iter_mut().enumerate() {
                    *p = c[d * total + q];
                }
            }
            (Coords::Affine { matrix, offset }, _) => {
                let ond = f.out_shape.len();
                for (d, p) in point.iter_mut().enumerate() {
                    let mut r = q;
                    let mut acc = offset[d];
                    for (j, st) in ostrides.iter().enumerate() {
                        acc += matrix[d * ond + j] * (r / st) as f64;
                        r %= st;
                    }
                    *p = acc;
                }
            }
            _ => return out,
        }
        for d in 0..nd {
            let n = ishape[d] as i64;
            let c = point[d] + f.npad as f64;
            let Some(m) = map_coordinate(c, n, f.mode) else {
                continue 'points;
            };
            let start = if order % 2 == 1 {
                m.floor() as i64 - order / 2
            } else {
                (m + 0.5).floor() as i64 - order / 2
            };
            starts[d] = start;
            for (k, w) in weights[d].iter_mut().enumerate() {
                *w = if order == 0 {
                    1.0
                } else {
                    bspline(m - (start + k as i64) as f64, f.order)
                };
            }
        }
        // Sum over the (order + 1)^nd support.
        let support = (f.order + 1).pow(nd as u32);
        let mut t = 0.0;
        for s in 0..support {
            let mut r = s;
            let mut at = 0usize;
            let mut w = 1.0;
            let mut outside = false;
            for d in (0..nd).rev() {
                let k = r % (f.order + 1);
                r /= f.order + 1;
                let i = starts[d] + k as i64;
                outside |= !(0..ishape[d] as i64).contains(&i);
                let i = ext.index(i, ishape[d] as i64);
                at += i as usize * istrides[d];
                w *= weights[d][k];
            }
            t += w * if outside && f.mode == Mode::GridConstant {
                f.cval
            } else {
                coeffs[at]
            };
        }
        *o = t;
    }
    out
}

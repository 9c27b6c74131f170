//! Distance transforms on the CPU: exact Euclidean (one lower-envelope pass
//! per axis, Felzenszwalb and Huttenlocher) and the chessboard / taxicab
//! distances (one min-plus or min-max pass per axis).

use super::filters::around;

/// The lower envelope pass over one line: `f` squared distances in, for
/// each position the squared distance and the position of the parabola
/// that attains it; `w` is the squared spacing.
pub(crate) fn envelope(
    f: &[f64],
    w: f64,
    d: &mut [f64],
    arg: &mut [usize],
    v: &mut [usize],
    z: &mut [f64],
) {
    let n = f.len();
    let mut k = 0usize;
    let mut first = None;
    for (q, &fq) in f.iter().enumerate() {
        if fq.is_finite() {
            first = Some(q);
            break;
        }
    }
    let Some(q0) = first else {
        d.iter_mut().for_each(|x| *x = f64::INFINITY);
        arg.iter_mut().enumerate().for_each(|(i, a)| *a = i);
        return;
    };
    v[0] = q0;
    z[0] = f64::NEG_INFINITY;
    z[1] = f64::INFINITY;
    for q in q0 + 1..n {
        if !f[q].is_finite() {
            continue;
        }
        let qf = q as f64;
        loop {
            let p = v[k] as f64;
            let s = ((f[q] + w * qf * qf) - (f[v[k]] + w * p * p)) / (2.0 * w * (qf - p));
            if s <= z[k] {
                if k == 0 {
                    // The new parabola is lower everywhere.
                    v[0] = q;
                    z[1] = f64::INFINITY;
                    break;
                }
                k -= 1;
                continue;
            }
            k += 1;
            v[k] = q;
            z[k] = s;
            z[k + 1] = f64::INFINITY;
            break;
        }
    }
    k = 0;
    for q in 0..n {
        while z[k + 1] < q as f64 {
            k += 1;
        }
        let dq = q as f64 - v[k] as f64;
        d[q] = w * dq * dq + f[v[k]];
        arg[q] = v[k];
    }
}

/// Squared distances and, when asked, nearest-zero coordinates, of the mask `x`.
pub(super) fn edt(
    x: &[u8],
    shape: &[usize],
    sampling: &[f64],
    indices: bool,
) -> (Vec<f64>, Option<Vec<i64>>) {
    let nd = shape.len();
    let total = x.len();
    let mut dist: Vec<f64> = x
        .iter()
        .map(|&m| if m != 0 { f64::INFINITY } else { 0.0 })
        .collect();
    // feat[d * total + i]: coordinate d of the zero element nearest to i so far.
    let mut feat: Vec<i64> = if indices {
        let strides = super::filters::c_strides(shape);
        let mut f = vec![0i64; nd * total];
        for i in 0..total {
            for d in 0..nd {
                f[d * total + i] = ((i / strides[d]) % shape[d]) as i64;
            }
        }
        f
    } else {
        Vec::new()
    };
    for (axis, step) in sampling.iter().enumerate().take(nd) {
        let (outer, n, inner) = around(shape, axis);
        let w = step * step;
        let (mut f, mut d) = (vec![0.0; n], vec![0.0; n]);
        let (mut arg, mut v, mut z) = (vec![0usize; n], vec![0usize; n], vec![0.0; n + 1]);
        let mut old = vec![0i64; if indices { nd * n } else { 0 }];
        for o in 0..outer {
            for i in 0..inner {
                let base = o * n * inner + i;
                for k in 0..n {
                    f[k] = dist[base + k * inner];
                }
                envelope(&f, w, &mut d, &mut arg, &mut v, &mut z);
                if indices {
                    for k in 0..n {
                        for e in 0..nd {
                            old[e * n + k] = feat[e * total + base + k * inner];
                        }
                    }
                }
                for k in 0..n {
                    dist[base + k * inner] = d[k];
                    if indices {
                        for e in 0..nd {
                            feat[e * total + base + k * inner] = old[e * n + arg[k]];
                        }
                    }
                }
            }
        }
    }
    let dist = dist.into_iter().map(f64::sqrt).collect();
    (dist, indices.then_some(feat))
}

/// Chessboard (max) or taxicab (sum) distance to the nearest zero element, -1 if none.
pub(super) fn cdt(x: &[u8], shape: &[usize], chessboard: bool) -> Vec<i32> {
    const FAR: i64 = i64::MAX / 4;
    let mut dist: Vec<i64> = x.iter().map(|&m| if m != 0 { FAR } else { 0 }).collect();
    for axis in 0..shape.len() {
        let (outer, n, inner) = around(shape, axis);
        let mut f = vec![0i64; n];
        for o in 0..outer {
            for i in 0..inner {
                let base = o * n * inner + i;
                for k in 0..n {
                    f[k] = dist[base + k * inner];
                }
                for k in 0..n {
                    dist[base + k * inner] = line_min(&f, k, chessboard);
                }
            }
        }
    }
    dist.into_iter()
        .map(|d| if d >= FAR { -1 } else { d as i32 })
        .collect()
}

/// `min_j max(|k - j|, f[j])` (chessboard) or `min_j |k - j| + f[j]`,
/// searching outwards only while the distance alone can still win.
pub(crate) fn line_min(f: &[i64], k: usize, chessboard: bool) -> i64 {
    let mut best = f[k];
    let mut r = 1usize;
    while (r as i64) < best && (r <= k || k + r < f.len()) {
        for j in [k.checked_sub(r), Some(k + r).filter(|&j| j < f.len())]
            .into_iter()
            .flatten()
        {
            let c = if chessboard {
                f[j].max(r as i64)
            } else {
                f[j] + r as i64
            };
            best = best.min(c);
        }
        r += 1;
    }
    best
}

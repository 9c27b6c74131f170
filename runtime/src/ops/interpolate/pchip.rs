//! PCHIP on one grid axis, from a window of its nodes: the element rule of
//! `RegularGridInterpolator(method='pchip')`, which SciPy computes by fitting
//! `PchipInterpolator` along each axis in turn (the last axis first). A PCHIP
//! piece depends only on the nodes `i - 1 ..= i + 2` of its cell `i` (the
//! end slopes on the first or last three), so a point needs a window of at
//! most four nodes per axis. The CUDA half (`kernels/interp_grid_spline.cu`)
//! is the same arithmetic in the same order.

/// The first node and the width of the window that cell `i` of an axis of
/// `n` nodes needs.
pub(crate) fn pchip_window(i: usize, n: usize) -> (usize, usize) {
    let w = n.min(4);
    (i.saturating_sub(1).min(n - w), w)
}

/// NumPy's `sign` of a non-NaN value.
fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// SciPy's end slope (`PchipInterpolator._edge_case`) from the end interval
/// (`h0`, `m0`) and its neighbour.
fn edge_slope(h0: f64, h1: f64, m0: f64, m1: f64) -> f64 {
    let d = ((2.0 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
    if sign(d) != sign(m0) {
        0.0
    } else if sign(m0) != sign(m1) && d.abs() > 3.0 * m0.abs() {
        3.0 * m0
    } else {
        d
    }
}

/// The interior slope: the weighted harmonic mean of the secants `m0`
/// (left, width `h0`) and `m1`, zero where they differ in sign or vanish.
fn inner_slope(h0: f64, h1: f64, m0: f64, m1: f64) -> f64 {
    if sign(m1) != sign(m0) || m1 == 0.0 || m0 == 0.0 {
        return 0.0;
    }
    let (w1, w2) = (2.0 * h1 + h0, h1 + 2.0 * h0);
    1.0 / ((w1 / m0 + w2 / m1) / (w1 + w2))
}

/// The PCHIP interpolant of the axis `g` (all `n` nodes) at `x` in cell `i`,
/// given the values `v` at the window's nodes `s .. s + v.len()`
/// ([`pchip_window`]).
pub(crate) fn pchip_at(g: &[f64], s: usize, v: &[f64], i: usize, x: f64) -> f64 {
    let n = g.len();
    let h = |q: usize| g[q + 1] - g[q];
    let m = |q: usize| (v[q + 1 - s] - v[q - s]) / h(q);
    let slope = |q: usize| {
        if n == 2 {
            m(0)
        } else if q == 0 {
            edge_slope(h(0), h(1), m(0), m(1))
        } else if q == n - 1 {
            edge_slope(h(n - 2), h(n - 3), m(n - 2), m(n - 3))
        } else {
            inner_slope(h(q - 1), h(q), m(q - 1), m(q))
        }
    };
    let (d0, d1) = (slope(i), slope(i + 1));
    // The Hermite cubic's coefficients as PPoly stores them (SciPy's CubicHermiteSpline).
    let dx = h(i);
    let secant = m(i);
    let t = (d0 + d1 - 2.0 * secant) / dx;
    let c0 = t / dx;
    let c1 = (secant - d0) / dx - t;
    let u = x - g[i];
    ((c0 * u + c1) * u + d0) * u + v[i - s]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_hold_the_nodes_a_cell_needs() {
        assert_eq!(pchip_window(0, 10), (0, 4));
        assert_eq!(pchip_window(4, 10), (3, 4));
        assert_eq!(pchip_window(8, 10), (6, 4));
        assert_eq!(pchip_window(1, 3), (0, 3));
    }

    #[test]
    fn reproduces_a_line_and_its_nodes() {
        let g = [0.0, 1.0, 3.0, 4.0, 7.0];
        let v: Vec<f64> = g.iter().map(|x| 2.0 * x + 1.0).collect();
        for (i, x) in [(0, 0.5), (2, 3.5), (3, 6.0)] {
            let (s, w) = pchip_window(i, g.len());
            let got = pchip_at(&g, s, &v[s..s + w], i, x);
            assert!((got - (2.0 * x + 1.0)).abs() < 1e-12, "{got}");
        }
        let (s, w) = pchip_window(1, g.len());
        assert_eq!(pchip_at(&g, s, &v[s..s + w], 1, 1.0), 3.0);
    }
}

//! Peak scans on the host (`peak_prominences`, `peak_widths`, and the
//! local maxima, conditions and distance rule of `find_peaks`): SciPy's
//! loops, one peak at a time.

/// (prominences, left bases, right bases) of `peaks` in `x`.
pub(crate) fn prominences(x: &[f64], peaks: &[i64], wlen: i64) -> (Vec<f64>, Vec<i64>, Vec<i64>) {
    let n = x.len() as i64;
    let mut prom = Vec::with_capacity(peaks.len());
    let mut lbs = Vec::with_capacity(peaks.len());
    let mut rbs = Vec::with_capacity(peaks.len());
    for &peak in peaks {
        let (mut i_min, mut i_max) = (0i64, n - 1);
        if wlen >= 2 {
            i_min = i_min.max(peak - wlen / 2);
            i_max = i_max.min(peak + wlen / 2);
        }
        let xp = x[peak as usize];
        let (mut lb, mut left_min, mut i) = (peak, xp, peak);
        while i_min <= i && x[i as usize] <= xp {
            if x[i as usize] < left_min {
                left_min = x[i as usize];
                lb = i;
            }
            i -= 1;
        }
        let (mut rb, mut right_min) = (peak, xp);
        i = peak;
        while i <= i_max && x[i as usize] <= xp {
            if x[i as usize] < right_min {
                right_min = x[i as usize];
                rb = i;
            }
            i += 1;
        }
        prom.push(xp - left_min.max(right_min));
        lbs.push(lb);
        rbs.push(rb);
    }
    (prom, lbs, rbs)
}

/// (widths, heights, left ips, right ips) of `peaks` at `rel_height`.
pub(crate) fn widths(
    x: &[f64],
    peaks: &[i64],
    rel_height: f64,
    prom: &[f64],
    lb: &[i64],
    rb: &[i64],
) -> [Vec<f64>; 4] {
    let mut out: [Vec<f64>; 4] = Default::default();
    for (p, &peak) in peaks.iter().enumerate() {
        let (i_min, i_max) = (lb[p], rb[p]);
        let height = x[peak as usize] - prom[p] * rel_height;
        let mut i = peak;
        while i_min < i && height < x[i as usize] {
            i -= 1;
        }
        let mut left = i as f64;
        if x[i as usize] < height {
            left += (height - x[i as usize]) / (x[i as usize + 1] - x[i as usize]);
        }
        i = peak;
        while i < i_max && height < x[i as usize] {
            i += 1;
        }
        let mut right = i as f64;
        if x[i as usize] < height {
            right -= (height - x[i as usize]) / (x[i as usize - 1] - x[i as usize]);
        }
        out[0].push(right - left);
        out[1].push(height);
        out[2].push(left);
        out[3].push(right);
    }
    out
}

/// How two priorities of the distance rule compare: as numbers (so -0.0
/// ties with 0.0, as in NumPy's sort; `total_cmp` would put -0.0 first
/// and part from the GPU and SciPy on quantized signals), NaN above
/// everything (where NumPy sorts it). `kernels/peaks.cu`'s `beats` is the
/// same order.
pub(crate) fn priority_order(a: f64, b: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Whether each peak survives the distance rule (greedy by priority).
pub(crate) fn by_distance(peaks: &[i64], priority: &[f64], distance: i64) -> Vec<bool> {
    let np = peaks.len();
    let mut order: Vec<usize> = (0..np).collect();
    // Ascending by priority, ties by position: the last is taken first
    // (a stable argsort taken from its end; SciPy's unstable argsort
    // leaves the order of ties to NumPy's sort and the host's SIMD).
    order.sort_by(|&a, &b| priority_order(priority[a], priority[b]).then(a.cmp(&b)));
    let mut keep = vec![true; np];
    for &j in order.iter().rev() {
        if !keep[j] {
            continue;
        }
        let mut k = j;
        while k > 0 && peaks[j] - peaks[k - 1] < distance {
            k -= 1;
            keep[k] = false;
        }
        k = j + 1;
        while k < np && peaks[k] - peaks[j] < distance {
            keep[k] = false;
            k += 1;
        }
    }
    keep
}

/// The plateaus `(left, right)` of the local maxima of `x` that meet
/// `conds`, in order: SciPy's `_local_maxima_1d` loop (a rise into `i`,
/// equal samples up to `right`, then a fall; comparisons with NaN are
/// false, so a NaN next to a plateau makes no peak), then the conditions.
pub(crate) fn local_peaks(x: &[f64], conds: &crate::ops::signal::PeakConds) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let n = x.len();
    if n < 3 {
        return out;
    }
    let i_max = n - 1;
    let mut i = 1;
    while i < i_max {
        if x[i - 1] < x[i] {
            let mut ahead = i + 1;
            while ahead < i_max && x[ahead] == x[i] {
                ahead += 1;
            }
            if x[ahead] < x[i] {
                if conds.keep(x, i, ahead - 1) {
                    out.push((i, ahead - 1));
                }
                i = ahead;
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::by_distance;

    #[test]
    fn distance_ties_go_to_the_later_peak() {
        // Equal heights: the last peak is taken first, then every other one.
        let peaks = [0i64, 2, 4, 6, 8];
        assert_eq!(
            by_distance(&peaks, &[1.0; 5], 3),
            [true, false, true, false, true]
        );
        assert_eq!(
            by_distance(&peaks[..4], &[1.0; 4], 3),
            [false, true, false, true]
        );
        // -0.0 ties with 0.0 (NumPy compares them equal), whichever is first.
        assert_eq!(by_distance(&[1, 3], &[0.0, -0.0], 3), [false, true]);
        assert_eq!(by_distance(&[1, 3], &[-0.0, 0.0], 3), [false, true]);
        // A higher peak wins whatever its position; NaN ranks above all.
        assert_eq!(by_distance(&[1, 3], &[2.0, 1.0], 3), [true, false]);
        assert_eq!(by_distance(&[1, 3], &[f64::NAN, 5.0], 3), [true, false]);
        assert_eq!(
            by_distance(&[1, 3], &[f64::NAN, f64::NAN], 3),
            [false, true]
        );
    }
}

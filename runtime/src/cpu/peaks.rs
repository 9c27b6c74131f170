//! Peak scans on the host (`peak_prominences`, `peak_widths`, the
//! distance rule of `find_peaks`): SciPy's loops, one peak at a time.

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

/// Whether each peak survives the distance rule (greedy by priority).
pub(crate) fn by_distance(peaks: &[i64], priority: &[f64], distance: i64) -> Vec<bool> {
    let np = peaks.len();
    let mut order: Vec<usize> = (0..np).collect();
    // Ascending by priority, ties by position: the last is taken first.
    order.sort_by(|&a, &b| priority[a].total_cmp(&priority[b]).then(a.cmp(&b)));
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

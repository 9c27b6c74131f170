//! cp::signal's peak finding (find_peaks, peak_prominences, peak_widths,
//! argrelextrema), analytic signals (hilbert, hilbert2) and
//! Savitzky-Golay filters against SciPy 1.17 (fixtures of
//! tests/data/scipy/generate_spectra.py), the GPU against the CPU backend
//! on random signals, and bad input.

use crate::common;
use crate::spectra_fixtures as fixtures;

use common::values_f64;
use cp::signal::{
    argrelextrema, argrelmax, argrelmin, find_peaks, hilbert, hilbert2, peak_prominences,
    peak_widths, savgol_coeffs, savgol_filter, Bounds, Comparator, ExtremaMode, FindPeaksOptions,
    SavgolMode, SavgolOptions,
};
use cp::{Array, DType};
use cuprite as cp;
use fixtures::{assert_c_close, assert_idx, assert_vec_close, fx, fx_c64, fx_f64, fx_i64};

fn dev_fx(key: &str, dev: cp::Device) -> Array {
    fx(key).to_device(&dev).unwrap()
}

on_every_device!(find_peaks_matches_scipy, |dev| {
    let xp = dev_fx("peaks/xp", dev);
    let (pk, props) = find_peaks(&xp, FindPeaksOptions::default())?;
    assert_idx("plain", &pk, &fx_i64("find_peaks/plain"));
    assert!(props.peak_heights.is_none());
    let o = FindPeaksOptions {
        plateau_size: Some(1.0.into()),
        ..Default::default()
    };
    let (_, props) = find_peaks(&xp, o)?;
    assert_idx(
        "left_edges",
        props.left_edges.as_ref().unwrap(),
        &fx_i64("find_peaks/plateau/left_edges"),
    );
    assert_idx(
        "right_edges",
        props.right_edges.as_ref().unwrap(),
        &fx_i64("find_peaks/plateau/right_edges"),
    );
    assert_idx(
        "sizes",
        props.plateau_sizes.as_ref().unwrap(),
        &fx_i64("find_peaks/plateau/plateau_sizes"),
    );
    let o = FindPeaksOptions {
        height: Some(3.0.into()),
        threshold: Some(0.5.into()),
        ..Default::default()
    };
    let (pk, props) = find_peaks(&xp, o)?;
    assert_idx(
        "height_threshold",
        &pk,
        &fx_i64("find_peaks/height_threshold"),
    );
    for (name, got) in [
        ("peak_heights", &props.peak_heights),
        ("left_thresholds", &props.left_thresholds),
        ("right_thresholds", &props.right_thresholds),
    ] {
        let key = format!("find_peaks/height_threshold/{name}");
        assert_vec_close(
            name,
            &values_f64(got.as_ref().unwrap()),
            &fx_f64(&key),
            1e-15,
        );
    }
    let o = FindPeaksOptions {
        distance: Some(3.0),
        ..Default::default()
    };
    assert_idx(
        "distance",
        &find_peaks(&xp, o)?.0,
        &fx_i64("find_peaks/distance"),
    );
    let o = FindPeaksOptions {
        prominence: Some(2.0.into()),
        width: Some(1.0.into()),
        ..Default::default()
    };
    let (pk, props) = find_peaks(&xp, o)?;
    assert_idx("prom_width", &pk, &fx_i64("find_peaks/prom_width"));
    check_props("prom_width", &props);
    let xs = dev_fx("peaks/xs", dev);
    let o = FindPeaksOptions {
        height: Some(0.5.into()),
        distance: Some(40.0),
        prominence: Some(0.3.into()),
        width: Some((2.0, 80.0).into()),
        ..Default::default()
    };
    let (pk, props) = find_peaks(&xs, o)?;
    assert_idx("xs", &pk, &fx_i64("find_peaks/xs"));
    check_props("xs", &props);
});

on_every_device!(find_peaks_ties_and_nans_match_scipy, |dev| {
    let distance = |d: f64| FindPeaksOptions {
        distance: Some(d),
        ..Default::default()
    };
    for case in ["zero_first", "negzero_first", "equal4"] {
        let x = dev_fx(&format!("peaks/ties/{case}"), dev);
        let want = fx_i64(&format!("find_peaks/ties/{case}"));
        assert_idx(case, &find_peaks(&x, distance(3.0))?.0, &want);
    }
    let xn = dev_fx("peaks/nan", dev);
    let (pk, _) = find_peaks(&xn, FindPeaksOptions::default())?;
    assert_idx("nan", &pk, &fx_i64("find_peaks/nan"));
    // Many ties (0.0, -0.0 and equal heights) against the rule written out:
    // by decreasing height, -0.0 equal to 0.0, ties to the later peak.
    let heights = [0.0, -0.0, 1.0, -0.0, 0.0, 0.0, 1.0, 1.0, -0.0, 2.0];
    let n = 4001;
    let mut xv = vec![-1.0f64; n];
    let mut peaks = Vec::new();
    for (k, i) in (1..n - 1).step_by(2).enumerate() {
        xv[i] = heights[(k * 7 + k / 3) % heights.len()];
        peaks.push(i as i64);
    }
    let x = cp::asarray(xv.clone())?.to_device(&dev)?;
    for d in [3i64, 4, 5, 9] {
        let mut order: Vec<usize> = (0..peaks.len()).collect();
        order.sort_by(|&a, &b| {
            let (ha, hb) = (xv[peaks[a] as usize], xv[peaks[b] as usize]);
            ha.partial_cmp(&hb).unwrap().then(a.cmp(&b))
        });
        let mut keep = vec![true; peaks.len()];
        for &j in order.iter().rev() {
            if keep[j] {
                for (k, kept) in keep.iter_mut().enumerate() {
                    *kept &= k == j || (peaks[k] - peaks[j]).abs() >= d;
                }
            }
        }
        let want: Vec<i64> = (0..peaks.len())
            .filter(|&k| keep[k])
            .map(|k| peaks[k])
            .collect();
        let got = find_peaks(&x, distance(d as f64))?.0.to_vec::<i64>()?;
        assert_eq!(got, want, "distance {d}");
    }
});

fn check_props(case: &str, p: &cp::signal::PeakProperties) {
    let fields = [
        ("prominences", &p.prominences),
        ("left_bases", &p.left_bases),
        ("right_bases", &p.right_bases),
        ("widths", &p.widths),
        ("left_ips", &p.left_ips),
        ("right_ips", &p.right_ips),
    ];
    for (name, got) in fields {
        let key = format!("find_peaks/{case}/{name}");
        assert_vec_close(
            &key,
            &values_f64(got.as_ref().unwrap()),
            &fx_f64(&key),
            1e-12,
        );
    }
}

on_every_device!(prominences_and_widths_match_scipy, |dev| {
    let xs = dev_fx("peaks/xs", dev);
    let pk = dev_fx("peak_prominences/wlen51/peaks", dev);
    let (p, l, r) = peak_prominences(&xs, &pk, Some(51.0))?;
    assert_vec_close(
        "prom",
        &values_f64(&p),
        &fx_f64("peak_prominences/wlen51/prominences"),
        1e-12,
    );
    assert_idx("left", &l, &fx_i64("peak_prominences/wlen51/left_bases"));
    assert_idx("right", &r, &fx_i64("peak_prominences/wlen51/right_bases"));
    for (case, rel) in [("rel1", 1.0), ("rel05", 0.5)] {
        let (w, h, li, ri) = peak_widths(&xs, &pk, rel, None, None)?;
        for (name, got) in [
            ("widths", w),
            ("width_heights", h),
            ("left_ips", li),
            ("right_ips", ri),
        ] {
            let key = format!("peak_widths/{case}/{name}");
            assert_vec_close(&key, &values_f64(&got), &fx_f64(&key), 1e-12);
        }
    }
    let bad = cp::asarray(vec![1i64, 5000])?.to_device(&dev)?;
    assert!(peak_prominences(&xs, &bad, None).is_err());
    assert!(peak_widths(&xs, &pk, -1.0, None, None).is_err());
    assert!(peak_prominences(&xs, &pk, Some(1.0)).is_err());
});

on_every_device!(argrelextrema_matches_scipy, |dev| {
    let xe = dev_fx("argrel/xe", dev);
    for (name, f) in [
        (
            "argrelmax",
            argrelmax as fn(&Array, isize, usize, ExtremaMode) -> cp::Result<Vec<Array>>,
        ),
        ("argrelmin", argrelmin),
    ] {
        for order in [1usize, 2] {
            for (mname, mode) in [("clip", ExtremaMode::Clip), ("wrap", ExtremaMode::Wrap)] {
                for axis in [0isize, 1] {
                    let r = f(&xe, axis, order, mode)?;
                    for (i, got) in r.iter().enumerate() {
                        let key = format!("{name}/{order}/{mname}/{axis}/{i}");
                        assert_idx(&key, got, &fx_i64(&key));
                    }
                }
            }
        }
    }
    let xs = dev_fx("peaks/xs", dev);
    let r = argrelextrema(&xs, Comparator::GreaterEqual, 0, 3, ExtremaMode::Clip)?;
    assert_idx("ge3", &r[0], &fx_i64("argrelextrema/ge3"));
    assert!(argrelmax(&xs, 0, 0, ExtremaMode::Clip).is_err());
});

on_every_device!(hilbert_matches_scipy, |dev| {
    let x = dev_fx("x", dev);
    assert_c_close(
        "hilbert",
        &hilbert(&x, None, -1)?,
        &fx_c64("hilbert/x"),
        1e-12,
    );
    assert_c_close(
        "n800",
        &hilbert(&x, Some(800), -1)?,
        &fx_c64("hilbert/x_n800"),
        1e-12,
    );
    let odd = cp::signal::detrend(&x, -1, cp::signal::Detrend::None, &[])?;
    let odd = odd.slice(cp::s![0..599])?;
    assert_c_close(
        "odd",
        &hilbert(&odd, None, -1)?,
        &fx_c64("hilbert/x_odd"),
        1e-12,
    );
    let x2 = dev_fx("x2", dev);
    assert_c_close(
        "axis0",
        &hilbert(&x2, None, 0)?,
        &fx_c64("hilbert/x2_axis0"),
        1e-12,
    );
    let x2s = x2.slice(cp::s![.., 0..40])?;
    assert_c_close(
        "hilbert2",
        &hilbert2(&x2s, None, [-2, -1])?,
        &fx_c64("hilbert2/x2"),
        1e-12,
    );
    let c = x.astype(DType::Complex128)?;
    assert!(hilbert(&c, None, -1).is_err());
    assert!(hilbert2(&x, None, [-2, -1]).is_err());
    assert!(hilbert2(&x2, None, [0, 0]).is_err());
});

#[test]
fn savgol_coeffs_match_scipy() {
    for (wl, po, deriv) in [(7usize, 2usize, 0usize), (11, 3, 1), (10, 4, 2), (5, 0, 0)] {
        let key = format!("savgol_coeffs/{wl}_{po}_{deriv}");
        let c = savgol_coeffs(wl, po, deriv, 1.0, None, true).unwrap();
        assert_vec_close(&key, &c, &fx_f64(&key), 1e-12);
        let d = savgol_coeffs(wl, po, deriv, 1.0, None, false).unwrap();
        assert_vec_close(&key, &d, &fx_f64(&format!("{key}/dot")), 1e-12);
    }
    let c = savgol_coeffs(9, 3, 0, 1.0, Some(2.0), true).unwrap();
    assert_vec_close("pos2", &c, &fx_f64("savgol_coeffs/9_3_pos2"), 1e-12);
    assert!(savgol_coeffs(5, 5, 0, 1.0, None, true).is_err());
    assert!(savgol_coeffs(5, 2, 0, 1.0, Some(5.0), true).is_err());
}

on_every_device!(savgol_filter_matches_scipy, |dev| {
    let x = dev_fx("x", dev);
    for (name, mode) in [
        ("interp", SavgolMode::Interp),
        ("mirror", SavgolMode::Mirror),
        ("constant", SavgolMode::Constant(0.0)),
        ("nearest", SavgolMode::Nearest),
        ("wrap", SavgolMode::Wrap),
    ] {
        let o = SavgolOptions {
            mode,
            ..Default::default()
        };
        let y = savgol_filter(&x, 21, 3, o)?;
        assert_vec_close(
            name,
            &values_f64(&y),
            &fx_f64(&format!("savgol/{name}")),
            1e-11,
        );
        let o = SavgolOptions {
            mode,
            deriv: 1,
            delta: 0.01,
            ..Default::default()
        };
        let y = savgol_filter(&x, 20, 2, o)?;
        assert_vec_close(
            name,
            &values_f64(&y),
            &fx_f64(&format!("savgol/{name}/d1")),
            1e-10,
        );
    }
    let x2 = dev_fx("x2", dev);
    let o = SavgolOptions {
        axis: 0,
        ..Default::default()
    };
    let y = savgol_filter(&x2, 3, 1, o)?;
    assert_vec_close("axis0", &values_f64(&y), &fx_f64("savgol/x2_axis0"), 1e-12);
    assert!(savgol_filter(&x2, 5, 2, o).is_err());
});

#[test]
fn gpu_peaks_match_cpu_on_random_signals() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let seed = common::test_seed("gpu_peaks_match_cpu_on_random_signals");
    let xc = cp::with_device(cp::Device::Cpu, || {
        common::rand(&[200_000], DType::Float64, seed)
    });
    // Quantized values make plateaus and ties.
    let xc = cp::round(cp::multiply(&xc, 20.0).unwrap()).unwrap();
    let xg = xc.to_device(&dev).unwrap();
    cp::cuda::reset_host_fallbacks();
    let o = FindPeaksOptions {
        height: Some(Bounds {
            min: Some(-5.0),
            max: Some(15.0),
        }),
        threshold: Some((0.0, 30.0).into()),
        distance: Some(7.0),
        prominence: Some(1.0.into()),
        width: Some(0.5.into()),
        wlen: Some(301.0),
        plateau_size: Some(1.0.into()),
        ..Default::default()
    };
    let (pc, propc) = find_peaks(&xc, o).unwrap();
    let (pg, propg) = find_peaks(&xg, o).unwrap();
    let sc = savgol_filter(&xc, 31, 4, SavgolOptions::default()).unwrap();
    let sg = savgol_filter(&xg, 31, 4, SavgolOptions::default()).unwrap();
    let hc = hilbert(&xc, None, -1).unwrap();
    let hg = hilbert(&xg, None, -1).unwrap();
    let ac = argrelmax(&xc, 0, 3, ExtremaMode::Wrap).unwrap();
    let ag = argrelmax(&xg, 0, 3, ExtremaMode::Wrap).unwrap();
    common::assert_no_host_fallback("find_peaks, savgol_filter, hilbert, argrelmax");
    assert!(pc.size() > 100, "{}", pc.size());
    assert_eq!(pc.to_vec::<i64>().unwrap(), pg.to_vec::<i64>().unwrap());
    assert_vec_close(
        "widths",
        &values_f64(propg.widths.as_ref().unwrap()),
        &values_f64(propc.widths.as_ref().unwrap()),
        1e-12,
    );
    assert_vec_close("savgol", &values_f64(&sg), &values_f64(&sc), 1e-10);
    assert_c_close("hilbert", &hg, &common::cvals(&hc), 1e-10);
    assert_eq!(
        ac[0].to_vec::<i64>().unwrap(),
        ag[0].to_vec::<i64>().unwrap()
    );
}

#[test]
fn bad_peak_input_is_an_error() {
    cp::with_device(cp::Device::Cpu, || {
        let x2 = fx("x2").clone();
        assert!(matches!(
            find_peaks(&x2, FindPeaksOptions::default()),
            Err(cp::Error::Shape {
                op: "find_peaks",
                ..
            })
        ));
        let x = fx("x").clone();
        let o = FindPeaksOptions {
            distance: Some(0.5),
            ..Default::default()
        };
        assert!(find_peaks(&x, o).is_err());
        let o = FindPeaksOptions {
            height: Some(f64::NAN.into()),
            ..Default::default()
        };
        assert!(find_peaks(&x, o).is_err());
        let short = cp::asarray(vec![1.0f64, 2.0]).unwrap();
        assert_eq!(
            find_peaks(&short, FindPeaksOptions::default())
                .unwrap()
                .0
                .size(),
            0
        );
    });
}

/// SciPy's `_local_maxima_1d` loop and the plateau, height and threshold
/// conditions written out: the kept (left edge, right edge) plateaus.
fn local_peaks_direct(x: &[f64], o: &FindPeaksOptions) -> Vec<(usize, usize)> {
    let within = |v: f64, b: Option<Bounds>| {
        b.is_none_or(|b| b.min.is_none_or(|m| m <= v) && b.max.is_none_or(|m| v <= m))
    };
    let mut out = Vec::new();
    let mut i = 1;
    while i + 1 < x.len() {
        if x[i - 1] < x[i] {
            let mut ahead = i + 1;
            while ahead < x.len() - 1 && x[ahead] == x[i] {
                ahead += 1;
            }
            if x[ahead] < x[i] {
                let (l, r) = (i, ahead - 1);
                let p = (l + r) / 2;
                let (tl, tr) = (x[p] - x[p - 1], x[p] - x[p + 1]);
                let thr = o.threshold.is_none_or(|b| {
                    b.min
                        .is_none_or(|m| tl.min(tr) >= m && !tl.is_nan() && !tr.is_nan())
                        && b.max
                            .is_none_or(|m| tl.max(tr) <= m && !tl.is_nan() && !tr.is_nan())
                });
                if within((r - l + 1) as f64, o.plateau_size) && within(x[p], o.height) && thr {
                    out.push((l, r));
                }
                i = ahead;
            }
        }
        i += 1;
    }
    out
}

fn same_bits(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{what}[{i}]: got {g}, want {w}"
        );
    }
}

// The fused local-maximum pass (and, on the GPU, the array path it leaves
// long plateaus to) against SciPy's loop: plateaus at either end, NaN and
// infinities next to and inside plateaus, signed zeros, an all-equal
// signal, a plateau longer than one GPU thread walks, tiny signals, and
// many tiles of quantized and plain random data, under every combination
// of the conditions the pass tests.
on_every_device!(find_peaks_local_conditions_match_scipy_loop, |dev| {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let mut signals: Vec<(String, Vec<f64>)> = vec![
        ("empty".into(), vec![]),
        ("one".into(), vec![1.0]),
        ("two".into(), vec![0.0, 1.0]),
        ("three".into(), vec![0.0, 1.0, 0.0]),
        ("rise_to_end".into(), vec![0.0, 1.0, 1.0, 1.0]),
        ("fall_from_start".into(), vec![1.0, 1.0, 1.0, 0.0]),
        ("flat_peak".into(), vec![0.0, 2.0, 2.0, 2.0, 2.0, 1.0]),
        ("nan_right".into(), vec![0.0, 1.0, nan, 0.0, 3.0, 3.0, nan]),
        ("nan_left".into(), vec![0.0, nan, 1.0, 0.0, 2.0, 1.0]),
        ("nan_inside".into(), vec![0.0, 1.0, nan, 1.0, 0.0, 5.0, 0.0]),
        (
            "infinities".into(),
            vec![0.0, inf, inf, 0.0, -inf, 1.0, -inf, 2.0, inf],
        ),
        (
            "signed_zeros".into(),
            vec![-1.0, 0.0, -0.0, 0.0, -1.0, -0.0, 0.0, -1.0],
        ),
        ("all_equal".into(), vec![0.25; 5000]),
    ];
    // Longer than the GPU walks (1024 samples): a peak, and a rise into
    // a plateau that reaches the end, among ordinary peaks.
    let mut long = vec![0.0; 9000];
    for (i, v) in long.iter_mut().enumerate() {
        *v = ((i * 37) % 11) as f64;
    }
    long[2000..5000].iter_mut().for_each(|v| *v = 20.0);
    long[7000..].iter_mut().for_each(|v| *v = 30.0);
    signals.push(("long_plateaus".into(), long));
    let seed = common::test_seed("find_peaks_local_conditions_match_scipy_loop");
    let rnd = |n: usize, s: u64| {
        cp::with_device(cp::Device::Cpu, || {
            common::rand(&[n], DType::Float64, s).to_vec::<f64>()
        })
        .unwrap()
    };
    let mut quantized: Vec<f64> = rnd(50_001, seed)
        .iter()
        .map(|v| (v * 5.0).round())
        .collect();
    for k in (0..quantized.len()).step_by(997) {
        quantized[k] = nan;
    }
    signals.push(("quantized".into(), quantized));
    signals.push(("random".into(), rnd(300_007, seed + 1)));
    let b = |lo: Option<f64>, hi: Option<f64>| Some(Bounds { min: lo, max: hi });
    let opts = [
        FindPeaksOptions::default(),
        FindPeaksOptions {
            height: b(Some(0.5), None),
            ..Default::default()
        },
        FindPeaksOptions {
            height: b(None, Some(1.5)),
            threshold: b(Some(0.5), None),
            ..Default::default()
        },
        FindPeaksOptions {
            threshold: b(Some(0.0), Some(2.0)),
            plateau_size: b(Some(2.0), None),
            ..Default::default()
        },
        FindPeaksOptions {
            plateau_size: b(Some(1.0), Some(3.0)),
            height: b(Some(-1.0), Some(4.0)),
            threshold: b(None, Some(3.0)),
            ..Default::default()
        },
    ];
    for (name, xv) in &signals {
        let x = cp::asarray(xv.clone())?.to_device(&dev)?;
        for (oi, o) in opts.iter().enumerate() {
            let what = format!("{name} options {oi}");
            let want = local_peaks_direct(xv, o);
            let mids: Vec<usize> = want.iter().map(|&(l, r)| (l + r) / 2).collect();
            let (pk, props) = find_peaks(&x, *o)?;
            let ints = |v: Vec<usize>| v.into_iter().map(|i| i as i64).collect::<Vec<i64>>();
            assert_eq!(pk.to_vec::<i64>()?, ints(mids.clone()), "{what}");
            if o.plateau_size.is_some() {
                let l: Vec<usize> = want.iter().map(|e| e.0).collect();
                let r: Vec<usize> = want.iter().map(|e| e.1).collect();
                let s: Vec<usize> = want.iter().map(|e| e.1 - e.0 + 1).collect();
                let got = |a: &Option<Array>| a.as_ref().unwrap().to_vec::<i64>().unwrap();
                assert_eq!(got(&props.left_edges), ints(l), "{what}");
                assert_eq!(got(&props.right_edges), ints(r), "{what}");
                assert_eq!(got(&props.plateau_sizes), ints(s), "{what}");
            } else {
                assert!(props.left_edges.is_none() && props.plateau_sizes.is_none());
            }
            let vals = |a: &Option<Array>| a.as_ref().unwrap().to_vec::<f64>().unwrap();
            if o.height.is_some() {
                let h: Vec<f64> = mids.iter().map(|&p| xv[p]).collect();
                same_bits(&what, &vals(&props.peak_heights), &h);
            } else {
                assert!(props.peak_heights.is_none());
            }
            if o.threshold.is_some() {
                let l: Vec<f64> = mids.iter().map(|&p| xv[p] - xv[p - 1]).collect();
                let r: Vec<f64> = mids.iter().map(|&p| xv[p] - xv[p + 1]).collect();
                same_bits(&what, &vals(&props.left_thresholds), &l);
                same_bits(&what, &vals(&props.right_thresholds), &r);
            } else {
                assert!(props.left_thresholds.is_none());
            }
        }
    }
});

//! cp::signal's resampling (upfirdn, resample_poly, decimate, resample)
//! and the Lomb-Scargle periodogram against SciPy 1.17 (fixtures of
//! tests/data/scipy/generate_spectra.py), the GPU against the CPU backend,
//! and bad input.

use crate::common;
use crate::spectra_fixtures as fixtures;

use common::values_f64;
use cp::signal::{
    decimate, lombscargle, resample, resample_poly, upfirdn, DecimateFilter, LombNormalize,
    LombscargleOptions, Window,
};
use cp::{Array, DType};
use cuprite as cp;
use fixtures::{assert_vec_close, fx, fx_f64};

fn dev_fx(key: &str, dev: cp::Device) -> Array {
    fx(key).to_device(&dev).unwrap()
}

on_every_device!(upfirdn_matches_scipy, |dev| {
    let (h, x) = (dev_fx("upfirdn/h", dev), dev_fx("x", dev));
    for (up, down) in [(1usize, 1usize), (3, 1), (1, 3), (3, 2), (2, 5)] {
        let key = format!("upfirdn/{up}_{down}");
        let y = upfirdn(&h, &x, up, down, -1)?;
        assert_vec_close(&key, &values_f64(&y), &fx_f64(&key), 1e-12);
    }
    let x2 = dev_fx("x2", dev);
    let y = upfirdn(&h, &x2, 3, 2, -1)?;
    assert_eq!(y.shape(), fx("upfirdn/x2_3_2").shape());
    assert_vec_close("x2", &values_f64(&y), &fx_f64("upfirdn/x2_3_2"), 1e-12);
});

on_every_device!(resample_poly_and_decimate_match_scipy, |dev| {
    let x = dev_fx("x", dev);
    for (up, down) in [(3usize, 2usize), (2, 3), (1, 4), (5, 1), (7, 7)] {
        let key = format!("resample_poly/{up}_{down}");
        let y = resample_poly(&x, up, down, -1, Window::Kaiser(5.0))?;
        assert_vec_close(&key, &values_f64(&y), &fx_f64(&key), 1e-12);
    }
    let y = resample_poly(&x, 3, 2, -1, Window::Hamming)?;
    assert_vec_close(
        "hamming",
        &values_f64(&y),
        &fx_f64("resample_poly/3_2_hamming"),
        1e-12,
    );
    let x2 = dev_fx("x2", dev);
    let y = resample_poly(&x2, 3, 2, 0, Window::Kaiser(5.0))?;
    assert_eq!(y.shape(), fx("resample_poly/x2_axis0_3_2").shape());
    assert_vec_close(
        "x2",
        &values_f64(&y),
        &fx_f64("resample_poly/x2_axis0_3_2"),
        1e-12,
    );
    let y = decimate(&x, 4, None, DecimateFilter::Iir, -1)?;
    assert_vec_close("iir4", &values_f64(&y), &fx_f64("decimate/iir4"), 1e-9);
    let y = decimate(&x, 3, None, DecimateFilter::Fir, -1)?;
    assert_vec_close("fir3", &values_f64(&y), &fx_f64("decimate/fir3"), 1e-12);
    let y = decimate(&x, 5, Some(4), DecimateFilter::Iir, -1)?;
    assert_vec_close("iir5", &values_f64(&y), &fx_f64("decimate/iir5_n4"), 1e-9);
});

on_every_device!(resample_matches_scipy, |dev| {
    let x = dev_fx("x", dev);
    for (num, key) in [(250usize, "resample/x_250"), (1000, "resample/x_1000")] {
        let y = resample(&x, num, -1)?;
        assert_vec_close(key, &values_f64(&y), &fx_f64(key), 1e-12);
    }
    let odd = x.slice(cp::s![0..599])?;
    let y = resample(&odd, 233, -1)?;
    assert_vec_close("odd", &values_f64(&y), &fx_f64("resample/x_odd_233"), 1e-12);
    let x2 = dev_fx("x2", dev);
    let y = resample(&x2, 7, 0)?;
    assert_eq!(y.shape(), &[7, 300]);
    assert_vec_close("x2", &values_f64(&y), &fx_f64("resample/x2_axis0_7"), 1e-12);
});

on_every_device!(lombscargle_matches_scipy, |dev| {
    let (t, y, f) = (
        dev_fx("lomb/t", dev),
        dev_fx("lomb/y", dev),
        dev_fx("lomb/f", dev),
    );
    let cases = [
        ("lomb/default", LombscargleOptions::default()),
        (
            "lomb/normalize",
            LombscargleOptions {
                normalize: LombNormalize::Normalize,
                ..Default::default()
            },
        ),
        (
            "lomb/precenter",
            LombscargleOptions {
                precenter: true,
                ..Default::default()
            },
        ),
        (
            "lomb/floating",
            LombscargleOptions {
                floating_mean: true,
                ..Default::default()
            },
        ),
    ];
    for (key, o) in cases {
        let p = lombscargle(&t, &y, &f, o)?;
        assert_vec_close(key, &values_f64(&p), &fx_f64(key), 1e-10);
    }
    let amp = lombscargle(
        &t,
        &y,
        &f,
        LombscargleOptions {
            normalize: LombNormalize::Amplitude,
            ..Default::default()
        },
    )?;
    assert_eq!(amp.dtype(), DType::Complex128);
    assert!(lombscargle(&t, &f, &f, LombscargleOptions::default()).is_err());
});

#[test]
fn gpu_resampling_matches_cpu_on_random_signals() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let seed = common::test_seed("gpu_resampling_matches_cpu_on_random_signals");
    for dt in [DType::Float32, DType::Float64] {
        let tol = if dt == DType::Float32 { 1e-5 } else { 1e-12 };
        let xc = cp::with_device(cp::Device::Cpu, || common::rand(&[3, 20_001], dt, seed));
        let xg = xc.to_device(&dev).unwrap();
        cp::cuda::reset_host_fallbacks();
        let pairs = [
            (
                resample_poly(&xc, 3, 2, -1, Window::Kaiser(5.0)).unwrap(),
                resample_poly(&xg, 3, 2, -1, Window::Kaiser(5.0)).unwrap(),
            ),
            (
                decimate(&xc, 3, None, DecimateFilter::Fir, -1).unwrap(),
                decimate(&xg, 3, None, DecimateFilter::Fir, -1).unwrap(),
            ),
            (
                resample(&xc, 7001, -1).unwrap(),
                resample(&xg, 7001, -1).unwrap(),
            ),
        ];
        common::assert_no_host_fallback("resample_poly, decimate, resample");
        for (i, (c, g)) in pairs.iter().enumerate() {
            assert_eq!(c.dtype(), g.dtype());
            assert_vec_close(
                &format!("case {i} {dt}"),
                &values_f64(g),
                &values_f64(c),
                tol,
            );
        }
    }
}

#[test]
fn bad_resampling_input_is_an_error() {
    cp::with_device(cp::Device::Cpu, || {
        let x = fx("x").clone();
        let h = fx("upfirdn/h").clone();
        assert!(matches!(
            upfirdn(&h, &x, 0, 1, -1),
            Err(cp::Error::InvalidArgument { op: "upfirdn", .. })
        ));
        assert!(upfirdn(&fx("x2").clone(), &x, 1, 1, -1).is_err());
        assert!(resample_poly(&x, 0, 2, -1, Window::Hann).is_err());
        assert!(resample(&x, 0, -1).is_err());
        assert!(decimate(&x, 0, None, DecimateFilter::Iir, -1).is_err());
        let c = x.astype(DType::Complex128).unwrap();
        assert!(resample_poly(&c, 3, 2, -1, Window::Hann).is_err());
        assert!(resample(&x, 10, 3).is_err());
    });
}

/// SciPy's upfirdn written out: zeros stuffed between the samples, the full
/// convolution with `h`, every `down`-th output.
fn upfirdn_direct(h: &[f64], x: &[f64], up: usize, down: usize) -> Vec<f64> {
    let full = (x.len() - 1) * up + 1 + h.len() - 1;
    (0..full)
        .step_by(down)
        .map(|t| {
            let mut acc = 0.0;
            for (k, &hk) in h.iter().enumerate() {
                if t >= k && (t - k) % up == 0 && (t - k) / up < x.len() {
                    acc += hk * x[(t - k) / up];
                }
            }
            acc
        })
        .collect()
}

/// SciPy's resample_poly written out over `upfirdn_direct` (the filter
/// padded in front to a multiple of `down`, outputs trimmed).
fn resample_poly_direct(h: &[f64], x: &[f64], up: usize, down: usize) -> Vec<f64> {
    let half_len = (h.len() - 1) / 2;
    let n_out = (x.len() * up).div_ceil(down);
    let pre = down - half_len % down;
    let mut padded = vec![0.0; pre];
    padded.extend(h.iter().map(|v| v * up as f64));
    // Enough zeros behind for n_out outputs past the dropped ones.
    padded.extend(std::iter::repeat_n(0.0, h.len() + 2 * down));
    let remove = (half_len + pre) / down;
    upfirdn_direct(&padded, x, up, down)[remove..remove + n_out].to_vec()
}

// Every up / down pair shape of the polyphase kernel (up or down 1, up
// above the filter length so some phases have no taps, long and short
// filters, a one-sample signal) against the definition, on each device.
on_every_device!(upfirdn_matches_its_definition, |dev| {
    let seed = common::test_seed("upfirdn_matches_its_definition");
    let host = |n: usize, s: u64| {
        cp::with_device(cp::Device::Cpu, || {
            common::rand(&[n], DType::Float64, s).to_vec::<f64>()
        })
        .unwrap()
    };
    let pairs = [
        (1usize, 1usize),
        (3, 1),
        (1, 3),
        (3, 2),
        (2, 3),
        (5, 7),
        (7, 5),
        (8, 1),
    ];
    for (ti, taps) in [1usize, 2, 3, 61, 301].into_iter().enumerate() {
        let h = host(taps, seed + ti as u64);
        for (xi, n) in [1usize, 2, 17, 1000].into_iter().enumerate() {
            let x = host(n, seed + 100 + xi as u64);
            for (up, down) in pairs {
                let want = upfirdn_direct(&h, &x, up, down);
                let what = format!("{taps} taps, {n} samples, {up}/{down}");
                for dt in [DType::Float64, DType::Float32] {
                    let xa = cp::asarray(x.clone())?.astype(dt)?.to_device(&dev)?;
                    let ha = cp::asarray(h.clone())?.astype(dt)?.to_device(&dev)?;
                    let y = upfirdn(&ha, &xa, up, down, -1)?;
                    assert_eq!(y.dtype(), dt);
                    // float32 data and taps: the inputs already rounded.
                    let want: Vec<f64> = if dt == DType::Float32 {
                        let r = |v: &[f64]| v.iter().map(|&a| a as f32 as f64).collect::<Vec<_>>();
                        upfirdn_direct(&r(&h), &r(&x), up, down)
                    } else {
                        want.clone()
                    };
                    let tol = if dt == DType::Float32 { 1e-6 } else { 1e-13 };
                    assert_vec_close(&what, &values_f64(&y), &want, tol);
                }
            }
        }
    }
    // resample_poly's centred filter, the Kaiser default and a long one.
    for (up, down) in [(3usize, 2usize), (2, 3), (1, 4), (5, 1), (13, 11)] {
        let x = host(777, seed + 7);
        let g = (1..=up.min(down))
            .rev()
            .find(|g| up % g == 0 && down % g == 0)
            .unwrap();
        let (u, d) = (up / g, down / g);
        let m = u.max(d);
        let o = cp::signal::FirwinOptions {
            window: Window::Kaiser(5.0),
            ..Default::default()
        };
        let h = cp::with_device(cp::Device::Cpu, || {
            cp::signal::firwin(20 * m + 1, &[1.0 / m as f64], o)
        })?
        .to_vec::<f64>()?;
        let want = resample_poly_direct(&h, &x, u, d);
        let xa = cp::asarray(x.clone())?.to_device(&dev)?;
        let y = resample_poly(&xa, up, down, -1, Window::Kaiser(5.0))?;
        assert_vec_close(&format!("poly {up}/{down}"), &values_f64(&y), &want, 1e-13);
    }
});

// The GPU kernel against the CPU backend on rows along a leading axis,
// non-contiguous input, both index widths' sizes of the test range, and
// every caller (upfirdn, resample_poly, decimate).
#[test]
fn gpu_upfirdn_matches_cpu_on_every_path() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let seed = common::test_seed("gpu_upfirdn_matches_cpu_on_every_path");
    for dt in [DType::Float32, DType::Float64] {
        let tol = if dt == DType::Float32 { 1e-5 } else { 1e-12 };
        let xc = cp::with_device(cp::Device::Cpu, || common::rand(&[4, 30_011], dt, seed));
        let xg = xc.to_device(&dev).unwrap();
        let hc = cp::with_device(cp::Device::Cpu, || common::rand(&[45], dt, seed + 1));
        let hg = hc.to_device(&dev).unwrap();
        let strided = |a: &Array| a.slice(cp::s![.., ..;3]).unwrap();
        let col = |a: &Array| a.slice(cp::s![..2, ..]).unwrap().t();
        cp::cuda::reset_host_fallbacks();
        let mut pairs = Vec::new();
        for (up, down) in [(1usize, 1usize), (3, 2), (1, 5), (4, 1), (2, 7)] {
            pairs.push((
                upfirdn(&hc, &xc, up, down, -1).unwrap(),
                upfirdn(&hg, &xg, up, down, -1).unwrap(),
            ));
            pairs.push((
                upfirdn(&hc, &strided(&xc), up, down, -1).unwrap(),
                upfirdn(&hg, &strided(&xg), up, down, -1).unwrap(),
            ));
            pairs.push((
                upfirdn(&hc, &col(&xc), up, down, 0).unwrap(),
                upfirdn(&hg, &col(&xg), up, down, 0).unwrap(),
            ));
            pairs.push((
                resample_poly(&xc, up, down, -1, Window::Kaiser(5.0)).unwrap(),
                resample_poly(&xg, up, down, -1, Window::Kaiser(5.0)).unwrap(),
            ));
            pairs.push((
                resample_poly(&col(&xc), up, down, 0, Window::Hamming).unwrap(),
                resample_poly(&col(&xg), up, down, 0, Window::Hamming).unwrap(),
            ));
        }
        pairs.push((
            decimate(&xc, 6, None, DecimateFilter::Fir, -1).unwrap(),
            decimate(&xg, 6, None, DecimateFilter::Fir, -1).unwrap(),
        ));
        // Taps on the host with data on the GPU follow the data.
        pairs.push((
            upfirdn(&hc, &xc, 3, 2, -1).unwrap(),
            upfirdn(&hc, &xg, 3, 2, -1).unwrap(),
        ));
        common::assert_no_host_fallback("upfirdn, resample_poly, decimate");
        for (i, (c, g)) in pairs.iter().enumerate() {
            assert_eq!(c.dtype(), g.dtype(), "case {i}");
            assert_eq!(c.shape(), g.shape(), "case {i}");
            assert_vec_close(
                &format!("case {i} {dt}"),
                &values_f64(g),
                &values_f64(c),
                tol,
            );
        }
    }
}

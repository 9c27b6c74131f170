//! cp::signal's windows, spectral estimates (welch, csd, coherence,
//! periodogram, spectrogram, stft, istft) and detrend against SciPy 1.17
//! (fixtures written by tests/data/scipy/generate_spectra.py), the GPU
//! against the CPU backend on random inputs, and bad input.

use crate::common;
use crate::spectra_fixtures as fixtures;

use common::values_f64;
use cp::signal::{
    coherence, csd, detrend, get_window, istft, periodogram, spectrogram, stft, welch, Average,
    Detrend, IstftOptions, Scaling, SpectralOptions, StftBoundary, StftOptions, Window,
};
use cp::{Array, DType};
use cuprite as cp;
use fixtures::{assert_c_close, assert_vec_close, fx, fx_c64, fx_f64};

const WINDOWS: [(&str, Window); 12] = [
    ("boxcar", Window::Boxcar),
    ("bartlett", Window::Bartlett),
    ("hann", Window::Hann),
    ("hamming", Window::Hamming),
    ("blackman", Window::Blackman),
    ("blackmanharris", Window::BlackmanHarris),
    ("kaiser", Window::Kaiser(8.6)),
    ("tukey", Window::Tukey(0.3)),
    ("gaussian", Window::Gaussian(2.5)),
    ("general_gaussian", Window::GeneralGaussian(1.5, 3.0)),
    ("chebwin", Window::Chebwin(60.0)),
    ("dpss", Window::Dpss(2.5)),
];

#[test]
fn windows_match_scipy() {
    cp::with_device(cp::Device::Cpu, || {
        for (name, w) in WINDOWS {
            for m in [1usize, 2, 7, 16, 33] {
                if name == "dpss" && m < 7 {
                    continue;
                }
                for (kind, fftbins) in [("periodic", true), ("sym", false)] {
                    let got = values_f64(&get_window(w, m, fftbins).unwrap());
                    let key = format!("win/{name}/{m}/{kind}");
                    assert_vec_close(&key, &got, &fx_f64(&key), 1e-12);
                }
            }
        }
    });
}

#[test]
fn window_names_parse_as_scipy() {
    assert_eq!(
        Window::from_name("kaiser", &[8.6]).unwrap(),
        Window::Kaiser(8.6)
    );
    assert_eq!(
        "general_gaussian, 1.5, 3".parse::<Window>().unwrap(),
        Window::GeneralGaussian(1.5, 3.0)
    );
    assert!(Window::from_name("kaiser", &[]).is_err());
    assert!(Window::from_name("nope", &[]).is_err());
    assert!(get_window(Window::Dpss(4.0), 6, true).is_err());
}

fn x() -> Array {
    fx("x").clone()
}

fn y() -> Array {
    fx("y").clone()
}

/// The options of each case of the fixture script.
fn case(name: &str) -> SpectralOptions {
    let d = SpectralOptions {
        fs: 100.0,
        ..Default::default()
    };
    match name {
        "default" => d,
        "hamming_128_100" => SpectralOptions {
            window: Some(Window::Hamming),
            nperseg: Some(128),
            noverlap: Some(100),
            ..d
        },
        "linear_spectrum" => SpectralOptions {
            nperseg: Some(100),
            detrend: Detrend::Linear,
            scaling: Scaling::Spectrum,
            ..d
        },
        "nfft_odd" => SpectralOptions {
            nperseg: Some(64),
            nfft: Some(101),
            detrend: Detrend::None,
            ..d
        },
        "twosided" => SpectralOptions {
            nperseg: Some(64),
            return_onesided: false,
            ..d
        },
        "median" => SpectralOptions {
            nperseg: Some(64),
            average: Average::Median,
            ..d
        },
        "kaiser" => SpectralOptions {
            window: Some(Window::Kaiser(5.0)),
            nperseg: Some(90),
            noverlap: Some(30),
            ..d
        },
        _ => unreachable!(),
    }
}

const CASES: [&str; 7] = [
    "default",
    "hamming_128_100",
    "linear_spectrum",
    "nfft_odd",
    "twosided",
    "median",
    "kaiser",
];

on_every_device!(welch_csd_coherence_match_scipy, |dev| {
    let (x, y) = (x().to_device(&dev)?, y().to_device(&dev)?);
    for name in CASES {
        let o = case(name);
        let (f, p) = welch(&x, o)?;
        assert_vec_close(
            name,
            &values_f64(&f),
            &fx_f64(&format!("welch/{name}/f")),
            1e-12,
        );
        assert_vec_close(
            name,
            &values_f64(&p),
            &fx_f64(&format!("welch/{name}/p")),
            1e-10,
        );
        let (f, p) = csd(&x, &y, o)?;
        assert_vec_close(
            name,
            &values_f64(&f),
            &fx_f64(&format!("csd/{name}/f")),
            1e-12,
        );
        assert_c_close(name, &p, &fx_c64(&format!("csd/{name}/p")), 1e-10);
        let co = SpectralOptions {
            average: Average::Mean,
            return_onesided: true,
            scaling: Scaling::Density,
            ..o
        };
        let (_, c) = coherence(&x, &y, co)?;
        assert_vec_close(
            name,
            &values_f64(&c),
            &fx_f64(&format!("coherence/{name}/c")),
            1e-9,
        );
    }
    let x2 = fx("x2").to_device(&dev)?;
    let o = SpectralOptions {
        nperseg: Some(50),
        ..Default::default()
    };
    let (_, p) = welch(&x2, o)?;
    assert_eq!(p.shape(), &[3, 26]);
    assert_vec_close("x2", &values_f64(&p), &fx_f64("welch/x2/p"), 1e-10);
    let (_, p) = welch(&x2.transpose(), SpectralOptions { axis: 0, ..o })?;
    assert_eq!(p.shape(), &[26, 3]);
    assert_vec_close("x2T", &values_f64(&p), &fx_f64("welch/x2T/p"), 1e-10);
});

on_every_device!(periodogram_spectrogram_match_scipy, |dev| {
    let x = x().to_device(&dev)?;
    let (_, p) = periodogram(
        &x,
        SpectralOptions {
            fs: 100.0,
            ..Default::default()
        },
    )?;
    assert_vec_close(
        "periodogram",
        &values_f64(&p),
        &fx_f64("periodogram/default/p"),
        1e-10,
    );
    let o = SpectralOptions {
        window: Some(Window::Hann),
        nfft: Some(400),
        scaling: Scaling::Spectrum,
        ..Default::default()
    };
    let (_, p) = periodogram(&x, o)?;
    assert_vec_close(
        "nfft400",
        &values_f64(&p),
        &fx_f64("periodogram/nfft400/p"),
        1e-10,
    );
    let o = SpectralOptions {
        nfft: Some(800),
        detrend: Detrend::Linear,
        ..Default::default()
    };
    let (_, p) = periodogram(&x, o)?;
    assert_vec_close(
        "nfft800",
        &values_f64(&p),
        &fx_f64("periodogram/nfft800/p"),
        1e-10,
    );
    let o = SpectralOptions {
        fs: 100.0,
        nperseg: Some(64),
        ..Default::default()
    };
    let (f, t, s) = spectrogram(&x, o)?;
    assert_vec_close("sg f", &values_f64(&f), &fx_f64("spectrogram/x/f"), 1e-12);
    assert_vec_close("sg t", &values_f64(&t), &fx_f64("spectrogram/x/t"), 1e-12);
    assert_eq!(s.shape(), fx("spectrogram/x/s").shape());
    assert_vec_close("sg s", &values_f64(&s), &fx_f64("spectrogram/x/s"), 1e-10);
    let x2 = fx("x2").to_device(&dev)?;
    let o = SpectralOptions {
        nperseg: Some(40),
        noverlap: Some(10),
        detrend: Detrend::Linear,
        ..Default::default()
    };
    let (_, _, s) = spectrogram(&x2, o)?;
    assert_eq!(s.shape(), fx("spectrogram/x2/s").shape());
    assert_vec_close("sg x2", &values_f64(&s), &fx_f64("spectrogram/x2/s"), 1e-10);
});

fn stft_case(name: &str) -> StftOptions {
    let d = StftOptions {
        fs: 10.0,
        nperseg: 64,
        ..Default::default()
    };
    match name {
        "default" => d,
        "even" => StftOptions {
            nperseg: 50,
            noverlap: Some(30),
            boundary: Some(StftBoundary::Even),
            ..d
        },
        "odd_psd" => StftOptions {
            nperseg: 48,
            boundary: Some(StftBoundary::Odd),
            scaling: Scaling::Density,
            window: Window::Hamming,
            ..d
        },
        "none_unpadded" => StftOptions {
            noverlap: Some(32),
            boundary: None,
            padded: false,
            ..d
        },
        "constant_nfft" => StftOptions {
            nperseg: 40,
            nfft: Some(64),
            boundary: Some(StftBoundary::Constant),
            ..d
        },
        _ => unreachable!(),
    }
}

on_every_device!(stft_istft_match_scipy, |dev| {
    let x = x().to_device(&dev)?;
    for name in [
        "default",
        "even",
        "odd_psd",
        "none_unpadded",
        "constant_nfft",
    ] {
        let o = stft_case(name);
        let (f, t, z) = stft(&x, o)?;
        assert_vec_close(
            name,
            &values_f64(&f),
            &fx_f64(&format!("stft/{name}/f")),
            1e-12,
        );
        assert_vec_close(
            name,
            &values_f64(&t),
            &fx_f64(&format!("stft/{name}/t")),
            1e-12,
        );
        assert_eq!(z.shape(), fx(&format!("stft/{name}/z")).shape(), "{name}");
        assert_c_close(name, &z, &fx_c64(&format!("stft/{name}/z")), 1e-10);
        let io = IstftOptions {
            fs: 10.0,
            window: o.window,
            nperseg: Some(o.nperseg),
            noverlap: o.noverlap,
            nfft: o.nfft,
            boundary: o.boundary.is_some(),
            scaling: o.scaling,
            ..Default::default()
        };
        let (t, xr) = istft(&z, io)?;
        assert_vec_close(
            name,
            &values_f64(&t),
            &fx_f64(&format!("istft/{name}/t")),
            1e-12,
        );
        assert_vec_close(
            name,
            &values_f64(&xr),
            &fx_f64(&format!("istft/{name}/x")),
            1e-10,
        );
    }
    let x2 = fx("x2").to_device(&dev)?;
    let o = StftOptions {
        nperseg: 32,
        noverlap: Some(24),
        ..Default::default()
    };
    let (_, _, z) = stft(&x2, o)?;
    assert_c_close("x2", &z, &fx_c64("stft/x2/z"), 1e-10);
    let io = IstftOptions {
        nperseg: Some(32),
        noverlap: Some(24),
        ..Default::default()
    };
    let (_, xr) = istft(&z, io)?;
    assert_eq!(xr.shape(), fx("istft/x2/x").shape());
    assert_vec_close("x2", &values_f64(&xr), &fx_f64("istft/x2/x"), 1e-10);
});

on_every_device!(detrend_matches_scipy, |dev| {
    let x = x().to_device(&dev)?;
    let c = detrend(&x, -1, Detrend::Constant, &[])?;
    assert_vec_close(
        "constant",
        &values_f64(&c),
        &fx_f64("detrend/constant"),
        1e-12,
    );
    let l = detrend(&x, -1, Detrend::Linear, &[])?;
    assert_vec_close("linear", &values_f64(&l), &fx_f64("detrend/linear"), 1e-10);
    let b = detrend(&x, -1, Detrend::Linear, &[100, 450, 599])?;
    assert_vec_close("bp", &values_f64(&b), &fx_f64("detrend/bp"), 1e-10);
    let x2 = fx("x2").to_device(&dev)?;
    let d = detrend(&x2, 0, Detrend::Linear, &[])?;
    assert_vec_close("x2", &values_f64(&d), &fx_f64("detrend/x2_axis0"), 1e-10);
    assert!(detrend(&x, -1, Detrend::Linear, &[601]).is_err());
});

#[test]
fn gpu_spectra_match_cpu_on_random_signals() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let seed = common::test_seed("gpu_spectra_match_cpu_on_random_signals");
    for dt in [DType::Float32, DType::Float64] {
        let tol = if dt == DType::Float32 { 2e-4 } else { 1e-10 };
        let xc = cp::with_device(cp::Device::Cpu, || common::rand(&[4, 5000], dt, seed));
        let yc = cp::with_device(cp::Device::Cpu, || common::rand(&[4, 5000], dt, seed + 1));
        let (xg, yg) = (xc.to_device(&dev).unwrap(), yc.to_device(&dev).unwrap());
        cp::cuda::reset_host_fallbacks();
        let o = SpectralOptions {
            nperseg: Some(512),
            detrend: Detrend::Linear,
            ..Default::default()
        };
        let pairs = [
            (welch(&xc, o).unwrap().1, welch(&xg, o).unwrap().1),
            (
                welch(
                    &xc,
                    SpectralOptions {
                        average: Average::Median,
                        ..o
                    },
                )
                .unwrap()
                .1,
                welch(
                    &xg,
                    SpectralOptions {
                        average: Average::Median,
                        ..o
                    },
                )
                .unwrap()
                .1,
            ),
            (
                coherence(&xc, &yc, o).unwrap().1,
                coherence(&xg, &yg, o).unwrap().1,
            ),
            (
                spectrogram(&xc, o).unwrap().2,
                spectrogram(&xg, o).unwrap().2,
            ),
            (
                istft(
                    &stft(&xc, StftOptions::default()).unwrap().2,
                    IstftOptions::default(),
                )
                .unwrap()
                .1,
                istft(
                    &stft(&xg, StftOptions::default()).unwrap().2,
                    IstftOptions::default(),
                )
                .unwrap()
                .1,
            ),
            (
                detrend(&xc, -1, Detrend::Linear, &[1000]).unwrap(),
                detrend(&xg, -1, Detrend::Linear, &[1000]).unwrap(),
            ),
        ];
        common::assert_no_host_fallback("welch, coherence, spectrogram, stft, istft, detrend");
        for (i, (c, g)) in pairs.iter().enumerate() {
            assert_eq!(c.dtype(), g.dtype(), "case {i}");
            assert_vec_close(
                &format!("case {i} {dt}"),
                &values_f64(g),
                &values_f64(c),
                tol,
            );
        }
        let (_, zc) = csd(&xc, &yc, o).unwrap();
        let (_, zg) = csd(&xg, &yg, o).unwrap();
        assert_c_close("csd", &zg, &common::cvals(&zc), tol);
    }
}

#[test]
fn bad_spectral_input_is_an_error() {
    cp::with_device(cp::Device::Cpu, || {
        let x = x();
        let o = SpectralOptions {
            nperseg: Some(64),
            noverlap: Some(64),
            ..Default::default()
        };
        assert!(matches!(
            welch(&x, o),
            Err(cp::Error::InvalidArgument { op: "welch", .. })
        ));
        let o = SpectralOptions {
            nperseg: Some(64),
            nfft: Some(32),
            ..Default::default()
        };
        assert!(welch(&x, o).is_err());
        let o = SpectralOptions {
            fs: -1.0,
            ..Default::default()
        };
        assert!(welch(&x, o).is_err());
        assert!(csd(&x, &fx("x2").clone(), SpectralOptions::default()).is_err());
        let s = StftOptions {
            nperseg: 0,
            ..Default::default()
        };
        assert!(stft(&x, s).is_err());
        assert!(istft(&x, IstftOptions::default()).is_err());
        let z = stft(&x, StftOptions::default()).unwrap().2;
        let io = IstftOptions {
            time_axis: 0,
            freq_axis: 0,
            ..Default::default()
        };
        assert!(istft(&z, io).is_err());
        let one = cp::asarray(1.0f64).unwrap();
        assert!(welch(&one, SpectralOptions::default()).is_err());
    });
}

//! cp::signal's IIR design, conversions, responses and filtering against
//! SciPy 1.17 (fixtures written by tests/data/scipy/generate_iir.py), the
//! GPU's blocked-scan filters against the CPU backend on long random
//! signals, and bad input.

use crate::common;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use common::values_f64;
use cp::num_complex::Complex64;
use cp::signal::{
    bessel, butter, cheby1, cheby2, ellip, filtfilt, freqz, group_delay, iirfilter, iirnotch,
    iirpeak, lfilter, lfilter_zi, sos2tf, sos2zpk, sosfilt, sosfilt_zi, sosfiltfilt, sosfreqz,
    tf2sos, tf2zpk, zpk2sos, zpk2tf, BandType, BesselNorm, Filter, FilterForm, FiltfiltOptions,
    FreqzOptions, IirOptions, IirType, PadType, Pairing, WorN, Zpk,
};
use cp::{Array, DType, Device};
use cuprite as cp;

fn fixtures() -> &'static BTreeMap<String, Array> {
    static F: OnceLock<BTreeMap<String, Array>> = OnceLock::new();
    F.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scipy/iir.npz");
        let opts = cp::LoadOptions::default().device(Some(Device::Cpu));
        cp::load_npz_with(path, &opts).expect("iir.npz (run generate_iir.py)")
    })
}

fn fx(key: &str) -> &'static Array {
    fixtures()
        .get(key)
        .unwrap_or_else(|| panic!("fixture {key} missing"))
}

fn fx_f64(key: &str) -> Vec<f64> {
    values_f64(fx(key))
}

fn fx_c64(key: &str) -> Vec<Complex64> {
    common::cvals(fx(key))
}

/// Every element within `tol` of the expected, relative to the largest expected magnitude.
#[track_caller]
fn assert_vec_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * scale,
            "{what}[{i}]: got {g}, want {w} (tol {tol} x {scale});\n got {got:?}\nwant {want:?}"
        );
    }
}

/// The two root sets match: each expected root has its own got root within tol.
#[track_caller]
fn assert_roots_close(what: &str, got: &[Complex64], want: &[Complex64], tol: f64) {
    assert_eq!(
        got.len(),
        want.len(),
        "{what}: count; got {got:?} want {want:?}"
    );
    let mut used = vec![false; got.len()];
    for w in want {
        let best = (0..got.len())
            .filter(|&i| !used[i])
            .min_by(|&i, &j| (got[i] - w).norm().total_cmp(&(got[j] - w).norm()))
            .unwrap();
        assert!(
            (got[best] - w).norm() <= tol * w.norm().max(1.0),
            "{what}: no root near {w}; got {got:?}\nwant {want:?}"
        );
        used[best] = true;
    }
}

fn opts(btype: BandType, analog: bool, output: FilterForm) -> IirOptions {
    IirOptions {
        btype,
        analog,
        output,
        fs: None,
    }
}

/// (family name of the fixtures, bands, ftype, rp, rs)
type Family = (
    &'static str,
    &'static [&'static str],
    IirType,
    Option<f64>,
    Option<f64>,
);
const ALL_BANDS: &[&str] = &["lowpass", "highpass", "bandpass", "bandstop"];
const TWO_BANDS: &[&str] = &["lowpass", "bandpass"];
const FAMILIES: &[Family] = &[
    ("butter", ALL_BANDS, IirType::Butter, None, None),
    ("cheby1", ALL_BANDS, IirType::Cheby1, Some(1.0), None),
    ("cheby2", ALL_BANDS, IirType::Cheby2, None, Some(40.0)),
    ("ellip", ALL_BANDS, IirType::Ellip, Some(1.0), Some(40.0)),
    (
        "bessel_phase",
        ALL_BANDS,
        IirType::Bessel(BesselNorm::Phase),
        None,
        None,
    ),
    (
        "bessel_delay",
        TWO_BANDS,
        IirType::Bessel(BesselNorm::Delay),
        None,
        None,
    ),
    (
        "bessel_mag",
        TWO_BANDS,
        IirType::Bessel(BesselNorm::Mag),
        None,
        None,
    ),
];

fn wn(analog: bool, band: &str) -> &'static [f64] {
    match (analog, band.starts_with("band")) {
        (false, false) => &[0.3],
        (false, true) => &[0.2, 0.5],
        (true, false) => &[2.0],
        (true, true) => &[1.0, 3.0],
    }
}

fn check_design(fam: &Family, band: &str, n: usize, analog: bool) {
    let (name, _, ftype, rp, rs) = *fam;
    let case = format!("{name}_{band}_{n}_{}", if analog { "a" } else { "d" });
    let bt = BandType::parse(band).unwrap();
    let w = wn(analog, band);
    let design = |form| iirfilter(n, w, rp, rs, ftype, opts(bt, analog, form)).unwrap();
    // Relative to the largest value: ba coefficients of order 8 and up lose
    // digits to cancellation in both implementations.
    let tol = if n >= 8 { 1e-11 } else { 1e-12 };
    let Filter::Zpk(f) = design(FilterForm::Zpk) else {
        panic!("{case}: zpk form")
    };
    assert_roots_close(
        &format!("{case} z"),
        &f.z,
        &fx_c64(&format!("{case}/z")),
        tol,
    );
    assert_roots_close(
        &format!("{case} p"),
        &f.p,
        &fx_c64(&format!("{case}/p")),
        tol,
    );
    assert_vec_close(
        &format!("{case} k"),
        &[f.k],
        &fx_f64(&format!("{case}/k")),
        tol,
    );
    if let Ok(b) = fixtures()
        .get(&format!("{case}/b"))
        .ok_or(())
        .map(values_f64)
    {
        let Filter::Ba(ba) = design(FilterForm::Ba) else {
            panic!("{case}: ba form")
        };
        assert_vec_close(&format!("{case} b"), &ba.b, &b, tol);
        assert_vec_close(
            &format!("{case} a"),
            &ba.a,
            &fx_f64(&format!("{case}/a")),
            tol,
        );
    }
    let Filter::Sos(sos) = design(FilterForm::Sos) else {
        panic!("{case}: sos form")
    };
    let want = fx_f64(&format!("{case}/sos"));
    let got: Vec<f64> = sos.sections.iter().flatten().copied().collect();
    // Sections compared row by row, each relative to its own scale, in SciPy's order and pairing.
    assert_eq!(got.len(), want.len(), "{case}: sos sections");
    for (r, (g, w)) in got.chunks(6).zip(want.chunks(6)).enumerate() {
        assert_vec_close(&format!("{case} sos row {r}"), g, w, tol);
    }
}

#[test]
fn designs_match_scipy() {
    for fam in FAMILIES {
        for band in fam.1 {
            for n in [1, 2, 5] {
                for analog in [false, true] {
                    check_design(fam, band, n, analog);
                }
            }
        }
        check_design(fam, "lowpass", 8, false);
    }
    check_design(&FAMILIES[4], "lowpass", 25, true);
}

#[test]
fn family_functions_and_fs_match_scipy() {
    let sos = |f: Filter| -> Vec<f64> { f.sos().unwrap().sections.concat() };
    let fs = IirOptions {
        output: FilterForm::Sos,
        fs: Some(1000.0),
        ..Default::default()
    };
    assert_vec_close(
        "fs butter",
        &sos(butter(4, &[100.0], fs).unwrap()),
        &fx_f64("fs_butter/sos"),
        1e-10,
    );
    let band = IirOptions {
        btype: BandType::Bandpass,
        fs: Some(500.0),
        output: FilterForm::Sos,
        ..Default::default()
    };
    let got = sos(cheby1(3, 0.5, &[50.0, 120.0], band).unwrap());
    assert_vec_close("fs cheby1 band", &got, &fx_f64("fs_cheby1_band/sos"), 1e-10);
    // The named functions are iirfilter with their family.
    let o = opts(BandType::Highpass, false, FilterForm::Zpk);
    assert_eq!(
        butter(3, &[0.3], o).unwrap(),
        iirfilter(3, &[0.3], None, None, IirType::Butter, o).unwrap()
    );
    assert_eq!(
        cheby2(3, 40.0, &[0.3], o).unwrap(),
        iirfilter(3, &[0.3], None, Some(40.0), IirType::Cheby2, o).unwrap()
    );
    assert_eq!(
        ellip(3, 1.0, 40.0, &[0.3], o).unwrap(),
        iirfilter(3, &[0.3], Some(1.0), Some(40.0), IirType::Ellip, o).unwrap()
    );
    assert_eq!(
        bessel(3, &[0.3], BesselNorm::Mag, o).unwrap(),
        iirfilter(3, &[0.3], None, None, IirType::Bessel(BesselNorm::Mag), o).unwrap()
    );
}

#[test]
fn notch_and_peak_match_scipy() {
    let ba = |f: cp::signal::Ba| [f.b, f.a].concat();
    assert_vec_close(
        "iirnotch",
        &ba(iirnotch(0.2, 30.0, 2.0).unwrap()),
        &fx_f64("iirnotch/ba"),
        1e-14,
    );
    assert_vec_close(
        "iirnotch fs",
        &ba(iirnotch(60.0, 20.0, 1000.0).unwrap()),
        &fx_f64("iirnotch_fs/ba"),
        1e-14,
    );
    assert_vec_close(
        "iirpeak",
        &ba(iirpeak(0.3, 10.0, 2.0).unwrap()),
        &fx_f64("iirpeak/ba"),
        1e-14,
    );
    assert_vec_close(
        "iirpeak fs",
        &ba(iirpeak(1000.0, 5.0, 8000.0).unwrap()),
        &fx_f64("iirpeak_fs/ba"),
        1e-14,
    );
}

#[test]
fn conversions_match_scipy() {
    let b = [0.0, 0.5, 0.2, -0.1];
    let a = [1.0, -0.6, 0.25, 0.1];
    let f = tf2zpk(&b, &a).unwrap();
    assert_roots_close("tf2zpk z", &f.z, &fx_c64("tf2zpk/z"), 1e-12);
    assert_roots_close("tf2zpk p", &f.p, &fx_c64("tf2zpk/p"), 1e-12);
    assert_vec_close("tf2zpk k", &[f.k], &fx_f64("tf2zpk/k"), 1e-14);
    let sos = tf2sos(&b, &a, None, false).unwrap();
    assert_vec_close(
        "tf2sos",
        &sos.sections.concat(),
        &fx_f64("tf2sos/sos"),
        1e-12,
    );
    // sos2tf of a 6th-order Butterworth, and the round trips.
    let bw = butter(6, &[0.25], opts(BandType::Lowpass, false, FilterForm::Sos))
        .unwrap()
        .sos()
        .unwrap();
    let ba = sos2tf(&bw.sections).unwrap();
    assert_vec_close("sos2tf b", &ba.b, &fx_f64("sos2tf/b"), 1e-12);
    assert_vec_close("sos2tf a", &ba.a, &fx_f64("sos2tf/a"), 1e-12);
    let z = sos2zpk(&bw.sections).unwrap();
    let back = zpk2tf(&z.z, &z.p, z.k).unwrap();
    assert_vec_close("sos2zpk -> zpk2tf", &back.b, &ba.b, 1e-10);
    for (pairing, name) in [
        (Pairing::Nearest, "nearest"),
        (Pairing::KeepOdd, "keep_odd"),
        (Pairing::Minimal, "minimal"),
    ] {
        let Filter::Zpk(e) = ellip(
            5,
            0.5,
            50.0,
            &[0.3],
            opts(BandType::Lowpass, false, FilterForm::Zpk),
        )
        .unwrap() else {
            panic!("zpk")
        };
        let sos = zpk2sos(&e.z, &e.p, e.k, Some(pairing), false).unwrap();
        let want = fx_f64(&format!("zpk2sos_{name}/sos"));
        assert_eq!(sos.sections.len() * 6, want.len(), "{name}");
        for (r, (g, w)) in sos.sections.iter().zip(want.chunks(6)).enumerate() {
            assert_vec_close(&format!("zpk2sos {name} row {r}"), g, w, 1e-10);
        }
    }
}

#[test]
fn responses_match_scipy() {
    let ba = butter(4, &[0.3], IirOptions::default())
        .unwrap()
        .ba()
        .unwrap();
    let o = FreqzOptions {
        wor_n: WorN::Count(64),
        ..Default::default()
    };
    let (w, h) = freqz(&ba.b, &ba.a, o.clone()).unwrap();
    assert_vec_close("freqz w", &values_f64(&w), &fx_f64("freqz/w"), 1e-14);
    let (h, want) = (common::cvals(&h), fx_c64("freqz/h"));
    let flat = |v: &[Complex64]| -> Vec<f64> { v.iter().flat_map(|c| [c.re, c.im]).collect() };
    assert_vec_close("freqz h", &flat(&h), &flat(&want), 1e-12);
    let whole = FreqzOptions {
        wor_n: WorN::Count(17),
        whole: true,
        fs: 100.0,
        ..Default::default()
    };
    let (w, h) = freqz(&ba.b, &ba.a, whole).unwrap();
    assert_vec_close(
        "freqz whole w",
        &values_f64(&w),
        &fx_f64("freqz_whole/w"),
        1e-14,
    );
    assert_vec_close(
        "freqz whole h",
        &flat(&common::cvals(&h)),
        &flat(&fx_c64("freqz_whole/h")),
        1e-12,
    );
    let sos = cheby1(
        6,
        1.0,
        &[0.2, 0.4],
        opts(BandType::Bandpass, false, FilterForm::Sos),
    )
    .unwrap()
    .sos()
    .unwrap();
    let (w, h) = sosfreqz(
        &sos,
        FreqzOptions {
            wor_n: WorN::Count(50),
            ..Default::default()
        },
    )
    .unwrap();
    assert_vec_close("sosfreqz w", &values_f64(&w), &fx_f64("sosfreqz/w"), 1e-14);
    assert_vec_close(
        "sosfreqz h",
        &flat(&common::cvals(&h)),
        &flat(&fx_c64("sosfreqz/h")),
        1e-10,
    );
    let (w, gd) = group_delay(
        &ba.b,
        &ba.a,
        FreqzOptions {
            wor_n: WorN::Count(40),
            ..Default::default()
        },
    )
    .unwrap();
    assert_vec_close(
        "group_delay w",
        &values_f64(&w),
        &fx_f64("group_delay/w"),
        1e-14,
    );
    assert_vec_close(
        "group_delay",
        &values_f64(&gd),
        &fx_f64("group_delay/gd"),
        1e-10,
    );
    // Frequencies given in units of fs come back as given.
    let given = FreqzOptions {
        wor_n: WorN::Freqs(vec![0.0, 10.0, 25.0]),
        fs: 100.0,
        ..Default::default()
    };
    let (w, h) = freqz(&ba.b, &ba.a, given).unwrap();
    assert_vec_close("freqz given w", &values_f64(&w), &[0.0, 10.0, 25.0], 1e-14);
    assert!((common::cvals(&h)[0].norm() - 1.0).abs() < 1e-12);
}

fn fixture_x() -> Array {
    fx("x").to_device(&cp::current_device()).unwrap()
}

fn filt_sos() -> Array {
    fx("filt_sos").to_device(&cp::current_device()).unwrap()
}

fn filt_ba() -> (Array, Array) {
    let d = cp::current_device();
    (
        fx("filt_b").to_device(&d).unwrap(),
        fx("filt_a").to_device(&d).unwrap(),
    )
}

on_every_device!(sosfilt_matches_scipy, |dev| {
    let (x, sos) = (fixture_x(), filt_sos());
    let (y, zf) = sosfilt(&sos, &x, -1, None)?;
    assert_eq!(y.device(), dev);
    assert_eq!(zf.unwrap().shape(), &[4, 3, 2]);
    assert_vec_close("sosfilt", &values_f64(&y), &fx_f64("sosfilt/y"), 1e-12);
    let xt = x.transpose().copy()?;
    let (y0, _) = sosfilt(&sos, &xt, 0, None)?;
    assert_vec_close(
        "sosfilt axis 0",
        &values_f64(&y0),
        &fx_f64("sosfilt_axis0/y"),
        1e-12,
    );
    let zi = sosfilt_zi(&sos)?;
    assert_vec_close("sosfilt_zi", &values_f64(&zi), &fx_f64("sosfilt_zi"), 1e-12);
    // zi for each lane scaled by its first sample: (4 sections, 3, 2).
    let x0 = x.slice(cp::s![.., 0..1])?.reshape([1, 3, 1])?;
    let zi3 = cp::multiply(&zi.reshape([4, 1, 2])?, &x0)?;
    let (y, zf) = sosfilt(&sos, &x, -1, Some(&zi3))?;
    assert_vec_close(
        "sosfilt zi",
        &values_f64(&y),
        &fx_f64("sosfilt_zi/y"),
        1e-12,
    );
    assert_vec_close(
        "sosfilt zf",
        &values_f64(&zf.unwrap()),
        &fx_f64("sosfilt_zi/zf"),
        1e-12,
    );
    let (b, a) = filt_ba();
    assert_vec_close(
        "lfilter_zi",
        &values_f64(&lfilter_zi(&b, &a)?),
        &fx_f64("lfilter_zi"),
        1e-12,
    );
});

on_every_device!(filtfilt_matches_scipy, |_dev| {
    let (x, sos) = (fixture_x(), filt_sos());
    let (b, a) = filt_ba();
    for (pad, pname) in [
        (PadType::Odd, "odd"),
        (PadType::Even, "even"),
        (PadType::Constant, "constant"),
        (PadType::None, "None"),
    ] {
        for padlen in [None, Some(0), Some(10)] {
            if pad == PadType::None && padlen.is_some_and(|p| p > 0) {
                continue;
            }
            let tag = format!(
                "{pname}_{}",
                padlen.map_or("none".to_string(), |p| p.to_string())
            );
            let o = FiltfiltOptions {
                axis: -1,
                padtype: pad,
                padlen,
            };
            let y = filtfilt(&b, &a, &x, o)?;
            assert_vec_close(
                &format!("filtfilt {tag}"),
                &values_f64(&y),
                &fx_f64(&format!("filtfilt_{tag}/y")),
                1e-11,
            );
            let y = sosfiltfilt(&sos, &x, o)?;
            assert_vec_close(
                &format!("sosfiltfilt {tag}"),
                &values_f64(&y),
                &fx_f64(&format!("sosfiltfilt_{tag}/y")),
                1e-11,
            );
        }
    }
    let xt = x.transpose().copy()?;
    let o = FiltfiltOptions {
        axis: 0,
        ..Default::default()
    };
    let y = filtfilt(&b, &a, &xt, o)?;
    assert_vec_close(
        "filtfilt axis 0",
        &values_f64(&y),
        &fx_f64("filtfilt_axis0/y"),
        1e-11,
    );
});

/// GPU and CPU results of `f` on the same input, compared relative to the
/// largest output.
fn gpu_vs_cpu(what: &str, x: &Array, tol: f64, f: impl Fn(&Array) -> cp::Result<Array>) {
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let want = cp::with_device(Device::Cpu, || f(x)).unwrap();
    cp::cuda::reset_host_fallbacks();
    let xg = x.to_device(&gpu).unwrap();
    let got = cp::with_device(gpu, || f(&xg)).unwrap();
    common::assert_no_host_fallback(what);
    assert_eq!(got.device(), gpu, "{what}");
    assert_eq!(got.dtype(), want.dtype(), "{what}");
    assert_eq!(got.shape(), want.shape(), "{what}");
    assert_vec_close(what, &values_f64(&got), &values_f64(&want), tol);
}

#[test]
fn gpu_sosfilt_matches_cpu_on_long_signals() {
    let seed = common::test_seed("gpu_sosfilt_matches_cpu_on_long_signals");
    let sos = butter(
        8,
        &[0.05, 0.2],
        opts(BandType::Bandpass, false, FilterForm::Sos),
    )
    .unwrap()
    .sos()
    .unwrap();
    // Odd lengths so blocks and groups end mid-way; one lane, a few, many short ones.
    for (lanes, n) in [
        (1usize, 1usize),
        (3, 31),
        (2, 1000),
        (4, 65_537),
        (5, 1_000_003),
        (3000, 97),
    ] {
        for dt in [DType::Float64, DType::Float32] {
            let x = common::rand(&[lanes, n], dt, seed + n as u64);
            let tol = if dt == DType::Float64 { 1e-9 } else { 1e-4 };
            let s32 = sos.to_array().unwrap().astype(dt).unwrap();
            gpu_vs_cpu(&format!("sosfilt {lanes}x{n} {dt}"), &x, tol, |x| {
                let sos = s32.to_device(&x.device())?;
                Ok(sosfilt(&sos, x, -1, None)?.0)
            });
        }
    }
    // zi and zf, along axis 0 of a (n, lanes) array.
    let x = common::rand(&[100_003, 3], DType::Float64, seed);
    let zi = common::rand(&[8, 2, 3], DType::Float64, seed + 1);
    gpu_vs_cpu("sosfilt axis 0 with zi: y", &x, 1e-9, |x| {
        Ok(sosfilt(&sos, x, 0, Some(&zi.to_device(&x.device())?))?.0)
    });
    gpu_vs_cpu("sosfilt axis 0 with zi: zf", &x, 1e-9, |x| {
        Ok(sosfilt(&sos, x, 0, Some(&zi.to_device(&x.device())?))?
            .1
            .unwrap())
    });
}

#[test]
fn gpu_lfilter_and_filtfilt_match_cpu() {
    let seed = common::test_seed("gpu_lfilter_and_filtfilt_match_cpu");
    let ba = cheby1(3, 1.0, &[0.1], IirOptions::default())
        .unwrap()
        .ba()
        .unwrap();
    let sos = cheby1(
        6,
        1.0,
        &[0.1, 0.3],
        opts(BandType::Bandstop, false, FilterForm::Sos),
    )
    .unwrap()
    .sos()
    .unwrap();
    let x = common::rand(&[4, 250_001], DType::Float64, seed);
    gpu_vs_cpu("lfilter order 3", &x, 1e-9, |x| {
        let (b, a) = ba.to_arrays()?;
        Ok(lfilter(&b, &a, x, -1, None)?.0)
    });
    gpu_vs_cpu("filtfilt", &x, 1e-9, |x| {
        let (b, a) = ba.to_arrays()?;
        filtfilt(&b, &a, x, FiltfiltOptions::default())
    });
    for pad in [
        PadType::Odd,
        PadType::Even,
        PadType::Constant,
        PadType::None,
    ] {
        let o = FiltfiltOptions {
            padtype: pad,
            ..Default::default()
        };
        gpu_vs_cpu(&format!("sosfiltfilt {pad:?}"), &x, 1e-9, |x| {
            sosfiltfilt(&sos, x, o)
        });
    }
}

#[test]
fn bad_input_is_an_error_naming_the_op() {
    let lp = IirOptions::default();
    assert_error!(
        butter(0, &[0.2], lp).unwrap_err(),
        InvalidArgument,
        "butter"
    );
    assert_error!(
        butter(4, &[1.2], lp).unwrap_err(),
        InvalidArgument,
        "butter"
    );
    assert_error!(
        butter(4, &[0.0], lp).unwrap_err(),
        InvalidArgument,
        "butter"
    );
    assert_error!(
        butter(4, &[0.2, 0.3], lp).unwrap_err(),
        InvalidArgument,
        "butter"
    );
    let band = opts(BandType::Bandpass, false, FilterForm::Ba);
    assert_error!(
        cheby1(4, 1.0, &[0.5, 0.2], band).unwrap_err(),
        InvalidArgument,
        "cheby1"
    );
    assert_error!(
        cheby1(4, -1.0, &[0.2], lp).unwrap_err(),
        InvalidArgument,
        "cheby1"
    );
    assert_error!(
        iirfilter(4, &[0.2], None, None, IirType::Ellip, lp).unwrap_err(),
        InvalidArgument,
        "iirfilter"
    );
    let fs = IirOptions {
        fs: Some(100.0),
        ..lp
    };
    assert_error!(
        butter(4, &[60.0], fs).unwrap_err(),
        InvalidArgument,
        "butter"
    );
    let analog_fs = IirOptions { analog: true, ..fs };
    assert_error!(
        butter(4, &[10.0], analog_fs).unwrap_err(),
        InvalidArgument,
        "butter"
    );
    assert_error!(
        iirnotch(1.5, 30.0, 2.0).unwrap_err(),
        InvalidArgument,
        "iirnotch"
    );
    assert_error!(
        zpk2sos(&[], &[Complex64::new(0.5, 0.5)], 1.0, None, false).unwrap_err(),
        InvalidArgument,
        "zpk2sos"
    );

    let sos = butter(4, &[0.2], opts(BandType::Lowpass, false, FilterForm::Sos))
        .unwrap()
        .sos()
        .unwrap();
    let x = cp::ones([3, 50], DType::Float64).unwrap();
    assert_error!(sosfilt(&sos, &x, 2, None).unwrap_err(), Axis, "sosfilt");
    let bad_zi = cp::zeros([2, 3, 3], DType::Float64).unwrap();
    assert_error!(
        sosfilt(&sos, &x, -1, Some(&bad_zi)).unwrap_err(),
        Shape,
        "sosfilt"
    );
    let bad_sos = cp::zeros([2, 5], DType::Float64).unwrap();
    assert_error!(
        sosfilt(&bad_sos, &x, -1, None).unwrap_err(),
        Shape,
        "sosfilt"
    );
    let zero_a0 = [[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]];
    assert_error!(
        sosfilt(&zero_a0[..], &x, -1, None).unwrap_err(),
        InvalidArgument,
        "sosfilt"
    );
    // No longer than the default padding (3 * 5 taps = 15).
    let short = cp::ones([3, 15], DType::Float64).unwrap();
    assert_error!(
        sosfiltfilt(&sos, &short, FiltfiltOptions::default()).unwrap_err(),
        InvalidArgument,
        "sosfiltfilt"
    );
    assert_error!(
        sosfiltfilt(
            &sos,
            &x,
            FiltfiltOptions {
                axis: -3,
                ..Default::default()
            }
        )
        .unwrap_err(),
        Axis,
        "sosfiltfilt"
    );
    let (b, a) = (
        cp::asarray(vec![1.0f64]).unwrap(),
        cp::zeros([2, 2], DType::Float64).unwrap(),
    );
    assert_error!(
        filtfilt(&b, &a, &x, FiltfiltOptions::default()).unwrap_err(),
        Shape,
        "filtfilt"
    );
    let _ = Zpk {
        z: vec![],
        p: vec![],
        k: 1.0,
    };
}

//! `dct`/`idct`/`dst`/`idst` of types 1–4 in every normalisation, `hfft`,
//! `ihfft` and `next_fast_len` against reference values on every backend,
//! and the GPU against the CPU on random inputs without a host fallback.

use crate::common;

use cuprite as cp;
use cuprite::fft::{self, FftOptions, Norm};
use cuprite::num_complex::Complex64 as C;
use cuprite::{Array, DType, Device, Error};

use common::*;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Trig {
    Cos,
    Sin,
}

// The definitions of scipy.fft.dct / dst (types 1-4; norm backward, ortho,
// forward) evaluated term by term in NumPy 2.4 for x = [1, 2, -1.5, 4, 0.5].
const X: [f64; 5] = [1.0, 2.0, -1.5, 4.0, 0.5];
#[rustfmt::skip]
const CASES: &[(Trig, u8, Norm, [f64; 5])] = &[
    (Trig::Cos, 1, Norm::Backward, [10.5, -2.3284271247461894, 4.499999999999999, 3.328427124746192, -13.5]),
    (Trig::Sin, 1, Norm::Backward, [8.892304845413264, -2.5980762113533133, 5.999999999999998, 4.330127018922199, -11.892304845413264]),
    (Trig::Cos, 1, Norm::Ortho, [2.7803300858899105, -0.7499999999999998, 1.8106601717798212, 1.2500000000000007, -3.219669914110089]),
    (Trig::Sin, 1, Norm::Ortho, [2.566987298107781, -0.7499999999999992, 1.7320508075688767, 1.2500000000000016, -3.433012701892219]),
    (Trig::Cos, 1, Norm::Forward, [1.3125, -0.2910533905932737, 0.5624999999999999, 0.416053390593274, -1.6875]),
    (Trig::Sin, 1, Norm::Forward, [0.7410254037844387, -0.21650635094610945, 0.49999999999999983, 0.3608439182435166, -0.9910254037844387]),
    (Trig::Cos, 2, Norm::Backward, [12.0, -1.400084492874738, 1.7188470506254725, 4.392011317473088, -11.781152949374526]),
    (Trig::Sin, 2, Norm::Backward, [7.635254915624212, -3.2164408128881403, 9.13525491562421, 3.302197525465049, -12.0]),
    (Trig::Cos, 2, Norm::Ortho, [2.6832815729997472, -0.44274559141659586, 0.5435471629439239, 1.3888759272451838, -3.7255276782833877]),
    (Trig::Sin, 2, Norm::Ortho, [2.414479604936925, -1.017127892784999, 2.8888212539621816, 1.0442465464241426, -2.6832815729997472]),
    (Trig::Cos, 2, Norm::Forward, [1.2, -0.1400084492874738, 0.17188470506254724, 0.4392011317473088, -1.1781152949374527]),
    (Trig::Sin, 2, Norm::Forward, [0.7635254915624212, -0.32164408128881405, 0.9135254915624211, 0.3302197525465049, -1.2]),
    (Trig::Cos, 3, Norm::Backward, [7.388474094770504, -4.139277132441442, 4.999999999999999, 6.375345109941232, -9.624542072270293]),
    (Trig::Sin, 3, Norm::Backward, [8.650576145156172, -0.7070729475341171, 5.499999999999998, 1.0890389587842262, -11.268610133906073]),
    (Trig::Cos, 3, Norm::Ortho, [2.4674264867456754, -1.1779685310334203, 1.7121246595673094, 2.147046971186208, -2.9125616089659823]),
    (Trig::Sin, 3, Norm::Ortho, [2.8010452838828463, -0.28908901335121473, 1.8047456278341683, 0.27889144230007906, -3.4979544940182583]),
    (Trig::Cos, 3, Norm::Forward, [0.7388474094770504, -0.4139277132441442, 0.4999999999999999, 0.6375345109941233, -0.9624542072270292]),
    (Trig::Sin, 3, Norm::Forward, [0.8650576145156172, -0.07070729475341171, 0.5499999999999998, 0.10890389587842261, -1.1268610133906072]),
    (Trig::Cos, 4, Norm::Backward, [7.206440897340711, -3.8264259724033476, 7.071067811865475, -4.80362351032761, -9.76477726534917]),
    (Trig::Sin, 4, Norm::Backward, [8.123251119581086, 0.5949317737897881, 1.4142135623730936, 10.72511175679701, -7.185459291998987]),
    (Trig::Cos, 4, Norm::Ortho, [2.27887670589843, -1.2100221370819173, 2.2360679774997894, -1.5190391314568612, -3.0878937002733764]),
    (Trig::Sin, 4, Norm::Ortho, [2.5687975543389046, 0.18813394575797948, 0.4472135954999575, 3.3915781311328423, -2.2722417397137695]),
    (Trig::Cos, 4, Norm::Forward, [0.7206440897340711, -0.3826425972403348, 0.7071067811865475, -0.48036235103276104, -0.976477726534917]),
    (Trig::Sin, 4, Norm::Forward, [0.8123251119581086, 0.059493177378978815, 0.14142135623730936, 1.072511175679701, -0.7185459291998987]),
];

fn forward(x: &Array, trig: Trig, kind: u8, o: &FftOptions) -> cp::Result<Array> {
    match trig {
        Trig::Cos => fft::dct_with(x, kind, o),
        Trig::Sin => fft::dst_with(x, kind, o),
    }
}

fn inverse(x: &Array, trig: Trig, kind: u8, o: &FftOptions) -> cp::Result<Array> {
    match trig {
        Trig::Cos => fft::idct_with(x, kind, o),
        Trig::Sin => fft::idst_with(x, kind, o),
    }
}

on_every_device!(real_transforms_match_the_definitions, |_dev| {
    let x = cp::asarray(X.to_vec())?;
    for &(trig, kind, norm, want) in CASES {
        let o = FftOptions::new().norm(norm);
        let y = forward(&x, trig, kind, &o)?;
        let label = format!("{trig:?} type {kind} {norm:?}");
        assert_eq!(y.dtype(), DType::Float64, "{label}");
        let got = values_f64(&y);
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                "{label}: {got:?} vs {want:?}"
            );
        }
        // The inverse of the same type and norm gives x back.
        let back = values_f64(&inverse(&y, trig, kind, &o)?);
        for (b, w) in back.iter().zip(X) {
            assert!((b - w).abs() <= 1e-12, "{label} inverse: {back:?}");
        }
    }
});

on_every_device!(axes_dtypes_and_lengths, |_dev| {
    // Along axis 0 of a 2-D array equals the 1-D transform of each column.
    let m = cp::asarray(vec![X.to_vec(), X.iter().map(|v| 2.0 * v).collect()])?.t();
    let y = fft::dct_with(&m, 2, &FftOptions::new().axis(0))?;
    assert_eq!(y.shape(), &[5, 2]);
    let col = values_f64(&y.slice(cp::s![.., 1])?);
    let want = CASES
        .iter()
        .find(|c| c.0 == Trig::Cos && c.1 == 2 && c.2 == Norm::Backward)
        .unwrap()
        .3;
    for (g, w) in col.iter().zip(want) {
        assert!((g - 2.0 * w).abs() < 1e-11, "{col:?}");
    }
    // float32 stays float32; integers compute in float64.
    let f = fft::dst(&cp::asarray(X.to_vec())?.astype(cp::f32)?, 3)?;
    assert_eq!(f.dtype(), DType::Float32);
    assert_eq!(fft::dct(&cp::arange(4)?, 1)?.dtype(), DType::Float64);
    // n pads with zeros (or truncates) first.
    let padded = fft::dct_with(
        &cp::asarray(vec![1.0, 2.0, 3.0])?,
        2,
        &FftOptions::new().n(5),
    )?;
    let explicit = fft::dct(&cp::asarray(vec![1.0, 2.0, 3.0, 0.0, 0.0])?, 2)?;
    assert_close(&padded, &[5], DType::Float64, &values_f64(&explicit), 1e-12);
    // Complex input: real and imaginary parts transformed apart.
    let z = cp::asarray(vec![C::new(1.0, 2.0), C::new(-1.0, 0.5), C::new(3.0, 0.0)])?;
    let dz = cvals(&fft::dct(&z, 2)?);
    let re = values_f64(&fft::dct(&cp::asarray(vec![1.0, -1.0, 3.0])?, 2)?);
    let im = values_f64(&fft::dct(&cp::asarray(vec![2.0, 0.5, 0.0])?, 2)?);
    for k in 0..3 {
        assert!((dz[k] - C::new(re[k], im[k])).norm() < 1e-12);
    }
    // Errors: a type that does not exist, DCT-I of one sample, 0-d input.
    let one = cp::asarray(vec![1.0])?;
    assert!(matches!(
        fft::dct(&one, 5).unwrap_err(),
        Error::InvalidArgument { .. }
    ));
    assert!(matches!(
        fft::dct(&one, 1).unwrap_err(),
        Error::InvalidArgument { .. }
    ));
    assert!(matches!(
        fft::dst(&cp::asarray(1.0)?, 2).unwrap_err(),
        Error::Shape { .. }
    ));
});

on_every_device!(hermitian_transforms_match_numpy, |_dev| {
    let h = cp::asarray(vec![C::new(1.0, 0.0), C::new(2.0, -1.0), C::new(3.0, 0.5)])?;
    // np.fft.hfft([1, 2-1j, 3+0.5j])
    assert_close(
        &fft::hfft(&h)?,
        &[4],
        DType::Float64,
        &[8.0, -4.0, 0.0, 0.0],
        1e-12,
    );
    // np.fft.hfft(..., n=5, norm="ortho")
    let o = FftOptions::new().n(5).norm(Norm::Ortho);
    assert_close(
        &fft::hfft_with(&h, &o)?,
        &[5],
        DType::Float64,
        &[
            4.919349550499537,
            -1.75860564554241,
            -1.1218769095450905,
            0.7802361230452167,
            -0.5830351409574638,
        ],
        1e-12,
    );
    // np.fft.ihfft([1, 2, 3, 2]) = [2, -0.5, 0]
    let i = fft::ihfft(&cp::asarray(vec![1.0, 2.0, 3.0, 2.0])?)?;
    assert_eq!(i.dtype(), DType::Complex128);
    let v = cvals(&i);
    assert!((v[0] - C::new(2.0, 0.0)).norm() < 1e-12 && (v[1] - C::new(-0.5, 0.0)).norm() < 1e-12);
    assert!(v[2].norm() < 1e-12);
});

#[test]
fn next_fast_len_is_the_next_7_smooth_number() {
    let smooth = |mut n: usize| {
        for p in [2, 3, 5, 7] {
            while n % p == 0 {
                n /= p;
            }
        }
        n == 1
    };
    for target in 1..3000usize {
        let got = fft::next_fast_len(target);
        assert!(got >= target && smooth(got), "{target} -> {got}");
        assert!((target..got).all(|m| !smooth(m)), "{target} -> {got}");
    }
    assert_eq!(fft::next_fast_len(0), 0);
    assert_eq!(fft::next_fast_len(1021), 1024);
    assert_eq!(fft::next_fast_len(1 << 40), 1 << 40);
}

#[test]
fn gpu_matches_cpu_on_random_inputs_without_host_fallback() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("fft_extra");
    for dtype in [DType::Float32, DType::Float64] {
        let host = cp::with_device(Device::Cpu, || rand(&[3, 37], dtype, seed));
        let gx = host.to_device(&dev).unwrap();
        cp::cuda::reset_host_fallbacks();
        for trig in [Trig::Cos, Trig::Sin] {
            for kind in 1..=4u8 {
                for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
                    let o = FftOptions::new().norm(norm);
                    let c =
                        cp::with_device(Device::Cpu, || forward(&host, trig, kind, &o)).unwrap();
                    let g = cp::with_device(dev, || forward(&gx, trig, kind, &o)).unwrap();
                    assert_eq!(g.device(), dev);
                    assert_eq!((g.shape(), g.dtype()), (c.shape(), c.dtype()));
                    let tol = if dtype == DType::Float32 { 1e-4 } else { 1e-10 };
                    for (a, b) in values_f64(&g).iter().zip(values_f64(&c)) {
                        assert!(
                            (a - b).abs() <= tol * b.abs().max(1.0),
                            "{trig:?} {kind} {norm:?} {dtype}: GPU {a}, CPU {b} (seed {seed})"
                        );
                    }
                }
            }
        }
        cp::cuda::launch_pending().unwrap();
        common::assert_no_host_fallback("dct, dst and their inverses");
    }
}

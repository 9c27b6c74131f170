//! cp::fft on every backend, against NumPy 2.4 values written in (the call is
//! in the comment above each table), a naive O(n^2) DFT computed here,
//! Parseval's identity and round trips. On CUDA these run cuFFT (C2C, Z2Z,
//! R2C, D2Z, C2R, Z2D) through in-place strided layouts, copies for layouts
//! cuFFT cannot address, and plans of rank 1, 2 and 3.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::fft::{self, FftOptions, FftnOptions, Norm};
use cuprite::num_complex::Complex64;
use cuprite::{s, Array, DType, Device, Error};

const R3: f64 = 1.7320508075688772; // sqrt(3), as NumPy prints it
const H3: f64 = 0.8660254037844386; // sqrt(3) / 2

/// Complex values of any complex (or real) array, as complex128, C order.
fn cvals(a: &Array) -> Vec<Complex64> {
    a.astype(DType::Complex128)
        .unwrap()
        .to_vec::<Complex64>()
        .unwrap()
}

/// Checks shape, dtype and complex values within `tol` (absolute, scaled
/// by the largest expected magnitude).
#[track_caller]
fn assert_c(a: &Array, shape: &[usize], dtype: DType, want: &[(f64, f64)], tol: f64) {
    assert_eq!(a.shape(), shape, "shape");
    assert_eq!(a.dtype(), dtype, "dtype");
    let got = cvals(a);
    assert_eq!(got.len(), want.len(), "element count");
    let scale = want
        .iter()
        .map(|&(r, i)| r.abs().max(i.abs()))
        .fold(1.0, f64::max);
    for (k, (g, &(r, i))) in got.iter().zip(want).enumerate() {
        let ok = (g.re - r).abs() <= tol * scale && (g.im - i).abs() <= tol * scale;
        assert!(ok, "element {k}: got {g}, want ({r}, {i}); all: {got:?}");
    }
}

/// Checks shape, dtype and real values within `tol` (absolute, scaled by
/// the largest expected magnitude); NaN never passes.
#[track_caller]
fn assert_real(a: &Array, shape: &[usize], dtype: DType, want: &[f64], tol: f64) {
    assert_eq!(a.shape(), shape, "shape");
    assert_eq!(a.dtype(), dtype, "dtype");
    let got = values_f64(a);
    assert_eq!(got.len(), want.len(), "element count");
    let scale = want.iter().map(|v| v.abs()).fold(1.0, f64::max);
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * scale,
            "element {k}: got {g}, want {w}; all: {got:?}"
        );
    }
}

/// Same values (complex) within `tol` relative to the largest magnitude.
#[track_caller]
fn assert_same(a: &[Complex64], b: &[Complex64], tol: f64) {
    assert_eq!(a.len(), b.len(), "element count");
    let scale = b.iter().map(|c| c.norm()).fold(1.0, f64::max);
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            !x.re.is_nan() && !x.im.is_nan() && (x - y).norm() <= tol * scale,
            "element {k}: {x} vs {y}"
        );
    }
}

/// Deterministic test data in [-1, 1) (a 64-bit LCG).
fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn complex_data(n: usize, seed: u64) -> Vec<Complex64> {
    let re = data(n, seed);
    let im = data(n, seed + 1000);
    re.into_iter()
        .zip(im)
        .map(|(r, i)| Complex64::new(r, i))
        .collect()
}

/// The naive DFT of every lane along `axis` of a C-ordered buffer.
fn naive(x: &[Complex64], shape: &[usize], axis: usize, forward: bool) -> Vec<Complex64> {
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let sign = if forward { -1.0 } else { 1.0 };
    let mut out = vec![Complex64::new(0.0, 0.0); x.len()];
    for (o, chunk) in x.chunks(n * inner).enumerate() {
        for i in 0..inner {
            for k in 0..n {
                let mut acc = Complex64::new(0.0, 0.0);
                for j in 0..n {
                    let ang = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    acc += chunk[j * inner + i] * Complex64::from_polar(1.0, ang);
                }
                out[o * n * inner + k * inner + i] = acc;
            }
        }
    }
    out
}

type Four = [(f64, f64); 4];

// NumPy 2.4: np.fft.fft([1., 2, 3, 4], norm=...) and np.fft.ifft(...).
on_every_device!(known_values_all_norms, |dev| {
    let x = cp::asarray([1.0, 2.0, 3.0, 4.0])?;
    let c = DType::Complex128;
    let cases: [(Norm, Four, Four); 3] = [
        (
            Norm::Backward,
            [(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0), (-2.0, -2.0)],
            [(2.5, 0.0), (-0.5, -0.5), (-0.5, 0.0), (-0.5, 0.5)],
        ),
        (
            Norm::Ortho,
            [(5.0, 0.0), (-1.0, 1.0), (-1.0, 0.0), (-1.0, -1.0)],
            [(5.0, 0.0), (-1.0, -1.0), (-1.0, 0.0), (-1.0, 1.0)],
        ),
        (
            Norm::Forward,
            [(2.5, 0.0), (-0.5, 0.5), (-0.5, 0.0), (-0.5, -0.5)],
            [(10.0, 0.0), (-2.0, -2.0), (-2.0, 0.0), (-2.0, 2.0)],
        ),
    ];
    for (norm, f, i) in cases {
        let o = FftOptions::new().norm(norm);
        assert_c(&fft::fft_with(&x, &o)?, &[4], c, &f, 1e-14);
        assert_c(&fft::ifft_with(&x, &o)?, &[4], c, &i, 1e-14);
        assert_eq!(fft::fft(&x)?.device(), dev);
    }
    // Norm names parse as NumPy spells them.
    assert_eq!("ortho".parse::<Norm>()?, Norm::Ortho);
    assert_eq!(Norm::parse("forward")?.name(), "forward");
    // NumPy 2.4: np.fft.ifft([1, 2j, 3, -1j], norm="ortho")
    let z = cp::asarray([
        Complex64::new(1.0, 0.0),
        Complex64::new(0.0, 2.0),
        Complex64::new(3.0, 0.0),
        Complex64::new(0.0, -1.0),
    ])?;
    let got = fft::ifft_with(&z, &FftOptions::new().norm(Norm::Ortho))?;
    assert_c(
        &got,
        &[4],
        c,
        &[(2.0, 0.5), (-2.5, 0.0), (2.0, -0.5), (0.5, 0.0)],
        1e-14,
    );
});

// dtype rules (CuPy's): single precision stays single, the rest is double.
on_every_device!(dtypes_follow_cupy, |_dev| {
    let want = [(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0), (-2.0, -2.0)];
    for (dt, out, tol) in [
        (DType::Float32, DType::Complex64, 1e-6),
        (DType::Float16, DType::Complex64, 1e-3),
        (DType::Complex64, DType::Complex64, 1e-6),
        (DType::Float64, DType::Complex128, 1e-14),
        (DType::Int32, DType::Complex128, 1e-14),
        (DType::Int64, DType::Complex128, 1e-14),
        (DType::UInt8, DType::Complex128, 1e-14),
    ] {
        let x = cp::asarray([1.0, 2.0, 3.0, 4.0])?.astype(dt)?;
        assert_c(&fft::fft(&x)?, &[4], out, &want, tol);
    }
    let x32 = cp::asarray([1.0f32, 2.0, 3.0, 4.0])?;
    assert_eq!(fft::rfft(&x32)?.dtype(), DType::Complex64);
    assert_eq!(fft::irfft(&fft::rfft(&x32)?)?.dtype(), DType::Float32);
    let xi = cp::arange(4)?;
    assert_eq!(fft::rfft(&xi)?.dtype(), DType::Complex128);
    assert_eq!(fft::irfft(&fft::rfft(&xi)?)?.dtype(), DType::Float64);
    let b = cp::asarray([true, false, true])?;
    assert_c(
        &fft::fft(&b)?,
        &[3],
        DType::Complex128,
        &[(2.0, 0.0), (0.5, H3), (0.5, -H3)],
        1e-14,
    );
});

on_every_device!(n_pads_and_truncates, |_dev| {
    let x = cp::asarray([1.0, 2.0, 3.0, 4.0])?;
    let c = DType::Complex128;
    // NumPy 2.4: np.fft.fft([1., 2, 3, 4], n=6)
    let got = fft::fft_with(&x, &FftOptions::new().n(6))?;
    assert_c(
        &got,
        &[6],
        c,
        &[
            (10.0, 0.0),
            (-3.5, -4.330127018922193),
            (2.5, 0.8660254037844386),
            (-2.0, 0.0),
            (2.5, -0.8660254037844386),
            (-3.5, 4.330127018922193),
        ],
        1e-14,
    );
    // NumPy 2.4: np.fft.fft([1., 2, 3, 4], n=3)
    let got = fft::fft_with(&x, &FftOptions::new().n(3))?;
    assert_c(&got, &[3], c, &[(6.0, 0.0), (-1.5, H3), (-1.5, -H3)], 1e-14);
    // NumPy 2.4: np.fft.rfft([1., 2, 3, 4]) and rfft(..., n=5)
    assert_c(
        &fft::rfft(&x)?,
        &[3],
        c,
        &[(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0)],
        1e-14,
    );
    assert_c(
        &fft::rfft_with(&x, &FftOptions::new().n(5))?,
        &[3],
        c,
        &[
            (10.0, 0.0),
            (-4.045084971874737, -1.314327780297834),
            (1.5450849718747373, -2.1266270208801),
        ],
        1e-14,
    );
    // NumPy 2.4: np.fft.irfft([10, -2+2j, -2]) and irfft(..., n=5)
    let h = cp::asarray([
        Complex64::new(10.0, 0.0),
        Complex64::new(-2.0, 2.0),
        Complex64::new(-2.0, 0.0),
    ])?;
    assert_real(
        &fft::irfft(&h)?,
        &[4],
        DType::Float64,
        &[1.0, 2.0, 3.0, 4.0],
        1e-14,
    );
    assert_real(
        &fft::irfft_with(&h, &FftOptions::new().n(5))?,
        &[5],
        DType::Float64,
        &[
            0.4,
            1.6391547869638772,
            1.9297717981660214,
            2.870228201833979,
            3.160845213036123,
        ],
        1e-13,
    );
});

on_every_device!(axes_and_multidimensional, |_dev| {
    let c = DType::Complex128;
    let a = cp::arange(6)?.astype(DType::Float64)?.reshape([2, 3])?;
    // NumPy 2.4: np.fft.fft(np.arange(6.).reshape(2, 3), axis=0)
    let got = fft::fft_with(&a, &FftOptions::new().axis(0))?;
    let want = [
        (3.0, 0.0),
        (5.0, 0.0),
        (7.0, 0.0),
        (-3.0, 0.0),
        (-3.0, 0.0),
        (-3.0, 0.0),
    ];
    assert_c(&got, &[2, 3], c, &want, 1e-14);
    // NumPy 2.4: np.fft.fft2(np.arange(6.).reshape(2, 3))
    let want = [
        (15.0, 0.0),
        (-3.0, R3),
        (-3.0, -R3),
        (-9.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
    ];
    assert_c(&fft::fft2(&a)?, &[2, 3], c, &want, 1e-14);
    assert_c(&fft::fftn(&a)?, &[2, 3], c, &want, 1e-14);
    // NumPy 2.4: np.fft.rfft2(np.arange(6.).reshape(2, 3))
    let r = fft::rfft2(&a)?;
    assert_c(
        &r,
        &[2, 2],
        c,
        &[(15.0, 0.0), (-3.0, R3), (-9.0, 0.0), (0.0, 0.0)],
        1e-14,
    );
    // NumPy 2.4: np.fft.irfft2(rfft2(a), s=(2, 3)) == a
    let back = fft::irfft2_with(&r, &FftnOptions::new().s([2, 3]))?;
    assert_real(
        &back,
        &[2, 3],
        DType::Float64,
        &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        1e-14,
    );
    let b = cp::arange(24)?.astype(DType::Float64)?.reshape([2, 3, 4])?;
    // NumPy 2.4: np.fft.fftn(np.arange(24.).reshape(2, 3, 4), s=(3, 2), axes=(0, 2))
    let got = fft::fftn_with(&b, &FftnOptions::new().s([3, 2]).axes([0, 2]))?;
    let want = [
        (26.0, 0.0),
        (-2.0, 0.0),
        (42.0, 0.0),
        (-2.0, 0.0),
        (58.0, 0.0),
        (-2.0, 0.0),
        (-11.5, -21.650635094610966),
        (-0.5, H3),
        (-7.5, -28.578838324886473),
        (-0.5, H3),
        (-3.5, -35.50704155516198),
        (-0.5, H3),
        (-11.5, 21.650635094610966),
        (-0.5, -H3),
        (-7.5, 28.578838324886473),
        (-0.5, -H3),
        (-3.5, 35.50704155516198),
        (-0.5, -H3),
    ];
    assert_c(&got, &[3, 3, 2], c, &want, 1e-14);
    // NumPy 2.4: np.fft.fft(np.arange(24.).reshape(2, 3, 4), axis=1)
    // (the middle axis: cuFFT needs a copy with the axis innermost)
    let got = fft::fft_with(&b, &FftOptions::new().axis(1))?;
    let mut want = Vec::new();
    for base in [12.0, 48.0] {
        for j in 0..4 {
            want.push((base + 3.0 * j as f64, 0.0));
        }
        for _ in 0..4 {
            want.push((-6.0, 3.4641016151377544));
        }
        for _ in 0..4 {
            want.push((-6.0, -3.4641016151377544));
        }
    }
    assert_c(&got, &[2, 3, 4], c, &want, 1e-14);
    // NumPy 2.4: np.fft.ifftn(np.arange(24.).reshape(2, 3, 4)[:, :2, :3])
    // (a non-contiguous view)
    let v = b.slice(s![.., ..2, ..3])?;
    let got = fft::ifftn(&v)?;
    let e = 0.28867513459481287;
    let want = [
        (9.0, 0.0),
        (-0.5, -e),
        (-0.5, e),
        (-2.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (-6.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
        (0.0, 0.0),
    ];
    assert_c(&got, &[2, 2, 3], c, &want, 1e-14);
    // NumPy 2.4: np.fft.rfftn(b).shape == (2, 3, 3); irfftn(rfftn(b)) == b
    let r = fft::rfftn(&b)?;
    assert_eq!(r.shape(), &[2, 3, 3]);
    let back = fft::irfftn(&r)?;
    let want: Vec<f64> = (0..24).map(|i| i as f64).collect();
    assert_real(&back, &[2, 3, 4], DType::Float64, &want, 1e-13);
});

// Random inputs against the naive DFT along each axis, in every layout the
// GPU path distinguishes (in place, strided, copied, reversed, broadcast).
on_every_device!(layouts_against_naive_dft, |_dev| {
    let shape = [3usize, 5, 8];
    let host = complex_data(120, 7);
    let x = cp::asarray(host.clone())?.reshape(&shape[..])?;
    for axis in 0..3 {
        let want = naive(&host, &shape, axis, true);
        let got = fft::fft_with(&x, &FftOptions::new().axis(axis as isize))?;
        assert_eq!(got.shape(), &shape);
        assert_same(&cvals(&got), &want, 1e-13);
        // complex64: single precision, same values.
        let x32 = x.astype(DType::Complex64)?;
        let got = fft::fft_with(&x32, &FftOptions::new().axis(axis as isize))?;
        assert_eq!(got.dtype(), DType::Complex64);
        assert_same(&cvals(&got), &want, 1e-5);
        let inv = fft::ifft_with(&got, &FftOptions::new().axis(axis as isize))?;
        assert_same(&cvals(&inv), &host, 1e-5);
    }
    // A reversed view (negative stride).
    let r = x.slice(s![.., .., ..;-1])?;
    let rh = cvals(&r);
    assert_same(&cvals(&fft::fft(&r)?), &naive(&rh, &shape, 2, true), 1e-13);
    // A stepped view (stride 2 along the transformed axis).
    let st = x.slice(s![.., .., ..;2])?;
    let sh = cvals(&st);
    assert_same(
        &cvals(&fft::fft(&st)?),
        &naive(&sh, &[3, 5, 4], 2, true),
        1e-13,
    );
    // A transposed array, two axes at once.
    let t = x.permute_axes(&[2, 0, 1])?;
    let th = cvals(&t);
    let want = naive(&naive(&th, &[8, 3, 5], 0, true), &[8, 3, 5], 2, true);
    let got = fft::fftn_with(&t, &FftnOptions::new().axes([2, 0]))?;
    assert_same(&cvals(&got), &want, 1e-13);
    // A broadcast input (stride 0 along the batch and the transformed axis).
    let row = cp::asarray(data(8, 3))?;
    let bc = row.broadcast_to(&[4, 8])?;
    let want = naive(&cvals(&bc), &[4, 8], 1, true);
    assert_same(&cvals(&fft::fft(&bc)?), &want, 1e-13);
    let col = row.reshape([8, 1])?.broadcast_to(&[8, 4])?;
    let want = naive(&cvals(&col), &[8, 4], 0, true);
    assert_same(
        &cvals(&fft::fft_with(&col, &FftOptions::new().axis(0))?),
        &want,
        1e-13,
    );
    // Zero-size batches give empty results of the right shape.
    let e = cp::zeros([0, 4], DType::Float64)?;
    let got = fft::fft(&e)?;
    assert_eq!(got.shape(), &[0, 4]);
    assert_eq!(got.dtype(), DType::Complex128);
    assert_eq!(fft::rfft(&e)?.shape(), &[0, 3]);
    assert_eq!(fft::irfft(&fft::rfft(&e)?)?.shape(), &[0, 4]);
    // ... and a zero-length axis is padded when n is given.
    let e = cp::zeros([2, 0], DType::Float64)?;
    let got = fft::fft_with(&e, &FftOptions::new().n(3))?;
    assert_c(&got, &[2, 3], DType::Complex128, &[(0.0, 0.0); 6], 0.0);
});

on_every_device!(round_trips_and_parseval, |_dev| {
    for n in [1usize, 2, 7, 16, 30, 97, 128] {
        let host = data(3 * n, n as u64);
        let x = cp::asarray(host.clone())?.reshape(vec![3, n])?;
        // Parseval: sum |x|^2 == sum |X|^2 / n.
        let big = fft::fft(&x)?;
        let ex: f64 = host.iter().map(|v| v * v).sum();
        let eb: f64 = cvals(&big).iter().map(|c| c.norm_sqr()).sum::<f64>() / n as f64;
        assert!((ex - eb).abs() <= 1e-12 * ex.max(1.0), "Parseval n={n}");
        // ortho keeps the norm.
        let o = fft::fft_with(&x, &FftOptions::new().norm(Norm::Ortho))?;
        let eo: f64 = cvals(&o).iter().map(|c| c.norm_sqr()).sum();
        assert!((ex - eo).abs() <= 1e-12 * ex.max(1.0), "ortho n={n}");
        // ifft(fft(x)) == x
        let back = fft::ifft(&big)?;
        let want: Vec<Complex64> = host.iter().map(|&v| Complex64::new(v, 0.0)).collect();
        assert_same(&cvals(&back), &want, 1e-13);
        // irfft(rfft(x), n) == x, even and odd n; every norm.
        for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
            let o = FftOptions::new().n(n).norm(norm);
            let half = fft::rfft_with(&x, &o)?;
            assert_eq!(half.shape(), &[3, n / 2 + 1]);
            let back = fft::irfft_with(&half, &o)?;
            assert_real(&back, &[3, n], DType::Float64, &host, 1e-9);
            // rfft equals the first half of fft.
            let full = fft::fft_with(&x, &o)?;
            let full = cvals(&full);
            let hv = cvals(&half);
            for row in 0..3 {
                let m = n / 2 + 1;
                assert_same(
                    &hv[row * m..(row + 1) * m],
                    &full[row * n..row * n + m],
                    1e-13,
                );
            }
        }
    }
    // float32 round trip (R2C / C2R in single precision).
    let host: Vec<f32> = data(1000, 5).into_iter().map(|v| v as f32).collect();
    let x = cp::asarray(host.clone())?;
    let back = fft::irfft_with(&fft::rfft(&x)?, &FftOptions::new().n(1000))?;
    assert_eq!(back.dtype(), DType::Float32);
    let want: Vec<f64> = host.iter().map(|&v| v as f64).collect();
    let got = values_f64(&back);
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 1e-5, "{g} vs {w}");
    }
});

// More than three axes: cuFFT plans have rank <= 3, so these run in groups.
on_every_device!(many_axes, |_dev| {
    let shape = [2usize, 3, 2, 4, 3];
    let host = complex_data(144, 11);
    let x = cp::asarray(host.clone())?.reshape(&shape[..])?;
    let mut want = host.clone();
    for ax in 0..5 {
        want = naive(&want, &shape, ax, true);
    }
    let got = fft::fftn(&x)?;
    assert_same(&cvals(&got), &want, 1e-12);
    let back = fft::ifftn(&got)?;
    assert_same(&cvals(&back), &host, 1e-12);
    // Real transforms over 4 axes (R2C then C2C; C2C then C2R).
    let real: Vec<f64> = data(144, 12);
    let xr = cp::asarray(real.clone())?.reshape(&shape[..])?;
    let o = FftnOptions::new().axes([0, 1, 3, 4]);
    let r = fft::rfftn_with(&xr, &o)?;
    assert_eq!(r.shape(), &[2, 3, 2, 4, 2]);
    let o2 = FftnOptions::new().axes([0, 1, 3, 4]).s([2, 3, 4, 3]);
    let back = fft::irfftn_with(&r, &o2)?;
    assert_real(&back, &shape, DType::Float64, &real, 1e-9);
    // rfftn's first half of the last axis equals fftn's.
    let full = cvals(&fft::fftn_with(&xr, &o)?);
    let half = cvals(&r);
    for (i, h) in half.iter().enumerate() {
        let (outer, k) = (i / 2, i % 2);
        let f = full[outer * 3 + k];
        assert!((h - f).norm() < 1e-12 * 50.0, "{h} vs {f}");
    }
});

on_every_device!(frequencies_and_shifts, |dev| {
    // NumPy 2.4: np.fft.fftfreq(5, 0.1), fftfreq(4), rfftfreq(5, 0.1), rfftfreq(4)
    let f = fft::fftfreq(5, 0.1)?;
    assert_eq!(f.device(), dev);
    assert_real(
        &f,
        &[5],
        DType::Float64,
        &[0.0, 2.0, 4.0, -4.0, -2.0],
        1e-15,
    );
    assert_real(
        &fft::fftfreq(4, 1.0)?,
        &[4],
        DType::Float64,
        &[0.0, 0.25, -0.5, -0.25],
        0.0,
    );
    assert_real(
        &fft::rfftfreq(5, 0.1)?,
        &[3],
        DType::Float64,
        &[0.0, 2.0, 4.0],
        1e-15,
    );
    assert_real(
        &fft::rfftfreq(4, 1.0)?,
        &[3],
        DType::Float64,
        &[0.0, 0.25, 0.5],
        0.0,
    );
    // NumPy 2.4: fftshift(arange(5)), fftshift(arange(6)), ifftshift(arange(5))
    assert_exact(
        &fft::fftshift(&cp::arange(5)?, None)?,
        &[5],
        &[3i64, 4, 0, 1, 2],
    );
    assert_exact(
        &fft::fftshift(&cp::arange(6)?, None)?,
        &[6],
        &[3i64, 4, 5, 0, 1, 2],
    );
    assert_exact(
        &fft::ifftshift(&cp::arange(5)?, None)?,
        &[5],
        &[2i64, 3, 4, 0, 1],
    );
    // NumPy 2.4: fftshift(arange(6).reshape(2, 3)) and with axes=1
    let m = cp::arange(6)?.reshape([2, 3])?;
    assert_exact(&fft::fftshift(&m, None)?, &[2, 3], &[5i64, 3, 4, 2, 0, 1]);
    assert_exact(
        &fft::fftshift(&m, Some(&[1]))?,
        &[2, 3],
        &[2i64, 0, 1, 5, 3, 4],
    );
    // ifftshift undoes fftshift, for odd and even lengths.
    for n in [1, 4, 7] {
        let v = cp::arange(n)?;
        let back = fft::ifftshift(&fft::fftshift(&v, None)?, None)?;
        let want: Vec<i64> = (0..n as i64).collect();
        assert_exact(&back, &[n], &want);
    }
    // The result is a new array, not a view of the input.
    let one = cp::arange(1)?;
    assert!(!fft::fftshift(&one, None)?.shares_memory(&one));
});

on_every_device!(plan_cache_counts, |dev| {
    // One test owns the cache settings (tests of a binary share the caches).
    let before = fft::plan_cache()?;
    assert_eq!(before.device, dev);
    assert_eq!(before.capacity, 16);
    // A length no other test uses: the first call misses, the second hits.
    let x = cp::asarray(data(2 * 211, 9))?.reshape([2, 211])?;
    fft::fft(&x)?;
    let mid = fft::plan_cache()?;
    assert!(mid.misses > before.misses);
    assert!(
        mid.entries.iter().any(|e| e.contains("211")),
        "{:?}",
        mid.entries
    );
    fft::fft(&x)?;
    let after = fft::plan_cache()?;
    assert!(after.hits > mid.hits);
    assert!(after.size <= after.capacity);
    // Capacity 1 keeps only the most recent plan; 0 keeps none.
    fft::set_capacity(1)?;
    assert!(fft::plan_cache()?.size <= 1);
    fft::set_capacity(0)?;
    assert_eq!(fft::plan_cache()?.size, 0);
    let y = fft::fft(&x)?;
    assert_eq!(y.shape(), &[2, 211]);
    assert_eq!(fft::plan_cache()?.size, 0);
    fft::set_capacity(16)?;
    fft::clear_plan_cache()?;
    let cleared = fft::plan_cache()?;
    assert_eq!((cleared.size, cleared.capacity), (0, 16));
});

on_every_device!(errors_name_the_problem, |_dev| {
    let x = cp::asarray([1.0, 2.0, 3.0])?;
    // Bad axis.
    let e = fft::fft_with(&x, &FftOptions::new().axis(1)).unwrap_err();
    assert!(matches!(e, Error::Axis { op: "fft", .. }), "{e}");
    let e = fft::fftn_with(&x, &FftnOptions::new().axes([-2])).unwrap_err();
    assert!(matches!(e, Error::Axis { .. }), "{e}");
    // n < 1.
    let e = fft::fft_with(&x, &FftOptions::new().n(0)).unwrap_err();
    assert!(e.to_string().contains("at least 1"), "{e}");
    let e = fft::rfftn_with(&x, &FftnOptions::new().s([0])).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    // irfft of one point has no default length (2 * (1 - 1) = 0).
    let e = fft::irfft(&cp::asarray([1.0])?).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    // A zero-length axis without n.
    let e = fft::fft(&cp::zeros([2, 0], DType::Float64)?).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    // Bad norm string.
    let e = Norm::parse("bad").unwrap_err();
    assert!(e.to_string().contains("\"ortho\""), "{e}");
    assert!("Ortho".parse::<Norm>().is_err());
    // rfft of complex input.
    let z = x.astype(DType::Complex64)?;
    let e = fft::rfft(&z).unwrap_err();
    assert!(matches!(e, Error::DType { op: "rfft", .. }), "{e}");
    // s and axes of different lengths; repeated axes.
    let m = cp::zeros([2, 2], DType::Float64)?;
    let e = fft::fftn_with(&m, &FftnOptions::new().s([2, 2]).axes([0])).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    let e = fft::fftn_with(&m, &FftnOptions::new().axes([0, 0])).unwrap_err();
    assert!(e.to_string().contains("repeated"), "{e}");
    // fft2 of a 1-D array has no axis -2.
    assert!(matches!(fft::fft2(&x).unwrap_err(), Error::Axis { .. }));
    // A 0-d array has no axis to transform.
    let e = fft::fft(&cp::asarray(1.0)?).unwrap_err();
    assert!(matches!(e, Error::Axis { .. }), "{e}");
    // Frequencies need n >= 1 and a finite non-zero spacing.
    assert!(fft::fftfreq(0, 1.0).is_err());
    assert!(fft::rfftfreq(4, 0.0).is_err());
    // Bad shift axes.
    assert!(matches!(
        fft::fftshift(&x, Some(&[3])).unwrap_err(),
        Error::Axis { .. }
    ));
    // The empty axes list: a complex copy for fftn, an error for rfftn.
    let c = fft::fftn_with(&x, &FftnOptions::new().axes(Vec::<isize>::new()))?;
    assert_eq!(c.dtype(), DType::Complex128);
    assert!(fft::rfftn_with(&x, &FftnOptions::new().axes(Vec::<isize>::new())).is_err());
});

type Op = Box<dyn Fn(&Array) -> cp::Result<Array>>;

// The GPU against the CPU backend on larger random inputs (cuFFT's
// algorithms differ from rustfft's: agreement to rounding).
#[test]
fn cuda_matches_cpu_on_large_inputs() {
    let Some(dev) = gpu_or_skip() else { return };
    let shape = [64usize, 1000];
    let host = complex_data(64 * 1000, 21);
    let cpu = cp::with_device(Device::Cpu, || cp::asarray(host.clone()))
        .unwrap()
        .reshape(&shape[..])
        .unwrap();
    let gpu = cpu.to_device(&dev).unwrap();
    let cases: Vec<(&str, Op)> = vec![
        ("fft axis -1", Box::new(fft::fft)),
        (
            "fft axis 0",
            Box::new(|a| fft::fft_with(a, &FftOptions::new().axis(0))),
        ),
        ("fft2", Box::new(fft::fft2)),
        (
            "ifft2 ortho",
            Box::new(|a| fft::ifft2_with(a, &FftnOptions::new().norm(Norm::Ortho))),
        ),
        (
            "rfft of real part, n=1500",
            Box::new(|a| {
                fft::rfft_with(
                    &a.astype(DType::Float64)?,
                    &FftOptions::new().n(1500).norm(Norm::Forward),
                )
            }),
        ),
        ("irfft2", Box::new(fft::irfft2)),
        (
            "complex64 fft axis 0",
            Box::new(|a| fft::fft_with(&a.astype(DType::Complex64)?, &FftOptions::new().axis(0))),
        ),
        (
            "float32 rfft2",
            Box::new(|a| fft::rfft2(&a.astype(DType::Float64)?.astype(DType::Float32)?)),
        ),
        (
            "complex64 irfft",
            Box::new(|a| fft::irfft(&a.astype(DType::Complex64)?)),
        ),
    ];
    for (name, f) in &cases {
        let want = cp::with_device(Device::Cpu, || f(&cpu)).unwrap();
        let got = cp::with_device(dev, || f(&gpu)).unwrap();
        assert_eq!(got.device(), dev, "{name}");
        assert_eq!(got.shape(), want.shape(), "{name}");
        assert_eq!(got.dtype(), want.dtype(), "{name}");
        let single = matches!(got.dtype(), DType::Complex64 | DType::Float32);
        let tol = if single { 1e-5 } else { 1e-12 };
        assert_same(&cvals(&got), &cvals(&want), tol);
    }
}

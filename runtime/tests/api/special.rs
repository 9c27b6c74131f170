//! SciPy's special functions (`cp::special`): every function against
//! SciPy's values on every backend (fixtures written by
//! `tests/data/scipy/generate_special.py`: edges, poles, huge and tiny
//! arguments, NaN and infinities), the GPU against the CPU on fresh random
//! inputs, the type rules, the `_out` forms, `fuse`, and bad input.

// The expected values are SciPy's as it printed them, some of which are
// well-known constants.
#![allow(clippy::approx_constant)]

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use cuprite as cp;
use cuprite::{Array, DType};

use common::values_f64;

type UnFn = fn(&Array) -> cp::Result<Array>;
type BinFn = fn(&Array, &Array) -> cp::Result<Array>;

/// How close a function must come to SciPy's values: relative `f64` and
/// `f32` errors against `max(|expected|, floor)`, so a floor of 1 makes
/// the check absolute where the function crosses zero (only an absolute
/// error is meaningful there: both libraries round the argument).
#[derive(Clone, Copy)]
struct Tol {
    f64: f64,
    f32: f64,
    floor: f64,
}

/// Relative 1e-13 and float32's 1e-6 (SciPy's float32 values are mostly
/// its float64 ones rounded, as ours are).
const REL: Tol = Tol {
    f64: 1e-13,
    f32: 1e-6,
    floor: 0.0,
};
/// Functions with zeros inside the tested range: absolute below 1.
const ZEROS: Tol = Tol { floor: 1.0, ..REL };
/// `beta` and the incomplete gamma functions past `a = 171`: they go through
/// `lgamma` of large arguments, whose last-ulp differences between libraries
/// (musl's here, Cephes' in SciPy) grow by cancellation to a few 1e-13.
const LOGGAMMA: Tol = Tol { f64: 1e-12, ..REL };

const INF: f64 = f64::INFINITY;

/// Where this crate deliberately differs from SciPy 1.17 (function,
/// argument, this crate's float64 value); the float32 results are these
/// values rounded.
#[rustfmt::skip]
const DIFFERENCES: &[(&str, f64, f64)] = &[
    // The Bessel functions tend to 0 at infinity; SciPy's Cephes takes
    // cos(inf) and gives NaN.
    ("j0", INF, 0.0), ("j0", -INF, 0.0), ("j1", INF, 0.0), ("j1", -INF, 0.0),
    ("y0", INF, 0.0), ("y1", INF, 0.0),
    // Cephes reduces x - pi/4 in double and loses the phase for large x
    // (j0(1e10) off by 1e-6 relative); musl (libm) reduces exactly: the
    // leading asymptotic term sqrt(2/(pi x)) cos(x - pi/4) is 2.17559175034e-6.
    ("j0", 1e10, 2.1755917502468914e-6), ("j0", -1e10, 2.1755917502468914e-6),
    ("j1", 1e10, -7.676508175684158e-6), ("j1", -1e10, 7.676508175684158e-6),
    ("y0", 1e10, -7.676508175792937e-6), ("y1", 1e10, -2.1755917506307167e-6),
    // (Their float32 inputs are infinite: 0 here, NaN in SciPy.)
    ("j0", 1e300, -7.860673062724093e-151), ("j0", -1e300, -7.860673062724093e-151),
    ("j1", 1e300, -1.3681360450342481e-151), ("j1", -1e300, 1.3681360450342481e-151),
    ("y0", 1e300, -1.3681360450342481e-151), ("y1", 1e300, 7.860673062724093e-151),
    // i0 and i1 are finite up to x = 713.98; SciPy 1.17 overflows in exp(x)
    // from 709.78 (xsf since splits the exponential, as this crate does).
    ("i0", 710.0, 3.3453345586196564e306), ("i1", 710.0, 3.342977858509763e306),
    // ... and infinite at infinity (SciPy: NaN; also the float32 inputs 1e300).
    ("i0", INF, INF), ("i0", -INF, INF), ("i1", INF, INF), ("i1", -INF, -INF),
    ("i0", 1e300, INF), ("i0", -1e300, INF), ("i1", 1e300, INF), ("i1", -1e300, -INF),
];

#[rustfmt::skip]
const UNARY: &[(&str, UnFn, Tol)] = &[
    ("erf", |a| cp::special::erf(a), REL),
    ("erfc", |a| cp::special::erfc(a), REL),
    ("erfcx", |a| cp::special::erfcx(a), REL),
    ("erfinv", |a| cp::special::erfinv(a), REL),
    ("erfcinv", |a| cp::special::erfcinv(a), REL),
    ("ndtr", |a| cp::special::ndtr(a), REL),
    ("ndtri", |a| cp::special::ndtri(a), REL),
    ("log_ndtr", |a| cp::special::log_ndtr(a), REL),
    ("gamma", |a| cp::special::gamma(a), REL),
    // gammaln is 0 at 1 and 2 and crosses 0 between the negative poles.
    ("gammaln", |a| cp::special::gammaln(a), ZEROS),
    // digamma crosses 0 at 1.46 and once between each pair of negative poles.
    ("digamma", |a| cp::special::digamma(a), ZEROS),
    ("loggamma", |a| cp::special::loggamma(a), ZEROS),
    ("expit", |a| cp::special::expit(a), REL),
    ("logit", |a| cp::special::logit(a), REL),
    ("log_expit", |a| cp::special::log_expit(a), REL),
    ("entr", |a| cp::special::entr(a), REL),
    ("i0", |a| cp::special::i0(a), REL),
    ("i0e", |a| cp::special::i0e(a), REL),
    ("i1", |a| cp::special::i1(a), REL),
    ("i1e", |a| cp::special::i1e(a), REL),
    ("k0", |a| cp::special::k0(a), REL),
    ("k0e", |a| cp::special::k0e(a), REL),
    ("k1", |a| cp::special::k1(a), REL),
    ("k1e", |a| cp::special::k1e(a), REL),
    ("j0", |a| cp::special::j0(a), ZEROS),
    ("j1", |a| cp::special::j1(a), ZEROS),
    ("y0", |a| cp::special::y0(a), ZEROS),
    ("y1", |a| cp::special::y1(a), ZEROS),
];

#[rustfmt::skip]
const BINARY: &[(&str, BinFn, Tol)] = &[
    ("beta", |a, b| cp::special::beta(a, b), LOGGAMMA),
    // log|B| crosses 0 (B(a, b) = 1 at a = 1, b = 1 and along a curve).
    ("betaln", |a, b| cp::special::betaln(a, b), ZEROS),
    ("gammainc", |a, b| cp::special::gammainc(a, b), LOGGAMMA),
    ("gammaincc", |a, b| cp::special::gammaincc(a, b), LOGGAMMA),
    ("zeta", |a, b| cp::special::zeta(a, b), REL),
    ("polygamma", |a, b| cp::special::polygamma(a, b), REL),
    ("binom", |a, b| cp::special::binom(a, b), LOGGAMMA),
    ("huber", |a, b| cp::special::huber(a, b), REL),
    ("pseudo_huber", |a, b| cp::special::pseudo_huber(a, b), REL),
    ("xlogy", |a, b| cp::special::xlogy(a, b), REL),
    ("xlog1py", |a, b| cp::special::xlog1py(a, b), REL),
    ("rel_entr", |a, b| cp::special::rel_entr(a, b), ZEROS),
    ("kl_div", |a, b| cp::special::kl_div(a, b), ZEROS),
    ("gammaincinv", |a, b| cp::special::gammaincinv(a, b), INVERSE),
    ("gammainccinv", |a, b| cp::special::gammainccinv(a, b), INVERSE),
];

/// The inverses of the incomplete functions: both libraries stop their
/// iterations near float64's resolution of the function, which the inverse
/// magnifies by the function's condition number (up to 1e3 for shapes of
/// 1e5); roots below 1e-250 are compared absolutely.
const INVERSE: Tol = Tol {
    f64: 1e-9,
    f32: 1e-6,
    floor: 1e-250,
};

type TernFn = fn(&Array, &Array, &Array) -> cp::Result<Array>;

/// Cephes' incbet (here) against Boost's ibeta (SciPy 1.17) for shapes in
/// [1e-3, 1e4]: within 1e-9 (1e-10 but near x = 1); results below 1e-250,
/// where the two underflow differently, are compared absolutely.
const INCBET: Tol = Tol {
    f64: 1e-9,
    f32: 1e-6,
    floor: 1e-250,
};

#[rustfmt::skip]
const TERNARY: &[(&str, TernFn, Tol)] = &[
    ("betainc", |a, b, x| cp::special::betainc(a, b, x), INCBET),
    ("betaincinv", |a, b, y| cp::special::betaincinv(a, b, y), INVERSE),
];

fn fixtures() -> BTreeMap<String, Array> {
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/scipy/special.npz");
    cp::with_device(cp::Device::Cpu, || cp::load_npz(&built)).expect("special.npz loads")
}

/// Whether `got` is within `rtol` of `want` (see [`Tol`]); NaN only where
/// NaN is expected, infinities exactly. Values below the dtype's smallest
/// normal number are equal (libraries underflow at different points, and
/// SciPy computes some float32 loops in float32, where they underflow sooner).
fn close(got: f64, want: f64, dt: DType, rtol: f64, floor: f64) -> bool {
    let tiny = if dt == DType::Float32 {
        f32::MIN_POSITIVE as f64
    } else {
        f64::MIN_POSITIVE
    };
    if want.is_nan() {
        got.is_nan()
    } else if want.is_infinite() {
        got == want
    } else if got.abs() < tiny && want.abs() < tiny {
        true
    } else {
        !got.is_nan() && (got - want).abs() <= rtol * want.abs().max(floor)
    }
}

/// SciPy's value, or this crate's where [`DIFFERENCES`] lists it.
fn expected(name: &str, dt: DType, x: f64, scipy: f64) -> f64 {
    match DIFFERENCES.iter().find(|d| d.0 == name && d.1 == x) {
        Some(&(_, _, ours)) if dt == DType::Float32 => ours as f32 as f64,
        Some(&(_, _, ours)) => ours,
        None => scipy,
    }
}

/// Appends a line per element of `got` (on any device) that misses `want`.
#[allow(clippy::too_many_arguments)]
fn compare(
    what: &str,
    got: &Array,
    dt: DType,
    inputs: &[Vec<f64>],
    want: &[f64],
    rtol: f64,
    floor: f64,
    failures: &mut Vec<String>,
) {
    if got.dtype() != dt {
        failures.push(format!("{what}: dtype {} (expected {dt})", got.dtype()));
        return;
    }
    for (i, (&g, &w)) in values_f64(got).iter().zip(want).enumerate() {
        if !close(g, w, dt, rtol, floor) {
            let args: Vec<String> = inputs.iter().map(|v| format!("{:e}", v[i])).collect();
            failures.push(format!(
                "{what}({}): got {g:e}, SciPy {w:e} (rtol {rtol:e})",
                args.join(", ")
            ));
        }
    }
}

/// CUDA's native float32 functions are within a few float32 ulps, and its
/// double ones within a few double ulps, of the correctly rounded values the
/// CPU gives (`j0` and `y0` of large arguments: an absolute 5e-12).
fn device_factor(dev: &cp::Device, dt: DType) -> f64 {
    match (dev, dt) {
        (cp::Device::Cpu, _) => 1.0,
        (_, DType::Float64) => 100.0,
        _ => 20.0,
    }
}

on_every_device!(unary_functions_match_scipy, |dev| {
    let fx = fixtures();
    let mut failures = Vec::new();
    for &(name, f, tol) in UNARY {
        let x = &fx[&format!("{name}.x")];
        let xs = vec![values_f64(x)];
        let x = x.to_device(&dev)?;
        for (dt, key, rtol) in [
            (DType::Float64, "f64", tol.f64),
            (DType::Float32, "f32", tol.f32),
        ] {
            let got = f(&x.astype(dt)?)?;
            let scipy = values_f64(&fx[&format!("{name}.{key}")]);
            let want: Vec<f64> = (xs[0].iter().zip(&scipy))
                .map(|(&x, &w)| expected(name, dt, x, w))
                .collect();
            let rtol = rtol * device_factor(&dev, dt);
            let what = format!("{name} {dt} on {dev}");
            compare(&what, &got, dt, &xs, &want, rtol, tol.floor, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
});

on_every_device!(binary_functions_match_scipy, |dev| {
    let fx = fixtures();
    let mut failures = Vec::new();
    for &(name, f, tol) in BINARY {
        let (x, y) = (&fx[&format!("{name}.x")], &fx[&format!("{name}.y")]);
        let xs = vec![values_f64(x), values_f64(y)];
        let (x, y) = (x.to_device(&dev)?, y.to_device(&dev)?);
        for (dt, key, rtol) in [
            (DType::Float64, "f64", tol.f64),
            (DType::Float32, "f32", tol.f32),
        ] {
            let got = f(&x.astype(dt)?, &y.astype(dt)?)?;
            let want = values_f64(&fx[&format!("{name}.{key}")]);
            let rtol = rtol * device_factor(&dev, dt);
            let what = format!("{name} {dt} on {dev}");
            compare(&what, &got, dt, &xs, &want, rtol, tol.floor, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
});

on_every_device!(ternary_functions_match_scipy, |dev| {
    let fx = fixtures();
    let mut failures = Vec::new();
    for &(name, f, tol) in TERNARY {
        let args: Vec<&Array> = ["x", "y", "z"]
            .iter()
            .map(|k| &fx[&format!("{name}.{k}")])
            .collect();
        let xs: Vec<Vec<f64>> = args.iter().map(|a| values_f64(a)).collect();
        let on: Vec<Array> = args
            .iter()
            .map(|a| a.to_device(&dev))
            .collect::<cp::Result<_>>()?;
        for (dt, key, rtol) in [
            (DType::Float64, "f64", tol.f64),
            (DType::Float32, "f32", tol.f32),
        ] {
            let got = f(&on[0].astype(dt)?, &on[1].astype(dt)?, &on[2].astype(dt)?)?;
            let want = values_f64(&fx[&format!("{name}.{key}")]);
            let rtol = rtol * device_factor(&dev, dt);
            let what = format!("{name} {dt} on {dev}");
            compare(&what, &got, dt, &xs, &want, rtol, tol.floor, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The _out form, and broadcasting of a column of x against a row of shapes.
    let x = cp::asarray(vec![0.25, 0.5])?.reshape([2, 1])?;
    let mut out = cp::zeros([2, 2], DType::Float64)?;
    cp::special::betainc_out(cp::asarray(vec![1.0, 2.0])?, 3.0, &x, &mut out)?;
    // scipy.special.betainc([1, 2], 3, [[0.25], [0.5]])
    let want = [0.578125, 0.26171875, 0.875, 0.6875];
    common::assert_close(&out, &[2, 2], DType::Float64, &want, 1e-14);
});

// SciPy 1.17: integers and bools compute in float64; the half types keep
// their dtype here (SciPy has no float16 loops and gives float64).
on_every_device!(dtypes_follow_the_type_rule, |dev| {
    let ints = cp::asarray(vec![1i8, 2, 5])?;
    let g = cp::special::gammaln(&ints)?;
    assert_eq!(g.dtype(), DType::Float64);
    // scipy.special.gammaln([1, 2, 5]) == [0, 0, 3.1780538303479458]
    common::assert_close(
        &g,
        &[3],
        DType::Float64,
        &[0.0, 0.0, 3.1780538303479458],
        1e-15,
    );
    let b = cp::asarray(vec![true, false])?;
    // scipy.special.erf([True, False]) == [0.8427007929497149, 0]
    common::assert_close(
        &cp::special::erf(&b)?,
        &[2],
        DType::Float64,
        &[0.8427007929497149, 0.0],
        1e-15,
    );
    for (dt, tol) in [(DType::Float16, 1e-3), (DType::BFloat16, 8e-3)] {
        let h = cp::asarray(vec![0.5, 1.0, -2.0])?.astype(dt)?;
        // scipy.special.expit([0.5, 1, -2])
        let want = [0.6224593312018546, 0.7310585786300049, 0.11920292202211755];
        common::assert_close(&cp::special::expit(&h)?, &[3], dt, &want, tol);
        let hb = cp::special::xlogy(&h, &h)?;
        assert_eq!(hb.dtype(), dt);
    }
    // A Rust float is weak: it takes the array's float32.
    let x32 = cp::asarray(vec![2.0f32])?;
    assert_eq!(cp::special::xlogy(&x32, 3.0)?.dtype(), DType::Float32);
    // psi is digamma's other name: digamma(1) is minus Euler's constant.
    let one = cp::asarray(vec![1.0])?;
    common::assert_close(
        &cp::special::psi(&one)?,
        &[1],
        DType::Float64,
        &[-0.5772156649015329],
        1e-15,
    );
    let _ = dev;
});

on_every_device!(complex_input_is_an_error_naming_the_function, |dev| {
    let z = cp::asarray(vec![cp::num_complex::Complex64::new(1.0, 1.0)])?;
    let e = cp::special::erf(&z).unwrap_err();
    assert_error!(e, DType, "erf");
    assert!(e.to_string().contains("not complex"), "{e}");
    let e = cp::special::beta(&z, 1.0).unwrap_err();
    assert_error!(e, DType, "beta");
    let e = cp::special::k0e(&z).unwrap_err();
    assert_error!(e, DType, "k0e");
    let _ = dev;
});

on_every_device!(out_forms_and_broadcasting, |dev| {
    // scipy.special.xlogy([[0], [2]], [0.5, 3]) == [[0, 0], [-1.3862943611198906, 2.1972245773362196]]
    let x = cp::asarray(vec![0.0, 2.0])?.reshape([2, 1])?;
    let y = cp::asarray(vec![0.5, 3.0])?;
    let want = [0.0, 0.0, -1.3862943611198906, 2.1972245773362196];
    common::assert_close(
        &cp::special::xlogy(&x, &y)?,
        &[2, 2],
        DType::Float64,
        &want,
        1e-15,
    );
    let mut out = cp::zeros([2, 2], DType::Float32)?;
    cp::special::xlogy_out(&x, &y, &mut out)?;
    common::assert_close(&out, &[2, 2], DType::Float32, &want, 1e-6);
    // scipy.special.ndtr([0, 1.5]) == [0.5, 0.9331927987311419]
    let mut out = cp::zeros([2], DType::Float64)?;
    cp::special::ndtr_out(cp::asarray(vec![0.0, 1.5])?, &mut out)?;
    common::assert_close(
        &out,
        &[2],
        DType::Float64,
        &[0.5, 0.9331927987311419],
        1e-15,
    );
    // float64 into an int64 `out` is not a same_kind cast.
    let mut bad = cp::zeros([2], DType::Int64)?;
    assert!(cp::special::ndtr_out(cp::asarray(vec![0.0, 1.5])?, &mut bad).is_err());
    let _ = dev;
});

on_every_device!(fuse_has_the_special_functions, |dev| {
    // scipy.special.log_expit(scipy.special.logit(0.25)) == log(0.25)
    let f = cp::fuse(|p: &cp::Expr| p.logit().log_expit() + p.erf().erfinv());
    let p = cp::asarray(vec![0.25f64, 0.5])?;
    let want = [0.25f64.ln() + 0.25, 0.5f64.ln() + 0.5];
    common::assert_close(&f.call(&p)?, &[2], DType::Float64, &want, 1e-14);
    let _ = dev;
});

/// Random inputs for the GPU sweep: `n` values spread over [lo, hi).
fn spread(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    common::rnd(n, seed)
        .iter()
        .map(|r| lo + (r + 1.0) / 2.0 * (hi - lo))
        .collect()
}

#[test]
fn gpu_matches_cpu_on_random_inputs() {
    if common::gpu_or_skip().is_none() {
        return;
    }
    let seed = common::test_seed("gpu_matches_cpu_on_random_inputs");
    cp::cuda::reset_host_fallbacks();
    let gpu = cp::Device::Cuda(0);
    let mut failures = Vec::new();
    for (k, &(name, f, tol)) in UNARY.iter().enumerate() {
        let (lo, hi) = match name {
            "erfinv" => (-1.0, 1.0),
            "erfcinv" => (0.0, 2.0),
            "ndtri" | "logit" => (0.0, 1.0),
            "gamma" => (-30.0, 170.0),
            _ => (-40.0, 60.0),
        };
        let v = spread(4000, seed.wrapping_add(k as u64), lo, hi);
        for dt in [DType::Float64, DType::Float32] {
            let x =
                cp::with_device(cp::Device::Cpu, || cp::asarray(v.clone())?.astype(dt)).unwrap();
            let cpu = cp::with_device(cp::Device::Cpu, || f(&x)).unwrap();
            let got = cp::with_device(gpu, || f(&x.to_device(&gpu)?)).unwrap();
            assert_eq!(got.device(), gpu, "{name}: the result left the GPU");
            let rtol = if dt == DType::Float64 {
                tol.f64
            } else {
                tol.f32
            } * device_factor(&gpu, dt);
            let xs = vec![values_f64(&x)];
            let what = format!("{name} {dt}, GPU against CPU");
            compare(
                &what,
                &got,
                dt,
                &xs,
                &values_f64(&cpu),
                rtol,
                tol.floor.max(1e-300),
                &mut failures,
            );
        }
    }
    for (k, &(name, f, tol)) in BINARY.iter().enumerate() {
        let a = spread(4000, seed.wrapping_add(100 + k as u64), -5.0, 40.0);
        let b = spread(4000, seed.wrapping_add(200 + k as u64), -5.0, 40.0);
        for dt in [DType::Float64, DType::Float32] {
            let (x, y) = cp::with_device(cp::Device::Cpu, || {
                Ok::<_, cp::Error>((
                    cp::asarray(a.clone())?.astype(dt)?,
                    cp::asarray(b.clone())?.astype(dt)?,
                ))
            })
            .unwrap();
            let cpu = cp::with_device(cp::Device::Cpu, || f(&x, &y)).unwrap();
            let got = cp::with_device(gpu, || f(&x.to_device(&gpu)?, &y.to_device(&gpu)?)).unwrap();
            let rtol = if dt == DType::Float64 {
                tol.f64
            } else {
                tol.f32
            } * device_factor(&gpu, dt);
            let xs = vec![values_f64(&x), values_f64(&y)];
            let what = format!("{name} {dt}, GPU against CPU");
            compare(
                &what,
                &got,
                dt,
                &xs,
                &values_f64(&cpu),
                rtol,
                tol.floor.max(1e-300),
                &mut failures,
            );
        }
    }
    for (k, &(name, f, tol)) in TERNARY.iter().enumerate() {
        let a = spread(4000, seed.wrapping_add(300 + k as u64), 0.0, 30.0);
        let b = spread(4000, seed.wrapping_add(400 + k as u64), 0.0, 30.0);
        let x = spread(4000, seed.wrapping_add(500 + k as u64), -0.1, 1.1);
        for dt in [DType::Float64, DType::Float32] {
            let args: Vec<Array> = [&a, &b, &x]
                .iter()
                .map(|v| {
                    cp::with_device(cp::Device::Cpu, || cp::asarray(v.to_vec())?.astype(dt))
                        .unwrap()
                })
                .collect();
            let cpu = cp::with_device(cp::Device::Cpu, || f(&args[0], &args[1], &args[2])).unwrap();
            let on: Vec<Array> = args.iter().map(|v| v.to_device(&gpu).unwrap()).collect();
            let got = cp::with_device(gpu, || f(&on[0], &on[1], &on[2])).unwrap();
            let rtol = if dt == DType::Float64 { 1e-13 } else { 1e-6 } * device_factor(&gpu, dt);
            let xs: Vec<Vec<f64>> = args.iter().map(values_f64).collect();
            let what = format!("{name} {dt}, GPU against CPU");
            compare(
                &what,
                &got,
                dt,
                &xs,
                &values_f64(&cpu),
                rtol,
                tol.floor,
                &mut failures,
            );
        }
    }
    assert!(failures.is_empty(), "seed {seed}:\n{}", failures.join("\n"));
    common::assert_no_host_fallback("a special function");
}

// SciPy 1.17: logsumexp, softmax and log_softmax of
// a = [[1, 2, 3], [-inf, -inf, -inf], [1000, 1000, -5]].
on_every_device!(log_space_reductions_match_scipy, |dev| {
    let ninf = f64::NEG_INFINITY;
    let a = cp::asarray(vec![
        vec![1.0, 2.0, 3.0],
        vec![ninf, ninf, ninf],
        vec![1000.0, 1000.0, -5.0],
    ])?;
    let rows = cp::special::logsumexp(&a, 1, false)?;
    common::assert_close(
        &rows,
        &[3],
        DType::Float64,
        &[3.40760596444438, ninf, 1000.6931471805599],
        1e-15,
    );
    let all = cp::special::logsumexp(&a, cp::Axes::All, false)?;
    common::assert_close(&all, &[], DType::Float64, &[1000.6931471805599], 1e-15);
    let cols = cp::special::logsumexp(&a, 0, true)?;
    common::assert_close(
        &cols,
        &[1, 3],
        DType::Float64,
        &[1000.0, 1000.0, 3.000335406372896],
        1e-15,
    );
    // An empty reduction is log(0); integers compute in float64.
    let empty = cp::special::logsumexp(&cp::zeros([2, 0], DType::Float32)?, 1, false)?;
    common::assert_close(&empty, &[2], DType::Float32, &[ninf, ninf], 0.0);
    let ints = cp::special::logsumexp(&cp::asarray(vec![1i8, 2, 3])?, cp::Axes::All, false)?;
    common::assert_close(&ints, &[], DType::Float64, &[3.40760596444438], 1e-15);
    let finite = a.take(&cp::asarray(vec![0i64, 2])?, Some(0))?;
    let sm = cp::special::softmax(&finite, 1)?;
    let want = [
        0.09003057317038046,
        0.24472847105479767,
        0.6652409557748219,
        0.5,
        0.5,
        0.0,
    ];
    common::assert_close(&sm, &[2, 3], DType::Float64, &want, 1e-14);
    let lsm = cp::special::log_softmax(&finite, 1)?;
    let want = [
        -2.40760596444438,
        -1.40760596444438,
        -0.40760596444437996,
        -0.6931471805599453,
        -0.6931471805599453,
        -1005.6931471805599,
    ];
    common::assert_close(&lsm, &[2, 3], DType::Float64, &want, 1e-14);
    let z = cp::asarray(vec![cp::num_complex::Complex64::new(1.0, 1.0)])?;
    assert_error!(
        cp::special::logsumexp(&z, 0, false).unwrap_err(),
        DType,
        "logsumexp"
    );
    let _ = dev;
});

//! NumPy-style text for arrays (`Display` is `str(x)`, `Debug` is `repr(x)`).
//!
//! Every expected string is NumPy 2.4's `str(x)` / `repr(x)` of the array in
//! the comment above it (generated with NumPy, pasted in; bfloat16, which
//! NumPy lacks, is worked out by hand). Print options are process-wide, so
//! every test holds one lock: the test that changes them cannot disturb the
//! others.

use std::sync::{Mutex, MutexGuard};

use cuprite as cp;
use cuprite::format::{PrintOptions, Sign};
use cuprite::num_complex::Complex64;
use cuprite::{Array, DType};

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;
const PI: f64 = std::f64::consts::PI;
const E: f64 = std::f64::consts::E;

static OPTIONS: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    OPTIONS.lock().unwrap_or_else(|e| e.into_inner())
}

/// `values` (float64) cast to `dtype`, as `np.array(values).astype(dtype)`.
fn floats(values: &[f64], dtype: DType) -> cp::Result<Array> {
    cp::asarray(values.to_vec())?.astype(dtype)
}

/// Complex numbers from (re, im) pairs cast to `dtype`.
fn complexes(values: &[(f64, f64)], dtype: DType) -> cp::Result<Array> {
    let v: Vec<Complex64> = values
        .iter()
        .map(|&(re, im)| Complex64::new(re, im))
        .collect();
    cp::asarray(v)?.astype(dtype)
}

/// `Display` and `Debug` with the default print options.
#[track_caller]
fn check(a: &Array, str_: &str, repr: &str) {
    assert_eq!(a.to_string(), str_, "str");
    assert_eq!(format!("{a:?}"), repr, "repr");
    let defaults = PrintOptions::default();
    assert_eq!(cp::format::str_with(a, &defaults), str_, "str_with");
    assert_eq!(cp::format::repr_with(a, &defaults), repr, "repr_with");
}

/// `str_with` and `repr_with` under `opts`.
#[track_caller]
fn check_with(a: &Array, opts: &PrintOptions, str_: &str, repr: &str) {
    assert_eq!(cp::format::str_with(a, opts), str_, "str_with");
    assert_eq!(cp::format::repr_with(a, opts), repr, "repr_with");
}

// Floats: the shortest digits that round-trip in the element's own dtype.
#[test]
fn floats_use_shortest_digits_of_their_own_dtype() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.array([0.1, 0.3]).astype(np.float16)
    check(
        &floats(&[0.0999755859375, 0.300048828125], cp::float16)?,
        "[0.1 0.3]",
        "array([0.1, 0.3], dtype=float16)",
    );
    // NumPy 2.4: np.array([1/3, 2/3]).astype(np.float16)
    check(
        &floats(&[0.333251953125, 0.66650390625], cp::float16)?,
        "[0.3333 0.6665]",
        "array([0.3333, 0.6665], dtype=float16)",
    );
    // NumPy 2.4: np.array([1.5, -2.25, 3.0]).astype(np.float16)
    check(
        &floats(&[1.5, -2.25, 3.0], cp::float16)?,
        "[ 1.5  -2.25  3.  ]",
        "array([ 1.5 , -2.25,  3.  ], dtype=float16)",
    );
    // NumPy 2.4: np.array([3.141592653589793, 2.718281828459045]).astype(np.float16)
    check(
        &floats(&[3.140625, 2.71875], cp::float16)?,
        "[3.14  2.719]",
        "array([3.14 , 2.719], dtype=float16)",
    );
    // NumPy 2.4: np.array([0.1, 1.234e-5]).astype(np.float16)
    check(
        &floats(&[0.0999755859375, 1.233816146850586e-05], cp::float16)?,
        "[9.998e-02 1.234e-05]",
        "array([9.998e-02, 1.234e-05], dtype=float16)",
    );
    // NumPy 2.4: np.array([1.0000000001, 2.0]).astype(np.float16)
    check(
        &floats(&[1.0, 2.0], cp::float16)?,
        "[1. 2.]",
        "array([1., 2.], dtype=float16)",
    );
    // NumPy 2.4: np.array([12345.678901234, 0.5]).astype(np.float16)
    check(
        &floats(&[12344.0, 0.5], cp::float16)?,
        "[1.2344e+04 5.0000e-01]",
        "array([1.2344e+04, 5.0000e-01], dtype=float16)",
    );
    // NumPy 2.4: np.array([0.5, 1e-9]).astype(np.float16)
    check(
        &floats(&[0.5, 0.0], cp::float16)?,
        "[0.5 0. ]",
        "array([0.5, 0. ], dtype=float16)",
    );
    // NumPy 2.4: np.array([-1.0, 0.0, 1.0]).astype(np.float16)
    check(
        &floats(&[-1.0, 0.0, 1.0], cp::float16)?,
        "[-1.  0.  1.]",
        "array([-1.,  0.,  1.], dtype=float16)",
    );
    // NumPy 2.4: np.array([0.1, 0.3]).astype(np.float32)
    check(
        &floats(&[0.10000000149011612, 0.30000001192092896], cp::float32)?,
        "[0.1 0.3]",
        "array([0.1, 0.3], dtype=float32)",
    );
    // NumPy 2.4: np.array([1/3, 2/3]).astype(np.float32)
    check(
        &floats(&[0.3333333432674408, 0.6666666865348816], cp::float32)?,
        "[0.33333334 0.6666667 ]",
        "array([0.33333334, 0.6666667 ], dtype=float32)",
    );
    // NumPy 2.4: np.array([1.5, -2.25, 3.0]).astype(np.float32)
    check(
        &floats(&[1.5, -2.25, 3.0], cp::float32)?,
        "[ 1.5  -2.25  3.  ]",
        "array([ 1.5 , -2.25,  3.  ], dtype=float32)",
    );
    // NumPy 2.4: np.array([3.141592653589793, 2.718281828459045]).astype(np.float32)
    check(
        &floats(&[3.1415927410125732, 2.7182817459106445], cp::float32)?,
        "[3.1415927 2.7182817]",
        "array([3.1415927, 2.7182817], dtype=float32)",
    );
    // NumPy 2.4: np.array([0.1, 1.234e-5]).astype(np.float32)
    check(
        &floats(&[0.10000000149011612, 1.2339999557298142e-05], cp::float32)?,
        "[1.000e-01 1.234e-05]",
        "array([1.000e-01, 1.234e-05], dtype=float32)",
    );
    // NumPy 2.4: np.array([1.0000000001, 2.0]).astype(np.float32)
    check(
        &floats(&[1.0, 2.0], cp::float32)?,
        "[1. 2.]",
        "array([1., 2.], dtype=float32)",
    );
    // NumPy 2.4: np.array([12345.678901234, 0.5]).astype(np.float32)
    check(
        &floats(&[12345.6787109375, 0.5], cp::float32)?,
        "[1.2345679e+04 5.0000000e-01]",
        "array([1.2345679e+04, 5.0000000e-01], dtype=float32)",
    );
    // NumPy 2.4: np.array([0.5, 1e-9]).astype(np.float32)
    check(
        &floats(&[0.5, 9.999999717180685e-10], cp::float32)?,
        "[5.e-01 1.e-09]",
        "array([5.e-01, 1.e-09], dtype=float32)",
    );
    // NumPy 2.4: np.array([-1.0, 0.0, 1.0]).astype(np.float32)
    check(
        &floats(&[-1.0, 0.0, 1.0], cp::float32)?,
        "[-1.  0.  1.]",
        "array([-1.,  0.,  1.], dtype=float32)",
    );
    // NumPy 2.4: np.array([0.1, 0.3]).astype(np.float64)
    check(
        &floats(&[0.1, 0.3], cp::float64)?,
        "[0.1 0.3]",
        "array([0.1, 0.3])",
    );
    // NumPy 2.4: np.array([1/3, 2/3]).astype(np.float64)
    check(
        &floats(&[0.3333333333333333, 0.6666666666666666], cp::float64)?,
        "[0.33333333 0.66666667]",
        "array([0.33333333, 0.66666667])",
    );
    // NumPy 2.4: np.array([1.5, -2.25, 3.0]).astype(np.float64)
    check(
        &floats(&[1.5, -2.25, 3.0], cp::float64)?,
        "[ 1.5  -2.25  3.  ]",
        "array([ 1.5 , -2.25,  3.  ])",
    );
    // NumPy 2.4: np.array([3.141592653589793, 2.718281828459045]).astype(np.float64)
    check(
        &floats(&[PI, E], cp::float64)?,
        "[3.14159265 2.71828183]",
        "array([3.14159265, 2.71828183])",
    );
    // NumPy 2.4: np.array([0.1, 1.234e-5]).astype(np.float64)
    check(
        &floats(&[0.1, 1.234e-05], cp::float64)?,
        "[1.000e-01 1.234e-05]",
        "array([1.000e-01, 1.234e-05])",
    );
    // NumPy 2.4: np.array([1.0000000001, 2.0]).astype(np.float64)
    check(
        &floats(&[1.0000000001, 2.0], cp::float64)?,
        "[1. 2.]",
        "array([1., 2.])",
    );
    // NumPy 2.4: np.array([12345.678901234, 0.5]).astype(np.float64)
    check(
        &floats(&[12345.678901234, 0.5], cp::float64)?,
        "[1.23456789e+04 5.00000000e-01]",
        "array([1.23456789e+04, 5.00000000e-01])",
    );
    // NumPy 2.4: np.array([0.5, 1e-9]).astype(np.float64)
    check(
        &floats(&[0.5, 1e-09], cp::float64)?,
        "[5.e-01 1.e-09]",
        "array([5.e-01, 1.e-09])",
    );
    // NumPy 2.4: np.array([-1.0, 0.0, 1.0]).astype(np.float64)
    check(
        &floats(&[-1.0, 0.0, 1.0], cp::float64)?,
        "[-1.  0.  1.]",
        "array([-1.,  0.,  1.])",
    );
    // NumPy 2.4: np.array([0.3, 1.23456789e-5]).astype(np.float32)
    // scientific: shorter mantissas get their exact digits, not zeros
    check(
        &floats(&[0.30000001192092896, 1.2345679351710714e-05], cp::float32)?,
        "[3.0000001e-01 1.2345679e-05]",
        "array([3.0000001e-01, 1.2345679e-05], dtype=float32)",
    );
    Ok(())
}

// The switch to scientific notation: 10**min(8, finfo.precision), 1e-4, max/min > 1e3.
#[test]
fn scientific_notation_switch_per_dtype() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.array([999.0, 1.5]).astype(np.float16)
    check(
        &floats(&[999.0, 1.5], cp::float16)?,
        "[999.    1.5]",
        "array([999. ,   1.5], dtype=float16)",
    );
    // NumPy 2.4: np.array([1000.0, 2000.0]).astype(np.float16)
    check(
        &floats(&[1000.0, 2000.0], cp::float16)?,
        "[1.e+03 2.e+03]",
        "array([1.e+03, 2.e+03], dtype=float16)",
    );
    // NumPy 2.4: np.array([65504.0, -65504.0]).astype(np.float16)
    check(
        &floats(&[65504.0, -65504.0], cp::float16)?,
        "[ 6.55e+04 -6.55e+04]",
        "array([ 6.55e+04, -6.55e+04], dtype=float16)",
    );
    // NumPy 2.4: np.array([999999.0, 1.0]).astype(np.float32)
    check(
        &floats(&[999999.0, 1.0], cp::float32)?,
        "[9.99999e+05 1.00000e+00]",
        "array([9.99999e+05, 1.00000e+00], dtype=float32)",
    );
    // NumPy 2.4: np.array([1e6, 1.0]).astype(np.float32)
    check(
        &floats(&[1000000.0, 1.0], cp::float32)?,
        "[1.e+06 1.e+00]",
        "array([1.e+06, 1.e+00], dtype=float32)",
    );
    // NumPy 2.4: np.array([99999999.0, 1.0])
    check(
        &floats(&[99999999.0, 1.0], cp::float64)?,
        "[9.9999999e+07 1.0000000e+00]",
        "array([9.9999999e+07, 1.0000000e+00])",
    );
    // NumPy 2.4: np.array([1e8, 1.0])
    check(
        &floats(&[100000000.0, 1.0], cp::float64)?,
        "[1.e+08 1.e+00]",
        "array([1.e+08, 1.e+00])",
    );
    // NumPy 2.4: np.array([123456789.0, 1.5])
    check(
        &floats(&[123456789.0, 1.5], cp::float64)?,
        "[1.23456789e+08 1.50000000e+00]",
        "array([1.23456789e+08, 1.50000000e+00])",
    );
    // NumPy 2.4: np.array([1e-4, 1e-3]).astype(np.float32)
    check(
        &floats(&[9.999999747378752e-05, 0.0010000000474974513], cp::float32)?,
        "[0.0001 0.001 ]",
        "array([0.0001, 0.001 ], dtype=float32)",
    );
    // NumPy 2.4: np.array([1e-4, 1e-3])
    check(
        &floats(&[0.0001, 0.001], cp::float64)?,
        "[0.0001 0.001 ]",
        "array([0.0001, 0.001 ])",
    );
    // NumPy 2.4: np.array([9.9e-5, 1.0])
    check(
        &floats(&[9.9e-05, 1.0], cp::float64)?,
        "[9.9e-05 1.0e+00]",
        "array([9.9e-05, 1.0e+00])",
    );
    // NumPy 2.4: np.array([1e-5, 1.0])
    check(
        &floats(&[1e-05, 1.0], cp::float64)?,
        "[1.e-05 1.e+00]",
        "array([1.e-05, 1.e+00])",
    );
    // NumPy 2.4: np.array([1.0, 1000.0])
    check(
        &floats(&[1.0, 1000.0], cp::float64)?,
        "[   1. 1000.]",
        "array([   1., 1000.])",
    );
    // NumPy 2.4: np.array([1.0, 1000.5])
    check(
        &floats(&[1.0, 1000.5], cp::float64)?,
        "[1.0000e+00 1.0005e+03]",
        "array([1.0000e+00, 1.0005e+03])",
    );
    // NumPy 2.4: np.array([0.001, 1.0])
    check(
        &floats(&[0.001, 1.0], cp::float64)?,
        "[0.001 1.   ]",
        "array([0.001, 1.   ])",
    );
    // NumPy 2.4: np.array([0.0009, 1.0])
    check(
        &floats(&[0.0009, 1.0], cp::float64)?,
        "[9.e-04 1.e+00]",
        "array([9.e-04, 1.e+00])",
    );
    // NumPy 2.4: np.array([1e20, 1.0])
    check(
        &floats(&[1e+20, 1.0], cp::float64)?,
        "[1.e+20 1.e+00]",
        "array([1.e+20, 1.e+00])",
    );
    // NumPy 2.4: np.array([1e-5, 1.5e-5, 100.0])
    check(
        &floats(&[1e-05, 1.5e-05, 100.0], cp::float64)?,
        "[1.0e-05 1.5e-05 1.0e+02]",
        "array([1.0e-05, 1.5e-05, 1.0e+02])",
    );
    // NumPy 2.4: np.array([1.5, -2.25, 3.0, 0.001])
    check(
        &floats(&[1.5, -2.25, 3.0, 0.001], cp::float64)?,
        "[ 1.50e+00 -2.25e+00  3.00e+00  1.00e-03]",
        "array([ 1.50e+00, -2.25e+00,  3.00e+00,  1.00e-03])",
    );
    // NumPy 2.4: np.array([0.0, 0.0])
    check(
        &floats(&[0.0, 0.0], cp::float64)?,
        "[0. 0.]",
        "array([0., 0.])",
    );
    // NumPy 2.4: np.array([0.0, 1e-300])
    check(
        &floats(&[0.0, 1e-300], cp::float64)?,
        "[0.e+000 1.e-300]",
        "array([0.e+000, 1.e-300])",
    );
    Ok(())
}

// nan, inf and -0.0 (padding, signs).
#[test]
fn nan_inf_and_negative_zero() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.array([np.nan, 1.5, np.inf])
    check(
        &floats(&[NAN, 1.5, INF], cp::float64)?,
        "[nan 1.5 inf]",
        "array([nan, 1.5, inf])",
    );
    // NumPy 2.4: np.array([np.nan, np.inf, -np.inf, 1.5])
    check(
        &floats(&[NAN, INF, -INF, 1.5], cp::float64)?,
        "[ nan  inf -inf  1.5]",
        "array([ nan,  inf, -inf,  1.5])",
    );
    // NumPy 2.4: np.array([np.nan, 1.0, -np.inf]).astype(np.float32)
    check(
        &floats(&[NAN, 1.0, -INF], cp::float32)?,
        "[ nan   1. -inf]",
        "array([ nan,   1., -inf], dtype=float32)",
    );
    // NumPy 2.4: np.array([np.nan])
    check(&floats(&[NAN], cp::float64)?, "[nan]", "array([nan])");
    // NumPy 2.4: np.array([np.inf, -np.inf])
    check(
        &floats(&[INF, -INF], cp::float64)?,
        "[ inf -inf]",
        "array([ inf, -inf])",
    );
    // NumPy 2.4: np.array([-np.nan, 2.0])
    check(
        &floats(&[NAN, 2.0], cp::float64)?,
        "[nan  2.]",
        "array([nan,  2.])",
    );
    // NumPy 2.4: np.array([-0.0])
    check(&floats(&[-0.0], cp::float64)?, "[-0.]", "array([-0.])");
    // NumPy 2.4: np.array([0.0, -0.0])
    check(
        &floats(&[0.0, -0.0], cp::float64)?,
        "[ 0. -0.]",
        "array([ 0., -0.])",
    );
    // NumPy 2.4: np.array([-0.0, 1.5]).astype(np.float16)
    check(
        &floats(&[-0.0, 1.5], cp::float16)?,
        "[-0.   1.5]",
        "array([-0. ,  1.5], dtype=float16)",
    );
    // NumPy 2.4: np.array([np.nan, 1e-5, 1e5])
    check(
        &floats(&[NAN, 1e-05, 100000.0], cp::float64)?,
        "[   nan 1.e-05 1.e+05]",
        "array([   nan, 1.e-05, 1.e+05])",
    );
    // NumPy 2.4: np.array([-np.inf, 1e-5]).astype(np.float32)
    check(
        &floats(&[-INF, 9.999999747378752e-06], cp::float32)?,
        "[  -inf 1.e-05]",
        "array([  -inf, 1.e-05], dtype=float32)",
    );
    // NumPy 2.4: np.array([[1.5, -2.25, 3.0], [np.nan, np.inf, 0.001]])
    check(
        &floats(&[1.5, -2.25, 3.0, NAN, INF, 0.001], cp::float64)?.reshape([2, 3])?,
        "[[ 1.50e+00 -2.25e+00  3.00e+00]\n [      nan       inf  1.00e-03]]",
        "array([[ 1.50e+00, -2.25e+00,  3.00e+00],\n       [      nan,       inf,  1.00e-03]])",
    );
    Ok(())
}

// Extreme magnitudes, subnormals and long exponents.
#[test]
fn large_and_tiny_magnitudes() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.array([1e300, -1e-300])
    check(
        &floats(&[1e+300, -1e-300], cp::float64)?,
        "[ 1.e+300 -1.e-300]",
        "array([ 1.e+300, -1.e-300])",
    );
    // NumPy 2.4: np.array([1.7976931348623157e308])
    check(
        &floats(&[1.7976931348623157e+308], cp::float64)?,
        "[1.79769313e+308]",
        "array([1.79769313e+308])",
    );
    // NumPy 2.4: np.array([5e-324, 1e-310])
    check(
        &floats(&[5e-324, 1e-310], cp::float64)?,
        "[5.e-324 1.e-310]",
        "array([5.e-324, 1.e-310])",
    );
    // NumPy 2.4: np.array([2.2250738585072014e-308, 1.0])
    check(
        &floats(&[2.2250738585072014e-308, 1.0], cp::float64)?,
        "[2.22507386e-308 1.00000000e+000]",
        "array([2.22507386e-308, 1.00000000e+000])",
    );
    // NumPy 2.4: np.array([1e-45, 1e-40]).astype(np.float32)
    check(
        &floats(&[1.401298464324817e-45, 9.99994610111476e-41], cp::float32)?,
        "[1.e-45 1.e-40]",
        "array([1.e-45, 1.e-40], dtype=float32)",
    );
    // NumPy 2.4: np.array([3.4028234663852886e38]).astype(np.float32)
    check(
        &floats(&[3.4028234663852886e+38], cp::float32)?,
        "[3.4028235e+38]",
        "array([3.4028235e+38], dtype=float32)",
    );
    // NumPy 2.4: np.array([6e-8, 6.1e-5]).astype(np.float16)
    check(
        &floats(&[5.960464477539063e-08, 6.097555160522461e-05], cp::float16)?,
        "[6.0e-08 6.1e-05]",
        "array([6.0e-08, 6.1e-05], dtype=float16)",
    );
    // NumPy 2.4: np.array([1e100, 1e-100, 1.0])
    check(
        &floats(&[1e+100, 1e-100, 1.0], cp::float64)?,
        "[1.e+100 1.e-100 1.e+000]",
        "array([1.e+100, 1.e-100, 1.e+000])",
    );
    // NumPy 2.4: np.array([2.0**60, 1.0])
    check(
        &floats(&[1.152921504606847e+18, 1.0], cp::float64)?,
        "[1.1529215e+18 1.0000000e+00]",
        "array([1.1529215e+18, 1.0000000e+00])",
    );
    // NumPy 2.4: np.array([1e15, 1e16])
    check(
        &floats(&[1000000000000000.0, 1e+16], cp::float64)?,
        "[1.e+15 1.e+16]",
        "array([1.e+15, 1.e+16])",
    );
    Ok(())
}

// Complex: real and imaginary parts decide their notation separately; 'j' before the padding.
#[test]
fn complex_parts_are_formatted_separately() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.array([complex(1, 2), complex(-0.5, -1)]).astype(np.complex128)
    check(
        &complexes(&[(1.0, 2.0), (-0.5, -1.0)], cp::complex128)?,
        "[ 1. +2.j -0.5-1.j]",
        "array([ 1. +2.j, -0.5-1.j])",
    );
    // NumPy 2.4: np.array([complex(1, 2), complex(-0.5, -1)]).astype(np.complex64)
    check(
        &complexes(&[(1.0, 2.0), (-0.5, -1.0)], cp::complex64)?,
        "[ 1. +2.j -0.5-1.j]",
        "array([ 1. +2.j, -0.5-1.j], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(1, 2), complex(3, -4.5)]).astype(np.complex128)
    check(
        &complexes(&[(1.0, 2.0), (3.0, -4.5)], cp::complex128)?,
        "[1.+2.j  3.-4.5j]",
        "array([1.+2.j , 3.-4.5j])",
    );
    // NumPy 2.4: np.array([complex(1, 2), complex(3, -4.5)]).astype(np.complex64)
    check(
        &complexes(&[(1.0, 2.0), (3.0, -4.5)], cp::complex64)?,
        "[1.+2.j  3.-4.5j]",
        "array([1.+2.j , 3.-4.5j], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(1, 2), complex(-3.5, -0.25)]).astype(np.complex128)
    check(
        &complexes(&[(1.0, 2.0), (-3.5, -0.25)], cp::complex128)?,
        "[ 1. +2.j   -3.5-0.25j]",
        "array([ 1. +2.j  , -3.5-0.25j])",
    );
    // NumPy 2.4: np.array([complex(1, 2), complex(-3.5, -0.25)]).astype(np.complex64)
    check(
        &complexes(&[(1.0, 2.0), (-3.5, -0.25)], cp::complex64)?,
        "[ 1. +2.j   -3.5-0.25j]",
        "array([ 1. +2.j  , -3.5-0.25j], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(10000000000.0, 1), complex(1, -1e-10)]).astype(np.complex128)
    check(
        &complexes(&[(10000000000.0, 1.0), (1.0, -1e-10)], cp::complex128)?,
        "[1.e+10+1.e+00j 1.e+00-1.e-10j]",
        "array([1.e+10+1.e+00j, 1.e+00-1.e-10j])",
    );
    // NumPy 2.4: np.array([complex(10000000000.0, 1), complex(1, -1e-10)]).astype(np.complex64)
    check(
        &complexes(
            &[(10000000000.0, 1.0), (1.0, -1.000000013351432e-10)],
            cp::complex64,
        )?,
        "[1.e+10+1.e+00j 1.e+00-1.e-10j]",
        "array([1.e+10+1.e+00j, 1.e+00-1.e-10j], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(1, 2), complex(-0.0, -0.5), complex(3.25, 0), complex(0.001, 1)]).astype(np.complex128)
    check(
        &complexes(
            &[(1.0, 2.0), (-0.0, -0.5), (3.25, 0.0), (0.001, 1.0)],
            cp::complex128,
        )?,
        "[ 1.00e+00+2.j  -0.00e+00-0.5j  3.25e+00+0.j   1.00e-03+1.j ]",
        "array([ 1.00e+00+2.j , -0.00e+00-0.5j,  3.25e+00+0.j ,  1.00e-03+1.j ])",
    );
    // NumPy 2.4: np.array([complex(1, 2), complex(-0.0, -0.5), complex(3.25, 0), complex(0.001, 1)]).astype(np.complex64)
    check(&complexes(&[(1.0, 2.0), (-0.0, -0.5), (3.25, 0.0), (0.0010000000474974513, 1.0)], cp::complex64)?, "[ 1.00e+00+2.j  -0.00e+00-0.5j  3.25e+00+0.j   1.00e-03+1.j ]", "array([ 1.00e+00+2.j , -0.00e+00-0.5j,  3.25e+00+0.j ,  1.00e-03+1.j ],\n      dtype=complex64)");
    // NumPy 2.4: np.array([complex(np.nan, 1), complex(1, np.inf), complex(-np.inf, -np.nan)]).astype(np.complex128)
    check(
        &complexes(&[(NAN, 1.0), (1.0, INF), (-INF, NAN)], cp::complex128)?,
        "[ nan +1.j   1.+infj -inf+nanj]",
        "array([ nan +1.j,   1.+infj, -inf+nanj])",
    );
    // NumPy 2.4: np.array([complex(np.nan, 1), complex(1, np.inf), complex(-np.inf, -np.nan)]).astype(np.complex64)
    check(
        &complexes(&[(NAN, 1.0), (1.0, INF), (-INF, NAN)], cp::complex64)?,
        "[ nan +1.j   1.+infj -inf+nanj]",
        "array([ nan +1.j,   1.+infj, -inf+nanj], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(-0.0, -0.0)]).astype(np.complex128)
    check(
        &complexes(&[(-0.0, -0.0)], cp::complex128)?,
        "[-0.-0.j]",
        "array([-0.-0.j])",
    );
    // NumPy 2.4: np.array([complex(-0.0, -0.0)]).astype(np.complex64)
    check(
        &complexes(&[(-0.0, -0.0)], cp::complex64)?,
        "[-0.-0.j]",
        "array([-0.-0.j], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(0.1, 0.3)]).astype(np.complex128)
    check(
        &complexes(&[(0.1, 0.3)], cp::complex128)?,
        "[0.1+0.3j]",
        "array([0.1+0.3j])",
    );
    // NumPy 2.4: np.array([complex(0.1, 0.3)]).astype(np.complex64)
    check(
        &complexes(&[(0.10000000149011612, 0.30000001192092896)], cp::complex64)?,
        "[0.1+0.3j]",
        "array([0.1+0.3j], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(1e-05, 1), complex(2, 3)]).astype(np.complex128)
    check(
        &complexes(&[(1e-05, 1.0), (2.0, 3.0)], cp::complex128)?,
        "[1.e-05+1.j 2.e+00+3.j]",
        "array([1.e-05+1.j, 2.e+00+3.j])",
    );
    // NumPy 2.4: np.array([complex(1e-05, 1), complex(2, 3)]).astype(np.complex64)
    check(
        &complexes(&[(9.999999747378752e-06, 1.0), (2.0, 3.0)], cp::complex64)?,
        "[1.e-05+1.j 2.e+00+3.j]",
        "array([1.e-05+1.j, 2.e+00+3.j], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(0, 1), complex(2.5, 0)]).astype(np.complex128)
    check(
        &complexes(&[(0.0, 1.0), (2.5, 0.0)], cp::complex128)?,
        "[0. +1.j 2.5+0.j]",
        "array([0. +1.j, 2.5+0.j])",
    );
    // NumPy 2.4: np.array([complex(0, 1), complex(2.5, 0)]).astype(np.complex64)
    check(
        &complexes(&[(0.0, 1.0), (2.5, 0.0)], cp::complex64)?,
        "[0. +1.j 2.5+0.j]",
        "array([0. +1.j, 2.5+0.j], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(1.5, np.nan)]).astype(np.complex128)
    check(
        &complexes(&[(1.5, NAN)], cp::complex128)?,
        "[1.5+nanj]",
        "array([1.5+nanj])",
    );
    // NumPy 2.4: np.array([complex(1.5, np.nan)]).astype(np.complex64)
    check(
        &complexes(&[(1.5, NAN)], cp::complex64)?,
        "[1.5+nanj]",
        "array([1.5+nanj], dtype=complex64)",
    );
    // NumPy 2.4: np.array([complex(1e+20, 1e-20), complex(1, 1)]).astype(np.complex128)
    check(
        &complexes(&[(1e+20, 1e-20), (1.0, 1.0)], cp::complex128)?,
        "[1.e+20+1.e-20j 1.e+00+1.e+00j]",
        "array([1.e+20+1.e-20j, 1.e+00+1.e+00j])",
    );
    // NumPy 2.4: np.array([complex(1e+20, 1e-20), complex(1, 1)]).astype(np.complex64)
    check(
        &complexes(
            &[(1.0000000200408773e+20, 9.999999682655225e-21), (1.0, 1.0)],
            cp::complex64,
        )?,
        "[1.e+20+1.e-20j 1.e+00+1.e+00j]",
        "array([1.e+20+1.e-20j, 1.e+00+1.e+00j], dtype=complex64)",
    );
    Ok(())
}

// Integers (right-aligned to the widest) and bools.
#[test]
fn integers_and_bools() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.array([-128, 0, 127, 7], dtype=np.int8)
    check(
        &cp::asarray(vec![-128i8, 0, 127, 7])?,
        "[-128    0  127    7]",
        "array([-128,    0,  127,    7], dtype=int8)",
    );
    // NumPy 2.4: np.array([-32768, 0, 32767, 7], dtype=np.int16)
    check(
        &cp::asarray(vec![-32768i16, 0, 32767, 7])?,
        "[-32768      0  32767      7]",
        "array([-32768,      0,  32767,      7], dtype=int16)",
    );
    // NumPy 2.4: np.array([-2147483648, 0, 2147483647, 7], dtype=np.int32)
    check(
        &cp::asarray(vec![-2147483648i32, 0, 2147483647, 7])?,
        "[-2147483648           0  2147483647           7]",
        "array([-2147483648,           0,  2147483647,           7], dtype=int32)",
    );
    // NumPy 2.4: np.array([-9223372036854775808, 0, 9223372036854775807, 7], dtype=np.int64)
    check(&cp::asarray(vec![-9223372036854775808i64, 0, 9223372036854775807, 7])?, "[-9223372036854775808                    0  9223372036854775807\n                    7]", "array([-9223372036854775808,                    0,  9223372036854775807,\n                          7])");
    // NumPy 2.4: np.array([0, 0, 255, 7], dtype=np.uint8)
    check(
        &cp::asarray(vec![0u8, 0, 255, 7])?,
        "[  0   0 255   7]",
        "array([  0,   0, 255,   7], dtype=uint8)",
    );
    // NumPy 2.4: np.array([0, 0, 65535, 7], dtype=np.uint16)
    check(
        &cp::asarray(vec![0u16, 0, 65535, 7])?,
        "[    0     0 65535     7]",
        "array([    0,     0, 65535,     7], dtype=uint16)",
    );
    // NumPy 2.4: np.array([0, 0, 4294967295, 7], dtype=np.uint32)
    check(
        &cp::asarray(vec![0u32, 0, 4294967295, 7])?,
        "[         0          0 4294967295          7]",
        "array([         0,          0, 4294967295,          7], dtype=uint32)",
    );
    // NumPy 2.4: np.array([0, 0, 18446744073709551615, 7], dtype=np.uint64)
    check(&cp::asarray(vec![0u64, 0, 18446744073709551615, 7])?, "[                   0                    0 18446744073709551615\n                    7]", "array([                   0,                    0, 18446744073709551615,\n                          7], dtype=uint64)");
    // NumPy 2.4: np.array([5])
    check(&cp::asarray(vec![5i64])?, "[5]", "array([5])");
    // NumPy 2.4: np.array([-1, 2])
    check(&cp::asarray(vec![-1i64, 2])?, "[-1  2]", "array([-1,  2])");
    // NumPy 2.4: np.array([10, -200, 3000], dtype=np.int16)
    check(
        &cp::asarray(vec![10i16, -200, 3000])?,
        "[  10 -200 3000]",
        "array([  10, -200, 3000], dtype=int16)",
    );
    // NumPy 2.4: np.arange(6).reshape(2, 3)
    check(
        &cp::asarray(vec![0i64, 1, 2, 3, 4, 5])?.reshape([2, 3])?,
        "[[0 1 2]\n [3 4 5]]",
        "array([[0, 1, 2],\n       [3, 4, 5]])",
    );
    // NumPy 2.4: np.arange(24).reshape(2, 3, 4).astype(np.int8)
    check(&cp::asarray(vec![0i8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23])?.reshape([2, 3, 4])?, "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]", "array([[[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]],\n\n       [[12, 13, 14, 15],\n        [16, 17, 18, 19],\n        [20, 21, 22, 23]]], dtype=int8)");
    // NumPy 2.4: np.array([True])
    check(&cp::asarray(vec![true])?, "[ True]", "array([ True])");
    // NumPy 2.4: np.array([True, False, True])
    check(
        &cp::asarray(vec![true, false, true])?,
        "[ True False  True]",
        "array([ True, False,  True])",
    );
    // NumPy 2.4: np.array([[True, False], [False, True]])
    check(
        &cp::asarray(vec![true, false, false, true])?.reshape([2, 2])?,
        "[[ True False]\n [False  True]]",
        "array([[ True, False],\n       [False,  True]])",
    );
    // NumPy 2.4: np.array([False, False])
    check(
        &cp::asarray(vec![false, false])?,
        "[False False]",
        "array([False, False])",
    );
    Ok(())
}

// 0-d arrays: str prints the scalar as NumPy does, repr the element.
#[test]
fn zero_dimensional_arrays() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.array(2.5)
    check(
        &floats(&[2.5], cp::float64)?.reshape(Vec::<usize>::new())?,
        "2.5",
        "array(2.5)",
    );
    // NumPy 2.4: np.array(1/3)
    check(
        &floats(&[0.3333333333333333], cp::float64)?.reshape(Vec::<usize>::new())?,
        "0.3333333333333333",
        "array(0.33333333)",
    );
    // NumPy 2.4: np.array(1e20)
    check(
        &floats(&[1e+20], cp::float64)?.reshape(Vec::<usize>::new())?,
        "1e+20",
        "array(1.e+20)",
    );
    // NumPy 2.4: np.array(1e-5)
    check(
        &floats(&[1e-05], cp::float64)?.reshape(Vec::<usize>::new())?,
        "1e-05",
        "array(1.e-05)",
    );
    // NumPy 2.4: np.array(3.0)
    check(
        &floats(&[3.0], cp::float64)?.reshape(Vec::<usize>::new())?,
        "3.0",
        "array(3.)",
    );
    // NumPy 2.4: np.array(-0.0)
    check(
        &floats(&[-0.0], cp::float64)?.reshape(Vec::<usize>::new())?,
        "-0.0",
        "array(-0.)",
    );
    // NumPy 2.4: np.array(np.nan)
    check(
        &floats(&[NAN], cp::float64)?.reshape(Vec::<usize>::new())?,
        "nan",
        "array(nan)",
    );
    // NumPy 2.4: np.array(-np.inf)
    check(
        &floats(&[-INF], cp::float64)?.reshape(Vec::<usize>::new())?,
        "-inf",
        "array(-inf)",
    );
    // NumPy 2.4: np.array(1e16)
    check(
        &floats(&[1e+16], cp::float64)?.reshape(Vec::<usize>::new())?,
        "1e+16",
        "array(1.e+16)",
    );
    // NumPy 2.4: np.array(1e15)
    check(
        &floats(&[1000000000000000.0], cp::float64)?.reshape(Vec::<usize>::new())?,
        "1000000000000000.0",
        "array(1.e+15)",
    );
    // NumPy 2.4: np.array(1e-4)
    check(
        &floats(&[0.0001], cp::float64)?.reshape(Vec::<usize>::new())?,
        "0.0001",
        "array(0.0001)",
    );
    // NumPy 2.4: np.array(0.1).astype(np.float32)
    check(
        &floats(&[0.10000000149011612], cp::float32)?.reshape(Vec::<usize>::new())?,
        "0.1",
        "array(0.1, dtype=float32)",
    );
    // NumPy 2.4: np.array(1e6).astype(np.float32)
    check(
        &floats(&[1000000.0], cp::float32)?.reshape(Vec::<usize>::new())?,
        "1e+06",
        "array(1.e+06, dtype=float32)",
    );
    // NumPy 2.4: np.array(999999.0).astype(np.float32)
    check(
        &floats(&[999999.0], cp::float32)?.reshape(Vec::<usize>::new())?,
        "999999.0",
        "array(999999., dtype=float32)",
    );
    // NumPy 2.4: np.array(1/3).astype(np.float32)
    check(
        &floats(&[0.3333333432674408], cp::float32)?.reshape(Vec::<usize>::new())?,
        "0.33333334",
        "array(0.33333334, dtype=float32)",
    );
    // NumPy 2.4: np.array(1e-4).astype(np.float32)
    check(
        &floats(&[9.999999747378752e-05], cp::float32)?.reshape(Vec::<usize>::new())?,
        "1e-04",
        "array(0.0001, dtype=float32)",
    );
    // NumPy 2.4: np.array(999.0).astype(np.float16)
    check(
        &floats(&[999.0], cp::float16)?.reshape(Vec::<usize>::new())?,
        "999.0",
        "array(999., dtype=float16)",
    );
    // NumPy 2.4: np.array(1000.0).astype(np.float16)
    check(
        &floats(&[1000.0], cp::float16)?.reshape(Vec::<usize>::new())?,
        "1e+03",
        "array(1.e+03, dtype=float16)",
    );
    // NumPy 2.4: np.array(0.1).astype(np.float16)
    check(
        &floats(&[0.0999755859375], cp::float16)?.reshape(Vec::<usize>::new())?,
        "0.1",
        "array(0.1, dtype=float16)",
    );
    // NumPy 2.4: np.array(65504.0).astype(np.float16)
    check(
        &floats(&[65504.0], cp::float16)?.reshape(Vec::<usize>::new())?,
        "6.55e+04",
        "array(6.55e+04, dtype=float16)",
    );
    // NumPy 2.4: np.array(complex(1, 2))
    check(
        &complexes(&[(1.0, 2.0)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "(1+2j)",
        "array(1.+2.j)",
    );
    // NumPy 2.4: np.array(complex(0, 2))
    check(
        &complexes(&[(0.0, 2.0)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "2j",
        "array(0.+2.j)",
    );
    // NumPy 2.4: np.array(complex(-0.0, 2))
    check(
        &complexes(&[(-0.0, 2.0)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "(-0+2j)",
        "array(-0.+2.j)",
    );
    // NumPy 2.4: np.array(complex(0, -0.0))
    check(
        &complexes(&[(0.0, -0.0)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "-0j",
        "array(0.-0.j)",
    );
    // NumPy 2.4: np.array(complex(1, np.inf))
    check(
        &complexes(&[(1.0, INF)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "(1+infj)",
        "array(1.+infj)",
    );
    // NumPy 2.4: np.array(complex(np.nan, 1.5))
    check(
        &complexes(&[(NAN, 1.5)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "(nan+1.5j)",
        "array(nan+1.5j)",
    );
    // NumPy 2.4: np.array(complex(1e-5, -2e20))
    check(
        &complexes(&[(1e-05, -2e+20)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "(1e-05-2e+20j)",
        "array(1.e-05-2.e+20j)",
    );
    // NumPy 2.4: np.array(complex(0, np.inf))
    check(
        &complexes(&[(0.0, INF)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "infj",
        "array(0.+infj)",
    );
    // NumPy 2.4: np.array(complex(0, np.nan))
    check(
        &complexes(&[(0.0, NAN)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "nanj",
        "array(0.+nanj)",
    );
    // NumPy 2.4: np.array(complex(1.5, 0))
    check(
        &complexes(&[(1.5, 0.0)], cp::complex128)?.reshape(Vec::<usize>::new())?,
        "(1.5+0j)",
        "array(1.5+0.j)",
    );
    // NumPy 2.4: np.array(complex(1e7, 1)).astype(np.complex64)
    check(
        &complexes(&[(10000000.0, 1.0)], cp::complex64)?.reshape(Vec::<usize>::new())?,
        "(1e+07+1j)",
        "array(1.e+07+1.j, dtype=complex64)",
    );
    // NumPy 2.4: np.array(complex(0.1, 0.2)).astype(np.complex64)
    check(
        &complexes(&[(0.10000000149011612, 0.20000000298023224)], cp::complex64)?
            .reshape(Vec::<usize>::new())?,
        "(0.1+0.2j)",
        "array(0.1+0.2j, dtype=complex64)",
    );
    // NumPy 2.4: np.array(-5, dtype=np.int8)
    check(
        &cp::asarray(vec![-5i8])?.reshape(Vec::<usize>::new())?,
        "-5",
        "array(-5, dtype=int8)",
    );
    // NumPy 2.4: np.array(2**64 - 1, dtype=np.uint64)
    check(
        &cp::asarray(vec![18446744073709551615u64])?.reshape(Vec::<usize>::new())?,
        "18446744073709551615",
        "array(18446744073709551615, dtype=uint64)",
    );
    // NumPy 2.4: np.array(7)
    check(
        &cp::asarray(vec![7i64])?.reshape(Vec::<usize>::new())?,
        "7",
        "array(7)",
    );
    // NumPy 2.4: np.array(True)
    check(
        &cp::asarray(vec![true])?.reshape(Vec::<usize>::new())?,
        "True",
        "array(True)",
    );
    // NumPy 2.4: np.array(False)
    check(
        &cp::asarray(vec![false])?.reshape(Vec::<usize>::new())?,
        "False",
        "array(False)",
    );
    Ok(())
}

// Empty arrays: [] with shape= (unless (0,)) and dtype=.
#[test]
fn empty_arrays() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.zeros((0,), dtype=np.float64)
    check(
        &cp::zeros([0], cp::float64)?,
        "[]",
        "array([], dtype=float64)",
    );
    // NumPy 2.4: np.zeros((0,), dtype=np.int32)
    check(&cp::zeros([0], cp::int32)?, "[]", "array([], dtype=int32)");
    // NumPy 2.4: np.zeros((2, 0), dtype=np.float64)
    check(
        &cp::zeros([2, 0], cp::float64)?,
        "[]",
        "array([], shape=(2, 0), dtype=float64)",
    );
    // NumPy 2.4: np.zeros((0, 3), dtype=np.float32)
    check(
        &cp::zeros([0, 3], cp::float32)?,
        "[]",
        "array([], shape=(0, 3), dtype=float32)",
    );
    // NumPy 2.4: np.zeros((0, 2, 3), dtype=np.complex128)
    check(
        &cp::zeros([0, 2, 3], cp::complex128)?,
        "[]",
        "array([], shape=(0, 2, 3), dtype=complex128)",
    );
    // NumPy 2.4: np.zeros((0,), dtype=np.bool)
    check(&cp::zeros([0], cp::bool_)?, "[]", "array([], dtype=bool)");
    // NumPy 2.4: np.zeros((1, 0), dtype=np.int64)
    check(
        &cp::zeros([1, 0], cp::int64)?,
        "[]",
        "array([], shape=(1, 0), dtype=int64)",
    );
    // NumPy 2.4: np.zeros((0,), dtype=np.complex128)
    check(
        &cp::zeros([0], cp::complex128)?,
        "[]",
        "array([], dtype=complex128)",
    );
    Ok(())
}

// More than threshold (1000) elements: edges, '...', shape= in repr.
#[test]
fn summarized_arrays() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.arange(2000.0)
    check(&cp::arange(2000.0)?, "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]", "array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n       1.999e+03], shape=(2000,))");
    // NumPy 2.4: np.arange(1001)
    check(
        &cp::arange(1001)?,
        "[   0    1    2 ...  998  999 1000]",
        "array([   0,    1,    2, ...,  998,  999, 1000], shape=(1001,))",
    );
    // NumPy 2.4: np.arange(1000)[:10]
    check(
        &cp::arange(1000)?.slice(cp::s![..10])?,
        "[0 1 2 3 4 5 6 7 8 9]",
        "array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])",
    );
    // NumPy 2.4: np.arange(3000).reshape(10, 300)
    check(&cp::arange(3000)?.reshape([10, 300])?, "[[   0    1    2 ...  297  298  299]\n [ 300  301  302 ...  597  598  599]\n [ 600  601  602 ...  897  898  899]\n ...\n [2100 2101 2102 ... 2397 2398 2399]\n [2400 2401 2402 ... 2697 2698 2699]\n [2700 2701 2702 ... 2997 2998 2999]]", "array([[   0,    1,    2, ...,  297,  298,  299],\n       [ 300,  301,  302, ...,  597,  598,  599],\n       [ 600,  601,  602, ...,  897,  898,  899],\n       ...,\n       [2100, 2101, 2102, ..., 2397, 2398, 2399],\n       [2400, 2401, 2402, ..., 2697, 2698, 2699],\n       [2700, 2701, 2702, ..., 2997, 2998, 2999]], shape=(10, 300))");
    // NumPy 2.4: np.arange(5000).reshape(10, 10, 50)
    check(&cp::arange(5000)?.reshape([10, 10, 50])?, "[[[   0    1    2 ...   47   48   49]\n  [  50   51   52 ...   97   98   99]\n  [ 100  101  102 ...  147  148  149]\n  ...\n  [ 350  351  352 ...  397  398  399]\n  [ 400  401  402 ...  447  448  449]\n  [ 450  451  452 ...  497  498  499]]\n\n [[ 500  501  502 ...  547  548  549]\n  [ 550  551  552 ...  597  598  599]\n  [ 600  601  602 ...  647  648  649]\n  ...\n  [ 850  851  852 ...  897  898  899]\n  [ 900  901  902 ...  947  948  949]\n  [ 950  951  952 ...  997  998  999]]\n\n [[1000 1001 1002 ... 1047 1048 1049]\n  [1050 1051 1052 ... 1097 1098 1099]\n  [1100 1101 1102 ... 1147 1148 1149]\n  ...\n  [1350 1351 1352 ... 1397 1398 1399]\n  [1400 1401 1402 ... 1447 1448 1449]\n  [1450 1451 1452 ... 1497 1498 1499]]\n\n ...\n\n [[3500 3501 3502 ... 3547 3548 3549]\n  [3550 3551 3552 ... 3597 3598 3599]\n  [3600 3601 3602 ... 3647 3648 3649]\n  ...\n  [3850 3851 3852 ... 3897 3898 3899]\n  [3900 3901 3902 ... 3947 3948 3949]\n  [3950 3951 3952 ... 3997 3998 3999]]\n\n [[4000 4001 4002 ... 4047 4048 4049]\n  [4050 4051 4052 ... 4097 4098 4099]\n  [4100 4101 4102 ... 4147 4148 4149]\n  ...\n  [4350 4351 4352 ... 4397 4398 4399]\n  [4400 4401 4402 ... 4447 4448 4449]\n  [4450 4451 4452 ... 4497 4498 4499]]\n\n [[4500 4501 4502 ... 4547 4548 4549]\n  [4550 4551 4552 ... 4597 4598 4599]\n  [4600 4601 4602 ... 4647 4648 4649]\n  ...\n  [4850 4851 4852 ... 4897 4898 4899]\n  [4900 4901 4902 ... 4947 4948 4949]\n  [4950 4951 4952 ... 4997 4998 4999]]]", "array([[[   0,    1,    2, ...,   47,   48,   49],\n        [  50,   51,   52, ...,   97,   98,   99],\n        [ 100,  101,  102, ...,  147,  148,  149],\n        ...,\n        [ 350,  351,  352, ...,  397,  398,  399],\n        [ 400,  401,  402, ...,  447,  448,  449],\n        [ 450,  451,  452, ...,  497,  498,  499]],\n\n       [[ 500,  501,  502, ...,  547,  548,  549],\n        [ 550,  551,  552, ...,  597,  598,  599],\n        [ 600,  601,  602, ...,  647,  648,  649],\n        ...,\n        [ 850,  851,  852, ...,  897,  898,  899],\n        [ 900,  901,  902, ...,  947,  948,  949],\n        [ 950,  951,  952, ...,  997,  998,  999]],\n\n       [[1000, 1001, 1002, ..., 1047, 1048, 1049],\n        [1050, 1051, 1052, ..., 1097, 1098, 1099],\n        [1100, 1101, 1102, ..., 1147, 1148, 1149],\n        ...,\n        [1350, 1351, 1352, ..., 1397, 1398, 1399],\n        [1400, 1401, 1402, ..., 1447, 1448, 1449],\n        [1450, 1451, 1452, ..., 1497, 1498, 1499]],\n\n       ...,\n\n       [[3500, 3501, 3502, ..., 3547, 3548, 3549],\n        [3550, 3551, 3552, ..., 3597, 3598, 3599],\n        [3600, 3601, 3602, ..., 3647, 3648, 3649],\n        ...,\n        [3850, 3851, 3852, ..., 3897, 3898, 3899],\n        [3900, 3901, 3902, ..., 3947, 3948, 3949],\n        [3950, 3951, 3952, ..., 3997, 3998, 3999]],\n\n       [[4000, 4001, 4002, ..., 4047, 4048, 4049],\n        [4050, 4051, 4052, ..., 4097, 4098, 4099],\n        [4100, 4101, 4102, ..., 4147, 4148, 4149],\n        ...,\n        [4350, 4351, 4352, ..., 4397, 4398, 4399],\n        [4400, 4401, 4402, ..., 4447, 4448, 4449],\n        [4450, 4451, 4452, ..., 4497, 4498, 4499]],\n\n       [[4500, 4501, 4502, ..., 4547, 4548, 4549],\n        [4550, 4551, 4552, ..., 4597, 4598, 4599],\n        [4600, 4601, 4602, ..., 4647, 4648, 4649],\n        ...,\n        [4850, 4851, 4852, ..., 4897, 4898, 4899],\n        [4900, 4901, 4902, ..., 4947, 4948, 4949],\n        [4950, 4951, 4952, ..., 4997, 4998, 4999]]], shape=(10, 10, 50))");
    // NumPy 2.4: np.arange(2400).reshape(2, 3, 4, 100)
    check(&cp::arange(2400)?.reshape([2, 3, 4, 100])?, "[[[[   0    1    2 ...   97   98   99]\n   [ 100  101  102 ...  197  198  199]\n   [ 200  201  202 ...  297  298  299]\n   [ 300  301  302 ...  397  398  399]]\n\n  [[ 400  401  402 ...  497  498  499]\n   [ 500  501  502 ...  597  598  599]\n   [ 600  601  602 ...  697  698  699]\n   [ 700  701  702 ...  797  798  799]]\n\n  [[ 800  801  802 ...  897  898  899]\n   [ 900  901  902 ...  997  998  999]\n   [1000 1001 1002 ... 1097 1098 1099]\n   [1100 1101 1102 ... 1197 1198 1199]]]\n\n\n [[[1200 1201 1202 ... 1297 1298 1299]\n   [1300 1301 1302 ... 1397 1398 1399]\n   [1400 1401 1402 ... 1497 1498 1499]\n   [1500 1501 1502 ... 1597 1598 1599]]\n\n  [[1600 1601 1602 ... 1697 1698 1699]\n   [1700 1701 1702 ... 1797 1798 1799]\n   [1800 1801 1802 ... 1897 1898 1899]\n   [1900 1901 1902 ... 1997 1998 1999]]\n\n  [[2000 2001 2002 ... 2097 2098 2099]\n   [2100 2101 2102 ... 2197 2198 2199]\n   [2200 2201 2202 ... 2297 2298 2299]\n   [2300 2301 2302 ... 2397 2398 2399]]]]", "array([[[[   0,    1,    2, ...,   97,   98,   99],\n         [ 100,  101,  102, ...,  197,  198,  199],\n         [ 200,  201,  202, ...,  297,  298,  299],\n         [ 300,  301,  302, ...,  397,  398,  399]],\n\n        [[ 400,  401,  402, ...,  497,  498,  499],\n         [ 500,  501,  502, ...,  597,  598,  599],\n         [ 600,  601,  602, ...,  697,  698,  699],\n         [ 700,  701,  702, ...,  797,  798,  799]],\n\n        [[ 800,  801,  802, ...,  897,  898,  899],\n         [ 900,  901,  902, ...,  997,  998,  999],\n         [1000, 1001, 1002, ..., 1097, 1098, 1099],\n         [1100, 1101, 1102, ..., 1197, 1198, 1199]]],\n\n\n       [[[1200, 1201, 1202, ..., 1297, 1298, 1299],\n         [1300, 1301, 1302, ..., 1397, 1398, 1399],\n         [1400, 1401, 1402, ..., 1497, 1498, 1499],\n         [1500, 1501, 1502, ..., 1597, 1598, 1599]],\n\n        [[1600, 1601, 1602, ..., 1697, 1698, 1699],\n         [1700, 1701, 1702, ..., 1797, 1798, 1799],\n         [1800, 1801, 1802, ..., 1897, 1898, 1899],\n         [1900, 1901, 1902, ..., 1997, 1998, 1999]],\n\n        [[2000, 2001, 2002, ..., 2097, 2098, 2099],\n         [2100, 2101, 2102, ..., 2197, 2198, 2199],\n         [2200, 2201, 2202, ..., 2297, 2298, 2299],\n         [2300, 2301, 2302, ..., 2397, 2398, 2399]]]],\n      shape=(2, 3, 4, 100))");
    // NumPy 2.4: np.arange(2 * 7 * 8 * 9).reshape(2, 7, 8, 9).astype(np.float32)
    check(&cp::arange(2 * 7 * 8 * 9)?.reshape([2, 7, 8, 9])?.astype(cp::float32)?, "[[[[0.000e+00 1.000e+00 2.000e+00 ... 6.000e+00 7.000e+00 8.000e+00]\n   [9.000e+00 1.000e+01 1.100e+01 ... 1.500e+01 1.600e+01 1.700e+01]\n   [1.800e+01 1.900e+01 2.000e+01 ... 2.400e+01 2.500e+01 2.600e+01]\n   ...\n   [4.500e+01 4.600e+01 4.700e+01 ... 5.100e+01 5.200e+01 5.300e+01]\n   [5.400e+01 5.500e+01 5.600e+01 ... 6.000e+01 6.100e+01 6.200e+01]\n   [6.300e+01 6.400e+01 6.500e+01 ... 6.900e+01 7.000e+01 7.100e+01]]\n\n  [[7.200e+01 7.300e+01 7.400e+01 ... 7.800e+01 7.900e+01 8.000e+01]\n   [8.100e+01 8.200e+01 8.300e+01 ... 8.700e+01 8.800e+01 8.900e+01]\n   [9.000e+01 9.100e+01 9.200e+01 ... 9.600e+01 9.700e+01 9.800e+01]\n   ...\n   [1.170e+02 1.180e+02 1.190e+02 ... 1.230e+02 1.240e+02 1.250e+02]\n   [1.260e+02 1.270e+02 1.280e+02 ... 1.320e+02 1.330e+02 1.340e+02]\n   [1.350e+02 1.360e+02 1.370e+02 ... 1.410e+02 1.420e+02 1.430e+02]]\n\n  [[1.440e+02 1.450e+02 1.460e+02 ... 1.500e+02 1.510e+02 1.520e+02]\n   [1.530e+02 1.540e+02 1.550e+02 ... 1.590e+02 1.600e+02 1.610e+02]\n   [1.620e+02 1.630e+02 1.640e+02 ... 1.680e+02 1.690e+02 1.700e+02]\n   ...\n   [1.890e+02 1.900e+02 1.910e+02 ... 1.950e+02 1.960e+02 1.970e+02]\n   [1.980e+02 1.990e+02 2.000e+02 ... 2.040e+02 2.050e+02 2.060e+02]\n   [2.070e+02 2.080e+02 2.090e+02 ... 2.130e+02 2.140e+02 2.150e+02]]\n\n  ...\n\n  [[2.880e+02 2.890e+02 2.900e+02 ... 2.940e+02 2.950e+02 2.960e+02]\n   [2.970e+02 2.980e+02 2.990e+02 ... 3.030e+02 3.040e+02 3.050e+02]\n   [3.060e+02 3.070e+02 3.080e+02 ... 3.120e+02 3.130e+02 3.140e+02]\n   ...\n   [3.330e+02 3.340e+02 3.350e+02 ... 3.390e+02 3.400e+02 3.410e+02]\n   [3.420e+02 3.430e+02 3.440e+02 ... 3.480e+02 3.490e+02 3.500e+02]\n   [3.510e+02 3.520e+02 3.530e+02 ... 3.570e+02 3.580e+02 3.590e+02]]\n\n  [[3.600e+02 3.610e+02 3.620e+02 ... 3.660e+02 3.670e+02 3.680e+02]\n   [3.690e+02 3.700e+02 3.710e+02 ... 3.750e+02 3.760e+02 3.770e+02]\n   [3.780e+02 3.790e+02 3.800e+02 ... 3.840e+02 3.850e+02 3.860e+02]\n   ...\n   [4.050e+02 4.060e+02 4.070e+02 ... 4.110e+02 4.120e+02 4.130e+02]\n   [4.140e+02 4.150e+02 4.160e+02 ... 4.200e+02 4.210e+02 4.220e+02]\n   [4.230e+02 4.240e+02 4.250e+02 ... 4.290e+02 4.300e+02 4.310e+02]]\n\n  [[4.320e+02 4.330e+02 4.340e+02 ... 4.380e+02 4.390e+02 4.400e+02]\n   [4.410e+02 4.420e+02 4.430e+02 ... 4.470e+02 4.480e+02 4.490e+02]\n   [4.500e+02 4.510e+02 4.520e+02 ... 4.560e+02 4.570e+02 4.580e+02]\n   ...\n   [4.770e+02 4.780e+02 4.790e+02 ... 4.830e+02 4.840e+02 4.850e+02]\n   [4.860e+02 4.870e+02 4.880e+02 ... 4.920e+02 4.930e+02 4.940e+02]\n   [4.950e+02 4.960e+02 4.970e+02 ... 5.010e+02 5.020e+02 5.030e+02]]]\n\n\n [[[5.040e+02 5.050e+02 5.060e+02 ... 5.100e+02 5.110e+02 5.120e+02]\n   [5.130e+02 5.140e+02 5.150e+02 ... 5.190e+02 5.200e+02 5.210e+02]\n   [5.220e+02 5.230e+02 5.240e+02 ... 5.280e+02 5.290e+02 5.300e+02]\n   ...\n   [5.490e+02 5.500e+02 5.510e+02 ... 5.550e+02 5.560e+02 5.570e+02]\n   [5.580e+02 5.590e+02 5.600e+02 ... 5.640e+02 5.650e+02 5.660e+02]\n   [5.670e+02 5.680e+02 5.690e+02 ... 5.730e+02 5.740e+02 5.750e+02]]\n\n  [[5.760e+02 5.770e+02 5.780e+02 ... 5.820e+02 5.830e+02 5.840e+02]\n   [5.850e+02 5.860e+02 5.870e+02 ... 5.910e+02 5.920e+02 5.930e+02]\n   [5.940e+02 5.950e+02 5.960e+02 ... 6.000e+02 6.010e+02 6.020e+02]\n   ...\n   [6.210e+02 6.220e+02 6.230e+02 ... 6.270e+02 6.280e+02 6.290e+02]\n   [6.300e+02 6.310e+02 6.320e+02 ... 6.360e+02 6.370e+02 6.380e+02]\n   [6.390e+02 6.400e+02 6.410e+02 ... 6.450e+02 6.460e+02 6.470e+02]]\n\n  [[6.480e+02 6.490e+02 6.500e+02 ... 6.540e+02 6.550e+02 6.560e+02]\n   [6.570e+02 6.580e+02 6.590e+02 ... 6.630e+02 6.640e+02 6.650e+02]\n   [6.660e+02 6.670e+02 6.680e+02 ... 6.720e+02 6.730e+02 6.740e+02]\n   ...\n   [6.930e+02 6.940e+02 6.950e+02 ... 6.990e+02 7.000e+02 7.010e+02]\n   [7.020e+02 7.030e+02 7.040e+02 ... 7.080e+02 7.090e+02 7.100e+02]\n   [7.110e+02 7.120e+02 7.130e+02 ... 7.170e+02 7.180e+02 7.190e+02]]\n\n  ...\n\n  [[7.920e+02 7.930e+02 7.940e+02 ... 7.980e+02 7.990e+02 8.000e+02]\n   [8.010e+02 8.020e+02 8.030e+02 ... 8.070e+02 8.080e+02 8.090e+02]\n   [8.100e+02 8.110e+02 8.120e+02 ... 8.160e+02 8.170e+02 8.180e+02]\n   ...\n   [8.370e+02 8.380e+02 8.390e+02 ... 8.430e+02 8.440e+02 8.450e+02]\n   [8.460e+02 8.470e+02 8.480e+02 ... 8.520e+02 8.530e+02 8.540e+02]\n   [8.550e+02 8.560e+02 8.570e+02 ... 8.610e+02 8.620e+02 8.630e+02]]\n\n  [[8.640e+02 8.650e+02 8.660e+02 ... 8.700e+02 8.710e+02 8.720e+02]\n   [8.730e+02 8.740e+02 8.750e+02 ... 8.790e+02 8.800e+02 8.810e+02]\n   [8.820e+02 8.830e+02 8.840e+02 ... 8.880e+02 8.890e+02 8.900e+02]\n   ...\n   [9.090e+02 9.100e+02 9.110e+02 ... 9.150e+02 9.160e+02 9.170e+02]\n   [9.180e+02 9.190e+02 9.200e+02 ... 9.240e+02 9.250e+02 9.260e+02]\n   [9.270e+02 9.280e+02 9.290e+02 ... 9.330e+02 9.340e+02 9.350e+02]]\n\n  [[9.360e+02 9.370e+02 9.380e+02 ... 9.420e+02 9.430e+02 9.440e+02]\n   [9.450e+02 9.460e+02 9.470e+02 ... 9.510e+02 9.520e+02 9.530e+02]\n   [9.540e+02 9.550e+02 9.560e+02 ... 9.600e+02 9.610e+02 9.620e+02]\n   ...\n   [9.810e+02 9.820e+02 9.830e+02 ... 9.870e+02 9.880e+02 9.890e+02]\n   [9.900e+02 9.910e+02 9.920e+02 ... 9.960e+02 9.970e+02 9.980e+02]\n   [9.990e+02 1.000e+03 1.001e+03 ... 1.005e+03 1.006e+03 1.007e+03]]]]", "array([[[[0.000e+00, 1.000e+00, 2.000e+00, ..., 6.000e+00, 7.000e+00,\n          8.000e+00],\n         [9.000e+00, 1.000e+01, 1.100e+01, ..., 1.500e+01, 1.600e+01,\n          1.700e+01],\n         [1.800e+01, 1.900e+01, 2.000e+01, ..., 2.400e+01, 2.500e+01,\n          2.600e+01],\n         ...,\n         [4.500e+01, 4.600e+01, 4.700e+01, ..., 5.100e+01, 5.200e+01,\n          5.300e+01],\n         [5.400e+01, 5.500e+01, 5.600e+01, ..., 6.000e+01, 6.100e+01,\n          6.200e+01],\n         [6.300e+01, 6.400e+01, 6.500e+01, ..., 6.900e+01, 7.000e+01,\n          7.100e+01]],\n\n        [[7.200e+01, 7.300e+01, 7.400e+01, ..., 7.800e+01, 7.900e+01,\n          8.000e+01],\n         [8.100e+01, 8.200e+01, 8.300e+01, ..., 8.700e+01, 8.800e+01,\n          8.900e+01],\n         [9.000e+01, 9.100e+01, 9.200e+01, ..., 9.600e+01, 9.700e+01,\n          9.800e+01],\n         ...,\n         [1.170e+02, 1.180e+02, 1.190e+02, ..., 1.230e+02, 1.240e+02,\n          1.250e+02],\n         [1.260e+02, 1.270e+02, 1.280e+02, ..., 1.320e+02, 1.330e+02,\n          1.340e+02],\n         [1.350e+02, 1.360e+02, 1.370e+02, ..., 1.410e+02, 1.420e+02,\n          1.430e+02]],\n\n        [[1.440e+02, 1.450e+02, 1.460e+02, ..., 1.500e+02, 1.510e+02,\n          1.520e+02],\n         [1.530e+02, 1.540e+02, 1.550e+02, ..., 1.590e+02, 1.600e+02,\n          1.610e+02],\n         [1.620e+02, 1.630e+02, 1.640e+02, ..., 1.680e+02, 1.690e+02,\n          1.700e+02],\n         ...,\n         [1.890e+02, 1.900e+02, 1.910e+02, ..., 1.950e+02, 1.960e+02,\n          1.970e+02],\n         [1.980e+02, 1.990e+02, 2.000e+02, ..., 2.040e+02, 2.050e+02,\n          2.060e+02],\n         [2.070e+02, 2.080e+02, 2.090e+02, ..., 2.130e+02, 2.140e+02,\n          2.150e+02]],\n\n        ...,\n\n        [[2.880e+02, 2.890e+02, 2.900e+02, ..., 2.940e+02, 2.950e+02,\n          2.960e+02],\n         [2.970e+02, 2.980e+02, 2.990e+02, ..., 3.030e+02, 3.040e+02,\n          3.050e+02],\n         [3.060e+02, 3.070e+02, 3.080e+02, ..., 3.120e+02, 3.130e+02,\n          3.140e+02],\n         ...,\n         [3.330e+02, 3.340e+02, 3.350e+02, ..., 3.390e+02, 3.400e+02,\n          3.410e+02],\n         [3.420e+02, 3.430e+02, 3.440e+02, ..., 3.480e+02, 3.490e+02,\n          3.500e+02],\n         [3.510e+02, 3.520e+02, 3.530e+02, ..., 3.570e+02, 3.580e+02,\n          3.590e+02]],\n\n        [[3.600e+02, 3.610e+02, 3.620e+02, ..., 3.660e+02, 3.670e+02,\n          3.680e+02],\n         [3.690e+02, 3.700e+02, 3.710e+02, ..., 3.750e+02, 3.760e+02,\n          3.770e+02],\n         [3.780e+02, 3.790e+02, 3.800e+02, ..., 3.840e+02, 3.850e+02,\n          3.860e+02],\n         ...,\n         [4.050e+02, 4.060e+02, 4.070e+02, ..., 4.110e+02, 4.120e+02,\n          4.130e+02],\n         [4.140e+02, 4.150e+02, 4.160e+02, ..., 4.200e+02, 4.210e+02,\n          4.220e+02],\n         [4.230e+02, 4.240e+02, 4.250e+02, ..., 4.290e+02, 4.300e+02,\n          4.310e+02]],\n\n        [[4.320e+02, 4.330e+02, 4.340e+02, ..., 4.380e+02, 4.390e+02,\n          4.400e+02],\n         [4.410e+02, 4.420e+02, 4.430e+02, ..., 4.470e+02, 4.480e+02,\n          4.490e+02],\n         [4.500e+02, 4.510e+02, 4.520e+02, ..., 4.560e+02, 4.570e+02,\n          4.580e+02],\n         ...,\n         [4.770e+02, 4.780e+02, 4.790e+02, ..., 4.830e+02, 4.840e+02,\n          4.850e+02],\n         [4.860e+02, 4.870e+02, 4.880e+02, ..., 4.920e+02, 4.930e+02,\n          4.940e+02],\n         [4.950e+02, 4.960e+02, 4.970e+02, ..., 5.010e+02, 5.020e+02,\n          5.030e+02]]],\n\n\n       [[[5.040e+02, 5.050e+02, 5.060e+02, ..., 5.100e+02, 5.110e+02,\n          5.120e+02],\n         [5.130e+02, 5.140e+02, 5.150e+02, ..., 5.190e+02, 5.200e+02,\n          5.210e+02],\n         [5.220e+02, 5.230e+02, 5.240e+02, ..., 5.280e+02, 5.290e+02,\n          5.300e+02],\n         ...,\n         [5.490e+02, 5.500e+02, 5.510e+02, ..., 5.550e+02, 5.560e+02,\n          5.570e+02],\n         [5.580e+02, 5.590e+02, 5.600e+02, ..., 5.640e+02, 5.650e+02,\n          5.660e+02],\n         [5.670e+02, 5.680e+02, 5.690e+02, ..., 5.730e+02, 5.740e+02,\n          5.750e+02]],\n\n        [[5.760e+02, 5.770e+02, 5.780e+02, ..., 5.820e+02, 5.830e+02,\n          5.840e+02],\n         [5.850e+02, 5.860e+02, 5.870e+02, ..., 5.910e+02, 5.920e+02,\n          5.930e+02],\n         [5.940e+02, 5.950e+02, 5.960e+02, ..., 6.000e+02, 6.010e+02,\n          6.020e+02],\n         ...,\n         [6.210e+02, 6.220e+02, 6.230e+02, ..., 6.270e+02, 6.280e+02,\n          6.290e+02],\n         [6.300e+02, 6.310e+02, 6.320e+02, ..., 6.360e+02, 6.370e+02,\n          6.380e+02],\n         [6.390e+02, 6.400e+02, 6.410e+02, ..., 6.450e+02, 6.460e+02,\n          6.470e+02]],\n\n        [[6.480e+02, 6.490e+02, 6.500e+02, ..., 6.540e+02, 6.550e+02,\n          6.560e+02],\n         [6.570e+02, 6.580e+02, 6.590e+02, ..., 6.630e+02, 6.640e+02,\n          6.650e+02],\n         [6.660e+02, 6.670e+02, 6.680e+02, ..., 6.720e+02, 6.730e+02,\n          6.740e+02],\n         ...,\n         [6.930e+02, 6.940e+02, 6.950e+02, ..., 6.990e+02, 7.000e+02,\n          7.010e+02],\n         [7.020e+02, 7.030e+02, 7.040e+02, ..., 7.080e+02, 7.090e+02,\n          7.100e+02],\n         [7.110e+02, 7.120e+02, 7.130e+02, ..., 7.170e+02, 7.180e+02,\n          7.190e+02]],\n\n        ...,\n\n        [[7.920e+02, 7.930e+02, 7.940e+02, ..., 7.980e+02, 7.990e+02,\n          8.000e+02],\n         [8.010e+02, 8.020e+02, 8.030e+02, ..., 8.070e+02, 8.080e+02,\n          8.090e+02],\n         [8.100e+02, 8.110e+02, 8.120e+02, ..., 8.160e+02, 8.170e+02,\n          8.180e+02],\n         ...,\n         [8.370e+02, 8.380e+02, 8.390e+02, ..., 8.430e+02, 8.440e+02,\n          8.450e+02],\n         [8.460e+02, 8.470e+02, 8.480e+02, ..., 8.520e+02, 8.530e+02,\n          8.540e+02],\n         [8.550e+02, 8.560e+02, 8.570e+02, ..., 8.610e+02, 8.620e+02,\n          8.630e+02]],\n\n        [[8.640e+02, 8.650e+02, 8.660e+02, ..., 8.700e+02, 8.710e+02,\n          8.720e+02],\n         [8.730e+02, 8.740e+02, 8.750e+02, ..., 8.790e+02, 8.800e+02,\n          8.810e+02],\n         [8.820e+02, 8.830e+02, 8.840e+02, ..., 8.880e+02, 8.890e+02,\n          8.900e+02],\n         ...,\n         [9.090e+02, 9.100e+02, 9.110e+02, ..., 9.150e+02, 9.160e+02,\n          9.170e+02],\n         [9.180e+02, 9.190e+02, 9.200e+02, ..., 9.240e+02, 9.250e+02,\n          9.260e+02],\n         [9.270e+02, 9.280e+02, 9.290e+02, ..., 9.330e+02, 9.340e+02,\n          9.350e+02]],\n\n        [[9.360e+02, 9.370e+02, 9.380e+02, ..., 9.420e+02, 9.430e+02,\n          9.440e+02],\n         [9.450e+02, 9.460e+02, 9.470e+02, ..., 9.510e+02, 9.520e+02,\n          9.530e+02],\n         [9.540e+02, 9.550e+02, 9.560e+02, ..., 9.600e+02, 9.610e+02,\n          9.620e+02],\n         ...,\n         [9.810e+02, 9.820e+02, 9.830e+02, ..., 9.870e+02, 9.880e+02,\n          9.890e+02],\n         [9.900e+02, 9.910e+02, 9.920e+02, ..., 9.960e+02, 9.970e+02,\n          9.980e+02],\n         [9.990e+02, 1.000e+03, 1.001e+03, ..., 1.005e+03, 1.006e+03,\n          1.007e+03]]]], shape=(2, 7, 8, 9), dtype=float32)");
    // NumPy 2.4: np.arange(2200).reshape(1100, 2)
    check(&cp::arange(2200)?.reshape([1100, 2])?, "[[   0    1]\n [   2    3]\n [   4    5]\n ...\n [2194 2195]\n [2196 2197]\n [2198 2199]]", "array([[   0,    1],\n       [   2,    3],\n       [   4,    5],\n       ...,\n       [2194, 2195],\n       [2196, 2197],\n       [2198, 2199]], shape=(1100, 2))");
    // NumPy 2.4: np.arange(2200).reshape(2, 1100)
    check(&cp::arange(2200)?.reshape([2, 1100])?, "[[   0    1    2 ... 1097 1098 1099]\n [1100 1101 1102 ... 2197 2198 2199]]", "array([[   0,    1,    2, ..., 1097, 1098, 1099],\n       [1100, 1101, 1102, ..., 2197, 2198, 2199]], shape=(2, 1100))");
    // NumPy 2.4: np.arange(100000).reshape(100, 1000)
    check(&cp::arange(100_000)?.reshape([100, 1000])?, "[[    0     1     2 ...   997   998   999]\n [ 1000  1001  1002 ...  1997  1998  1999]\n [ 2000  2001  2002 ...  2997  2998  2999]\n ...\n [97000 97001 97002 ... 97997 97998 97999]\n [98000 98001 98002 ... 98997 98998 98999]\n [99000 99001 99002 ... 99997 99998 99999]]", "array([[    0,     1,     2, ...,   997,   998,   999],\n       [ 1000,  1001,  1002, ...,  1997,  1998,  1999],\n       [ 2000,  2001,  2002, ...,  2997,  2998,  2999],\n       ...,\n       [97000, 97001, 97002, ..., 97997, 97998, 97999],\n       [98000, 98001, 98002, ..., 98997, 98998, 98999],\n       [99000, 99001, 99002, ..., 99997, 99998, 99999]], shape=(100, 1000))");
    // NumPy 2.4: np.arange(2000.0) / 7
    check(&cp::divide(&cp::arange(2000.0)?, 7.0)?, "[0.00000000e+00 1.42857143e-01 2.85714286e-01 ... 2.85285714e+02\n 2.85428571e+02 2.85571429e+02]", "array([0.00000000e+00, 1.42857143e-01, 2.85714286e-01, ...,\n       2.85285714e+02, 2.85428571e+02, 2.85571429e+02], shape=(2000,))");
    // NumPy 2.4: np.arange(1500).astype(np.float16)
    check(&cp::arange(1500)?.astype(cp::float16)?, "[0.000e+00 1.000e+00 2.000e+00 ... 1.497e+03 1.498e+03 1.499e+03]", "array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.497e+03, 1.498e+03,\n       1.499e+03], shape=(1500,), dtype=float16)");
    // NumPy 2.4: np.arange(2000) % 2 == 0
    check(
        &cp::equal(&cp::remainder(&cp::arange(2000)?, 2)?, 0)?,
        "[ True False  True ... False  True False]",
        "array([ True, False,  True, ..., False,  True, False], shape=(2000,))",
    );
    // NumPy 2.4: np.arange(10**7)
    check(&cp::arange(10_000_000)?, "[      0       1       2 ... 9999997 9999998 9999999]", "array([      0,       1,       2, ..., 9999997, 9999998, 9999999],\n      shape=(10000000,))");
    // NumPy 2.4: np.broadcast_to(np.zeros(1), (100000, 100000))
    // only the edges are read: 10**10 elements would not fit
    check(&cp::zeros([1], cp::float64)?.broadcast_to(&[100_000, 100_000])?, "[[0. 0. 0. ... 0. 0. 0.]\n [0. 0. 0. ... 0. 0. 0.]\n [0. 0. 0. ... 0. 0. 0.]\n ...\n [0. 0. 0. ... 0. 0. 0.]\n [0. 0. 0. ... 0. 0. 0.]\n [0. 0. 0. ... 0. 0. 0.]]", "array([[0., 0., 0., ..., 0., 0., 0.],\n       [0., 0., 0., ..., 0., 0., 0.],\n       [0., 0., 0., ..., 0., 0., 0.],\n       ...,\n       [0., 0., 0., ..., 0., 0., 0.],\n       [0., 0., 0., ..., 0., 0., 0.],\n       [0., 0., 0., ..., 0., 0., 0.]], shape=(100000, 100000))");
    Ok(())
}

// Rows wrap at 75 columns with NumPy's continuation indent.
#[test]
fn long_rows_wrap_at_linewidth() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.arange(30.0) * 1.5
    check(&cp::multiply(&cp::arange(30.0)?, 1.5)?, "[ 0.   1.5  3.   4.5  6.   7.5  9.  10.5 12.  13.5 15.  16.5 18.  19.5\n 21.  22.5 24.  25.5 27.  28.5 30.  31.5 33.  34.5 36.  37.5 39.  40.5\n 42.  43.5]", "array([ 0. ,  1.5,  3. ,  4.5,  6. ,  7.5,  9. , 10.5, 12. , 13.5, 15. ,\n       16.5, 18. , 19.5, 21. , 22.5, 24. , 25.5, 27. , 28.5, 30. , 31.5,\n       33. , 34.5, 36. , 37.5, 39. , 40.5, 42. , 43.5])");
    // NumPy 2.4: np.arange(100)
    check(&cp::arange(100)?, "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47\n 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71\n 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95\n 96 97 98 99]", "array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33,\n       34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50,\n       51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67,\n       68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84,\n       85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99])");
    // NumPy 2.4: np.arange(40.0).reshape(2, 20)
    check(&cp::arange(40.0)?.reshape([2, 20])?, "[[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n  18. 19.]\n [20. 21. 22. 23. 24. 25. 26. 27. 28. 29. 30. 31. 32. 33. 34. 35. 36. 37.\n  38. 39.]]", "array([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n        13., 14., 15., 16., 17., 18., 19.],\n       [20., 21., 22., 23., 24., 25., 26., 27., 28., 29., 30., 31., 32.,\n        33., 34., 35., 36., 37., 38., 39.]])");
    // NumPy 2.4: np.arange(10.0) * 1e6
    check(&cp::multiply(&cp::arange(10.0)?, 1e6)?, "[      0. 1000000. 2000000. 3000000. 4000000. 5000000. 6000000. 7000000.\n 8000000. 9000000.]", "array([      0., 1000000., 2000000., 3000000., 4000000., 5000000.,\n       6000000., 7000000., 8000000., 9000000.])");
    // NumPy 2.4: np.arange(25).astype(np.int8)
    check(&cp::arange(25)?.astype(cp::int8)?, "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n 24]", "array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16,\n       17, 18, 19, 20, 21, 22, 23, 24], dtype=int8)");
    // NumPy 2.4: np.ones(30, dtype=bool)
    check(&cp::ones([30], cp::bool_)?, "[ True  True  True  True  True  True  True  True  True  True  True  True\n  True  True  True  True  True  True  True  True  True  True  True  True\n  True  True  True  True  True  True]", "array([ True,  True,  True,  True,  True,  True,  True,  True,  True,\n        True,  True,  True,  True,  True,  True,  True,  True,  True,\n        True,  True,  True,  True,  True,  True,  True,  True,  True,\n        True,  True,  True])");
    // NumPy 2.4: np.arange(60).reshape(2, 3, 10) * 1000
    check(&cp::multiply(&cp::arange(60)?.reshape([2, 3, 10])?, 1000)?, "[[[    0  1000  2000  3000  4000  5000  6000  7000  8000  9000]\n  [10000 11000 12000 13000 14000 15000 16000 17000 18000 19000]\n  [20000 21000 22000 23000 24000 25000 26000 27000 28000 29000]]\n\n [[30000 31000 32000 33000 34000 35000 36000 37000 38000 39000]\n  [40000 41000 42000 43000 44000 45000 46000 47000 48000 49000]\n  [50000 51000 52000 53000 54000 55000 56000 57000 58000 59000]]]", "array([[[    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,\n          9000],\n        [10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000,\n         19000],\n        [20000, 21000, 22000, 23000, 24000, 25000, 26000, 27000, 28000,\n         29000]],\n\n       [[30000, 31000, 32000, 33000, 34000, 35000, 36000, 37000, 38000,\n         39000],\n        [40000, 41000, 42000, 43000, 44000, 45000, 46000, 47000, 48000,\n         49000],\n        [50000, 51000, 52000, 53000, 54000, 55000, 56000, 57000, 58000,\n         59000]]])");
    // NumPy 2.4: np.arange(2000.0) * 1e-3
    check(&cp::multiply(&cp::arange(2000.0)?, 1e-3)?, "[0.000e+00 1.000e-03 2.000e-03 ... 1.997e+00 1.998e+00 1.999e+00]", "array([0.000e+00, 1.000e-03, 2.000e-03, ..., 1.997e+00, 1.998e+00,\n       1.999e+00], shape=(2000,))");
    // NumPy 2.4: np.array([complex(i, 11 - i) for i in range(12)])
    check(&complexes(&[(0.0, 11.0), (1.0, 10.0), (2.0, 9.0), (3.0, 8.0), (4.0, 7.0), (5.0, 6.0), (6.0, 5.0), (7.0, 4.0), (8.0, 3.0), (9.0, 2.0), (10.0, 1.0), (11.0, 0.0)], cp::complex128)?, "[ 0.+11.j  1.+10.j  2. +9.j  3. +8.j  4. +7.j  5. +6.j  6. +5.j  7. +4.j\n  8. +3.j  9. +2.j 10. +1.j 11. +0.j]", "array([ 0.+11.j,  1.+10.j,  2. +9.j,  3. +8.j,  4. +7.j,  5. +6.j,\n        6. +5.j,  7. +4.j,  8. +3.j,  9. +2.j, 10. +1.j, 11. +0.j])");
    // NumPy 2.4: np.array([1/3] * 9).astype(np.float32)
    check(&floats(&[0.3333333432674408, 0.3333333432674408, 0.3333333432674408, 0.3333333432674408, 0.3333333432674408, 0.3333333432674408, 0.3333333432674408, 0.3333333432674408, 0.3333333432674408], cp::float32)?, "[0.33333334 0.33333334 0.33333334 0.33333334 0.33333334 0.33333334\n 0.33333334 0.33333334 0.33333334]", "array([0.33333334, 0.33333334, 0.33333334, 0.33333334, 0.33333334,\n       0.33333334, 0.33333334, 0.33333334, 0.33333334], dtype=float32)");
    // NumPy 2.4: np.array([1/3] * 12)
    check(&floats(&[0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333], cp::float64)?, "[0.33333333 0.33333333 0.33333333 0.33333333 0.33333333 0.33333333\n 0.33333333 0.33333333 0.33333333 0.33333333 0.33333333 0.33333333]", "array([0.33333333, 0.33333333, 0.33333333, 0.33333333, 0.33333333,\n       0.33333333, 0.33333333, 0.33333333, 0.33333333, 0.33333333,\n       0.33333333, 0.33333333])");
    Ok(())
}

// Non-contiguous, negative-stride and broadcast views.
#[test]
fn views_print_in_logical_order() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4: np.arange(12).reshape(3, 4).T
    check(
        &cp::arange(12)?.reshape([3, 4])?.t(),
        "[[ 0  4  8]\n [ 1  5  9]\n [ 2  6 10]\n [ 3  7 11]]",
        "array([[ 0,  4,  8],\n       [ 1,  5,  9],\n       [ 2,  6, 10],\n       [ 3,  7, 11]])",
    );
    // NumPy 2.4: np.arange(10.0)[::-1]
    check(
        &cp::arange(10.0)?.slice(cp::s![..;-1])?,
        "[9. 8. 7. 6. 5. 4. 3. 2. 1. 0.]",
        "array([9., 8., 7., 6., 5., 4., 3., 2., 1., 0.])",
    );
    // NumPy 2.4: np.arange(20)[::3]
    check(
        &cp::arange(20)?.slice(cp::s![..;3])?,
        "[ 0  3  6  9 12 15 18]",
        "array([ 0,  3,  6,  9, 12, 15, 18])",
    );
    // NumPy 2.4: np.broadcast_to(np.arange(3.0), (2, 3))
    check(
        &cp::arange(3.0)?.broadcast_to(&[2, 3])?,
        "[[0. 1. 2.]\n [0. 1. 2.]]",
        "array([[0., 1., 2.],\n       [0., 1., 2.]])",
    );
    // NumPy 2.4: np.arange(3000.0).reshape(30, 100)[::-2, 1::3]
    check(&cp::arange(3000.0)?.reshape([30, 100])?.slice(cp::s![..;-2, 1..;3])?, "[[2901. 2904. 2907. 2910. 2913. 2916. 2919. 2922. 2925. 2928. 2931. 2934.\n  2937. 2940. 2943. 2946. 2949. 2952. 2955. 2958. 2961. 2964. 2967. 2970.\n  2973. 2976. 2979. 2982. 2985. 2988. 2991. 2994. 2997.]\n [2701. 2704. 2707. 2710. 2713. 2716. 2719. 2722. 2725. 2728. 2731. 2734.\n  2737. 2740. 2743. 2746. 2749. 2752. 2755. 2758. 2761. 2764. 2767. 2770.\n  2773. 2776. 2779. 2782. 2785. 2788. 2791. 2794. 2797.]\n [2501. 2504. 2507. 2510. 2513. 2516. 2519. 2522. 2525. 2528. 2531. 2534.\n  2537. 2540. 2543. 2546. 2549. 2552. 2555. 2558. 2561. 2564. 2567. 2570.\n  2573. 2576. 2579. 2582. 2585. 2588. 2591. 2594. 2597.]\n [2301. 2304. 2307. 2310. 2313. 2316. 2319. 2322. 2325. 2328. 2331. 2334.\n  2337. 2340. 2343. 2346. 2349. 2352. 2355. 2358. 2361. 2364. 2367. 2370.\n  2373. 2376. 2379. 2382. 2385. 2388. 2391. 2394. 2397.]\n [2101. 2104. 2107. 2110. 2113. 2116. 2119. 2122. 2125. 2128. 2131. 2134.\n  2137. 2140. 2143. 2146. 2149. 2152. 2155. 2158. 2161. 2164. 2167. 2170.\n  2173. 2176. 2179. 2182. 2185. 2188. 2191. 2194. 2197.]\n [1901. 1904. 1907. 1910. 1913. 1916. 1919. 1922. 1925. 1928. 1931. 1934.\n  1937. 1940. 1943. 1946. 1949. 1952. 1955. 1958. 1961. 1964. 1967. 1970.\n  1973. 1976. 1979. 1982. 1985. 1988. 1991. 1994. 1997.]\n [1701. 1704. 1707. 1710. 1713. 1716. 1719. 1722. 1725. 1728. 1731. 1734.\n  1737. 1740. 1743. 1746. 1749. 1752. 1755. 1758. 1761. 1764. 1767. 1770.\n  1773. 1776. 1779. 1782. 1785. 1788. 1791. 1794. 1797.]\n [1501. 1504. 1507. 1510. 1513. 1516. 1519. 1522. 1525. 1528. 1531. 1534.\n  1537. 1540. 1543. 1546. 1549. 1552. 1555. 1558. 1561. 1564. 1567. 1570.\n  1573. 1576. 1579. 1582. 1585. 1588. 1591. 1594. 1597.]\n [1301. 1304. 1307. 1310. 1313. 1316. 1319. 1322. 1325. 1328. 1331. 1334.\n  1337. 1340. 1343. 1346. 1349. 1352. 1355. 1358. 1361. 1364. 1367. 1370.\n  1373. 1376. 1379. 1382. 1385. 1388. 1391. 1394. 1397.]\n [1101. 1104. 1107. 1110. 1113. 1116. 1119. 1122. 1125. 1128. 1131. 1134.\n  1137. 1140. 1143. 1146. 1149. 1152. 1155. 1158. 1161. 1164. 1167. 1170.\n  1173. 1176. 1179. 1182. 1185. 1188. 1191. 1194. 1197.]\n [ 901.  904.  907.  910.  913.  916.  919.  922.  925.  928.  931.  934.\n   937.  940.  943.  946.  949.  952.  955.  958.  961.  964.  967.  970.\n   973.  976.  979.  982.  985.  988.  991.  994.  997.]\n [ 701.  704.  707.  710.  713.  716.  719.  722.  725.  728.  731.  734.\n   737.  740.  743.  746.  749.  752.  755.  758.  761.  764.  767.  770.\n   773.  776.  779.  782.  785.  788.  791.  794.  797.]\n [ 501.  504.  507.  510.  513.  516.  519.  522.  525.  528.  531.  534.\n   537.  540.  543.  546.  549.  552.  555.  558.  561.  564.  567.  570.\n   573.  576.  579.  582.  585.  588.  591.  594.  597.]\n [ 301.  304.  307.  310.  313.  316.  319.  322.  325.  328.  331.  334.\n   337.  340.  343.  346.  349.  352.  355.  358.  361.  364.  367.  370.\n   373.  376.  379.  382.  385.  388.  391.  394.  397.]\n [ 101.  104.  107.  110.  113.  116.  119.  122.  125.  128.  131.  134.\n   137.  140.  143.  146.  149.  152.  155.  158.  161.  164.  167.  170.\n   173.  176.  179.  182.  185.  188.  191.  194.  197.]]", "array([[2901., 2904., 2907., 2910., 2913., 2916., 2919., 2922., 2925.,\n        2928., 2931., 2934., 2937., 2940., 2943., 2946., 2949., 2952.,\n        2955., 2958., 2961., 2964., 2967., 2970., 2973., 2976., 2979.,\n        2982., 2985., 2988., 2991., 2994., 2997.],\n       [2701., 2704., 2707., 2710., 2713., 2716., 2719., 2722., 2725.,\n        2728., 2731., 2734., 2737., 2740., 2743., 2746., 2749., 2752.,\n        2755., 2758., 2761., 2764., 2767., 2770., 2773., 2776., 2779.,\n        2782., 2785., 2788., 2791., 2794., 2797.],\n       [2501., 2504., 2507., 2510., 2513., 2516., 2519., 2522., 2525.,\n        2528., 2531., 2534., 2537., 2540., 2543., 2546., 2549., 2552.,\n        2555., 2558., 2561., 2564., 2567., 2570., 2573., 2576., 2579.,\n        2582., 2585., 2588., 2591., 2594., 2597.],\n       [2301., 2304., 2307., 2310., 2313., 2316., 2319., 2322., 2325.,\n        2328., 2331., 2334., 2337., 2340., 2343., 2346., 2349., 2352.,\n        2355., 2358., 2361., 2364., 2367., 2370., 2373., 2376., 2379.,\n        2382., 2385., 2388., 2391., 2394., 2397.],\n       [2101., 2104., 2107., 2110., 2113., 2116., 2119., 2122., 2125.,\n        2128., 2131., 2134., 2137., 2140., 2143., 2146., 2149., 2152.,\n        2155., 2158., 2161., 2164., 2167., 2170., 2173., 2176., 2179.,\n        2182., 2185., 2188., 2191., 2194., 2197.],\n       [1901., 1904., 1907., 1910., 1913., 1916., 1919., 1922., 1925.,\n        1928., 1931., 1934., 1937., 1940., 1943., 1946., 1949., 1952.,\n        1955., 1958., 1961., 1964., 1967., 1970., 1973., 1976., 1979.,\n        1982., 1985., 1988., 1991., 1994., 1997.],\n       [1701., 1704., 1707., 1710., 1713., 1716., 1719., 1722., 1725.,\n        1728., 1731., 1734., 1737., 1740., 1743., 1746., 1749., 1752.,\n        1755., 1758., 1761., 1764., 1767., 1770., 1773., 1776., 1779.,\n        1782., 1785., 1788., 1791., 1794., 1797.],\n       [1501., 1504., 1507., 1510., 1513., 1516., 1519., 1522., 1525.,\n        1528., 1531., 1534., 1537., 1540., 1543., 1546., 1549., 1552.,\n        1555., 1558., 1561., 1564., 1567., 1570., 1573., 1576., 1579.,\n        1582., 1585., 1588., 1591., 1594., 1597.],\n       [1301., 1304., 1307., 1310., 1313., 1316., 1319., 1322., 1325.,\n        1328., 1331., 1334., 1337., 1340., 1343., 1346., 1349., 1352.,\n        1355., 1358., 1361., 1364., 1367., 1370., 1373., 1376., 1379.,\n        1382., 1385., 1388., 1391., 1394., 1397.],\n       [1101., 1104., 1107., 1110., 1113., 1116., 1119., 1122., 1125.,\n        1128., 1131., 1134., 1137., 1140., 1143., 1146., 1149., 1152.,\n        1155., 1158., 1161., 1164., 1167., 1170., 1173., 1176., 1179.,\n        1182., 1185., 1188., 1191., 1194., 1197.],\n       [ 901.,  904.,  907.,  910.,  913.,  916.,  919.,  922.,  925.,\n         928.,  931.,  934.,  937.,  940.,  943.,  946.,  949.,  952.,\n         955.,  958.,  961.,  964.,  967.,  970.,  973.,  976.,  979.,\n         982.,  985.,  988.,  991.,  994.,  997.],\n       [ 701.,  704.,  707.,  710.,  713.,  716.,  719.,  722.,  725.,\n         728.,  731.,  734.,  737.,  740.,  743.,  746.,  749.,  752.,\n         755.,  758.,  761.,  764.,  767.,  770.,  773.,  776.,  779.,\n         782.,  785.,  788.,  791.,  794.,  797.],\n       [ 501.,  504.,  507.,  510.,  513.,  516.,  519.,  522.,  525.,\n         528.,  531.,  534.,  537.,  540.,  543.,  546.,  549.,  552.,\n         555.,  558.,  561.,  564.,  567.,  570.,  573.,  576.,  579.,\n         582.,  585.,  588.,  591.,  594.,  597.],\n       [ 301.,  304.,  307.,  310.,  313.,  316.,  319.,  322.,  325.,\n         328.,  331.,  334.,  337.,  340.,  343.,  346.,  349.,  352.,\n         355.,  358.,  361.,  364.,  367.,  370.,  373.,  376.,  379.,\n         382.,  385.,  388.,  391.,  394.,  397.],\n       [ 101.,  104.,  107.,  110.,  113.,  116.,  119.,  122.,  125.,\n         128.,  131.,  134.,  137.,  140.,  143.,  146.,  149.,  152.,\n         155.,  158.,  161.,  164.,  167.,  170.,  173.,  176.,  179.,\n         182.,  185.,  188.,  191.,  194.,  197.]])");
    // NumPy 2.4: np.arange(24).reshape(2, 3, 4)[:, 1, ::-1]
    check(
        &cp::arange(24)?
            .reshape([2, 3, 4])?
            .slice(cp::s![.., 1, ..;-1])?,
        "[[ 7  6  5  4]\n [19 18 17 16]]",
        "array([[ 7,  6,  5,  4],\n       [19, 18, 17, 16]])",
    );
    Ok(())
}

// str_with / repr_with: threshold, edgeitems, precision, linewidth, suppress, sign.
#[test]
fn explicit_print_options() -> cp::Result<()> {
    let _lock = lock();
    // NumPy 2.4, printoptions(threshold=5, edgeitems=1): np.arange(10)
    check_with(
        &cp::arange(10)?,
        &PrintOptions {
            threshold: 5,
            edgeitems: 1,
            ..PrintOptions::default()
        },
        "[0 ... 9]",
        "array([0, ..., 9], shape=(10,))",
    );
    // NumPy 2.4, printoptions(threshold=5, edgeitems=0): np.arange(10)
    check_with(
        &cp::arange(10)?,
        &PrintOptions {
            threshold: 5,
            edgeitems: 0,
            ..PrintOptions::default()
        },
        "[... 9]",
        "array([..., 9], shape=(10,))",
    );
    // NumPy 2.4, printoptions(threshold=5, edgeitems=0): np.arange(20).reshape(4, 5)
    check_with(
        &cp::arange(20)?.reshape([4, 5])?,
        &PrintOptions {
            threshold: 5,
            edgeitems: 0,
            ..PrintOptions::default()
        },
        "[...\n [... 19]]",
        "array([...,\n       [..., 19]], shape=(4, 5))",
    );
    // NumPy 2.4, printoptions(threshold=10, edgeitems=2, precision=3): np.arange(40.0).reshape(5, 8)
    check_with(&cp::arange(40.0)?.reshape([5, 8])?, &PrintOptions { threshold: 10, edgeitems: 2, precision: 3, ..PrintOptions::default() }, "[[ 0.  1. ...  6.  7.]\n [ 8.  9. ... 14. 15.]\n ...\n [24. 25. ... 30. 31.]\n [32. 33. ... 38. 39.]]", "array([[ 0.,  1., ...,  6.,  7.],\n       [ 8.,  9., ..., 14., 15.],\n       ...,\n       [24., 25., ..., 30., 31.],\n       [32., 33., ..., 38., 39.]], shape=(5, 8))");
    // NumPy 2.4, printoptions(threshold=0): np.array(1.5)
    check_with(
        &cp::asarray(1.5)?,
        &PrintOptions {
            threshold: 0,
            ..PrintOptions::default()
        },
        "1.5",
        "array(1.5, shape=())",
    );
    // NumPy 2.4, printoptions(threshold=0, edgeitems=5): np.arange(6)
    check_with(
        &cp::arange(6)?,
        &PrintOptions {
            threshold: 0,
            edgeitems: 5,
            ..PrintOptions::default()
        },
        "[0 1 2 3 4 5]",
        "array([0, 1, 2, 3, 4, 5], shape=(6,))",
    );
    // NumPy 2.4, printoptions(precision=3): np.array([1/3, 2/3])
    check_with(
        &floats(&[0.3333333333333333, 0.6666666666666666], cp::float64)?,
        &PrintOptions {
            precision: 3,
            ..PrintOptions::default()
        },
        "[0.333 0.667]",
        "array([0.333, 0.667])",
    );
    // NumPy 2.4, printoptions(precision=2): np.array([0.125, 0.375, 0.625, 2.5])
    check_with(
        &floats(&[0.125, 0.375, 0.625, 2.5], cp::float64)?,
        &PrintOptions {
            precision: 2,
            ..PrintOptions::default()
        },
        "[0.12 0.38 0.62 2.5 ]",
        "array([0.12, 0.38, 0.62, 2.5 ])",
    );
    // NumPy 2.4, printoptions(precision=2): np.array([1.005, 0.015])
    check_with(
        &floats(&[1.005, 0.015], cp::float64)?,
        &PrintOptions {
            precision: 2,
            ..PrintOptions::default()
        },
        "[1.   0.01]",
        "array([1.  , 0.01])",
    );
    // NumPy 2.4, printoptions(precision=2): np.array([9.9999, 1.0])
    check_with(
        &floats(&[9.9999, 1.0], cp::float64)?,
        &PrintOptions {
            precision: 2,
            ..PrintOptions::default()
        },
        "[10.  1.]",
        "array([10.,  1.])",
    );
    // NumPy 2.4, printoptions(precision=0): np.array([1/3, 1e-5])
    check_with(
        &floats(&[0.3333333333333333, 1e-05], cp::float64)?,
        &PrintOptions {
            precision: 0,
            ..PrintOptions::default()
        },
        "[3.e-01 1.e-05]",
        "array([3.e-01, 1.e-05])",
    );
    // NumPy 2.4, printoptions(precision=17): np.array([np.pi, np.e])
    check_with(
        &floats(&[PI, E], cp::float64)?,
        &PrintOptions {
            precision: 17,
            ..PrintOptions::default()
        },
        "[3.141592653589793 2.718281828459045]",
        "array([3.141592653589793, 2.718281828459045])",
    );
    // NumPy 2.4, printoptions(precision=17): np.array([np.pi, 1e-9])
    check_with(
        &floats(&[PI, 1e-09], cp::float64)?,
        &PrintOptions {
            precision: 17,
            ..PrintOptions::default()
        },
        "[3.141592653589793e+00 1.000000000000000e-09]",
        "array([3.141592653589793e+00, 1.000000000000000e-09])",
    );
    // NumPy 2.4, printoptions(precision=12): np.array([1/3, 2/3]).astype(np.float32)
    check_with(
        &floats(&[0.3333333432674408, 0.6666666865348816], cp::float32)?,
        &PrintOptions {
            precision: 12,
            ..PrintOptions::default()
        },
        "[0.33333334 0.6666667 ]",
        "array([0.33333334, 0.6666667 ], dtype=float32)",
    );
    // NumPy 2.4, printoptions(linewidth=20): np.arange(12.0)
    check_with(&cp::arange(12.0)?, &PrintOptions { linewidth: 20, ..PrintOptions::default() }, "[ 0.  1.  2.  3.\n  4.  5.  6.  7.\n  8.  9. 10. 11.]", "array([ 0.,  1.,\n        2.,  3.,\n        4.,  5.,\n        6.,  7.,\n        8.,  9.,\n       10., 11.])");
    // NumPy 2.4, printoptions(linewidth=1): np.arange(12.0)
    check_with(&cp::arange(12.0)?, &PrintOptions { linewidth: 1, ..PrintOptions::default() }, "[ 0.\n  1.\n  2.\n  3.\n  4.\n  5.\n  6.\n  7.\n  8.\n  9.\n 10.\n 11.]", "array([ 0.,\n        1.,\n        2.,\n        3.,\n        4.,\n        5.,\n        6.,\n        7.,\n        8.,\n        9.,\n       10.,\n       11.])");
    // NumPy 2.4, printoptions(linewidth=15): np.arange(30).reshape(3, 10)
    check_with(&cp::arange(30)?.reshape([3, 10])?, &PrintOptions { linewidth: 15, ..PrintOptions::default() }, "[[ 0  1  2  3\n   4  5  6  7\n   8  9]\n [10 11 12 13\n  14 15 16 17\n  18 19]\n [20 21 22 23\n  24 25 26 27\n  28 29]]", "array([[ 0,\n         1,\n         2,\n         3,\n         4,\n         5,\n         6,\n         7,\n         8,\n         9],\n       [10,\n        11,\n        12,\n        13,\n        14,\n        15,\n        16,\n        17,\n        18,\n        19],\n       [20,\n        21,\n        22,\n        23,\n        24,\n        25,\n        26,\n        27,\n        28,\n        29]])");
    // NumPy 2.4, printoptions(linewidth=200): np.arange(100)
    check_with(&cp::arange(100)?, &PrintOptions { linewidth: 200, ..PrintOptions::default() }, "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65\n 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99]", "array([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,\n       48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,\n       96, 97, 98, 99])");
    // NumPy 2.4, printoptions(linewidth=40): np.arange(2000.0)
    check_with(&cp::arange(2000.0)?, &PrintOptions { linewidth: 40, ..PrintOptions::default() }, "[0.000e+00 1.000e+00 2.000e+00 ...\n 1.997e+03 1.998e+03 1.999e+03]", "array([0.000e+00, 1.000e+00, 2.000e+00,\n       ..., 1.997e+03, 1.998e+03,\n       1.999e+03], shape=(2000,))");
    // NumPy 2.4, printoptions(linewidth=66): np.arange(2000)
    check_with(
        &cp::arange(2000)?,
        &PrintOptions {
            linewidth: 66,
            ..PrintOptions::default()
        },
        "[   0    1    2 ... 1997 1998 1999]",
        "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))",
    );
    // NumPy 2.4, printoptions(linewidth=67): np.arange(2000)
    check_with(
        &cp::arange(2000)?,
        &PrintOptions {
            linewidth: 67,
            ..PrintOptions::default()
        },
        "[   0    1    2 ... 1997 1998 1999]",
        "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))",
    );
    // NumPy 2.4, printoptions(suppress=True): np.array([-1e-10, 1.0, 1e-5])
    check_with(
        &floats(&[-1e-10, 1.0, 1e-05], cp::float64)?,
        &PrintOptions {
            suppress: true,
            ..PrintOptions::default()
        },
        "[-0.       1.       0.00001]",
        "array([-0.     ,  1.     ,  0.00001])",
    );
    // NumPy 2.4, printoptions(suppress=True): np.array([1e10, 1.0])
    check_with(
        &floats(&[10000000000.0, 1.0], cp::float64)?,
        &PrintOptions {
            suppress: true,
            ..PrintOptions::default()
        },
        "[1.e+10 1.e+00]",
        "array([1.e+10, 1.e+00])",
    );
    // NumPy 2.4, printoptions(suppress=True, precision=6): np.array([1e-6, 4e-7, 2.0, 3.0])
    check_with(
        &floats(&[1e-06, 4e-07, 2.0, 3.0], cp::float64)?,
        &PrintOptions {
            suppress: true,
            precision: 6,
            ..PrintOptions::default()
        },
        "[0.000001 0.       2.       3.      ]",
        "array([0.000001, 0.      , 2.      , 3.      ])",
    );
    // NumPy 2.4, printoptions(suppress=True): np.array([1e7, 1.0]).astype(np.float32)
    check_with(
        &floats(&[10000000.0, 1.0], cp::float32)?,
        &PrintOptions {
            suppress: true,
            ..PrintOptions::default()
        },
        "[1.e+07 1.e+00]",
        "array([1.e+07, 1.e+00], dtype=float32)",
    );
    // NumPy 2.4, printoptions(suppress=True): np.array([complex(1e-10, 1), complex(2, 1e-9)])
    check_with(
        &complexes(&[(1e-10, 1.0), (2.0, 1e-09)], cp::complex128)?,
        &PrintOptions {
            suppress: true,
            ..PrintOptions::default()
        },
        "[0.+1.j 2.+0.j]",
        "array([0.+1.j, 2.+0.j])",
    );
    // NumPy 2.4, printoptions(sign=' '): np.array([1.5, 2.0])
    check_with(
        &floats(&[1.5, 2.0], cp::float64)?,
        &PrintOptions {
            sign: Sign::Space,
            ..PrintOptions::default()
        },
        "[ 1.5  2. ]",
        "array([ 1.5,  2. ])",
    );
    // NumPy 2.4, printoptions(sign=' '): np.array([1.5, -2.0])
    check_with(
        &floats(&[1.5, -2.0], cp::float64)?,
        &PrintOptions {
            sign: Sign::Space,
            ..PrintOptions::default()
        },
        "[ 1.5 -2. ]",
        "array([ 1.5, -2. ])",
    );
    // NumPy 2.4, printoptions(sign=' '): np.array([1, 2])
    check_with(
        &cp::asarray(vec![1i64, 2])?,
        &PrintOptions {
            sign: Sign::Space,
            ..PrintOptions::default()
        },
        "[ 1  2]",
        "array([ 1,  2])",
    );
    // NumPy 2.4, printoptions(sign=' '): np.array([-1, 2])
    check_with(
        &cp::asarray(vec![-1i64, 2])?,
        &PrintOptions {
            sign: Sign::Space,
            ..PrintOptions::default()
        },
        "[-1  2]",
        "array([-1,  2])",
    );
    // NumPy 2.4, printoptions(sign=' '): np.array([complex(1, 1)])
    check_with(
        &complexes(&[(1.0, 1.0)], cp::complex128)?,
        &PrintOptions {
            sign: Sign::Space,
            ..PrintOptions::default()
        },
        "[ 1.+1.j]",
        "array([ 1.+1.j])",
    );
    // NumPy 2.4, printoptions(sign=' '): np.array(1.5)
    check_with(
        &cp::asarray(1.5)?,
        &PrintOptions {
            sign: Sign::Space,
            ..PrintOptions::default()
        },
        "1.5",
        "array( 1.5)",
    );
    // NumPy 2.4, printoptions(sign=' '): np.array([np.nan, 1.0])
    check_with(
        &floats(&[NAN, 1.0], cp::float64)?,
        &PrintOptions {
            sign: Sign::Space,
            ..PrintOptions::default()
        },
        "[ nan   1.]",
        "array([ nan,   1.])",
    );
    // NumPy 2.4, printoptions(sign='+'): np.array([1.5, -2.0, np.nan, np.inf])
    check_with(
        &floats(&[1.5, -2.0, NAN, INF], cp::float64)?,
        &PrintOptions {
            sign: Sign::Plus,
            ..PrintOptions::default()
        },
        "[+1.5 -2.  +nan +inf]",
        "array([+1.5, -2. , +nan, +inf])",
    );
    // NumPy 2.4, printoptions(sign='+'): np.array([1, 2])
    check_with(
        &cp::asarray(vec![1i64, 2])?,
        &PrintOptions {
            sign: Sign::Plus,
            ..PrintOptions::default()
        },
        "[+1 +2]",
        "array([+1, +2])",
    );
    // NumPy 2.4, printoptions(sign='+'): np.array([0, 255], dtype=np.uint8)
    check_with(
        &cp::asarray(vec![0u8, 255])?,
        &PrintOptions {
            sign: Sign::Plus,
            ..PrintOptions::default()
        },
        "[  +0 +255]",
        "array([  +0, +255], dtype=uint8)",
    );
    // NumPy 2.4, printoptions(sign='+'): np.array(1.5)
    check_with(
        &cp::asarray(1.5)?,
        &PrintOptions {
            sign: Sign::Plus,
            ..PrintOptions::default()
        },
        "1.5",
        "array(+1.5)",
    );
    // NumPy 2.4, printoptions(sign='+'): np.array([1e-5, 1.0])
    check_with(
        &floats(&[1e-05, 1.0], cp::float64)?,
        &PrintOptions {
            sign: Sign::Plus,
            ..PrintOptions::default()
        },
        "[+1.e-05 +1.e+00]",
        "array([+1.e-05, +1.e+00])",
    );
    // NumPy 2.4, printoptions(sign='+'): np.array([complex(1, -2), complex(-3, 4)])
    check_with(
        &complexes(&[(1.0, -2.0), (-3.0, 4.0)], cp::complex128)?,
        &PrintOptions {
            sign: Sign::Plus,
            ..PrintOptions::default()
        },
        "[+1.-2.j -3.+4.j]",
        "array([+1.-2.j, -3.+4.j])",
    );
    // NumPy 2.4, printoptions(sign='+'): np.array([True, False])
    check_with(
        &cp::asarray(vec![true, false])?,
        &PrintOptions {
            sign: Sign::Plus,
            ..PrintOptions::default()
        },
        "[ True False]",
        "array([ True, False])",
    );
    // NumPy 2.4, printoptions(sign='+', linewidth=50, precision=1, threshold=30, edgeitems=4): np.arange(40.0).reshape(2, 20) - 20
    check_with(&cp::subtract(&cp::arange(40.0)?.reshape([2, 20])?, 20.0)?, &PrintOptions { sign: Sign::Plus, linewidth: 50, precision: 1, threshold: 30, edgeitems: 4, ..PrintOptions::default() }, "[[-20. -19. -18. -17. ...  -4.  -3.  -2.  -1.]\n [ +0.  +1.  +2.  +3. ... +16. +17. +18. +19.]]", "array([[-20., -19., -18., -17., ...,  -4.,  -3.,\n         -2.,  -1.],\n       [ +0.,  +1.,  +2.,  +3., ..., +16., +17.,\n        +18., +19.]], shape=(2, 20))");
    Ok(())
}

// bfloat16 has no NumPy dtype: the digits below were worked out by hand
// (the shortest decimal that rounds back to the same bfloat16, checked with
// exact rational arithmetic), laid out by NumPy's float rules with
// bfloat16's finfo.precision of 2 (ml_dtypes): scientific from 1e2 on.
#[test]
fn bfloat16_by_hand() -> cp::Result<()> {
    let _lock = lock();
    // bf16(0.1) = 0.10009765625 -> 0.1; bf16(0.2) = 0.2001953125 -> 0.2
    check(
        &floats(&[0.1, 0.2, 1.5], cp::bfloat16)?,
        "[0.1 0.2 1.5]",
        "array([0.1, 0.2, 1.5], dtype=bfloat16)",
    );
    // bf16(1/3) = 0.333984375 -> 0.334 (0.33 -> 0.330078125); bf16(2/3) = 0.66796875 -> 0.668;
    // bf16(pi) = 3.140625 -> 3.14
    check(
        &floats(&[1.0 / 3.0, 2.0 / 3.0, PI], cp::bfloat16)?,
        "[0.334 0.668 3.14 ]",
        "array([0.334, 0.668, 3.14 ], dtype=bfloat16)",
    );
    // Below the cutoff 1e2: positional.
    check(
        &floats(&[99.5, 7.0], cp::bfloat16)?,
        "[99.5  7. ]",
        "array([99.5,  7. ], dtype=bfloat16)",
    );
    // 100 >= 1e2: scientific.
    check(
        &floats(&[100.0, 7.0], cp::bfloat16)?,
        "[1.e+02 7.e+00]",
        "array([1.e+02, 7.e+00], dtype=bfloat16)",
    );
    // Scientific with 2 digits after the point: bf16(1e-5) = 1.0013580322265625e-05 -> 1.00e-05.
    check(
        &floats(&[1.0 / 3.0, 1e-5], cp::bfloat16)?,
        "[3.34e-01 1.00e-05]",
        "array([3.34e-01, 1.00e-05], dtype=bfloat16)",
    );
    // 0-d: str is the scalar (positional from 1e-4 up to 1e2, trailing ".0").
    check(
        &floats(&[1.0 / 3.0], cp::bfloat16)?.reshape(Vec::<usize>::new())?,
        "0.334",
        "array(0.334, dtype=bfloat16)",
    );
    check(
        &floats(&[255.0], cp::bfloat16)?.reshape(Vec::<usize>::new())?,
        "2.55e+02",
        "array(2.55e+02, dtype=bfloat16)",
    );
    check(
        &floats(&[7.0], cp::bfloat16)?.reshape(Vec::<usize>::new())?,
        "7.0",
        "array(7., dtype=bfloat16)",
    );
    Ok(())
}

// set_printoptions changes Display / Debug for the whole process; the
// defaults come back with PrintOptions::default().
#[test]
fn set_printoptions_is_global_and_restorable() -> cp::Result<()> {
    let _lock = lock();
    let a = cp::divide(&cp::arange(12.0)?.reshape([3, 4])?, 7.0)?;
    let b = cp::asarray([1e-10, 1.0])?;
    let c = cp::arange(8)?;
    assert_eq!(cp::get_printoptions(), PrintOptions::default());
    cp::set_printoptions(PrintOptions {
        threshold: 5,
        edgeitems: 1,
        precision: 3,
        linewidth: 30,
        suppress: true,
        sign: Sign::Plus,
    });
    let result = std::panic::catch_unwind(|| {
        // NumPy 2.4, printoptions(threshold=5, edgeitems=1, precision=3, linewidth=30,
        //   suppress=True, sign='+'): np.arange(12.0).reshape(3, 4) / 7
        assert_eq!(
            a.to_string(),
            "[[+0.    ... +0.429]\n ...\n [+1.143 ... +1.571]]"
        );
        assert_eq!(
            format!("{a:?}"),
            "array([[+0.   , ..., +0.429],\n       ...,\n       [+1.143, ..., +1.571]],\n      shape=(3, 4))"
        );
        // np.array([1e-10, 1.0])
        assert_eq!(b.to_string(), "[+0. +1.]");
        assert_eq!(format!("{b:?}"), "array([+0., +1.])");
        // np.arange(8)
        assert_eq!(c.to_string(), "[+0 ... +7]");
        assert_eq!(format!("{c:?}"), "array([+0, ..., +7],\n      shape=(8,))");
    });
    cp::set_printoptions(PrintOptions::default());
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
    assert_eq!(cp::get_printoptions(), PrintOptions::default());
    // NumPy 2.4: np.arange(8)
    check(&c, "[0 1 2 3 4 5 6 7]", "array([0, 1, 2, 3, 4, 5, 6, 7])");
    Ok(())
}

// The element formatter shared with the notebook display.
#[test]
fn element_formatter_and_scalar_text() -> cp::Result<()> {
    use cp::format::{format_elements, scalar_str, ElementFormat};
    use cp::Scalar;
    let _lock = lock();
    let opts = PrintOptions::default();
    // NumPy 2.4: np.array([0.1, 0.3], dtype=np.float32) -> array([0.1, 0.3], dtype=float32)
    let v = [Scalar::Float(0.1f32 as f64), Scalar::Float(0.3f32 as f64)];
    assert_eq!(format_elements(cp::float32, &v, &opts), ["0.1", "0.3"]);
    // NumPy 2.4: np.array([True, False]) -> array([ True, False])
    let v = [Scalar::Bool(true), Scalar::Bool(false)];
    assert_eq!(format_elements(cp::bool_, &v, &opts), [" True", "False"]);
    // NumPy 2.4: np.array(True) -> array(True)
    let f = ElementFormat::for_0d(cp::bool_, Scalar::Bool(true), &opts);
    assert_eq!(f.format(Scalar::Bool(true)), "True");
    // NumPy 2.4: np.array([1+2j, -3.5-0.25j]) -> array([ 1. +2.j  , -3.5-0.25j])
    let v = [
        Scalar::Complex(Complex64::new(1.0, 2.0)),
        Scalar::Complex(Complex64::new(-3.5, -0.25)),
    ];
    let f = ElementFormat::new(cp::complex128, &v, &opts);
    assert_eq!(f.format(v[0]), " 1. +2.j  ");
    assert_eq!(f.format(v[1]), "-3.5-0.25j");
    // NumPy 2.4: str(np.float64(3.0)), str(np.complex128(1+2j)), str(np.float32(0.1)),
    //   str(np.uint8(200)), str(np.float16(65504))
    assert_eq!(scalar_str(cp::float64, Scalar::Float(3.0)), "3.0");
    let c = Scalar::Complex(Complex64::new(1.0, 2.0));
    assert_eq!(scalar_str(cp::complex128, c), "(1+2j)");
    assert_eq!(scalar_str(cp::float32, Scalar::Float(0.1f32 as f64)), "0.1");
    assert_eq!(scalar_str(cp::uint8, Scalar::UInt(200)), "200");
    assert_eq!(scalar_str(cp::float16, Scalar::Float(65504.0)), "6.55e+04");
    Ok(())
}

// Huge option values neither panic nor overflow.
#[test]
fn extreme_print_options() -> cp::Result<()> {
    let _lock = lock();
    let opts = PrintOptions {
        precision: usize::MAX,
        linewidth: usize::MAX,
        edgeitems: usize::MAX,
        threshold: 0,
        ..PrintOptions::default()
    };
    // NumPy 2.4, printoptions(precision=10**6, linewidth=sys.maxsize, edgeitems=sys.maxsize,
    //   threshold=0): np.array([1/3, 2.0, 1e-3])
    check_with(
        &cp::asarray([1.0 / 3.0, 2.0, 1e-3])?,
        &opts,
        "[3.333333333333333e-01 2.000000000000000e+00 1.000000000000000e-03]",
        "array([3.333333333333333e-01, 2.000000000000000e+00, 1.000000000000000e-03], shape=(3,))",
    );
    // np.arange(12).reshape(3, 4)
    check_with(
        &cp::arange(12)?.reshape([3, 4])?,
        &opts,
        "[[ 0  1  2  3]\n [ 4  5  6  7]\n [ 8  9 10 11]]",
        "array([[ 0,  1,  2,  3],\n       [ 4,  5,  6,  7],\n       [ 8,  9, 10, 11]], shape=(3, 4))",
    );
    Ok(())
}

//! The elementwise functions added as rows of the ufunc table (hypot,
//! logaddexp, logaddexp2, cbrt, copysign, nextafter, deg2rad, rad2deg, sinc,
//! heaviside, real, imag, conj, angle, nan_to_num) against NumPy's values on
//! every backend, and every function of the table on the GPU against the
//! CPU backend on fresh random inputs of every dtype.

// The expected values are NumPy's as it printed them, some of which are
// well-known constants.
#![allow(clippy::approx_constant)]

use crate::common;

use cuprite as cp;
use cuprite::num_complex::Complex64;
use cuprite::{Array, DType};

use common::{cvals, values_f64};

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

/// The inputs of the real tables (NumPy 2.4.6).
const X: [f64; 10] = [-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, INF, -INF, NAN];
const Y: [f64; 10] = [1.5, -2.0, 3.0, -0.0, 0.5, 1.0, -3.0, 1.0, -INF, 2.0];

fn real(v: &[f64], dt: DType) -> Array {
    cp::asarray(v.to_vec()).unwrap().astype(dt).unwrap()
}

/// Equal values, NaN where NaN is expected, within `tol` relative (or
/// absolute below 1); exact checks (`tol` 0) also compare the sign of zeros.
#[track_caller]
fn check(got: &Array, dt: DType, want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.dtype(), dt, "{what}: dtype");
    let g = values_f64(got);
    assert_eq!(g.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in g.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() || (w == 0.0 && tol == 0.0) {
            g == w && g.is_sign_negative() == w.is_sign_negative()
        } else {
            !g.is_nan() && (g - w).abs() <= tol * w.abs().max(1.0)
        };
        assert!(ok, "{what}: element {i}: got {g}, NumPy {w}; all {g:?}");
    }
}

type UnFn = fn(&Array) -> cp::Result<Array>;
type BinFn = fn(&Array, &Array) -> cp::Result<Array>;

#[rustfmt::skip]
const UNARY_F64: &[(&str, UnFn, [f64; 10])] = &[
    ("cbrt", |a| cp::cbrt(a), [-1.3572088082974534, -1.0, -0.0, 0.0, 0.7937005259840998, 1.0, 1.4422495703074083, INF, -INF, NAN]),
    ("deg2rad", |a| cp::deg2rad(a), [-0.04363323129985824, -0.017453292519943295, -0.0, 0.0, 0.008726646259971648, 0.017453292519943295, 0.05235987755982989, INF, -INF, NAN]),
    ("rad2deg", |a| cp::rad2deg(a), [-143.2394487827058, -57.29577951308232, -0.0, 0.0, 28.64788975654116, 57.29577951308232, 171.88733853924697, INF, -INF, NAN]),
    ("sinc", |a| cp::sinc(a), [0.12732395447351627, 3.8981718325193755e-17, 1.0, 1.0, 0.6366197723675814, 3.8981718325193755e-17, 3.8981718325193755e-17, NAN, NAN, NAN]),
    ("real", |a| cp::real(a), X),
    ("imag", |a| cp::imag(a), [0.0; 10]),
    ("conj", |a| cp::conj(a), X),
    ("angle", |a| cp::angle(a), [std::f64::consts::PI, std::f64::consts::PI, std::f64::consts::PI, 0.0, 0.0, 0.0, 0.0, 0.0, std::f64::consts::PI, NAN]),
    ("nan_to_num", |a| cp::nan_to_num(a), [-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, f64::MAX, -f64::MAX, 0.0]),
];

#[rustfmt::skip]
const UNARY_F32: &[(&str, UnFn, [f64; 10])] = &[
    ("cbrt", |a| cp::cbrt(a), [-1.3572087287902832, -1.0, -0.0, 0.0, 0.7937005162239075, 1.0, 1.4422496557235718, INF, -INF, NAN]),
    ("deg2rad", |a| cp::deg2rad(a), [-0.04363323003053665, -0.01745329238474369, -0.0, 0.0, 0.008726646192371845, 0.01745329238474369, 0.05235987901687622, INF, -INF, NAN]),
    ("rad2deg", |a| cp::rad2deg(a), [-143.23944091796875, -57.2957763671875, -0.0, 0.0, 28.64788818359375, 57.2957763671875, 171.8873291015625, INF, -INF, NAN]),
    // float32 sin(pi) is not 0: NumPy's -2.78e-08 and -2.53e-09 depend on its
    // libm's last bit, so the check is absolute below 1.
    ("sinc", |a| cp::sinc(a), [0.1273239552974701, -2.7827534054836178e-08, 1.0, 1.0, 0.6366197466850281, -2.7827534054836178e-08, -2.530538223410872e-09, NAN, NAN, NAN]),
    ("angle", |a| cp::angle(a), [3.1415927410125732, 3.1415927410125732, 3.1415927410125732, 0.0, 0.0, 0.0, 0.0, 0.0, 3.1415927410125732, NAN]),
    ("nan_to_num", |a| cp::nan_to_num(a), [-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, 3.4028234663852886e+38, -3.4028234663852886e+38, 0.0]),
];

#[rustfmt::skip]
const BINARY_F64: &[(&str, BinFn, [f64; 10])] = &[
    ("hypot", |a, b| cp::hypot(a, b), [2.9154759474226504, 2.23606797749979, 3.0, 0.0, 0.7071067811865476, 1.4142135623730951, 4.242640687119285, INF, INF, NAN]),
    ("logaddexp", |a, b| cp::logaddexp(a, b), [1.5181499279178097, -0.6867383124817772, 3.048587351573742, 0.6931471805599453, 1.1931471805599454, 1.6931471805599454, 3.0024756851377306, INF, -INF, NAN]),
    ("logaddexp2", |a, b| cp::logaddexp2(a, b), [1.5874628412503393, -0.4150374992788438, 3.169925001442312, 1.0, 1.5, 2.0, 3.0223678130284544, INF, -INF, NAN]),
    ("copysign", |a, b| cp::copysign(a, b), [2.5, -1.0, 0.0, -0.0, 0.5, 1.0, -3.0, INF, -INF, NAN]),
    ("nextafter", |a, b| cp::nextafter(a, b), [-2.4999999999999996, -1.0000000000000002, 5e-324, -0.0, 0.5, 1.0, 2.9999999999999996, 1.7976931348623157e+308, -INF, NAN]),
    ("heaviside", |a, b| cp::heaviside(a, b), [0.0, 0.0, 3.0, -0.0, 1.0, 1.0, 1.0, 1.0, 0.0, NAN]),
];

#[rustfmt::skip]
const BINARY_F32: &[(&str, BinFn, [f64; 10])] = &[
    ("hypot", |a, b| cp::hypot(a, b), [2.915475845336914, 2.2360680103302, 3.0, 0.0, 0.7071067690849304, 1.4142135381698608, 4.242640495300293, INF, INF, NAN]),
    ("logaddexp", |a, b| cp::logaddexp(a, b), [1.518149971961975, -0.6867383122444153, 3.0485873222351074, 0.6931471824645996, 1.1931471824645996, 1.6931471824645996, 3.0024757385253906, INF, -INF, NAN]),
    ("logaddexp2", |a, b| cp::logaddexp2(a, b), [1.5874629020690918, -0.41503751277923584, 3.1699249744415283, 1.0, 1.5, 2.0, 3.0223677158355713, INF, -INF, NAN]),
    ("copysign", |a, b| cp::copysign(a, b), [2.5, -1.0, 0.0, -0.0, 0.5, 1.0, -3.0, INF, -INF, NAN]),
    ("nextafter", |a, b| cp::nextafter(a, b), [-2.499999761581421, -1.0000001192092896, 1.401298464324817e-45, -0.0, 0.5, 1.0, 2.999999761581421, 3.4028234663852886e+38, -INF, NAN]),
    ("heaviside", |a, b| cp::heaviside(a, b), [0.0, 0.0, 3.0, -0.0, 1.0, 1.0, 1.0, 1.0, 0.0, NAN]),
];

on_every_device!(new_real_functions_match_numpy, |dev| {
    for (dt, unary, binary, tol) in [
        (DType::Float64, UNARY_F64, BINARY_F64, 1e-14),
        (DType::Float32, UNARY_F32, BINARY_F32, 1e-6),
    ] {
        let x = real(&X, dt);
        let y = real(&Y, dt);
        for (name, f, want) in unary {
            check(&f(&x)?, dt, want, tol, &format!("{name} {dt} on {dev}"));
        }
        for (name, f, want) in binary {
            check(&f(&x, &y)?, dt, want, tol, &format!("{name} {dt} on {dev}"));
        }
    }
});

// NumPy 2.4.6: the half types step and saturate in their own spacing.
on_every_device!(float16_steps_in_its_own_spacing, |dev| {
    let h = real(&[1.0, -1.0, 0.0, 65504.0, INF, NAN], DType::Float16);
    let two = real(&[2.0], DType::Float16);
    let down = real(&[-INF], DType::Float16);
    let what = format!("float16 on {dev}");
    check(
        &cp::nextafter(&h, &two)?,
        DType::Float16,
        &[
            1.0009765625,
            -0.99951171875,
            5.960464477539063e-08,
            65472.0,
            65504.0,
            NAN,
        ],
        0.0,
        &what,
    );
    check(
        &cp::nextafter(&h, &down)?,
        DType::Float16,
        &[
            0.99951171875,
            -1.0009765625,
            -5.960464477539063e-08,
            65472.0,
            65504.0,
            NAN,
        ],
        0.0,
        &what,
    );
    check(
        &cp::nan_to_num(&h)?,
        DType::Float16,
        &[1.0, -1.0, 0.0, 65504.0, 65504.0, 0.0],
        0.0,
        &what,
    );
    // bfloat16: one step from 1 is 2^-7 up, 2^-8 down.
    let b = real(&[1.0], DType::BFloat16);
    check(
        &cp::nextafter(&b, real(&[2.0], DType::BFloat16))?,
        DType::BFloat16,
        &[1.0078125],
        0.0,
        &what,
    );
    check(
        &cp::nextafter(&b, real(&[0.0], DType::BFloat16))?,
        DType::BFloat16,
        &[0.99609375],
        0.0,
        &what,
    );
});

// NumPy 2.4.6: the result dtypes of integer and bool input.
on_every_device!(integer_and_bool_inputs_follow_numpy_types, |dev| {
    let i8s = cp::asarray(vec![-3i8, 0, 5, 127, -128])?;
    let what = format!("int8 on {dev}");
    check(
        &cp::cbrt(&i8s)?,
        DType::Float16,
        &[-1.4423828125, 0.0, 1.7099609375, 5.02734375, -5.0390625],
        0.0,
        &what,
    );
    check(
        &cp::deg2rad(&i8s)?,
        DType::Float16,
        &[
            -0.0523681640625,
            0.0,
            0.0872802734375,
            2.216796875,
            -2.234375,
        ],
        0.0,
        &what,
    );
    check(
        &cp::rad2deg(&i8s)?,
        DType::Float16,
        &[-171.875, 0.0, 286.5, 7276.0, -7332.0],
        0.0,
        &what,
    );
    check(
        &cp::sinc(&i8s)?,
        DType::Float64,
        &[
            3.8981718325193755e-17,
            1.0,
            3.898171832519376e-17,
            1.2268398165920123e-17,
            -3.8981718325193755e-17,
        ],
        1e-12,
        &what,
    );
    check(
        &cp::real(&i8s)?,
        DType::Int8,
        &[-3.0, 0.0, 5.0, 127.0, -128.0],
        0.0,
        &what,
    );
    check(&cp::imag(&i8s)?, DType::Int8, &[0.0; 5], 0.0, &what);
    check(
        &cp::conj(&i8s)?,
        DType::Int8,
        &[-3.0, 0.0, 5.0, 127.0, -128.0],
        0.0,
        &what,
    );
    check(
        &cp::angle(&i8s)?,
        DType::Float16,
        &[3.140625, 0.0, 0.0, 0.0, 3.140625],
        0.0,
        &what,
    );
    check(
        &cp::nan_to_num(&i8s)?,
        DType::Int8,
        &[-3.0, 0.0, 5.0, 127.0, -128.0],
        0.0,
        &what,
    );
    let b = cp::asarray(vec![true, false])?;
    let what = format!("bool on {dev}");
    check(
        &cp::sinc(&b)?,
        DType::Float64,
        &[3.8981718325193755e-17, 1.0],
        1e-12,
        &what,
    );
    assert_eq!(cp::real(&b)?.to_vec::<bool>()?, vec![true, false]);
    assert_eq!(cp::imag(&b)?.to_vec::<bool>()?, vec![false, false]);
    check(&cp::conj(&b)?, DType::Int8, &[1.0, 0.0], 0.0, &what);
    check(&cp::angle(&b)?, DType::Float64, &[0.0, 0.0], 0.0, &what);
    assert_eq!(cp::nan_to_num(&b)?.to_vec::<bool>()?, vec![true, false]);
    // Real-only functions refuse complex input, naming the valid dtypes.
    let z = cp::asarray(vec![Complex64::new(1.0, 2.0)])?;
    for e in [cp::cbrt(&z).unwrap_err(), cp::hypot(&z, &z).unwrap_err()] {
        assert!(e.to_string().contains("not complex"), "{e}");
    }
});

// NumPy 2.4.6 on complex128.
on_every_device!(complex_inputs_match_numpy, |dev| {
    let z: Vec<Complex64> = [
        (1.0, 2.0),
        (-1.0, -0.0),
        (0.0, 0.0),
        (NAN, 1.0),
        (INF, -INF),
        (-3.0, 4.0),
        (0.25, -0.5),
    ]
    .iter()
    .map(|&(r, i)| Complex64::new(r, i))
    .collect();
    let z = cp::asarray(z)?;
    let what = format!("complex128 on {dev}");
    let check_c = |got: Array, want: &[(f64, f64)], tol: f64, name: &str| {
        assert_eq!(got.dtype(), DType::Complex128, "{name}");
        let re: Vec<f64> = want.iter().map(|w| w.0).collect();
        let im: Vec<f64> = want.iter().map(|w| w.1).collect();
        let parts: Vec<Complex64> = cvals(&got);
        let gre = cp::asarray(parts.iter().map(|c| c.re).collect::<Vec<_>>()).unwrap();
        let gim = cp::asarray(parts.iter().map(|c| c.im).collect::<Vec<_>>()).unwrap();
        check(
            &gre,
            DType::Float64,
            &re,
            tol,
            &format!("{name} real, {what}"),
        );
        check(
            &gim,
            DType::Float64,
            &im,
            tol,
            &format!("{name} imag, {what}"),
        );
    };
    check_c(
        cp::sinc(&z)?,
        &[
            (-34.09033869939481, -17.04516934969741),
            (3.8981718325193755e-17, 0.0),
            (1.0, 0.0),
            (NAN, NAN),
            (NAN, NAN),
            (-7302.062227717641, 5476.546670788235),
            (1.280569644937901, 0.4892423397741062),
        ],
        1e-12,
        "sinc",
    );
    check_c(
        cp::conj(&z)?,
        &[
            (1.0, -2.0),
            (-1.0, 0.0),
            (0.0, -0.0),
            (NAN, -1.0),
            (INF, INF),
            (-3.0, -4.0),
            (0.25, 0.5),
        ],
        0.0,
        "conj",
    );
    check_c(
        cp::nan_to_num(&z)?,
        &[
            (1.0, 2.0),
            (-1.0, -0.0),
            (0.0, 0.0),
            (0.0, 1.0),
            (f64::MAX, -f64::MAX),
            (-3.0, 4.0),
            (0.25, -0.5),
        ],
        0.0,
        "nan_to_num",
    );
    check(
        &cp::real(&z)?,
        DType::Float64,
        &[1.0, -1.0, 0.0, NAN, INF, -3.0, 0.25],
        0.0,
        &what,
    );
    check(
        &cp::imag(&z)?,
        DType::Float64,
        &[2.0, -0.0, 0.0, 1.0, -INF, 4.0, -0.5],
        0.0,
        &what,
    );
    check(
        &cp::angle(&z)?,
        DType::Float64,
        &[
            1.1071487177940904,
            -std::f64::consts::PI,
            0.0,
            NAN,
            -0.7853981633974483,
            2.214297435588181,
            -1.1071487177940904,
        ],
        1e-15,
        &what,
    );
    // complex64 keeps its width: real parts are float32.
    let z32 = z.astype(DType::Complex64)?;
    assert_eq!(cp::real(&z32)?.dtype(), DType::Float32);
    assert_eq!(cp::angle(&z32)?.dtype(), DType::Float32);
    assert_eq!(cp::sinc(&z32)?.dtype(), DType::Complex64);
});

// The `_out` forms of the new rows follow from the table like the others.
on_every_device!(out_forms_of_new_rows, |dev| {
    let x = real(&X, DType::Float64);
    let y = real(&Y, DType::Float64);
    let mut out = cp::zeros([10], DType::Float64)?;
    cp::hypot_out(&x, &y, &mut out)?;
    check(
        &out,
        DType::Float64,
        &BINARY_F64[0].2,
        1e-14,
        &format!("hypot_out on {dev}"),
    );
    let mut out32 = cp::zeros([2, 10], DType::Float32)?;
    cp::cbrt_out(&x.astype(DType::Float32)?, &mut out32)?;
    let row: Vec<f64> = values_f64(&out32)[10..].to_vec();
    check(
        &cp::asarray(row)?.astype(DType::Float32)?,
        DType::Float32,
        &UNARY_F32[0].2,
        1e-6,
        "cbrt_out",
    );
});

// ---------------------------------------------------------------------------
// Every function of the table: GPU against the CPU backend
// ---------------------------------------------------------------------------

#[rustfmt::skip]
const ALL_UNARY: &[(&str, UnFn)] = &[
    ("negative", |a| cp::negative(a)), ("positive", |a| cp::positive(a)), ("abs", |a| cp::abs(a)),
    ("sign", |a| cp::sign(a)), ("sqrt", |a| cp::sqrt(a)), ("exp", |a| cp::exp(a)),
    ("exp2", |a| cp::exp2(a)), ("log", |a| cp::log(a)), ("log2", |a| cp::log2(a)),
    ("log10", |a| cp::log10(a)), ("log1p", |a| cp::log1p(a)), ("expm1", |a| cp::expm1(a)),
    ("sin", |a| cp::sin(a)), ("cos", |a| cp::cos(a)), ("tan", |a| cp::tan(a)),
    ("arcsin", |a| cp::arcsin(a)), ("arccos", |a| cp::arccos(a)), ("arctan", |a| cp::arctan(a)),
    ("sinh", |a| cp::sinh(a)), ("cosh", |a| cp::cosh(a)), ("tanh", |a| cp::tanh(a)),
    ("arcsinh", |a| cp::arcsinh(a)), ("arccosh", |a| cp::arccosh(a)), ("arctanh", |a| cp::arctanh(a)),
    ("floor", |a| cp::floor(a)), ("ceil", |a| cp::ceil(a)), ("trunc", |a| cp::trunc(a)),
    ("rint", |a| cp::rint(a)), ("round", |a| cp::round(a)),
    ("round_decimals_2", |a| cp::round_decimals(a, 2)), ("round_decimals_-1", |a| cp::round_decimals(a, -1)),
    ("logical_not", |a| cp::logical_not(a)), ("invert", |a| cp::invert(a)),
    ("isnan", |a| cp::isnan(a)), ("isinf", |a| cp::isinf(a)), ("isfinite", |a| cp::isfinite(a)),
    ("square", |a| cp::square(a)), ("reciprocal", |a| cp::reciprocal(a)),
    ("cbrt", |a| cp::cbrt(a)), ("deg2rad", |a| cp::deg2rad(a)), ("rad2deg", |a| cp::rad2deg(a)),
    ("sinc", |a| cp::sinc(a)), ("real", |a| cp::real(a)), ("imag", |a| cp::imag(a)),
    ("conj", |a| cp::conj(a)), ("angle", |a| cp::angle(a)), ("nan_to_num", |a| cp::nan_to_num(a)),
    ("clip", |a| cp::clip(a, -0.5, 0.5)),
    // SciPy's special functions (cp::special).
    ("erf", |a| cp::special::erf(a)), ("erfc", |a| cp::special::erfc(a)),
    ("erfcx", |a| cp::special::erfcx(a)), ("erfinv", |a| cp::special::erfinv(a)),
    ("erfcinv", |a| cp::special::erfcinv(a)), ("ndtr", |a| cp::special::ndtr(a)),
    ("ndtri", |a| cp::special::ndtri(a)), ("log_ndtr", |a| cp::special::log_ndtr(a)),
    ("gamma", |a| cp::special::gamma(a)), ("gammaln", |a| cp::special::gammaln(a)),
    ("digamma", |a| cp::special::digamma(a)), ("loggamma", |a| cp::special::loggamma(a)), ("expit", |a| cp::special::expit(a)),
    ("logit", |a| cp::special::logit(a)), ("log_expit", |a| cp::special::log_expit(a)),
    ("entr", |a| cp::special::entr(a)), ("i0", |a| cp::special::i0(a)),
    ("i0e", |a| cp::special::i0e(a)), ("i1", |a| cp::special::i1(a)),
    ("i1e", |a| cp::special::i1e(a)), ("k0", |a| cp::special::k0(a)),
    ("k0e", |a| cp::special::k0e(a)), ("k1", |a| cp::special::k1(a)),
    ("k1e", |a| cp::special::k1e(a)), ("j0", |a| cp::special::j0(a)),
    ("j1", |a| cp::special::j1(a)), ("y0", |a| cp::special::y0(a)), ("y1", |a| cp::special::y1(a)),
];

#[rustfmt::skip]
const ALL_BINARY: &[(&str, BinFn)] = &[
    ("add", |a, b| cp::add(a, b)), ("subtract", |a, b| cp::subtract(a, b)),
    ("multiply", |a, b| cp::multiply(a, b)), ("divide", |a, b| cp::divide(a, b)),
    ("floor_divide", |a, b| cp::floor_divide(a, b)), ("remainder", |a, b| cp::remainder(a, b)),
    ("power", |a, b| cp::power(a, b)), ("maximum", |a, b| cp::maximum(a, b)),
    ("minimum", |a, b| cp::minimum(a, b)), ("fmax", |a, b| cp::fmax(a, b)),
    ("fmin", |a, b| cp::fmin(a, b)), ("arctan2", |a, b| cp::arctan2(a, b)),
    ("equal", |a, b| cp::equal(a, b)), ("not_equal", |a, b| cp::not_equal(a, b)),
    ("less", |a, b| cp::less(a, b)), ("less_equal", |a, b| cp::less_equal(a, b)),
    ("greater", |a, b| cp::greater(a, b)), ("greater_equal", |a, b| cp::greater_equal(a, b)),
    ("logical_and", |a, b| cp::logical_and(a, b)), ("logical_or", |a, b| cp::logical_or(a, b)),
    ("logical_xor", |a, b| cp::logical_xor(a, b)), ("bitwise_and", |a, b| cp::bitwise_and(a, b)),
    ("bitwise_or", |a, b| cp::bitwise_or(a, b)), ("bitwise_xor", |a, b| cp::bitwise_xor(a, b)),
    ("left_shift", |a, b| cp::left_shift(a, b)), ("right_shift", |a, b| cp::right_shift(a, b)),
    ("hypot", |a, b| cp::hypot(a, b)), ("logaddexp", |a, b| cp::logaddexp(a, b)),
    ("logaddexp2", |a, b| cp::logaddexp2(a, b)), ("copysign", |a, b| cp::copysign(a, b)),
    ("nextafter", |a, b| cp::nextafter(a, b)), ("heaviside", |a, b| cp::heaviside(a, b)),
    ("clip_arrays", |a, b| cp::clip(a, b, 0.25)),
    // SciPy's special functions (cp::special).
    ("beta", |a, b| cp::special::beta(a, b)), ("betaln", |a, b| cp::special::betaln(a, b)),
    ("gammainc", |a, b| cp::special::gammainc(a, b)),
    ("gammaincc", |a, b| cp::special::gammaincc(a, b)), ("zeta", |a, b| cp::special::zeta(a, b)),
    ("polygamma", |a, b| cp::special::polygamma(a, b)), ("xlogy", |a, b| cp::special::xlogy(a, b)),
    ("xlog1py", |a, b| cp::special::xlog1py(a, b)), ("binom", |a, b| cp::special::binom(a, b)),
    ("huber", |a, b| cp::special::huber(a, b)),
    ("betainc_x_0.5", |a, b| cp::special::betainc(a, b, 0.5)),
    ("pseudo_huber", |a, b| cp::special::pseudo_huber(a, b)),
    ("rel_entr", |a, b| cp::special::rel_entr(a, b)), ("kl_div", |a, b| cp::special::kl_div(a, b)),
    ("gammaincinv", |a, b| cp::special::gammaincinv(a, b)),
    ("gammainccinv", |a, b| cp::special::gammainccinv(a, b)),
    ("betaincinv_y_0.3", |a, b| cp::special::betaincinv(a, b, 0.3)),
];

/// Random values of `dt` on the CPU: reals in [-4, 4) (integers in a range
/// the dtype holds, shift counts small), with NaN and infinities mixed in
/// for floats.
fn random_input(dt: DType, n: usize, seed: u64) -> Array {
    let raw = common::rnd(n, seed);
    let v: Vec<f64> = if dt.is_integer() {
        raw.iter()
            .map(|x| {
                let v = (x * 100.0).trunc();
                if dt.is_unsigned_integer() {
                    v.abs()
                } else {
                    v
                }
            })
            .collect()
    } else {
        raw.iter()
            .enumerate()
            .map(|(i, x)| match i % 37 {
                5 => NAN,
                11 => INF,
                17 => -INF,
                23 => 0.0,
                29 => -0.0,
                31 => 1.0,
                _ => x * 4.0,
            })
            .collect()
    };
    cp::with_device(cp::Device::Cpu, || {
        if dt.is_complex() {
            let im = common::rnd(n, seed ^ 0x5555);
            let z: Vec<Complex64> = v
                .iter()
                .zip(&im)
                .map(|(&r, &i)| Complex64::new(r, i * 4.0))
                .collect();
            cp::asarray(z).unwrap().astype(dt).unwrap()
        } else {
            cp::asarray(v).unwrap().astype(dt).unwrap()
        }
    })
}

/// Tolerance of GPU against CPU results by result dtype: transcendental
/// functions may differ by a few ulps of the compute type.
fn tolerance(dt: DType) -> f64 {
    match dt.real_dtype() {
        DType::Float16 => 2e-3,
        DType::BFloat16 => 1.6e-2,
        // complex64 tan/tanh near a pole divide by a difference that
        // cancels (cos 2x + cosh 2y), losing a few more float32 ulps.
        DType::Float32 if dt.is_complex() => 5e-5,
        DType::Float32 => 2e-5,
        DType::Float64 => 1e-12,
        _ => 0.0,
    }
}

fn same_values(gpu: &Array, cpu: &Array) -> Result<(), String> {
    if gpu.dtype() != cpu.dtype() || gpu.shape() != cpu.shape() {
        return Err(format!(
            "GPU gives {} {:?}, CPU {} {:?}",
            gpu.dtype(),
            gpu.shape(),
            cpu.dtype(),
            cpu.shape()
        ));
    }
    let tol = tolerance(cpu.dtype());
    let (g, c): (Vec<Complex64>, Vec<Complex64>) = if cpu.dtype().is_bool() {
        let f = |a: &Array| {
            a.to_vec::<bool>()
                .unwrap()
                .iter()
                .map(|&b| Complex64::new(b as u8 as f64, 0.0))
                .collect()
        };
        (f(gpu), f(cpu))
    } else {
        (cvals(gpu), cvals(cpu))
    };
    for (i, (g, c)) in g.iter().zip(&c).enumerate() {
        let nan = |z: &Complex64| z.re.is_nan() || z.im.is_nan();
        let ok = if nan(c) || c.re.is_infinite() || c.im.is_infinite() {
            // Special values must match part by part.
            [(g.re, c.re), (g.im, c.im)].iter().all(|&(gp, cp_)| {
                (cp_.is_nan() && gp.is_nan())
                    || gp == cp_
                    || (cp_.is_finite() && (gp - cp_).abs() <= tol * cp_.abs().max(1.0))
            })
        } else {
            // As np.allclose: the distance against the magnitude, so the
            // small part of a large complex number is held to the precision
            // of the number (float32 powers of large numbers differ there).
            !nan(g) && (g - c).norm() <= tol * c.norm().max(1.0)
        };
        if !ok {
            return Err(format!("element {i}: GPU {g}, CPU {c} (tolerance {tol})"));
        }
    }
    Ok(())
}

/// Runs `f` on the GPU and on the CPU with the same inputs: both must give
/// the same error or the same values.
fn compare(
    name: &str,
    dt: DType,
    f: impl Fn(&[Array]) -> cp::Result<Array>,
    inputs: &[Array],
    failures: &mut Vec<String>,
) {
    let gpu_in: Vec<Array> = inputs
        .iter()
        .map(|a| a.to_device(&cp::Device::Cuda(0)).unwrap())
        .collect();
    let cpu = cp::with_device(cp::Device::Cpu, || f(inputs));
    let gpu = cp::with_device(cp::Device::Cuda(0), || f(&gpu_in));
    match (gpu, cpu) {
        (Ok(g), Ok(c)) => {
            assert_eq!(
                g.device(),
                cp::Device::Cuda(0),
                "{name} {dt}: result left the GPU"
            );
            if let Err(e) = same_values(&g, &c) {
                failures.push(format!("{name} {dt}: {e}"));
            }
        }
        (Err(g), Err(c)) => {
            if g.to_string() != c.to_string() {
                failures.push(format!("{name} {dt}: errors differ: GPU {g}; CPU {c}"));
            }
        }
        (g, c) => failures.push(format!(
            "{name} {dt}: GPU {:?} but CPU {:?}",
            g.map(|_| ()),
            c.map(|_| ())
        )),
    }
}

#[test]
fn every_table_function_on_the_gpu_matches_the_cpu() {
    if common::gpu_or_skip().is_none() {
        return;
    }
    let seed = common::test_seed("every_table_function_on_the_gpu_matches_the_cpu");
    // Nothing in this binary goes through the host, so the counter must stay empty.
    cp::cuda::reset_host_fallbacks();
    let mut failures = Vec::new();
    for (k, dt) in DType::ALL.into_iter().enumerate() {
        // 1000 elements: above the small-op batch threshold only through the
        // strided view below; the contiguous inputs take the batch path for
        // the dtypes it serves.
        let a = random_input(dt, 1000, seed.wrapping_add(k as u64));
        let b = random_input(dt, 1000, seed.wrapping_add(1000 + k as u64));
        let shifts = cp::with_device(cp::Device::Cpu, || {
            cp::remainder(cp::abs(&b).unwrap(), 7).unwrap().astype(dt)
        });
        for (name, f) in ALL_UNARY {
            compare(
                name,
                dt,
                |x| f(&x[0]),
                std::slice::from_ref(&a),
                &mut failures,
            );
            // A strided view (every other element, reversed).
            let view = a.slice(cp::s![..;-2]).unwrap();
            compare(
                &format!("{name} (strided)"),
                dt,
                |x| f(&x[0]),
                &[view],
                &mut failures,
            );
        }
        for (name, f) in ALL_BINARY {
            let rhs = match (*name, &shifts) {
                ("left_shift" | "right_shift" | "power", Ok(s)) if dt.is_integer() => s.clone(),
                _ => b.clone(),
            };
            compare(
                name,
                dt,
                |x| f(&x[0], &x[1]),
                &[a.clone(), rhs.clone()],
                &mut failures,
            );
            // Broadcasting a row against a column.
            let col = a.slice(cp::s![..40]).unwrap().reshape([40, 1]).unwrap();
            let row = rhs.slice(cp::s![..25]).unwrap();
            compare(
                &format!("{name} (broadcast)"),
                dt,
                |x| f(&x[0], &x[1]),
                &[col, row],
                &mut failures,
            );
        }
    }
    assert!(
        failures.is_empty(),
        "seed {seed}: {} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    common::assert_no_host_fallback("a ufunc");
}

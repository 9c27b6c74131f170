//! The `_out` forms of the axis reductions (`cp::sum_out`, `prod_out`,
//! `mean_out`, `min_out`, `max_out`, `all_out`, `any_out`) on every backend:
//! the values equal the plain forms' for every axes and keepdims choice,
//! non-contiguous, cast and overlapping `out`s, and the errors for a wrong
//! shape, dtype, device or a broadcast `out`; on CUDA nothing goes through
//! the host.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::{s, Array, Axes, DType, Device, Error};

type Plain = fn(&Array, Axes, bool) -> cp::Result<Array>;
type IntoOut = fn(&Array, Axes, bool, &mut Array) -> cp::Result<()>;

/// `(name, plain form, out form)` rows, one per listed reduction.
macro_rules! with_out_forms {
    ($($name:ident $out:ident),*) => {
        vec![$((
            stringify!($name),
            (|x, a, k| cp::$name(x, a, k)) as Plain,
            (|x, a, k, o| cp::$out(x, a, k, o)) as IntoOut,
        )),*]
    };
}

/// Every reduction with an `_out` form, beside its plain form.
fn reductions() -> Vec<(&'static str, Plain, IntoOut)> {
    with_out_forms!(sum sum_out, prod prod_out, mean mean_out, min min_out, max max_out, all all_out, any any_out)
}

/// Axes and keepdims choices over a 3-D input.
fn axes_choices() -> Vec<(Axes, bool)> {
    vec![
        (Axes::One(1), false),
        (Axes::One(-1), true),
        (Axes::Many(vec![0, 2]), false),
        (Axes::Many(vec![0, 2]), true),
        (Axes::All, false),
        (Axes::All, true),
        (Axes::Many(vec![]), false),
    ]
}

#[track_caller]
fn assert_same(got: &Array, want: &Array, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert!(
        cp::array_equal(got, want).unwrap(),
        "{what}: {got:?} vs {want:?}"
    );
}

on_every_device!(out_equals_the_plain_result, |_dev| {
    cp::cuda::reset_host_fallbacks();
    // Values away from zero, so that prod and all are not trivial.
    let xf = cp::add(rand(&[4, 5, 6], DType::Float64, 7), 2.0)?;
    let xi = cp::asarray((0..120).map(|i| i % 7 - 3).collect::<Vec<i32>>())?.reshape([4, 5, 6])?;
    for x in [&xf, &xi] {
        for (name, plain, into) in reductions() {
            for (axes, keepdims) in axes_choices() {
                let want = plain(x, axes.clone(), keepdims)?;
                let mut out = cp::zeros(want.shape(), want.dtype())?;
                into(x, axes.clone(), keepdims, &mut out)?;
                let what = format!("{name} of {} over {axes:?}, keepdims {keepdims}", x.dtype());
                assert_same(&out, &want, &what);
            }
        }
    }
    cp::cuda::launch_pending()?;
    assert_no_host_fallback("reductions into out");
});

on_every_device!(non_contiguous_cast_and_overlapping_outs, |_dev| {
    let x = rand(&[4, 5, 6], DType::Float64, 11);
    let want = cp::sum(&x, 1, false)?;
    // A transposed out: the result lands in the buffer it views.
    let big = cp::zeros([6usize, 4], DType::Float64)?;
    let mut t = big.t();
    cp::sum_out(&x, 1, false, &mut t)?;
    assert_same(&big.t(), &want, "transposed out");
    // A strided slice of a larger buffer; the gaps stay zero.
    let wide = cp::zeros([4usize, 12], DType::Float64)?;
    let mut every_other = wide.slice(s![.., ..;2])?;
    cp::max_out(&x, 1, false, &mut every_other)?;
    assert_same(&every_other, &cp::max(&x, 1, false)?, "strided out");
    assert_same(
        &wide.slice(s![.., 1..;2])?,
        &cp::zeros([4usize, 6], DType::Float64)?,
        "the gaps",
    );
    // float64 into float32 is a same_kind cast.
    let mut narrow = cp::zeros([4usize, 6], DType::Float32)?;
    cp::sum_out(&x, 1, false, &mut narrow)?;
    assert_same(&narrow, &want.astype(DType::Float32)?, "float32 out");
    // bool into int64 (safe), and int32 sums (int64) into float64.
    let mut counts = cp::zeros([4usize, 6], DType::Int64)?;
    cp::any_out(&cp::greater(&x, 0.0)?, 1, false, &mut counts)?;
    assert_same(
        &counts,
        &cp::any(&cp::greater(&x, 0.0)?, 1, false)?.astype(DType::Int64)?,
        "bool into int64",
    );
    // An out that overlaps the input reads the input before it is written.
    let y = cp::arange(24)?.astype(DType::Float64)?.reshape([4, 6])?;
    let y_sum = cp::sum(&y, 0, false)?;
    let mut first_row = y.at(0)?;
    cp::sum_out(&y, 0, false, &mut first_row)?;
    assert_same(&y.at(0)?, &y_sum, "overlapping out");
});

on_every_device!(bad_outs_are_errors, |dev| {
    let x = rand(&[4, 5, 6], DType::Float64, 13);
    // The result's shape is (4, 6): neither (6,) (which NumPy's ufuncs would
    // broadcast) nor the keepdims shape (4, 1, 6) is accepted.
    let mut small = cp::zeros([6usize], DType::Float64)?;
    let e = cp::sum_out(&x, 1, false, &mut small).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "sum", .. }), "{e}");
    assert!(e.to_string().contains("(4, 6)"), "{e}");
    let mut kept = cp::zeros([4usize, 1, 6], DType::Float64)?;
    let e = cp::mean_out(&x, 1, false, &mut kept).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "mean", .. }), "{e}");
    // float64 into int64 is not a same_kind cast.
    let mut ints = cp::zeros([4usize, 6], DType::Int64)?;
    let e = cp::sum_out(&x, 1, false, &mut ints).unwrap_err();
    assert!(matches!(e, Error::Cast { op: "sum", .. }), "{e}");
    // A broadcast out repeats elements.
    let mut repeated = cp::zeros([6usize], DType::Float64)?.broadcast_to(&[4, 6])?;
    let e = cp::min_out(&x, 1, false, &mut repeated).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { op: "min", .. }), "{e}");
    // Bad axes and empty min/max keep the plain forms' errors.
    let mut out = cp::zeros([4usize, 6], DType::Float64)?;
    let e = cp::sum_out(&x, 3, false, &mut out).unwrap_err();
    assert!(matches!(e, Error::Axis { .. }), "{e}");
    let empty = cp::zeros([4usize, 0], DType::Float64)?;
    let mut four = cp::zeros([4usize], DType::Float64)?;
    let e = cp::max_out(&empty, 1, false, &mut four).unwrap_err();
    assert!(matches!(e, Error::EmptyReduction { op: "max", .. }), "{e}");
    // An out on another device.
    if dev != Device::Cpu {
        let mut host = cp::with_device(Device::Cpu, || cp::zeros([4usize, 6], DType::Float64))?;
        let e = cp::sum_out(&x, 1, false, &mut host).unwrap_err();
        assert!(matches!(e, Error::DeviceMismatch { op: "sum", .. }), "{e}");
    }
});

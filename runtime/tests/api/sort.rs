//! Sorting and argsort along an axis, checked against NumPy 2.4.
//!
//! The table tests sort one (2, 3, 4) input per dtype along each axis.
//! Expected values were computed with NumPy 2.4 (the call is written above
//! each row) and pasted in; nothing runs Python here.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::half::{bf16, f16};
use cuprite::num_complex::{Complex32, Complex64};
use cuprite::{Array, DType, Error};
use Want::*;

const NAN: f64 = f64::NAN;

/// Expected values of a result, by element kind.
enum Want {
    I(&'static [i64]),
    U(&'static [u64]),
    F(&'static [f64]),
    C(&'static [(f64, f64)]),
    B(&'static [bool]),
}

/// (axis, sorted values, stable argsort indices).
type SortCase = (isize, Want, &'static [i64]);

/// The table inputs: 24 values of `dtype` in shape (2, 3, 4), built as the
/// NumPy expressions in the tables build them.
fn input(dtype: &str) -> cp::Result<Array> {
    let idx: Vec<i64> = (0..24).collect();
    let a = match dtype {
        "int8" => cp::asarray(
            idx.iter()
                .map(|&i| ((i * 37) % 256 - 128) as i8)
                .collect::<Vec<_>>(),
        )?,
        "uint8" => cp::asarray(
            idx.iter()
                .map(|&i| ((i * 53) % 256) as u8)
                .collect::<Vec<_>>(),
        )?,
        "int32" => cp::asarray(
            idx.iter()
                .map(|&i| ((i - 12) * 150000001) as i32)
                .collect::<Vec<_>>(),
        )?,
        "float16" => cp::asarray(
            idx.iter()
                .map(|&i| f16::from_f64((i - 10) as f64 * 0.25))
                .collect::<Vec<_>>(),
        )?,
        "float32" => cp::asarray(
            idx.iter()
                .map(|&i| (i as f64 * 1.1 - 7.3) as f32)
                .collect::<Vec<_>>(),
        )?,
        "float64" => cp::asarray(
            idx.iter()
                .map(|&i| ((i * 7) % 24) as f64 * 0.37 - 3.1)
                .collect::<Vec<_>>(),
        )?,
        "complex64" => cp::asarray(
            idx.iter()
                .map(|&i| Complex32::new((i - 5) as f32 * 0.5, ((i * 5) % 7) as f32 - 2.5))
                .collect::<Vec<_>>(),
        )?,
        "bool" => cp::asarray(idx.iter().map(|&i| i % 3 == 0).collect::<Vec<_>>())?,
        _ => unreachable!("no input named {dtype}"),
    };
    a.reshape([2, 3, 4])
}

/// Checks sorted values exactly (sorting moves values, it computes none).
#[track_caller]
fn check_values(got: &Array, dtype: DType, shape: &[usize], want: &Want, what: &str) {
    assert_eq!(got.shape(), shape, "{what}: shape");
    assert_eq!(got.dtype(), dtype, "{what}: dtype");
    let same = |g: f64, e: f64| g == e || (g.is_nan() && e.is_nan());
    match want {
        I(e) => assert_eq!(
            got.astype(DType::Int64).unwrap().to_vec::<i64>().unwrap(),
            *e,
            "{what}"
        ),
        U(e) => assert_eq!(
            got.astype(DType::UInt64).unwrap().to_vec::<u64>().unwrap(),
            *e,
            "{what}"
        ),
        B(e) => assert_eq!(got.to_vec::<bool>().unwrap(), *e, "{what}"),
        F(e) => {
            let g = values_f64(got);
            assert!(
                g.len() == e.len() && g.iter().zip(e.iter()).all(|(&a, &b)| same(a, b)),
                "{what}: got {g:?}, expected {e:?}"
            );
        }
        C(e) => {
            let g = got
                .astype(DType::Complex128)
                .unwrap()
                .to_vec::<Complex64>()
                .unwrap();
            assert!(
                g.len() == e.len()
                    && g.iter()
                        .zip(e.iter())
                        .all(|(a, b)| same(a.re, b.0) && same(a.im, b.1)),
                "{what}: got {g:?}, expected {e:?}"
            );
        }
    }
}

/// Runs every row of a sort table through the methods and free functions.
#[track_caller]
fn run_sort_table(x: &Array, cases: &[SortCase]) {
    for (axis, want, order) in cases {
        let what = format!("{} axis={axis}", x.dtype());
        check_values(
            &x.sort_axis(*axis).unwrap(),
            x.dtype(),
            x.shape(),
            want,
            &what,
        );
        check_values(
            &cp::sort(x, *axis).unwrap(),
            x.dtype(),
            x.shape(),
            want,
            &what,
        );
        assert_exact(&x.argsort_axis(*axis).unwrap(), x.shape(), order);
        assert_exact(&cp::argsort(x, *axis).unwrap(), x.shape(), order);
    }
}

on_every_device!(sort_int8, |_dev| {
    let x = input("int8")?;
    // NumPy 2.4 with a = ((np.arange(24)*37) % 256 - 128).astype(np.int8).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[SortCase] = &[
        // np.sort(a, axis=0); np.argsort(a, axis=0, stable=True)
        (0, I(&[-128, -91, -122, -85, -48, -11, 26, -125, -88, -119, -82, -45, 60, 97, -54, -17, 20, 57, 94, 63, 100, -51, -14, 23]), &[0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0]),
        // np.sort(a, axis=1); np.argsort(a, axis=1, stable=True)
        (1, I(&[-128, -91, -54, -125, -88, -51, -14, -17, 20, 57, 94, 23, -48, -119, -122, -85, 60, -11, -82, -45, 100, 97, 26, 63]), &[0, 0, 0, 1, 2, 2, 2, 0, 1, 1, 1, 2, 1, 2, 0, 0, 0, 1, 2, 2, 2, 0, 1, 1]),
        // np.sort(a, axis=-1); np.argsort(a, axis=-1, stable=True)
        (-1, I(&[-128, -91, -54, -17, -125, 20, 57, 94, -88, -51, -14, 23, -122, -85, 60, 97, -48, -11, 26, 63, -119, -82, -45, 100]), &[0, 1, 2, 3, 3, 0, 1, 2, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 1, 2, 3, 0]),
    ];
    run_sort_table(&x, cases);
});

on_every_device!(sort_uint8, |_dev| {
    let x = input("uint8")?;
    // NumPy 2.4 with a = ((np.arange(24)*53) % 256).astype(np.uint8).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[SortCase] = &[
        // np.sort(a, axis=0); np.argsort(a, axis=0, stable=True)
        (0, U(&[0, 53, 106, 27, 80, 9, 62, 115, 36, 89, 18, 71, 124, 177, 230, 159, 212, 133, 186, 239, 168, 221, 142, 195]), &[0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1]),
        // np.sort(a, axis=1); np.argsort(a, axis=1, stable=True)
        (1, U(&[0, 9, 18, 71, 168, 53, 62, 115, 212, 221, 106, 159, 36, 89, 142, 27, 80, 133, 186, 195, 124, 177, 230, 239]), &[0, 1, 2, 2, 2, 0, 1, 1, 1, 2, 0, 0, 2, 2, 2, 0, 1, 1, 1, 2, 0, 0, 0, 1]),
        // np.sort(a, axis=-1); np.argsort(a, axis=-1, stable=True)
        (-1, U(&[0, 53, 106, 159, 9, 62, 115, 212, 18, 71, 168, 221, 27, 124, 177, 230, 80, 133, 186, 239, 36, 89, 142, 195]), &[0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3]),
    ];
    run_sort_table(&x, cases);
});

on_every_device!(sort_int32, |_dev| {
    let x = input("int32")?;
    // NumPy 2.4 with a = ((np.arange(24)-12)*150000001).astype(np.int32).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[SortCase] = &[
        // np.sort(a, axis=0); np.argsort(a, axis=0, stable=True)
        (0, I(&[-1800000012, -1650000011, -1500000010, -1350000009, -1200000008, -1050000007, -900000006, -750000005, -600000004, -450000003, -300000002, -150000001, 0, 150000001, 300000002, 450000003, 600000004, 750000005, 900000006, 1050000007, 1200000008, 1350000009, 1500000010, 1650000011]), &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        // np.sort(a, axis=1); np.argsort(a, axis=1, stable=True)
        (1, I(&[-1800000012, -1650000011, -1500000010, -1350000009, -1200000008, -1050000007, -900000006, -750000005, -600000004, -450000003, -300000002, -150000001, 0, 150000001, 300000002, 450000003, 600000004, 750000005, 900000006, 1050000007, 1200000008, 1350000009, 1500000010, 1650000011]), &[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]),
        // np.sort(a, axis=-1); np.argsort(a, axis=-1, stable=True)
        (-1, I(&[-1800000012, -1650000011, -1500000010, -1350000009, -1200000008, -1050000007, -900000006, -750000005, -600000004, -450000003, -300000002, -150000001, 0, 150000001, 300000002, 450000003, 600000004, 750000005, 900000006, 1050000007, 1200000008, 1350000009, 1500000010, 1650000011]), &[0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]),
    ];
    run_sort_table(&x, cases);
});

on_every_device!(sort_float16, |_dev| {
    let x = input("float16")?;
    // NumPy 2.4 with a = ((np.arange(24)-10)*0.25).astype(np.float16).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[SortCase] = &[
        // np.sort(a, axis=0); np.argsort(a, axis=0, stable=True)
        (0, F(&[-2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25]), &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        // np.sort(a, axis=1); np.argsort(a, axis=1, stable=True)
        (1, F(&[-2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25]), &[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]),
        // np.sort(a, axis=-1); np.argsort(a, axis=-1, stable=True)
        (-1, F(&[-2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25]), &[0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]),
    ];
    run_sort_table(&x, cases);
});

on_every_device!(sort_float32, |_dev| {
    let x = input("float32")?;
    // NumPy 2.4 with a = (np.arange(24)*1.1 - 7.3).astype(np.float32).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[SortCase] = &[
        // np.sort(a, axis=0); np.argsort(a, axis=0, stable=True)
        (0, F(&[-7.300000190734863, -6.199999809265137, -5.099999904632568, -4.0, -2.9000000953674316, -1.7999999523162842, -0.699999988079071, 0.4000000059604645, 1.5, 2.5999999046325684, 3.700000047683716, 4.800000190734863, 5.900000095367432, 7.0, 8.100000381469727, 9.199999809265137, 10.300000190734863, 11.399999618530273, 12.5, 13.600000381469727, 14.699999809265137, 15.800000190734863, 16.899999618530273, 18.0]), &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        // np.sort(a, axis=1); np.argsort(a, axis=1, stable=True)
        (1, F(&[-7.300000190734863, -6.199999809265137, -5.099999904632568, -4.0, -2.9000000953674316, -1.7999999523162842, -0.699999988079071, 0.4000000059604645, 1.5, 2.5999999046325684, 3.700000047683716, 4.800000190734863, 5.900000095367432, 7.0, 8.100000381469727, 9.199999809265137, 10.300000190734863, 11.399999618530273, 12.5, 13.600000381469727, 14.699999809265137, 15.800000190734863, 16.899999618530273, 18.0]), &[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]),
        // np.sort(a, axis=-1); np.argsort(a, axis=-1, stable=True)
        (-1, F(&[-7.300000190734863, -6.199999809265137, -5.099999904632568, -4.0, -2.9000000953674316, -1.7999999523162842, -0.699999988079071, 0.4000000059604645, 1.5, 2.5999999046325684, 3.700000047683716, 4.800000190734863, 5.900000095367432, 7.0, 8.100000381469727, 9.199999809265137, 10.300000190734863, 11.399999618530273, 12.5, 13.600000381469727, 14.699999809265137, 15.800000190734863, 16.899999618530273, 18.0]), &[0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]),
    ];
    run_sort_table(&x, cases);
});

on_every_device!(sort_float64, |_dev| {
    let x = input("float64")?;
    // NumPy 2.4 with a = ((np.arange(24)*7) % 24 * 0.37 - 3.1).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[SortCase] = &[
        // np.sort(a, axis=0); np.argsort(a, axis=0, stable=True)
        (0, F(&[-3.1, -0.5100000000000002, -2.3600000000000003, 0.22999999999999998, -1.62, 0.9700000000000002, -0.8800000000000003, -2.73, -0.14000000000000012, -1.9900000000000002, 0.6000000000000001, -1.25, 1.3399999999999994, 3.93, 2.0799999999999996, 4.67, 2.82, 5.41, 3.56, 1.7099999999999995, 4.300000000000001, 2.4499999999999997, 5.040000000000001, 3.19]), &[0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1]),
        // np.sort(a, axis=1); np.argsort(a, axis=1, stable=True)
        (1, F(&[-3.1, -0.5100000000000002, 2.0799999999999996, -2.73, -1.62, 0.9700000000000002, 3.56, -1.25, -0.14000000000000012, 2.4499999999999997, 5.040000000000001, 4.67, 1.3399999999999994, -1.9900000000000002, -2.3600000000000003, 0.22999999999999998, 2.82, 3.93, -0.8800000000000003, 1.7099999999999995, 4.300000000000001, 5.41, 0.6000000000000001, 3.19]), &[0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 2, 0, 0, 1, 0, 1, 1, 2, 1, 2, 2]),
        // np.sort(a, axis=-1); np.argsort(a, axis=-1, stable=True)
        (-1, F(&[-3.1, -0.5100000000000002, 2.0799999999999996, 4.67, -2.73, -1.62, 0.9700000000000002, 3.56, -1.25, -0.14000000000000012, 2.4499999999999997, 5.040000000000001, -2.3600000000000003, 0.22999999999999998, 1.3399999999999994, 3.93, -0.8800000000000003, 1.7099999999999995, 2.82, 5.41, -1.9900000000000002, 0.6000000000000001, 3.19, 4.300000000000001]), &[0, 1, 2, 3, 3, 0, 1, 2, 3, 0, 1, 2, 2, 3, 0, 1, 2, 3, 0, 1, 1, 2, 3, 0]),
    ];
    run_sort_table(&x, cases);
});

on_every_device!(sort_complex64, |_dev| {
    let x = input("complex64")?;
    // NumPy 2.4 with a = ((np.arange(24)-5)*0.5 + 1j*((np.arange(24)*5) % 7 - 2.5)).astype(np.complex64).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[SortCase] = &[
        // np.sort(a, axis=0); np.argsort(a, axis=0, stable=True)
        (0, C(&[(-2.5, -2.5), (-2.0, 2.5), (-1.5, 0.5), (-1.0, -1.5), (-0.5, 3.5), (0.0, 1.5), (0.5, -0.5), (1.0, -2.5), (1.5, 2.5), (2.0, 0.5), (2.5, -1.5), (3.0, 3.5), (3.5, 1.5), (4.0, -0.5), (4.5, -2.5), (5.0, 2.5), (5.5, 0.5), (6.0, -1.5), (6.5, 3.5), (7.0, 1.5), (7.5, -0.5), (8.0, -2.5), (8.5, 2.5), (9.0, 0.5)]), &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        // np.sort(a, axis=1); np.argsort(a, axis=1, stable=True)
        (1, C(&[(-2.5, -2.5), (-2.0, 2.5), (-1.5, 0.5), (-1.0, -1.5), (-0.5, 3.5), (0.0, 1.5), (0.5, -0.5), (1.0, -2.5), (1.5, 2.5), (2.0, 0.5), (2.5, -1.5), (3.0, 3.5), (3.5, 1.5), (4.0, -0.5), (4.5, -2.5), (5.0, 2.5), (5.5, 0.5), (6.0, -1.5), (6.5, 3.5), (7.0, 1.5), (7.5, -0.5), (8.0, -2.5), (8.5, 2.5), (9.0, 0.5)]), &[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]),
        // np.sort(a, axis=-1); np.argsort(a, axis=-1, stable=True)
        (-1, C(&[(-2.5, -2.5), (-2.0, 2.5), (-1.5, 0.5), (-1.0, -1.5), (-0.5, 3.5), (0.0, 1.5), (0.5, -0.5), (1.0, -2.5), (1.5, 2.5), (2.0, 0.5), (2.5, -1.5), (3.0, 3.5), (3.5, 1.5), (4.0, -0.5), (4.5, -2.5), (5.0, 2.5), (5.5, 0.5), (6.0, -1.5), (6.5, 3.5), (7.0, 1.5), (7.5, -0.5), (8.0, -2.5), (8.5, 2.5), (9.0, 0.5)]), &[0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]),
    ];
    run_sort_table(&x, cases);
});

on_every_device!(sort_bool, |_dev| {
    let x = input("bool")?;
    // NumPy 2.4 with a = (np.arange(24) % 3 == 0).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[SortCase] = &[
        // np.sort(a, axis=0); np.argsort(a, axis=0, stable=True)
        (0, B(&[true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false, true, false, false]), &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        // np.sort(a, axis=1); np.argsort(a, axis=1, stable=True)
        (1, B(&[false, false, false, false, false, false, false, false, true, true, true, true, false, false, false, false, false, false, false, false, true, true, true, true]), &[1, 0, 0, 1, 2, 1, 2, 2, 0, 2, 1, 0, 1, 0, 0, 1, 2, 1, 2, 2, 0, 2, 1, 0]),
        // np.sort(a, axis=-1); np.argsort(a, axis=-1, stable=True)
        (-1, B(&[false, false, true, true, false, false, false, true, false, false, false, true, false, false, true, true, false, false, false, true, false, false, false, true]), &[1, 2, 0, 3, 0, 1, 3, 2, 0, 2, 3, 1, 1, 2, 0, 3, 0, 1, 3, 2, 0, 2, 3, 1]),
    ];
    run_sort_table(&x, cases);
});

// ---------------------------------------------------------------------------
// NaN, ties, special values and every dtype
// ---------------------------------------------------------------------------

on_every_device!(nans_sort_to_the_end, |_dev| {
    // NumPy 2.4: v = np.array([3.0, -inf, nan, -0.0, inf, 1.0, nan], np.float32)
    let v = cp::asarray([
        3.0f32,
        f32::NEG_INFINITY,
        f32::NAN,
        -0.0,
        f32::INFINITY,
        1.0,
        f32::NAN,
    ])?;
    // np.sort(v) -> [-inf, -0.0, 1.0, 3.0, inf, nan, nan]
    let s = v.sort_axis(0)?.to_vec::<f32>()?;
    assert_eq!(&s[..5], &[f32::NEG_INFINITY, -0.0, 1.0, 3.0, f32::INFINITY]);
    assert!(s[5].is_nan() && s[6].is_nan());
    // np.argsort(v, stable=True) -> [1, 3, 5, 0, 4, 2, 6]
    assert_exact(&v.argsort_axis(-1)?, &[7], &[1i64, 3, 5, 0, 4, 2, 6]);

    // h = np.array([1.5, nan, -2.0, 0.5], np.float16): np.sort(h) -> [-2., 0.5, 1.5, nan]; argsort -> [2, 3, 0, 1]
    let h = cp::asarray([1.5, NAN, -2.0, 0.5])?.astype(cp::f16)?;
    let s = h.sort_axis(0)?.to_vec::<f16>()?;
    assert_eq!(
        &s[..3],
        &[f16::from_f32(-2.0), f16::from_f32(0.5), f16::from_f32(1.5)]
    );
    assert!(s[3].is_nan());
    assert_exact(&h.argsort_axis(0)?, &[4], &[2i64, 3, 0, 1]);

    // f = np.array([[3., nan, 1.], [nan, 5., 0.]])
    let f = cp::asarray([[3.0, NAN, 1.0], [NAN, 5.0, 0.0]])?;
    // np.sort(f, axis=0).ravel() -> [3., 5., 0., nan, nan, 1.]; np.argsort(f, axis=0, stable=True) -> [0, 1, 1, 1, 0, 0]
    check_values(
        &f.sort_axis(0)?,
        cp::f64,
        &[2, 3],
        &F(&[3.0, 5.0, 0.0, NAN, NAN, 1.0]),
        "f axis 0",
    );
    assert_exact(&f.argsort_axis(0)?, &[2, 3], &[0i64, 1, 1, 1, 0, 0]);
});

on_every_device!(complex_sorts_lexicographically, |_dev| {
    // NumPy 2.4: c = np.array([1+1j, 1+0j, 1+1j, 5j, complex(nan, 1), complex(1, nan), -1-1j])
    let n = f64::NAN;
    let c = cp::asarray(vec![
        Complex64::new(1.0, 1.0),
        Complex64::new(1.0, 0.0),
        Complex64::new(1.0, 1.0),
        Complex64::new(0.0, 5.0),
        Complex64::new(n, 1.0),
        Complex64::new(1.0, n),
        Complex64::new(-1.0, -1.0),
    ])?;
    // np.sort(c) -> [-1-1j, 5j, 1+0j, 1+1j, 1+1j, 1+nanj, nan+1j]
    check_values(
        &c.sort_axis(0)?,
        cp::c128,
        &[7],
        &C(&[
            (-1.0, -1.0),
            (0.0, 5.0),
            (1.0, 0.0),
            (1.0, 1.0),
            (1.0, 1.0),
            (1.0, NAN),
            (NAN, 1.0),
        ]),
        "complex sort",
    );
    // np.argsort(c, stable=True) -> [6, 3, 1, 0, 2, 5, 4] (the tie 0, 2 keeps its order)
    assert_exact(&c.argsort_axis(0)?, &[7], &[6i64, 3, 1, 0, 2, 5, 4]);
});

on_every_device!(argsort_is_stable, |_dev| {
    // NumPy 2.4: np.argsort([3, 1, 2, 1, 3, 1], stable=True) -> [1, 3, 5, 2, 0, 4]
    assert_exact(
        &cp::asarray([3i32, 1, 2, 1, 3, 1])?.argsort_axis(0)?,
        &[6],
        &[1i64, 3, 5, 2, 0, 4],
    );
    // np.argsort(np.array([0.0, -0.0, 0.0, -1.0]), stable=True) -> [3, 0, 1, 2] (zeros are equal)
    assert_exact(
        &cp::asarray([0.0, -0.0, 0.0, -1.0])?.argsort_axis(0)?,
        &[4],
        &[3i64, 0, 1, 2],
    );
    // np.argsort(np.array([True, False, True, False, False]), stable=True) -> [1, 3, 4, 0, 2]
    assert_exact(
        &cp::asarray([true, false, true, false, false])?.argsort_axis(0)?,
        &[5],
        &[1i64, 3, 4, 0, 2],
    );
    // t = np.array([[2, 1, 2], [1, 1, 0], [2, 0, 2], [1, 1, 1]])
    let t = cp::asarray([[2i64, 1, 2], [1, 1, 0], [2, 0, 2], [1, 1, 1]])?;
    // np.argsort(t, axis=0, stable=True).ravel() -> [1, 2, 1, 3, 0, 3, 0, 1, 0, 2, 3, 2]
    assert_exact(
        &t.argsort_axis(0)?,
        &[4, 3],
        &[1i64, 2, 1, 3, 0, 3, 0, 1, 0, 2, 3, 2],
    );
    // np.sort(t, axis=0).ravel() -> [1, 0, 0, 1, 1, 1, 2, 1, 2, 2, 1, 2]
    assert_exact(
        &t.sort_axis(0)?,
        &[4, 3],
        &[1i64, 0, 0, 1, 1, 1, 2, 1, 2, 2, 1, 2],
    );
    // np.argsort(t, axis=1, stable=True).ravel() -> [1, 0, 2, 2, 0, 1, 1, 0, 2, 0, 1, 2]
    assert_exact(
        &t.argsort_axis(1)?,
        &[4, 3],
        &[1i64, 0, 2, 2, 0, 1, 1, 0, 2, 0, 1, 2],
    );
});

on_every_device!(every_integer_width_and_bool, |_dev| {
    // NumPy 2.4: np.sort(np.array([5, -3, 2**62, -2**63, 0], np.int64))
    let x = cp::asarray([5i64, -3, 1 << 62, i64::MIN, 0])?;
    assert_exact(&x.sort_axis(0)?, &[5], &[i64::MIN, -3, 0, 5, 1 << 62]);
    // np.sort(np.array([2**64 - 1, 0, 5], np.uint64)) -> [0, 5, 18446744073709551615]
    assert_exact(
        &cp::asarray([u64::MAX, 0, 5])?.sort_axis(0)?,
        &[3],
        &[0u64, 5, u64::MAX],
    );
    // np.sort(np.array([True, False, True, False])) -> [False, False, True, True]
    assert_exact(
        &cp::asarray([true, false, true, false])?.sort_axis(0)?,
        &[4],
        &[false, false, true, true],
    );
    // int16, uint16, uint32: np.sort([300, -7, 12]) per dtype
    assert_exact(
        &cp::asarray([300i16, -7, 12])?.sort_axis(0)?,
        &[3],
        &[-7i16, 12, 300],
    );
    assert_exact(
        &cp::asarray([300u16, 7, 12])?.sort_axis(0)?,
        &[3],
        &[7u16, 12, 300],
    );
    assert_exact(
        &cp::asarray([4_000_000_000u32, 7, 12])?.sort_axis(0)?,
        &[3],
        &[7u32, 12, 4_000_000_000],
    );
    // bfloat16 (not in NumPy; values exact in bfloat16, ordered as np.sort([2.5, nan, -1.0, 0.0]) orders them)
    let b = cp::asarray(vec![
        bf16::from_f32(2.5),
        bf16::NAN,
        bf16::from_f32(-1.0),
        bf16::from_f32(0.0),
    ])?;
    let s = b.sort_axis(0)?.to_vec::<bf16>()?;
    assert_eq!(
        &s[..3],
        &[
            bf16::from_f32(-1.0),
            bf16::from_f32(0.0),
            bf16::from_f32(2.5)
        ]
    );
    assert!(s[3].is_nan());
    assert_exact(&b.argsort_axis(0)?, &[4], &[2i64, 3, 0, 1]);
});

// ---------------------------------------------------------------------------
// Non-contiguous and zero-size inputs
// ---------------------------------------------------------------------------

on_every_device!(transposed_and_broadcast_inputs, |_dev| {
    // NumPy 2.4: a = np.array([[0.5, -1.25, 3.0, 2.0], [4.5, 0.25, -2.0, 1.0], [-0.75, 6.0, 1.5, -3.5]])
    let a = cp::asarray([
        [0.5, -1.25, 3.0, 2.0],
        [4.5, 0.25, -2.0, 1.0],
        [-0.75, 6.0, 1.5, -3.5],
    ])?;
    let t = a.t();
    // np.sort(a.T, axis=0).ravel(); np.argsort(a.T, axis=0, stable=True).ravel()
    assert_exact(
        &t.sort_axis(0)?,
        &[4, 3],
        &[
            -1.25, -2.0, -3.5, 0.5, 0.25, -0.75, 2.0, 1.0, 1.5, 3.0, 4.5, 6.0,
        ],
    );
    assert_exact(
        &t.argsort_axis(0)?,
        &[4, 3],
        &[1i64, 2, 3, 0, 1, 0, 3, 3, 2, 2, 0, 1],
    );
    // np.sort(a.T, axis=1).ravel(); np.argsort(a.T, axis=1, stable=True).ravel()
    assert_exact(
        &t.sort_axis(1)?,
        &[4, 3],
        &[
            -0.75, 0.5, 4.5, -1.25, 0.25, 6.0, -2.0, 1.5, 3.0, -3.5, 1.0, 2.0,
        ],
    );
    assert_exact(
        &t.argsort_axis(-1)?,
        &[4, 3],
        &[2i64, 0, 1, 0, 1, 2, 1, 2, 0, 2, 1, 0],
    );
    // The input is unchanged (sort returns a copy).
    assert_exact(
        &a,
        &[3, 4],
        &[
            0.5, -1.25, 3.0, 2.0, 4.5, 0.25, -2.0, 1.0, -0.75, 6.0, 1.5, -3.5,
        ],
    );

    // b = np.broadcast_to(np.array([3, 1, 2], np.int16), (2, 3))
    let b = cp::asarray([3i16, 1, 2])?.broadcast_to(&[2, 3])?;
    // np.sort(b, axis=0).ravel() -> [3, 1, 2, 3, 1, 2]; np.argsort(b, axis=0, stable=True) -> [0, 0, 0, 1, 1, 1]
    assert_exact(&b.sort_axis(0)?, &[2, 3], &[3i16, 1, 2, 3, 1, 2]);
    assert_exact(&b.argsort_axis(0)?, &[2, 3], &[0i64, 0, 0, 1, 1, 1]);
    // np.sort(b, axis=1).ravel() -> [1, 2, 3, 1, 2, 3]; np.argsort(b, axis=1, stable=True) -> [1, 2, 0, 1, 2, 0]
    assert_exact(&b.sort_axis(1)?, &[2, 3], &[1i16, 2, 3, 1, 2, 3]);
    assert_exact(&b.argsort_axis(1)?, &[2, 3], &[1i64, 2, 0, 1, 2, 0]);
});

on_every_device!(zero_size_inputs, |_dev| {
    // NumPy 2.4: np.sort(np.zeros((0, 3)), axis=0).shape -> (0, 3); np.argsort(np.zeros((2, 0)), axis=1).shape -> (2, 0)
    assert_exact(
        &cp::zeros([0, 3], cp::f64)?.sort_axis(0)?,
        &[0, 3],
        &[] as &[f64],
    );
    assert_exact(
        &cp::zeros([2, 0], cp::f32)?.argsort_axis(1)?,
        &[2, 0],
        &[] as &[i64],
    );
    assert_exact(
        &cp::zeros([2, 0], cp::i8)?.sort_axis(0)?,
        &[2, 0],
        &[] as &[i8],
    );
});

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

on_every_device!(bad_axes_are_errors, |_dev| {
    let x = cp::zeros([2, 3], cp::f32)?;
    // NumPy 2.4: np.sort(x, axis=2) -> AxisError: axis 2 is out of bounds for array of dimension 2
    assert_eq!(
        x.sort_axis(2).unwrap_err(),
        Error::Axis {
            op: "sort",
            axis: 2,
            ndim: 2
        }
    );
    assert_eq!(
        cp::sort(&x, -3).unwrap_err(),
        Error::Axis {
            op: "sort",
            axis: -3,
            ndim: 2
        }
    );
    assert_eq!(
        x.argsort_axis(-3).unwrap_err(),
        Error::Axis {
            op: "argsort",
            axis: -3,
            ndim: 2
        }
    );
    assert_eq!(
        cp::argsort(&x, 2).unwrap_err(),
        Error::Axis {
            op: "argsort",
            axis: 2,
            ndim: 2
        }
    );
    // np.sort(np.array(5.0)) -> AxisError: axis -1 is out of bounds for array of dimension 0
    let s = cp::asarray([5.0])?.reshape(Vec::<isize>::new())?;
    assert_eq!(
        s.sort_axis(-1).unwrap_err(),
        Error::Axis {
            op: "sort",
            axis: -1,
            ndim: 0
        }
    );
    assert!(matches!(
        s.argsort_axis(0),
        Err(Error::Axis {
            op: "argsort",
            axis: 0,
            ndim: 0
        })
    ));
    assert_eq!(
        x.argsort_axis(2).unwrap_err().to_string(),
        "argsort: axis 2 is out of bounds for an array of dimension 2 (valid: -2 to 1)"
    );
});

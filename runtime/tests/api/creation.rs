//! Creating arrays and moving them to and from the host, on every device.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::{DType, Error, Order};
use half::f16;
use num_complex::Complex32;

on_every_device!(asarray_from_host_data, |dev| {
    // Nested fixed-size arrays of any depth.
    let a = cp::asarray([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]])?;
    assert_exact(&a, &[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(a.device(), dev);
    let b = cp::asarray([[[1u8], [2]], [[3], [4]]])?;
    assert_exact(&b, &[2, 2, 1], &[1u8, 2, 3, 4]);
    // Vec, slice, Vec<Vec>, scalar.
    assert_exact(&cp::asarray(vec![1i64, -2, 3])?, &[3], &[1i64, -2, 3]);
    assert_exact(&cp::asarray(&[true, false][..])?, &[2], &[true, false]);
    assert_exact(
        &cp::asarray(vec![vec![1i32, 2], vec![3, 4]])?,
        &[2, 2],
        &[1i32, 2, 3, 4],
    );
    let s = cp::asarray(2.5f64)?;
    assert_eq!(s.shape(), &[] as &[usize]);
    assert_eq!(s.item::<f64>()?, 2.5);
    // An empty inner level keeps its shape: [[f32; 0]; 2] is (2, 0).
    let e = cp::asarray([[0.0f32; 0]; 2])?;
    assert_eq!(e.shape(), &[2, 0]);
    // Ragged rows are an error.
    let err = cp::asarray(vec![vec![1, 2], vec![3]]).unwrap_err();
    assert!(matches!(err, Error::Shape { op: "asarray", .. }), "{err}");
    assert!(err.to_string().contains("row 1 has 1"), "{err}");
});

on_every_device!(ndarray_round_trip, |_dev| {
    // A transposed ndarray view is read in logical order.
    let nd = ndarray::Array2::from_shape_vec((2, 3), vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0])
        .unwrap()
        .reversed_axes();
    let a = cp::asarray(&nd)?;
    assert_exact(&a, &[3, 2], &[1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let back = a.to_ndarray::<f64>()?;
    assert_eq!(back.shape(), &[3, 2]);
    assert_eq!(back, nd.into_dyn());
    // Asking for the wrong element type names both dtypes.
    let err = a.to_vec::<f32>().unwrap_err();
    assert!(
        err.to_string().contains("holds float64 but float32"),
        "{err}"
    );
});

on_every_device!(filled_arrays, |dev| {
    assert_exact(&cp::zeros([2, 2], cp::int16)?, &[2, 2], &[0i16; 4]);
    assert_exact(&cp::ones(3, cp::bool_)?, &[3], &[true; 3]);
    assert_exact(&cp::full([2], 7, cp::uint8)?, &[2], &[7u8, 7]);
    assert_exact(&cp::full((), 1.5, cp::f16)?, &[], &[f16::from_f32(1.5)]);
    assert_exact(
        &cp::full([1], Complex32::new(1.0, -2.0), cp::complex64)?,
        &[1],
        &[Complex32::new(1.0, -2.0)],
    );
    let like = cp::ones_like(&cp::zeros([3, 0, 2], cp::f64)?)?;
    assert_eq!((like.shape(), like.dtype()), (&[3usize, 0, 2][..], cp::f64));
    assert_exact(
        &cp::full_like(&cp::zeros(2, cp::i32)?, -4)?,
        &[2],
        &[-4i32, -4],
    );
    // `empty` has unspecified contents on a GPU (zeros on the CPU, false for bool).
    let e = cp::empty([2], cp::f32)?;
    assert_eq!((e.shape(), e.dtype()), (&[2usize][..], cp::f32));
    assert_exact(&cp::empty([2], cp::bool_)?, &[2], &[false, false]);
    if dev.is_cpu() {
        assert_exact(&e, &[2], &[0.0f32, 0.0]);
    }
    assert_exact(&cp::zeros_like(&cp::ones(2, cp::u64)?)?, &[2], &[0u64, 0]);
    let el = cp::empty_like(&cp::ones(1, cp::u64)?)?;
    assert_eq!((el.shape(), el.dtype()), (&[1usize][..], cp::u64));
    // Sizes that overflow are an error, not an abort.
    let err = cp::zeros([usize::MAX, 2], cp::f32).unwrap_err();
    assert!(matches!(err, Error::Overflow { op: "zeros", .. }), "{err}");
});

on_every_device!(ranges, |_dev| {
    // NumPy 2.4: np.arange(10, 0, -3) -> [10, 7, 4, 1] (int64)
    assert_exact(&cp::arange_step(10, 0, -3)?, &[4], &[10i64, 7, 4, 1]);
    assert_exact(&cp::arange(4)?, &[4], &[0i64, 1, 2, 3]);
    // np.arange(1, 2, 0.3) -> [1.0, 1.3, 1.6, 1.9000000000000001]
    assert_exact(
        &cp::arange_step(1.0, 2.0, 0.3)?,
        &[4],
        &[1.0, 1.3, 1.6, 1.9000000000000001],
    );
    // np.arange(0.5) -> [0.0]
    assert_exact(&cp::arange(0.5)?, &[1], &[0.0f64]);
    assert_eq!(cp::arange_step(5, 1, 1)?.shape(), &[0]);
    assert!(matches!(
        cp::arange_step(0, 5, 0).unwrap_err(),
        Error::InvalidArgument { op: "arange", .. }
    ));
    assert!(cp::arange(f64::INFINITY).is_err());
    // np.linspace(0, 1, 5); np.linspace(-1, 2, 4, endpoint=False)
    assert_exact(
        &cp::linspace(0.0, 1.0, 5)?,
        &[5],
        &[0.0, 0.25, 0.5, 0.75, 1.0],
    );
    assert_exact(
        &cp::linspace_with(-1.0, 2.0, 4, false, cp::f64)?,
        &[4],
        &[-1.0, -0.25, 0.5, 1.25],
    );
    // np.linspace(0, 1, 7, dtype=np.float32)
    assert_exact(
        &cp::linspace_with(0.0, 1.0, 7, true, cp::f32)?,
        &[7],
        &[
            0.0f32, 0.16666667, 0.33333334, 0.5, 0.6666667, 0.8333333, 1.0,
        ],
    );
    assert_eq!(cp::linspace(0.0, 1.0, 1)?.to_vec::<f64>()?, vec![0.0]);
    assert_eq!(cp::linspace(0.0, 1.0, 0)?.shape(), &[0]);
    let err = cp::linspace(0.0, f64::NAN, 3).unwrap_err();
    assert!(err.to_string().contains("must be finite"), "{err}");
});

on_every_device!(identity_matrices, |_dev| {
    // np.eye(3, 4, k=1, dtype=np.int32)
    assert_exact(
        &cp::eye(3, Some(4), 1, cp::int32)?,
        &[3, 4],
        &[0i32, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
    );
    // np.eye(3, k=-2)
    assert_exact(
        &cp::eye(3, None, -2, cp::f64)?,
        &[3, 3],
        &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
    );
    assert_exact(
        &cp::identity(2, cp::bool_)?,
        &[2, 2],
        &[true, false, false, true],
    );
    assert_eq!(
        cp::eye(2, Some(2), 5, cp::f32)?.to_vec::<f32>()?,
        vec![0.0; 4]
    );
});

on_every_device!(from_flat_vectors_in_both_orders, |_dev| {
    // np.arange(6).reshape((2, 3), order='F') -> [[0, 2, 4], [1, 3, 5]]
    let f = cp::from_shape_vec([2, 3], (0..6).collect::<Vec<i32>>(), Order::F)?;
    assert_exact(&f, &[2, 3], &[0i32, 2, 4, 1, 3, 5]);
    assert!(f.is_f_contiguous() && !f.is_c_contiguous());
    let err = cp::from_shape_vec([4], vec![1u8; 3], Order::C).unwrap_err();
    assert!(err.to_string().contains("needs 4 elements but 3"), "{err}");
});

on_every_device!(astype_follows_numpy_casts, |_dev| {
    // np.array([1.7, -2.5, 300.0]).astype(np.uint8) -> [1, 254, 44]
    let a = cp::asarray([1.7f64, -2.5, 300.0])?;
    assert_exact(&a.astype(cp::u8)?, &[3], &[1u8, 254, 44]);
    // np.array([0.1, 1/3]).astype(np.float16) -> [0.0999755859375, 0.333251953125]
    let h = cp::asarray([0.1f64, 1.0 / 3.0])?.astype(cp::f16)?;
    assert_close(&h, &[2], cp::f16, &[0.0999755859375, 0.333251953125], 0.0);
    assert_exact(
        &cp::asarray([0.0f32, -0.5, f32::NAN])?.astype(cp::bool_)?,
        &[3],
        &[false, true, true],
    );
    // Casting rules are enforced on request.
    let err = a
        .astype_with(DType::Float32, cp::Casting::Safe)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "astype: cannot cast float64 to float32 under the 'safe' casting rule"
    );
    assert!(a.astype_with(DType::Float32, cp::Casting::SameKind).is_ok());
    // Every dtype converts to every other without panicking.
    let src = cp::asarray([0i64, 1, 2])?;
    for from in DType::ALL {
        let x = src.astype(from)?;
        for to in DType::ALL {
            let y = x.astype(to)?;
            assert_eq!(y.dtype(), to);
            assert_eq!(values_f64(&y.astype(cp::f64)?).len(), 3);
        }
    }
});

on_every_device!(item_and_scalar, |_dev| {
    let a = cp::asarray([[7i16]])?;
    assert_eq!(a.item::<i16>()?, 7);
    assert_eq!(a.scalar()?, cp::Scalar::Int(7));
    let err = cp::asarray([1, 2])?.item::<i32>().unwrap_err();
    assert!(
        err.to_string().contains("only an array of one element"),
        "{err}"
    );
});

on_every_device!(assign_and_fill, |_dev| {
    let mut a = cp::zeros([2, 3], cp::f32)?;
    a.assign(&cp::asarray([1.0f32, 2.0, 3.0])?)?;
    assert_exact(&a, &[2, 3], &[1.0f32, 2.0, 3.0, 1.0, 2.0, 3.0]);
    a.fill(9)?;
    assert_exact(&a, &[2, 3], &[9.0f32; 6]);
    // float64 -> int32 is not same_kind.
    let mut i = cp::zeros(3, cp::i32)?;
    let err = i.assign(&cp::asarray([1.5f64, 2.0, 3.0])?).unwrap_err();
    assert!(matches!(err, Error::Cast { .. }), "{err}");
    let err = i.assign(&cp::asarray([1i32, 2])?).unwrap_err();
    assert!(
        matches!(err, Error::Broadcast { op: "assign", .. }),
        "{err}"
    );
});

// Requests no host can satisfy are errors, not an aborted process (a kernel
// must survive a typo in a shape).
#[test]
fn impossible_host_allocations_are_errors() {
    cp::with_device(cp::Device::Cpu, || {
        let err = cp::zeros([1usize << 45], cp::f64).unwrap_err();
        assert!(
            matches!(err, Error::OutOfMemory { op: "zeros", .. }),
            "{err}"
        );
        let a = cp::ones([1usize << 23, 1], cp::f32).unwrap();
        let b = cp::ones([1, 1usize << 23], cp::f32).unwrap();
        let err = cp::add(&a, &b).unwrap_err();
        assert!(matches!(err, Error::OutOfMemory { op: "add", .. }), "{err}");
        let err = a
            .broadcast_to(&[1 << 23, 1 << 23])
            .unwrap()
            .copy()
            .unwrap_err();
        assert!(matches!(err, Error::OutOfMemory { .. }), "{err}");
        assert!(cp::arange(1e18).is_err());
    });
}

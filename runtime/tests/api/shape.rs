//! Shape work: views where NumPy gives views, copies where it must copy.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::{Error, Order};

on_every_device!(reshape_views_and_copies, |_dev| {
    let a = cp::arange(24)?.reshape([2, 3, 4])?;
    assert_eq!(a.strides(), &[12, 4, 1]);
    assert_eq!(a.strides_bytes(), vec![96, 32, 8]);
    // NumPy 2.4: a.transpose(2, 0, 1).strides == (8, 96, 32), neither C nor F contiguous.
    let t = a.permute_axes(&[2, 0, 1])?;
    assert_eq!(t.strides_bytes(), vec![8, 96, 32]);
    assert!(!t.is_c_contiguous() && !t.is_f_contiguous());
    // t.reshape(4, 6) is still a view in NumPy (the last two axes merge).
    let r = t.reshape([4, 6])?;
    assert!(r.shares_memory(&a));
    assert_exact(
        &r,
        &[4, 6],
        &[
            0i64, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23,
        ],
    );
    // a.transpose(1, 0, 2).reshape(6, 4) must copy (NumPy: shares_memory False).
    let r = a.permute_axes(&[1, 0, 2])?.reshape([6, 4])?;
    assert!(!r.shares_memory(&a));
    assert_exact(
        &r,
        &[6, 4],
        &[
            0i64, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23,
        ],
    );
    // A reshape of a contiguous array is a view: writes show through.
    let mut v = a.reshape([6, -1])?;
    assert!(v.shares_memory(&a));
    assert_eq!(v.shape(), &[6, 4]);
    v.fill(1)?;
    assert_eq!(a.to_vec::<i64>()?, vec![1; 24]);
    let x = cp::arange(12)?.reshape([3, 4])?;
    // np.arange(12).reshape(3, 4).T.reshape(-1)
    assert_exact(
        &x.t().reshape([-1])?,
        &[12],
        &[0i64, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11],
    );
    // F-order reshape of np.arange(6): [[0, 2, 4], [1, 3, 5]]
    assert_exact(
        &cp::arange(6)?.reshape_order([2, 3], Order::F)?,
        &[2, 3],
        &[0i64, 2, 4, 1, 3, 5],
    );
    // Zero-size and one-element arrays reshape freely.
    assert_eq!(
        cp::zeros([0, 3], cp::f32)?.reshape([3, 0, 5])?.shape(),
        &[3, 0, 5]
    );
    assert_eq!(cp::zeros([0, 3], cp::f32)?.reshape([-1])?.shape(), &[0]);
    // Errors say what was asked.
    let err = a.reshape([5, -1]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "reshape: cannot reshape an array of shape (2, 3, 4) (24 elements) into [5, -1]"
    );
    assert!(a.reshape([-1, -1]).is_err());
    assert!(a.reshape([-2, 12]).is_err());
    assert!(cp::zeros([0], cp::f32)?.reshape([0, -1]).is_err());
});

on_every_device!(ravel_flatten_copy_order, |_dev| {
    let a = cp::arange(6)?.reshape([2, 3])?;
    assert!(a.ravel()?.shares_memory(&a));
    assert!(!a.flatten()?.shares_memory(&a));
    let f = a.copy_order(Order::F)?;
    assert!(f.is_f_contiguous());
    assert_exact(&f, &[2, 3], &[0i64, 1, 2, 3, 4, 5]);
    assert_eq!(f.strides(), &[1, 2]);
    assert!(f.asfortranarray()?.shares_memory(&f));
    let c = f.ascontiguousarray()?;
    assert!(c.is_c_contiguous() && !c.shares_memory(&f));
    assert!(a.ascontiguousarray()?.shares_memory(&a));
    let t = a.t();
    assert_exact(&t.ravel()?, &[6], &[0i64, 3, 1, 4, 2, 5]);
    assert!(!t.ravel()?.shares_memory(&a));
});

on_every_device!(axis_permutations, |_dev| {
    let a = cp::zeros([2, 3, 4], cp::u8)?;
    assert_eq!(a.t().shape(), &[4, 3, 2]);
    assert_eq!(a.transpose().strides(), &[1, 4, 12]);
    assert_eq!(a.swapaxes(0, -1)?.shape(), &[4, 3, 2]);
    assert_eq!(a.moveaxis(0, -1)?.shape(), &[3, 4, 2]);
    assert_eq!(a.moveaxis(-1, 0)?.shape(), &[4, 2, 3]);
    assert_eq!(a.permute_axes(&[1, -1, 0])?.shape(), &[3, 4, 2]);
    assert!(matches!(
        a.permute_axes(&[0, 0, 1]).unwrap_err(),
        Error::InvalidArgument { .. }
    ));
    assert!(a.permute_axes(&[0, 1]).is_err());
    assert!(matches!(
        a.swapaxes(0, 3).unwrap_err(),
        Error::Axis {
            op: "swapaxes",
            axis: 3,
            ndim: 3
        }
    ));
});

on_every_device!(adding_and_removing_axes, |_dev| {
    let a = cp::arange(3)?;
    assert_eq!(a.expand_dims(0)?.shape(), &[1, 3]);
    assert_eq!(a.expand_dims(-1)?.shape(), &[3, 1]);
    assert!(a.expand_dims(2).is_err());
    let b = cp::zeros([1, 3, 1], cp::f32)?;
    assert_eq!(b.squeeze().shape(), &[3]);
    assert_eq!(b.squeeze_axes(&[-1])?.shape(), &[1, 3]);
    let err = b.squeeze_axes(&[1]).unwrap_err();
    assert!(
        err.to_string().contains("cannot remove axis 1 of extent 3"),
        "{err}"
    );
    assert!(b.squeeze().shares_memory(&b));
});

on_every_device!(broadcasting_views, |_dev| {
    let a = cp::asarray([[1i32], [2], [3]])?;
    let b = a.broadcast_to(&[2, 3, 4])?;
    assert_eq!(b.strides(), &[0, 1, 0]);
    assert_eq!(b.copy()?.to_vec::<i32>()?.iter().sum::<i32>(), 2 * 4 * 6);
    assert_eq!(a.broadcast_to(&[3, 2])?.shape(), &[3, 2]);
    let err = a.broadcast_to(&[2, 3]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "broadcast_to: cannot broadcast shapes (3, 1) and (2, 3)"
    );
    let v = cp::broadcast_arrays(&[&a, &cp::arange(4)?])?;
    assert_eq!(v[0].shape(), &[3, 4]);
    assert_eq!(v[1].shape(), &[3, 4]);
    assert!(cp::broadcast_arrays(&[&a, &cp::arange(3)?.reshape([1, 3])?.t()]).is_ok());
});

on_every_device!(joining, |_dev| {
    let a = cp::arange(4)?.reshape([2, 2])?.astype(cp::i8)?;
    let b = cp::ones([1, 2], cp::f32)?;
    // NumPy: concatenate of int8 and float32 gives float32.
    let c = cp::concatenate(&[&a, &b], 0)?;
    assert_exact(&c, &[3, 2], &[0.0f32, 1.0, 2.0, 3.0, 1.0, 1.0]);
    let d = cp::concatenate(&[&a, &a.t()], -1)?;
    assert_exact(&d, &[2, 4], &[0i8, 1, 0, 2, 2, 3, 1, 3]);
    let err = cp::concatenate(&[&a, &b.t()], 0).unwrap_err();
    assert!(
        err.to_string()
            .contains("all shapes must match except on axis 0"),
        "{err}"
    );
    assert!(cp::concatenate(&[], 0).is_err());
    assert!(cp::concatenate(&[&cp::asarray(1.0f32)?], 0).is_err());
    // np.stack([np.arange(3), np.arange(3, 6)], axis=1)
    let s = cp::stack(&[&cp::arange(3)?, &cp::arange_step(3, 6, 1)?], 1)?;
    assert_exact(&s, &[3, 2], &[0i64, 3, 1, 4, 2, 5]);
    assert_eq!(cp::stack(&[&a, &a], 0)?.shape(), &[2, 2, 2]);
    assert!(cp::stack(&[&a, &b], 0).is_err());
    assert!(cp::stack(&[&a, &a], 3).is_err());
});

on_every_device!(reshape_accepts_any_integer_extents, |_dev| {
    let (n, m): (usize, usize) = (3, 4);
    let a = cp::arange(12)?;
    assert_eq!(a.reshape([n, m])?.shape(), &[3, 4]);
    assert_eq!(a.reshape([-1, 6])?.shape(), &[2, 6]);
    assert_eq!(a.reshape(vec![2u64, 6])?.shape(), &[2, 6]);
    assert_eq!(a.reshape(&[6usize, 2][..])?.shape(), &[6, 2]);
    assert_eq!(a.reshape(12usize)?.shape(), &[12]);
    assert_eq!(a.reshape(-1)?.shape(), &[12]);
    // An unsigned extent beyond isize is a size mismatch, not a wrap to -1.
    let e = a.reshape([usize::MAX, 1]).unwrap_err();
    assert!(matches!(e, cp::Error::Shape { .. }), "{e}");
});

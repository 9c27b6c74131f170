//! Manipulation functions (`vstack` ... `trim_zeros`) against the values
//! NumPy 2.4 gives, on every device; GPU results against the CPU's on
//! random inputs; and no host fallback on the GPU.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::{s, Array, AxisPositions, DType, Device, Error, PadMode, Trim};

/// `np.arange(12).reshape(3, 4)` on the current device.
fn a34() -> Array {
    cp::arange(12).unwrap().reshape([3, 4]).unwrap()
}

fn i64s(a: &Array) -> Vec<i64> {
    a.to_vec::<i64>().unwrap()
}

on_every_device!(stacking, |_dev| {
    let a = a34();
    // NumPy 2.x gives, for np.vstack([np.arange(3), np.ones((2, 3), np.float32)]):
    let v = cp::vstack(&[&cp::arange(3)?, &cp::ones([2, 3], cp::f32)?])?;
    assert_close(
        &v,
        &[3, 3],
        DType::Float64,
        &[0.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        0.0,
    );
    // np.hstack([a[:, :1], a.T[:3, :2]])
    let h = cp::hstack(&[&a.slice(s![.., ..1])?, &a.t().slice(s![..3, ..2])?])?;
    assert_exact(&h, &[3, 3], &[0i64, 0, 4, 4, 1, 5, 8, 2, 6]);
    // np.hstack / np.vstack / np.column_stack of 0-d arrays.
    let (one, two) = (cp::asarray(1i64)?, cp::asarray(2i64)?);
    assert_exact(&cp::hstack(&[&one, &two])?, &[2], &[1i64, 2]);
    assert_exact(&cp::vstack(&[&one, &two])?, &[2, 1], &[1i64, 2]);
    assert_exact(&cp::column_stack(&[&one, &two])?, &[1, 2], &[1i64, 2]);
    // np.dstack of 1-D and 2-D inputs.
    let d = cp::dstack(&[&cp::arange(2)?, &cp::add(&cp::arange(2)?, 10)?])?;
    assert_exact(&d, &[1, 2, 2], &[0i64, 10, 1, 11]);
    let d = cp::dstack(&[&a.slice(s![..2, ..2])?, &a.slice(s![1.., 2..])?])?;
    assert_exact(&d, &[2, 2, 2], &[0i64, 6, 1, 7, 4, 10, 5, 11]);
    // np.column_stack([np.arange(3), a[:, :2]])
    let c = cp::column_stack(&[&cp::arange(3)?, &a.slice(s![.., ..2])?])?;
    assert_exact(&c, &[3, 3], &[0i64, 0, 1, 1, 4, 5, 2, 8, 9]);
    // np.append
    let ap = cp::append(&a, vec![vec![1i64, 2, 3, 4]], Some(0))?;
    assert_exact(
        &ap,
        &[4, 4],
        &[0i64, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2, 3, 4],
    );
    let ap = cp::append(&cp::arange(2)?, vec![1.5f64], None)?;
    assert_exact(&ap, &[3], &[0.0f64, 1.0, 1.5]);
    // Errors name the function and the shapes.
    let e = cp::vstack(&[&cp::arange(3)?, &cp::arange(4)?]).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "vstack", .. }), "{e}");
    assert!(matches!(
        cp::hstack(&[]).unwrap_err(),
        Error::InvalidArgument { op: "hstack", .. }
    ));
    let e = cp::append(&a, vec![1i64, 2, 3, 4], Some(0)).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "append", .. }), "{e}");
});

on_every_device!(splitting, |_dev| {
    let a = a34();
    // np.array_split(np.arange(7), 4) and np.array_split(np.arange(2), 4)
    let p = cp::array_split(&cp::arange(7)?, 4, 0)?;
    let got: Vec<Vec<i64>> = p.iter().map(i64s).collect();
    assert_eq!(got, vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6]]);
    let p = cp::array_split(&cp::arange(2)?, 4, -1)?;
    let got: Vec<Vec<i64>> = p.iter().map(i64s).collect();
    assert_eq!(got, vec![vec![0], vec![1], vec![], vec![]]);
    // np.split(np.arange(8), [3, -2, 20, 1])
    let p = cp::split(&cp::arange(8)?, [3, -2, 20, 1], 0)?;
    let got: Vec<Vec<i64>> = p.iter().map(i64s).collect();
    assert_eq!(
        got,
        vec![
            vec![0, 1, 2],
            vec![3, 4, 5],
            vec![6, 7],
            vec![],
            vec![1, 2, 3, 4, 5, 6, 7]
        ]
    );
    // np.hsplit(a, [1, 3]); np.vsplit(a, 3)
    let p = cp::hsplit(&a, [1, 3])?;
    assert_exact(&p[0], &[3, 1], &[0i64, 4, 8]);
    assert_exact(&p[1], &[3, 2], &[1i64, 2, 5, 6, 9, 10]);
    assert_exact(&p[2], &[3, 1], &[3i64, 7, 11]);
    assert!(p[1].shares_memory(&a));
    let p = cp::vsplit(&a, 3)?;
    assert_eq!(p.len(), 3);
    assert_exact(&p[2], &[1, 4], &[8i64, 9, 10, 11]);
    // Split of a transposed (non-contiguous) array along its last axis.
    let p = cp::split(&a.t(), 3, -1)?;
    assert_exact(&p[1], &[4, 1], &[4i64, 5, 6, 7]);
    // A position past isize's range is past the end (it does not wrap to -1).
    let p = cp::split(&cp::arange(3)?, [usize::MAX], 0)?;
    let got: Vec<Vec<i64>> = p.iter().map(i64s).collect();
    assert_eq!(got, vec![vec![0, 1, 2], vec![]]);
    let p = cp::dsplit(&cp::arange(8)?.reshape([1, 2, 4])?, vec![1usize])?;
    assert_exact(&p[1], &[1, 2, 3], &[1i64, 2, 3, 5, 6, 7]);
    // Errors.
    let e = cp::split(&cp::arange(7)?, 3, 0).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { op: "split", .. }),
        "{e}"
    );
    let e = cp::array_split(&cp::arange(7)?, 0, 0).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert!(matches!(
        cp::vsplit(&cp::arange(4)?, 2).unwrap_err(),
        Error::Shape { op: "vsplit", .. }
    ));
    assert!(matches!(
        cp::split(&a, 2, 2).unwrap_err(),
        Error::Axis { op: "split", .. }
    ));
});

on_every_device!(tile_repeat_resize, |_dev| {
    let a = a34();
    // np.tile(a[:, ::2], (2, 1, 2))
    let t = cp::tile(&a.slice(s![.., ..;2])?, [2, 1, 2])?;
    assert_exact(
        &t,
        &[2, 3, 4],
        &[
            0i64, 2, 0, 2, 4, 6, 4, 6, 8, 10, 8, 10, 0, 2, 0, 2, 4, 6, 4, 6, 8, 10, 8, 10,
        ],
    );
    // np.tile(np.arange(24).reshape(2, 3, 4), 2): reps shorter than ndim.
    let b = cp::arange(24)?.reshape([2, 3, 4])?;
    let t = cp::tile(&b, 2)?;
    assert_eq!(t.shape(), &[2, 3, 8]);
    assert_eq!(
        i64s(&t)[..16],
        [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7]
    );
    assert_eq!(cp::tile(&a, [0, 2])?.shape(), &[0, 8]);
    // np.repeat(a, [0, 2, 1, 3], axis=1)
    let r = cp::repeat(&a, [0, 2, 1, 3], Some(1))?;
    assert_exact(
        &r,
        &[3, 6],
        &[1i64, 1, 2, 3, 3, 3, 5, 5, 6, 7, 7, 7, 9, 9, 10, 11, 11, 11],
    );
    // np.repeat(a.T, 2): flattened in C order of the transposed view.
    let r = cp::repeat(&a.t(), 2, None)?;
    assert_exact(
        &r,
        &[24],
        &[
            0i64, 0, 4, 4, 8, 8, 1, 1, 5, 5, 9, 9, 2, 2, 6, 6, 10, 10, 3, 3, 7, 7, 11, 11,
        ],
    );
    // np.repeat(a, 2, axis=-2)
    let r = cp::repeat(&a, 2, Some(-2))?;
    assert_eq!(r.shape(), &[6, 4]);
    assert_eq!(i64s(&r)[..12], [0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(cp::repeat(&a, 0, Some(0))?.shape(), &[0, 4]);
    assert_exact(
        &cp::repeat(&cp::arange(3)?, vec![2usize], None)?,
        &[6],
        &[0i64, 0, 1, 1, 2, 2],
    );
    // np.resize(a.T, (2, 7)); np.resize(np.zeros(0), (2, 3))
    let r = cp::resize(&a.t(), [2, 7])?;
    assert_exact(
        &r,
        &[2, 7],
        &[0i64, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 0, 4],
    );
    let r = cp::resize(&cp::zeros(0, cp::f64)?, [2, 3])?;
    assert_exact(&r, &[2, 3], &[0.0f64; 6]);
    assert_exact(&cp::resize(&a, [2])?, &[2], &[0i64, 1]);
    // Errors.
    let e = cp::repeat(&a, [1, 2], Some(1)).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "repeat", .. }), "{e}");
    let e = cp::repeat(&a, -1, None).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { op: "repeat", .. }),
        "{e}"
    );
});

on_every_device!(flips_and_rotations_are_views, |_dev| {
    let a = a34();
    let b = cp::arange(24)?.reshape([2, 3, 4])?;
    // np.flip(b, (0, 2))
    let f = cp::flip(&b, [0, 2])?;
    assert!(f.shares_memory(&b));
    assert_eq!(f.strides(), &[-12, 4, -1]);
    assert_exact(
        &f,
        &[2, 3, 4],
        &[
            15i64, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8,
        ],
    );
    assert_eq!(
        i64s(&cp::flip(&a, None)?),
        (0..12).rev().collect::<Vec<_>>()
    );
    assert_eq!(i64s(&cp::flip(&cp::flip(&a, -1)?, -1)?), i64s(&a));
    assert_eq!(i64s(&cp::flipud(&a)?)[..4], [8, 9, 10, 11]);
    assert_eq!(i64s(&cp::fliplr(&a)?)[..4], [3, 2, 1, 0]);
    // A flipped view can be written through and copied.
    let mut v = cp::flip(&a.copy()?, 0)?;
    v.slice_assign(s![0, ..], 7)?;
    assert_eq!(i64s(&v.copy()?)[..4], [7, 7, 7, 7]);
    assert_eq!(cp::flip(&cp::zeros([0, 3], cp::f32)?, 0)?.shape(), &[0, 3]);
    // np.rot90(a, k) for k = 1, 2, 3 and np.rot90(a, -1, (1, 0)).
    assert_exact(
        &cp::rot90(&a, 1, (0, 1))?,
        &[4, 3],
        &[3i64, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8],
    );
    assert_exact(
        &cp::rot90(&a, 2, (0, 1))?,
        &[3, 4],
        &[11i64, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    );
    assert_exact(
        &cp::rot90(&a, 3, (0, 1))?,
        &[4, 3],
        &[8i64, 4, 0, 9, 5, 1, 10, 6, 2, 11, 7, 3],
    );
    assert_exact(
        &cp::rot90(&a, -1, (1, 0))?,
        &[4, 3],
        &[3i64, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8],
    );
    assert_eq!(i64s(&cp::rot90(&a, 4, (0, 1))?), i64s(&a));
    // np.rot90(b, 1, (0, 2))
    assert_exact(
        &cp::rot90(&b, 1, (0, 2))?,
        &[4, 3, 2],
        &[
            3i64, 15, 7, 19, 11, 23, 2, 14, 6, 18, 10, 22, 1, 13, 5, 17, 9, 21, 0, 12, 4, 16, 8, 20,
        ],
    );
    assert!(cp::rot90(&b, 1, (0, 2))?.shares_memory(&b));
    // Errors.
    assert!(matches!(
        cp::rot90(&a, 1, (0, -2)).unwrap_err(),
        Error::InvalidArgument { op: "rot90", .. }
    ));
    assert!(matches!(
        cp::rot90(&cp::arange(3)?, 1, (0, 1)).unwrap_err(),
        Error::Shape { op: "rot90", .. }
    ));
    assert!(matches!(
        cp::flip(&a, 2).unwrap_err(),
        Error::Axis { op: "flip", .. }
    ));
    assert!(cp::fliplr(&cp::arange(3)?).is_err());
});

on_every_device!(roll, |_dev| {
    let a = a34();
    // np.roll(a, (1, -1), (0, 1))
    assert_exact(
        &cp::roll_axes(&a, &[1, -1], &[0, 1])?,
        &[3, 4],
        &[9i64, 10, 11, 8, 1, 2, 3, 0, 5, 6, 7, 4],
    );
    // np.roll(a, 5) and np.roll(a.T, 5): flattened, shape kept.
    assert_exact(
        &cp::roll(&a, 5, None)?,
        &[3, 4],
        &[7i64, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6],
    );
    assert_exact(
        &cp::roll(&a.t(), 5, None)?,
        &[4, 3],
        &[6i64, 10, 3, 7, 11, 0, 4, 8, 1, 5, 9, 2],
    );
    // np.roll(a.T, -4, 1): shift beyond the extent.
    assert_exact(
        &cp::roll(&a.t(), -4, Some(1))?,
        &[4, 3],
        &[4i64, 8, 0, 5, 9, 1, 6, 10, 2, 7, 11, 3],
    );
    // np.roll(a, (1, 2), (1, 1)): a repeated axis adds; np.roll(a, 1, (0, 1)).
    assert_exact(
        &cp::roll_axes(&a, &[1, 2], &[1, 1])?,
        &[3, 4],
        &[1i64, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8],
    );
    assert_exact(
        &cp::roll_axes(&a, &[1], &[0, 1])?,
        &[3, 4],
        &[11i64, 8, 9, 10, 3, 0, 1, 2, 7, 4, 5, 6],
    );
    // Zero shift copies; empty arrays and 0-d arrays roll to themselves.
    let r = cp::roll(&a, 0, Some(0))?;
    assert!(!r.shares_memory(&a));
    assert_eq!(i64s(&r), i64s(&a));
    assert_eq!(
        cp::roll(&cp::zeros([0, 3], cp::f32)?, 2, Some(0))?.shape(),
        &[0, 3]
    );
    assert_exact(&cp::roll(&cp::asarray(4i64)?, 3, None)?, &[], &[4i64]);
    // NaN moves like any value.
    let x = cp::asarray(vec![f64::NAN, 1.0, 2.0])?;
    assert_close(
        &cp::roll(&x, 1, Some(0))?,
        &[3],
        DType::Float64,
        &[2.0, f64::NAN, 1.0],
        0.0,
    );
    // Errors.
    assert!(matches!(
        cp::roll_axes(&a, &[1, 2, 3], &[0, 1]).unwrap_err(),
        Error::Shape { op: "roll", .. }
    ));
    assert!(matches!(
        cp::roll(&a, 1, Some(2)).unwrap_err(),
        Error::Axis { op: "roll", .. }
    ));
});

on_every_device!(pad_modes, |_dev| {
    let x = cp::arange(3)?;
    let a = a34();
    // NumPy 2.x: np.pad(np.arange(3), 7, 'reflect') etc. (pads wider than the array).
    assert_exact(
        &cp::pad(&x, 7, PadMode::Reflect)?,
        &[17],
        &[1i64, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1],
    );
    assert_exact(
        &cp::pad(&x, (7, 5), PadMode::Symmetric)?,
        &[15],
        &[0i64, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1],
    );
    assert_exact(
        &cp::pad(&x, (7, 4), PadMode::Wrap)?,
        &[14],
        &[2i64, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0],
    );
    assert_exact(
        &cp::pad(&cp::arange(2)?, 5, PadMode::Reflect)?,
        &[12],
        &[1i64, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
    );
    // np.pad([5], 2, 'reflect') repeats the element.
    assert_exact(
        &cp::pad(&cp::asarray(vec![5i64])?, 2, PadMode::Reflect)?,
        &[5],
        &[5i64; 5],
    );
    // np.pad(a, ((1, 2), (3, 1)), 'reflect')
    assert_exact(
        &cp::pad(&a, [(1, 2), (3, 1)], PadMode::Reflect)?,
        &[6, 8],
        &[
            7i64, 6, 5, 4, 5, 6, 7, 6, 3, 2, 1, 0, 1, 2, 3, 2, 7, 6, 5, 4, 5, 6, 7, 6, 11, 10, 9,
            8, 9, 10, 11, 10, 7, 6, 5, 4, 5, 6, 7, 6, 3, 2, 1, 0, 1, 2, 3, 2,
        ],
    );
    // np.pad(a.T, ((2, 0), (1, 1)), 'symmetric'): a transposed input.
    assert_exact(
        &cp::pad(&a.t(), vec![(2usize, 0usize), (1, 1)], PadMode::Symmetric)?,
        &[6, 5],
        &[
            1i64, 1, 5, 9, 9, 0, 0, 4, 8, 8, 0, 0, 4, 8, 8, 1, 1, 5, 9, 9, 2, 2, 6, 10, 10, 3, 3,
            7, 11, 11,
        ],
    );
    // np.pad(a, ((1, 1), (2, 2)), 'wrap')
    assert_exact(
        &cp::pad(&a, [(1, 1), (2, 2)], PadMode::Wrap)?,
        &[5, 8],
        &[
            10i64, 11, 8, 9, 10, 11, 8, 9, 2, 3, 0, 1, 2, 3, 0, 1, 6, 7, 4, 5, 6, 7, 4, 5, 10, 11,
            8, 9, 10, 11, 8, 9, 2, 3, 0, 1, 2, 3, 0, 1,
        ],
    );
    // np.pad(a, ((1, 0), (0, 2)), 'edge')
    assert_exact(
        &cp::pad(&a, [(1, 0), (0, 2)], PadMode::Edge)?,
        &[4, 6],
        &[
            0i64, 1, 2, 3, 3, 3, 0, 1, 2, 3, 3, 3, 4, 5, 6, 7, 7, 7, 8, 9, 10, 11, 11, 11,
        ],
    );
    // np.pad(np.ones((2, 2), int), 1, constant_values=((10, 20), (30, 40)))
    let each = PadMode::ConstantEach(vec![(10.into(), 20.into()), (30.into(), 40.into())]);
    assert_exact(
        &cp::pad(&cp::ones([2, 2], cp::int64)?, 1, each)?,
        &[4, 4],
        &[
            30i64, 10, 10, 40, 30, 1, 1, 40, 30, 1, 1, 40, 30, 20, 20, 40,
        ],
    );
    // np.pad(np.arange(3), (1, 1), constant_values=2.7): cast to int64.
    assert_exact(
        &cp::pad(&x, (1, 1), PadMode::Constant(2.7.into()))?,
        &[5],
        &[2i64, 0, 1, 2, 2],
    );
    // np.pad(np.zeros((0, 2)), 1): an empty axis padded with a constant.
    assert_exact(
        &cp::pad(&cp::zeros([0, 2], cp::f64)?, 1, PadMode::Constant(0.into()))?,
        &[2, 4],
        &[0.0f64; 8],
    );
    // np.pad(np.array([np.nan, 1.0]), 1, 'reflect')
    assert_close(
        &cp::pad(&cp::asarray(vec![f64::NAN, 1.0])?, 1, PadMode::Reflect)?,
        &[4],
        DType::Float64,
        &[1.0, f64::NAN, 1.0, f64::NAN],
        0.0,
    );
    // np.pad(np.arange(24).reshape(2, 3, 4), ((1, 1), (2, 0), (0, 3)), 'reflect')[0, :, :]
    let b = cp::arange(24)?.reshape([2, 3, 4])?;
    let p = cp::pad(&b, [(1, 1), (2, 0), (0, 3)], PadMode::Reflect)?;
    assert_eq!(p.shape(), &[4, 5, 7]);
    assert_eq!(
        i64s(&p.slice(s![0, .., ..])?.copy()?),
        vec![
            20, 21, 22, 23, 22, 21, 20, 16, 17, 18, 19, 18, 17, 16, 12, 13, 14, 15, 14, 13, 12, 16,
            17, 18, 19, 18, 17, 16, 20, 21, 22, 23, 22, 21, 20
        ]
    );
    assert_eq!(
        i64s(&p.slice(s![3, .., ..])?.copy()?),
        vec![
            8, 9, 10, 11, 10, 9, 8, 4, 5, 6, 7, 6, 5, 4, 0, 1, 2, 3, 2, 1, 0, 4, 5, 6, 7, 6, 5, 4,
            8, 9, 10, 11, 10, 9, 8
        ]
    );
    // A 0-d array pads to itself; zero widths copy.
    assert_exact(
        &cp::pad(&cp::asarray(5i64)?, 1, PadMode::Constant(0.into()))?,
        &[],
        &[5i64],
    );
    let p = cp::pad(&a, 0, PadMode::Wrap)?;
    assert!(!p.shares_memory(&a));
    assert_eq!(i64s(&p), i64s(&a));
    // Errors.
    assert!(matches!(
        cp::pad(&cp::zeros([0, 2], cp::f64)?, 1, PadMode::Reflect).unwrap_err(),
        Error::InvalidArgument { op: "pad", .. }
    ));
    assert!(matches!(
        cp::pad(&a, -1, PadMode::Edge).unwrap_err(),
        Error::InvalidArgument { op: "pad", .. }
    ));
    assert!(matches!(
        cp::pad(&a, [(1, 1), (1, 1), (1, 1)], PadMode::Edge).unwrap_err(),
        Error::Shape { op: "pad", .. }
    ));
});

on_every_device!(insert_delete, |_dev| {
    let a = a34();
    // np.insert(a, 1, [7, 8, 9], axis=1)
    assert_exact(
        &cp::insert(&a, 1, vec![7i64, 8, 9], Some(1))?,
        &[3, 5],
        &[0i64, 7, 1, 2, 3, 4, 8, 5, 6, 7, 8, 9, 9, 10, 11],
    );
    // np.insert(a, -1, [[1, 2, 3, 4], [5, 6, 7, 8]], axis=0)
    assert_exact(
        &cp::insert(&a, -1, vec![vec![1i64, 2, 3, 4], vec![5, 6, 7, 8]], Some(0))?,
        &[5, 4],
        &[
            0i64, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 10, 11,
        ],
    );
    // np.insert(a, [3, 0, 3], 99, axis=1)
    assert_exact(
        &cp::insert(&a, [3, 0, 3], 99i64, Some(1))?,
        &[3, 7],
        &[
            99i64, 0, 1, 2, 99, 99, 3, 99, 4, 5, 6, 99, 99, 7, 99, 8, 9, 10, 99, 99, 11,
        ],
    );
    // np.insert(a, [4, 0], [[1], [2], [3]], axis=1)
    assert_exact(
        &cp::insert(&a, [4, 0], vec![vec![1i64], vec![2], vec![3]], Some(1))?,
        &[3, 6],
        &[1i64, 0, 1, 2, 3, 1, 2, 4, 5, 6, 7, 2, 3, 8, 9, 10, 11, 3],
    );
    // np.insert(a, [1], [7, 8, 9], axis=1): a list of one position is not a scalar.
    assert_exact(
        &cp::insert(&a, [1], vec![7i64, 8, 9], Some(1))?,
        &[3, 7],
        &[
            0i64, 7, 8, 9, 1, 2, 3, 4, 7, 8, 9, 5, 6, 7, 8, 7, 8, 9, 9, 10, 11,
        ],
    );
    // np.insert(np.arange(3), 1, 2.7): values take the array's dtype.
    assert_exact(
        &cp::insert(&cp::arange(3)?, 1, 2.7f64, None)?,
        &[4],
        &[0i64, 2, 1, 2],
    );
    // np.insert(np.arange(3), np.array([True, False, True]), 9)
    assert_exact(
        &cp::insert(&cp::arange(3)?, [true, false, true], 9i64, None)?,
        &[5],
        &[9i64, 0, 1, 9, 2],
    );
    // Insert at the end (position n) of a transposed array, flattened.
    assert_exact(
        &cp::insert(&a.t(), 12, 5i64, None)?,
        &[13],
        &[0i64, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 5],
    );
    // np.delete(a, [0, 0, -1], axis=1); mask; flattened transposed.
    assert_exact(
        &cp::delete(&a, [0, 0, -1], Some(1))?,
        &[3, 2],
        &[1i64, 2, 5, 6, 9, 10],
    );
    assert_exact(
        &cp::delete(&a, [true, false, true], Some(0))?,
        &[1, 4],
        &[4i64, 5, 6, 7],
    );
    assert_exact(
        &cp::delete(&a.t(), [1, 5, 11], None)?,
        &[9],
        &[0i64, 8, 1, 5, 2, 6, 10, 3, 7],
    );
    let all = cp::delete(&a, AxisPositions::Many((0..4).collect()), Some(1))?;
    assert_eq!(all.shape(), &[3, 0]);
    let none = cp::delete(&a, Vec::<i64>::new(), Some(1))?;
    assert_eq!(i64s(&none), i64s(&a));
    // Errors.
    assert!(matches!(
        cp::delete(&a, 4, Some(1)).unwrap_err(),
        Error::IndexOutOfBounds { op: "delete", .. }
    ));
    assert!(matches!(
        cp::insert(&a, 5, 0i64, Some(1)).unwrap_err(),
        Error::IndexOutOfBounds { op: "insert", .. }
    ));
    assert!(matches!(
        cp::insert(&a, [0, 1], vec![1i64, 2, 3], Some(1)).unwrap_err(),
        Error::Broadcast { op: "insert", .. }
    ));
    assert!(cp::delete(&a, [true, false], Some(0)).is_err());
});

on_every_device!(trim_zeros_and_atleast, |_dev| {
    let x = cp::asarray(vec![0i64, 0, 1, 0, 2, 0, 0])?;
    // np.trim_zeros(x, 'f'), 'b', 'fb'
    assert_exact(
        &cp::trim_zeros(&x, Trim::Front, None)?,
        &[5],
        &[1i64, 0, 2, 0, 0],
    );
    assert_exact(
        &cp::trim_zeros(&x, Trim::Back, None)?,
        &[5],
        &[0i64, 0, 1, 0, 2],
    );
    assert_exact(&cp::trim_zeros(&x, Trim::Both, None)?, &[3], &[1i64, 0, 2]);
    // All zeros: empty; NaN is not zero; a reversed view.
    assert_eq!(
        cp::trim_zeros(&cp::zeros(2, cp::f64)?, Trim::Both, None)?.shape(),
        &[0]
    );
    assert_eq!(
        cp::trim_zeros(&cp::zeros(0, cp::f64)?, Trim::Both, None)?.shape(),
        &[0]
    );
    let n = cp::asarray(vec![0.0, f64::NAN, 0.0])?;
    assert_close(
        &cp::trim_zeros(&n, Trim::Both, None)?,
        &[1],
        DType::Float64,
        &[f64::NAN],
        0.0,
    );
    let r = cp::trim_zeros(&cp::flip(&x, None)?, Trim::Front, None)?;
    assert_exact(&r, &[5], &[2i64, 0, 1, 0, 0]);
    // n-D: np.trim_zeros(m), m with 'f', with 'b' on axis 0, on axis -1.
    let m = cp::asarray(vec![
        vec![0i64, 0, 0, 0],
        vec![0, 1, 0, 0],
        vec![0, 0, 2, 0],
    ])?;
    assert_exact(
        &cp::trim_zeros(&m, Trim::Both, None)?,
        &[2, 2],
        &[1i64, 0, 0, 2],
    );
    assert_exact(
        &cp::trim_zeros(&m, Trim::Front, None)?,
        &[2, 3],
        &[1i64, 0, 0, 0, 2, 0],
    );
    assert_eq!(cp::trim_zeros(&m, Trim::Back, 0)?.shape(), &[3, 4]);
    assert_exact(
        &cp::trim_zeros(&m.t(), Trim::Both, 0)?,
        &[2, 3],
        &[0i64, 1, 0, 0, 0, 2],
    );
    assert_exact(
        &cp::trim_zeros(&m, Trim::Both, -1)?,
        &[3, 2],
        &[0i64, 0, 1, 0, 0, 2],
    );
    // All zeros: (2, 3) -> (0, 0), or (2, 0) along axis 1; (0, 3) -> (0, 0).
    let z = cp::zeros([2, 3], cp::f32)?;
    assert_eq!(cp::trim_zeros(&z, Trim::Front, None)?.shape(), &[0, 0]);
    assert_eq!(cp::trim_zeros(&z, Trim::Both, 1)?.shape(), &[2, 0]);
    let z = cp::zeros([0, 3], cp::f32)?;
    assert_eq!(cp::trim_zeros(&z, Trim::Both, None)?.shape(), &[0, 0]);
    assert!(matches!(
        cp::trim_zeros(&m, Trim::Both, 2).unwrap_err(),
        Error::Axis {
            op: "trim_zeros",
            ..
        }
    ));
    // atleast_*: shapes as NumPy's.
    let s0 = cp::asarray(3.0)?;
    assert_eq!(cp::atleast_1d(&s0)?.shape(), &[1]);
    assert_eq!(cp::atleast_2d(&s0)?.shape(), &[1, 1]);
    assert_eq!(cp::atleast_3d(&s0)?.shape(), &[1, 1, 1]);
    let v = cp::arange(3)?;
    assert_eq!(cp::atleast_1d(&v)?.shape(), &[3]);
    assert_eq!(cp::atleast_2d(&v)?.shape(), &[1, 3]);
    assert_eq!(cp::atleast_3d(&v)?.shape(), &[1, 3, 1]);
    assert_eq!(cp::atleast_3d(&a34())?.shape(), &[3, 4, 1]);
    assert_eq!(cp::atleast_2d(&a34())?.shape(), &[3, 4]);
    assert!(cp::atleast_3d(&v)?.shares_memory(&v));
});

/// The same calls on random float inputs: the GPU's results equal the CPU's.
fn sweep() -> cp::Result<Vec<Array>> {
    let a = rand(&[37, 29], DType::Float32, 11);
    let b = rand(&[5, 6, 7], DType::Complex64, 12);
    let t = a.t();
    let mut out = vec![
        cp::vstack(&[&a, &a.slice(s![..3, ..])?])?,
        cp::hstack(&[&t, &t])?,
        cp::dstack(&[&a, &a])?,
        cp::column_stack(&[&a.slice(s![.., 0])?, &a])?,
        cp::tile(&t, [2, 1, 3])?,
        cp::repeat(&b, 3, Some(1))?,
        cp::repeat(&t, (0..37).map(|i| i % 3).collect::<Vec<usize>>(), Some(1))?,
        cp::repeat(&t, 2, None)?,
        cp::resize(&t, [5, 300])?,
        cp::flip(&b, [0, 2])?.copy()?,
        cp::rot90(&t, 1, (0, 1))?.copy()?,
        cp::roll_axes(&a, &[5, -7], &[0, 1])?,
        cp::roll(&t, 100, None)?,
        cp::roll(&b, -3, Some(2))?,
        cp::pad(&a, [(40, 3), (2, 60)], PadMode::Reflect)?,
        cp::pad(&t, 9, PadMode::Symmetric)?,
        cp::pad(&b, [(1, 2), (0, 0), (8, 9)], PadMode::Wrap)?,
        cp::pad(&t, (3, 1), PadMode::Edge)?,
        cp::pad(&b, 2, PadMode::Constant(1.5.into()))?,
        cp::append(&a, &a, Some(1))?,
        cp::insert(&t, [3, 0, 29], 2.0f64, Some(1))?,
        cp::insert(&b, 2, 0.5f64, Some(-1))?,
        cp::delete(&b, [1, 3], Some(1))?,
        cp::trim_zeros(&a.slice(s![0, ..])?, Trim::Both, None)?,
    ];
    out.extend(
        cp::array_split(&b, 4, 2)?
            .into_iter()
            .map(|p| p.copy().unwrap()),
    );
    out.extend(
        cp::hsplit(&t, [3, 10])?
            .into_iter()
            .map(|p| p.copy().unwrap()),
    );
    out.extend(cp::vsplit(&t, 1)?);
    out.push(cp::atleast_3d(&a)?.copy()?);
    cp::cuda::launch_pending()?;
    Ok(out)
}

#[test]
fn gpu_matches_cpu_without_host_fallbacks() {
    cp::cuda::reset_host_fallbacks();
    let cpu = cp::with_device(Device::Cpu, sweep).unwrap();
    let Some(dev) = gpu_or_skip() else { return };
    let gpu = cp::with_device(dev, sweep).unwrap();
    common::assert_no_host_fallback("GPU manipulation");
    assert_eq!(cpu.len(), gpu.len());
    for (i, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
        assert_eq!(c.shape(), g.shape(), "result {i}");
        assert_eq!(c.dtype(), g.dtype(), "result {i}");
        assert_eq!(
            cvals(c),
            cvals(&g.to_device(&Device::Cpu).unwrap()),
            "result {i}"
        );
    }
}

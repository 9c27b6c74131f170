//! Indexing: `s!` slicing views, integer/boolean indexing, take, put,
//! nonzero and where_. Expected values come from NumPy 2.4 (the expression
//! is in the comment above each check).

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::prelude::*;
use cuprite::{IndexMode, PutMode, SliceElem};

/// A 1-D int64 array 0..n.
fn ar(n: i64) -> cp::Result<Array> {
    cp::arange(n)
}

// ---------------------------------------------------------------------------
// The s! macro
// ---------------------------------------------------------------------------

#[test]
fn s_macro_builds_each_form() {
    let i: usize = 1;
    let n: i64 = 5;
    let e = s![.., i..i + 2, -1, 1..;2, ..;-1, 3..0;-1, NewAxis, ..., n - 1, ..=2, 0..=4;2, ..3];
    let slice =
        |start: Option<isize>, end: Option<isize>, inclusive: bool, step: isize| SliceElem::Slice {
            start,
            end,
            inclusive,
            step,
        };
    assert_eq!(
        e,
        vec![
            slice(None, None, false, 1),
            slice(Some(1), Some(3), false, 1),
            SliceElem::Index(-1),
            slice(Some(1), None, false, 2),
            slice(None, None, false, -1),
            slice(Some(3), Some(0), false, -1),
            SliceElem::NewAxis,
            SliceElem::Ellipsis,
            SliceElem::Index(4),
            slice(None, Some(2), true, 1),
            slice(Some(0), Some(4), true, 2),
            slice(None, Some(3), false, 1),
        ]
    );
    // Other spellings: cp::newaxis, cp::NewAxis, Ellipsis, a trailing comma, empty.
    assert_eq!(
        s![cp::newaxis, cp::NewAxis, Ellipsis, 2,],
        vec![
            SliceElem::NewAxis,
            SliceElem::NewAxis,
            SliceElem::Ellipsis,
            SliceElem::Index(2)
        ]
    );
    assert!(s![].is_empty());
    // A computed entry goes in as it is.
    let keep = SliceElem::Index(3);
    assert_eq!(s![keep], vec![SliceElem::Index(3)]);
    // Bounds of any integer type; u64 beyond isize saturates (then clamps).
    let (a, b): (u64, u64) = (2, u64::MAX);
    assert_eq!(s![a..b], vec![slice(Some(2), Some(isize::MAX), false, 1)]);
}

// ---------------------------------------------------------------------------
// Basic slicing: views with NumPy's shapes, strides and values
// ---------------------------------------------------------------------------

/// Checks shape, byte strides (as NumPy's `.strides`) and values of a view,
/// and that it shares the base's buffer.
#[track_caller]
fn check_view<T: Element>(
    base: &Array,
    v: &Array,
    shape: &[usize],
    strides: &[isize],
    values: &[T],
) {
    assert_exact(v, shape, values);
    assert_eq!(v.strides_bytes(), strides, "strides in bytes");
    assert!(v.shares_memory(base), "a slice is a view");
}

on_every_device!(slices_1d, |dev| {
    let x = ar(10)?;
    // np.arange(10)[2:7]  -> shape (5,), strides (8,)
    check_view(&x, &x.slice(s![2..7])?, &[5], &[8], &[2i64, 3, 4, 5, 6]);
    // x[::-1]  -> (10,), (-8,)
    check_view(
        &x,
        &x.slice(s![..;-1])?,
        &[10],
        &[-8],
        &[9i64, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    );
    // x[7:2:-2]  -> (3,), (-16,)
    check_view(&x, &x.slice(s![7..2;-2])?, &[3], &[-16], &[7i64, 5, 3]);
    // x[::3]  -> (4,), (24,)
    check_view(&x, &x.slice(s![..;3])?, &[4], &[24], &[0i64, 3, 6, 9]);
    // x[-3:]  -> [7, 8, 9]
    check_view(&x, &x.slice(s![-3..])?, &[3], &[8], &[7i64, 8, 9]);
    // x[:-3]  -> [0..6]
    check_view(
        &x,
        &x.slice(s![..-3])?,
        &[7],
        &[8],
        &[0i64, 1, 2, 3, 4, 5, 6],
    );
    // x[8:2]  -> empty, strides (8,)
    check_view::<i64>(&x, &x.slice(s![8..2])?, &[0], &[8], &[]);
    // x[3:0:-1]  -> [3, 2, 1]
    check_view(&x, &x.slice(s![3..0;-1])?, &[3], &[-8], &[3i64, 2, 1]);
    // x[-100:100]  -> everything (bounds clamp)
    check_view(
        &x,
        &x.slice(s![-100..100])?,
        &[10],
        &[8],
        &[0i64, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    // x[1:4] written as the inclusive range 1..=3
    check_view(&x, &x.slice(s![1..=3])?, &[3], &[8], &[1i64, 2, 3]);
    // x[5::-2]  -> [5, 3, 1]
    check_view(&x, &x.slice(s![5..;-2])?, &[3], &[-16], &[5i64, 3, 1]);
    // x[:2:-3]  -> [9, 6, 3]
    check_view(&x, &x.slice(s![..2;-3])?, &[3], &[-24], &[9i64, 6, 3]);
    // x[-1]  -> 0-d 9
    check_view(&x, &x.slice(s![-1])?, &[], &[], &[9i64]);
    // Inclusive ends may be negative: x[..=-1] is the whole axis, x[-2..=-1] the last two.
    assert_eq!(x.slice(s![..=-1])?.size(), 10);
    assert_eq!(x.slice(s![-2..=-1])?.to_vec::<i64>()?, vec![8, 9]);
    assert_eq!(x.slice(s![..])?.device(), dev);
});

on_every_device!(slices_2d_and_3d, |dev| {
    let a = ar(12)?.astype(cp::f32)?.reshape([3, 4])?;
    // np.arange(12, dtype=np.float32).reshape(3, 4)[1:, ::-2]  -> (2, 2), strides (16, -8)
    check_view(
        &a,
        &a.slice(s![1.., ..;-2])?,
        &[2, 2],
        &[16, -8],
        &[7.0f32, 5.0, 11.0, 9.0],
    );
    // a[:, 1]  -> (3,), (16,)
    check_view(&a, &a.slice(s![.., 1])?, &[3], &[16], &[1.0f32, 5.0, 9.0]);
    // a[-1]  -> (4,), (4,)
    check_view(
        &a,
        &a.slice(s![-1])?,
        &[4],
        &[4],
        &[8.0f32, 9.0, 10.0, 11.0],
    );
    // a[::-1, ::-1]  -> (3, 4), (-16, -4)
    check_view(
        &a,
        &a.slice(s![..;-1, ..;-1])?,
        &[3, 4],
        &[-16, -4],
        &[
            11.0f32, 10.0, 9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0,
        ],
    );
    // a[None, :, 2:]  -> (1, 3, 2), (0, 16, 4)
    check_view(
        &a,
        &a.slice(s![NewAxis, .., 2..])?,
        &[1, 3, 2],
        &[0, 16, 4],
        &[2.0f32, 3.0, 6.0, 7.0, 10.0, 11.0],
    );
    // a[..., -2]  -> (3,), (16,)
    check_view(
        &a,
        &a.slice(s![..., -2])?,
        &[3],
        &[16],
        &[2.0f32, 6.0, 10.0],
    );
    // a[2:0:-1, 1:3]  -> (2, 2), (-16, 4)
    check_view(
        &a,
        &a.slice(s![2..0;-1, 1..3])?,
        &[2, 2],
        &[-16, 4],
        &[9.0f32, 10.0, 5.0, 6.0],
    );
    // a[5:, :]  -> (0, 4), (16, 4)
    check_view::<f32>(&a, &a.slice(s![5.., ..])?, &[0, 4], &[16, 4], &[]);

    let b = ar(24)?.astype(cp::i16)?.reshape([2, 3, 4])?;
    // np.arange(24, dtype=np.int16).reshape(2, 3, 4)[..., 1]  -> (2, 3), (24, 8)
    check_view(
        &b,
        &b.slice(s![..., 1])?,
        &[2, 3],
        &[24, 8],
        &[1i16, 5, 9, 13, 17, 21],
    );
    // b[None, 1, ..., ::2]  -> (1, 3, 2), (0, 8, 4)
    check_view(
        &b,
        &b.slice(s![NewAxis, 1, ..., ..;2])?,
        &[1, 3, 2],
        &[0, 8, 4],
        &[12i16, 14, 16, 18, 20, 22],
    );
    // b[:, None, -1, 1:3]  -> (2, 1, 2), (24, 0, 2)
    check_view(
        &b,
        &b.slice(s![.., NewAxis, -1, 1..3])?,
        &[2, 1, 2],
        &[24, 0, 2],
        &[9i16, 10, 21, 22],
    );
    // b[1, ...]  -> (3, 4), (8, 2)
    let expect: Vec<i16> = (12..24).collect();
    check_view(&b, &b.slice(s![1, ...])?, &[3, 4], &[8, 2], &expect);
    // b[..., None]  -> (2, 3, 4, 1), (24, 8, 2, 0)
    let all: Vec<i16> = (0..24).collect();
    check_view(
        &b,
        &b.slice(s![..., NewAxis])?,
        &[2, 3, 4, 1],
        &[24, 8, 2, 0],
        &all,
    );
    // b[-1, ::-1, None, 3]  -> (3, 1), (-8, 0)
    check_view(
        &b,
        &b.slice(s![-1, ..;-1, NewAxis, 3])?,
        &[3, 1],
        &[-8, 0],
        &[23i16, 19, 15],
    );
    // b[...]  -> the whole array
    check_view(&b, &b.slice(s![...])?, &[2, 3, 4], &[24, 8, 2], &all);

    // Slicing a non-contiguous base: t = np.arange(12).reshape(3, 4).T
    let t = ar(12)?.reshape([3, 4])?.t();
    // t[1:, ::-1]  -> (3, 3), (8, -32)
    check_view(
        &t,
        &t.slice(s![1.., ..;-1])?,
        &[3, 3],
        &[8, -32],
        &[9i64, 5, 1, 10, 6, 2, 11, 7, 3],
    );
    // t[::2, 1]  -> (2,), (16,)
    check_view(&t, &t.slice(s![..;2, 1])?, &[2], &[16], &[4i64, 6]);
    // Slices of slices compose: a[1:, ::-2][::-1, 1]  -> a[2:0:-1, 1] -> [9, 5]
    let v = a.slice(s![1.., ..;-2])?.slice(s![..;-1, 1])?;
    assert_exact(&v, &[2], &[9.0f32, 5.0]);
    assert_eq!(v.device(), dev);
});

on_every_device!(views_write_through_to_the_base, |_dev| {
    let mut a = ar(12)?.astype(cp::f32)?.reshape([3, 4])?;
    let mut v = a.slice(s![.., ..;-1])?;
    // v[0, 0] = 100 writes a[0, 3]
    v.slice_assign(s![0, 0], 100.0)?;
    assert_eq!(a.get(&[0, 3])?, Scalar::Float(100.0));
    // v[2] = -1 writes row 2 of a (reversed view)
    v.set(&[2, 1], -1.0)?;
    assert_eq!(a.get(&[2, 2])?, Scalar::Float(-1.0));
    // A row view from at(): writing through it changes the base.
    let mut row = a.at(-2)?;
    row.fill(7.0)?;
    assert_exact(
        &a,
        &[3, 4],
        &[
            0.0f32, 1.0, 2.0, 100.0, 7.0, 7.0, 7.0, 7.0, 8.0, 9.0, -1.0, 11.0,
        ],
    );
    // a[::2, 1:3] = 0 through slice_assign on the base itself
    a.slice_assign(s![..;2, 1..3], 0)?;
    assert_exact(
        &a,
        &[3, 4],
        &[
            0.0f32, 0.0, 0.0, 100.0, 7.0, 7.0, 7.0, 7.0, 8.0, 0.0, 0.0, 11.0,
        ],
    );
});

on_every_device!(get_set_at_with_negative_indices, |_dev| {
    let b = ar(24)?.reshape([2, 3, 4])?;
    // np.arange(24).reshape(2, 3, 4)[-1, 0, -2]  -> 14
    assert_eq!(b.get(&[-1, 0, -2])?, Scalar::Int(14));
    // b[1, 2, 3]  -> 23
    assert_eq!(b.get(&[1, 2, 3])?, Scalar::Int(23));
    // b[-1]  -> (3, 4) view starting at 12
    let r = b.at(-1)?;
    assert_eq!(r.shape(), &[3, 4]);
    assert!(r.shares_memory(&b));
    assert_eq!(r.get(&[0, 0])?, Scalar::Int(12));
    // 0-d: get(&[]) is the element; a bool array gives Scalar::Bool.
    let z = cp::asarray(2.5f64)?;
    assert_eq!(z.get(&[])?, Scalar::Float(2.5));
    let m = cp::asarray([true, false])?;
    assert_eq!(m.get(&[-1])?, Scalar::Bool(false));
    // set with a float into an int array truncates (np: x[0] = 2.7 -> 2)
    let mut x = ar(4)?.astype(cp::i8)?;
    x.set(&[0], 2.7)?;
    x.set(&[-1], -3)?;
    assert_exact(&x, &[4], &[2i8, 1, 2, -3]);
});

on_every_device!(slice_assign_broadcasts_and_casts, |_dev| {
    // a = np.arange(12).reshape(3, 4); a[:, 1:3] = [10, 20]
    let mut a = ar(12)?.reshape([3, 4])?;
    a.slice_assign(s![.., 1..3], &cp::asarray([10i64, 20])?)?;
    assert_exact(&a, &[3, 4], &[0i64, 10, 20, 3, 4, 10, 20, 7, 8, 10, 20, 11]);
    // a = np.arange(12, dtype=np.int32).reshape(3, 4); a[::2] = 1.5
    let mut a = ar(12)?.astype(cp::i32)?.reshape([3, 4])?;
    a.slice_assign(s![..;2], 1.5)?;
    assert_exact(&a, &[3, 4], &[1i32, 1, 1, 1, 4, 5, 6, 7, 1, 1, 1, 1]);
    // a = np.arange(12, dtype=np.int32).reshape(3, 4); a[1, ::-1] = np.array([0.5, 1.5, -2.5, 3.9])
    let mut a = ar(12)?.astype(cp::i32)?.reshape([3, 4])?;
    a.slice_assign(s![1, ..;-1], cp::asarray([0.5f64, 1.5, -2.5, 3.9])?)?;
    assert_exact(&a, &[3, 4], &[0i32, 1, 2, 3, 3, -2, 1, 0, 8, 9, 10, 11]);
    // Overlapping source and destination: a[:2, :2] = a[1:, 2:]
    let mut a = ar(12)?.reshape([3, 4])?;
    let src = a.slice(s![1.., 2..])?;
    a.slice_assign(s![..2, ..2], &src)?;
    assert_exact(&a, &[3, 4], &[6i64, 7, 2, 3, 10, 11, 6, 7, 8, 9, 10, 11]);
    // Leading extent-1 axes of the value are dropped: a[...] = np.array([[[7, 8, 9]]])
    let mut a = ar(6)?.reshape([2, 3])?;
    a.slice_assign(s![...], cp::asarray([[[7i64, 8, 9]]])?)?;
    assert_exact(&a, &[2, 3], &[7i64, 8, 9, 7, 8, 9]);
    // Zero-size target: nothing happens
    a.slice_assign(s![2.., ..], 5)?;
    assert_exact(&a, &[2, 3], &[7i64, 8, 9, 7, 8, 9]);
    // complex into float keeps the real part (unsafe cast):
    // f = np.zeros(2); f[0] = np.complex128(1.5+2j)  -> [1.5, 0.0] (with a ComplexWarning;
    // a Python complex literal is a TypeError in NumPy, a Rust one is cast here)
    let mut f = cp::zeros([2], cp::f64)?;
    f.slice_assign(s![0], Complex64::new(1.5, 2.0))?;
    assert_exact(&f, &[2], &[1.5f64, 0.0]);
    // f[0:1] = np.array([1.5+2j])  -> [1.5, 0.0]
    let mut f = cp::zeros([2], cp::f64)?;
    f.slice_assign(s![0..1], cp::asarray([Complex64::new(1.5, 2.0)])?)?;
    assert_exact(&f, &[2], &[1.5f64, 0.0]);
});

// ---------------------------------------------------------------------------
// take / index_select
// ---------------------------------------------------------------------------

on_every_device!(take_with_2d_indices_along_each_axis, |dev| {
    let a = ar(12)?.reshape([3, 4])?;
    let idx = cp::asarray([[0i32, 2], [-1, 0]])?;
    // np.take(np.arange(12).reshape(3, 4), [[0, 2], [-1, 0]], axis=0)  -> (2, 2, 4)
    let r = cp::take(&a, &idx, Some(0))?;
    assert_exact(
        &r,
        &[2, 2, 4],
        &[0i64, 1, 2, 3, 8, 9, 10, 11, 8, 9, 10, 11, 0, 1, 2, 3],
    );
    assert!(!r.shares_memory(&a));
    assert_eq!(r.device(), dev);
    // axis=1  -> (3, 2, 2)
    let expect1 = [0i64, 2, 3, 0, 4, 6, 7, 4, 8, 10, 11, 8];
    assert_exact(&a.take(&idx, Some(1))?, &[3, 2, 2], &expect1);
    // axis=-1 is axis 1; index_select is take along an axis
    assert_exact(&a.take(&idx, Some(-1))?, &[3, 2, 2], &expect1);
    assert_exact(&a.index_select(&idx, 1)?, &[3, 2, 2], &expect1);
    // np.take(a, [[0, 11], [-1, 5]])  (axis=None: flattened) -> (2, 2)
    assert_exact(
        &a.take([[0i64, 11], [-1, 5]], None)?,
        &[2, 2],
        &[0i64, 11, 11, 5],
    );
    // Non-contiguous source: np.take(a.T, [3, 0, -1], axis=0)
    assert_exact(
        &a.t().take([3i64, 0, -1], Some(0))?,
        &[3, 3],
        &[3i64, 7, 11, 0, 4, 8, 3, 7, 11],
    );
    // Empty indices: np.take(a, np.array([], dtype=np.int64), axis=0) -> (0, 4)
    assert_exact::<i64>(&a.take(Vec::<i64>::new(), Some(0))?, &[0, 4], &[]);
    // 0-d index removes the axis: np.take(a, np.int64(2), axis=1) -> [2, 6, 10]
    assert_exact(&a.take(2i64, Some(1))?, &[3], &[2i64, 6, 10]);
    // bool indices read as 0/1: np.take(a, np.array([True, False, True]), axis=0)
    assert_exact(
        &a.take([true, false, true], Some(0))?,
        &[3, 4],
        &[4i64, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7],
    );
    // uint64 indices into a reversed view: np.take(np.arange(5.0)[::-1], np.array([4, 0], np.uint64))
    let s = ar(5)?.astype(cp::f64)?.slice(s![..;-1])?;
    assert_exact(&s.take([4u64, 0], None)?, &[2], &[0.0f64, 4.0]);
    // Every index dtype gives the same result.
    for dt in [
        cp::i8,
        cp::i16,
        cp::i32,
        cp::i64,
        cp::u8,
        cp::u16,
        cp::u32,
        cp::u64,
    ] {
        let ix = cp::asarray([2i64, 0])?.astype(dt)?;
        assert_exact(
            &a.take(&ix, Some(0))?,
            &[2, 4],
            &[8i64, 9, 10, 11, 0, 1, 2, 3],
        );
    }
});

on_every_device!(take_keeps_every_dtype, |_dev| {
    // np.take(x.astype(dt), [2, 0], axis=1) for x = np.arange(6).reshape(2, 3)
    let x = ar(6)?.reshape([2, 3])?;
    for dt in DType::ALL {
        let r = x.astype(dt)?.take([2i64, 0], Some(1))?;
        assert_eq!(r.dtype(), dt);
        let expect: Vec<f64> = if dt == cp::bool_ {
            vec![1.0, 0.0, 1.0, 1.0]
        } else {
            vec![2.0, 0.0, 5.0, 3.0]
        };
        assert_close(&r, &[2, 2], dt, &expect, 0.0);
    }
    // complex values keep both parts:
    // np.take(np.arange(6, dtype=np.complex64).reshape(2, 3) * (1+1j), [2, 0], axis=1)
    //   -> [2+2j, 0j, 5+5j, 3+3j]
    let z = |v: f32| Complex32::new(v, v);
    let c = cp::asarray([[z(0.0), z(1.0), z(2.0)], [z(3.0), z(4.0), z(5.0)]])?;
    assert_exact(
        &c.take([2i64, 0], Some(1))?,
        &[2, 2],
        &[z(2.0), z(0.0), z(5.0), z(3.0)],
    );
});

on_every_device!(take_modes, |_dev| {
    let a = ar(12)?.reshape([3, 4])?;
    // np.take(a, [5, -5, 13], axis=1, mode='wrap')
    assert_exact(
        &a.take_mode([5i64, -5, 13], Some(1), IndexMode::Wrap)?,
        &[3, 3],
        &[1i64, 3, 1, 5, 7, 5, 9, 11, 9],
    );
    // np.take(a, [5, -5, 13], axis=1, mode='clip')  (negatives clip to 0)
    assert_exact(
        &cp::take_mode(&a, [5i64, -5, 13], Some(1), cp::TakeMode::Clip)?,
        &[3, 3],
        &[3i64, 0, 3, 7, 4, 7, 11, 8, 11],
    );
    // np.take(np.arange(5), [-1, 9, -9], mode='clip') -> [0, 4, 0]; 'wrap' -> [4, 4, 1]
    let x = ar(5)?;
    assert_exact(
        &x.take_mode([-1i64, 9, -9], None, IndexMode::Clip)?,
        &[3],
        &[0i64, 4, 0],
    );
    assert_exact(
        &x.take_mode([-1i64, 9, -9], None, IndexMode::Wrap)?,
        &[3],
        &[4i64, 4, 1],
    );
    // Raise mode is take itself.
    assert_exact(
        &x.take_mode([-1i64], None, IndexMode::Raise)?,
        &[1],
        &[4i64],
    );
    // An empty take from an empty axis is fine in every mode.
    let e = cp::zeros([0], cp::f32)?;
    for mode in [IndexMode::Raise, IndexMode::Wrap, IndexMode::Clip] {
        assert_eq!(e.take_mode(Vec::<i64>::new(), None, mode)?.shape(), &[0]);
    }
});

// ---------------------------------------------------------------------------
// Boolean masks, nonzero
// ---------------------------------------------------------------------------

on_every_device!(masks_full_and_leading, |dev| {
    let f = cp::asarray([[1.5f64, -2.0, 3.0], [4.0, 5.0, 6.0]])?;
    let m = cp::asarray([[true, false, true], [false, false, true]])?;
    // f[m]  -> [1.5, 3.0, 6.0], 1-D, a copy
    let r = f.mask(&m)?;
    assert_exact(&r, &[3], &[1.5f64, 3.0, 6.0]);
    assert!(!r.shares_memory(&f));
    assert_eq!(r.device(), dev);
    // f[np.array([False, True])]  -> (1, 3)
    assert_exact(&f.mask([false, true])?, &[1, 3], &[4.0f64, 5.0, 6.0]);
    // f.T[np.array([True, False, True])]  -> (2, 2)
    assert_exact(
        &f.t().mask([true, false, true])?,
        &[2, 2],
        &[1.5f64, 4.0, 3.0, 6.0],
    );
    // f[np.True_]  -> (1, 2, 3); f[np.False_] -> (0, 2, 3)
    assert_eq!(f.mask(true)?.shape(), &[1, 2, 3]);
    assert_eq!(f.mask(false)?.shape(), &[0, 2, 3]);
    // All false: empty result of the right shape.
    assert_eq!(f.mask([[false; 3]; 2])?.shape(), &[0]);
    // A reversed mask view over an int8 array.
    let m2 = cp::asarray([true, true, false])?.slice(s![..;-1])?; // [False, True, True]
    let i = ar(3)?.astype(cp::i8)?;
    assert_exact(&i.mask(&m2)?, &[2], &[1i8, 2]);
});

on_every_device!(mask_assign_scalar_array_and_rows, |_dev| {
    let f = cp::asarray([[1.5f64, -2.0, 3.0], [4.0, 5.0, 6.0]])?;
    let m = cp::asarray([[true, false, true], [false, false, true]])?;
    // g = f.copy(); g[m] = 9
    let mut g = f.copy()?;
    g.mask_assign(&m, 9)?;
    assert_exact(&g, &[2, 3], &[9.0f64, -2.0, 9.0, 4.0, 5.0, 9.0]);
    // g[m] = [7, 8, 9]
    let mut g = f.copy()?;
    g.mask_assign(&m, cp::asarray([7i64, 8, 9])?)?;
    assert_exact(&g, &[2, 3], &[7.0f64, -2.0, 8.0, 4.0, 5.0, 9.0]);
    // g[np.array([True, False])] = [1, 2, 3]  (a row broadcast over the selected rows)
    let mut g = f.copy()?;
    g.mask_assign([true, false], cp::asarray([1i64, 2, 3])?)?;
    assert_exact(&g, &[2, 3], &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // i = np.arange(6, dtype=np.int32).reshape(2, 3); i[m] = [1.9, -2.7, 3.5]  (truncates)
    let mut i = ar(6)?.astype(cp::i32)?.reshape([2, 3])?;
    i.mask_assign(&m, cp::asarray([1.9f64, -2.7, 3.5])?)?;
    assert_exact(&i, &[2, 3], &[1i32, 1, -2, 3, 4, 3]);
    // Through a transposed view: writes land in the base.
    let base = ar(6)?.reshape([2, 3])?;
    let mut t = base.t(); // (3, 2)
    t.mask_assign([[true, false], [false, false], [false, true]], -1)?;
    // b = np.arange(6).reshape(2, 3); b.T[[[T, F], [F, F], [F, T]]] = -1
    assert_exact(&base, &[2, 3], &[-1i64, 1, 2, 3, 4, -1]);
});

on_every_device!(nonzero_and_flatnonzero, |_dev| {
    // z = np.array([[0, 1.0, np.nan], [-0.0, 0, 2]]); np.nonzero(z)
    let z = cp::asarray([[0.0f64, 1.0, f64::NAN], [-0.0, 0.0, 2.0]])?;
    let nz = cp::nonzero(&z)?;
    assert_eq!(nz.len(), 2);
    assert_exact(&nz[0], &[3], &[0i64, 0, 1]);
    assert_exact(&nz[1], &[3], &[1i64, 2, 2]);
    // np.nonzero(z.T)  -> ([1, 2, 2], [0, 0, 1])
    let nt = z.t().nonzero()?;
    assert_exact(&nt[0], &[3], &[1i64, 2, 2]);
    assert_exact(&nt[1], &[3], &[0i64, 0, 1]);
    // np.nonzero(z[:, ::-1])  -> ([0, 0, 1], [0, 1, 0])
    let nr = cp::nonzero(&z.slice(s![.., ..;-1])?)?;
    assert_exact(&nr[0], &[3], &[0i64, 0, 1]);
    assert_exact(&nr[1], &[3], &[0i64, 1, 0]);
    // np.flatnonzero(z) -> [1, 2, 5]; np.flatnonzero(z.T) -> [2, 4, 5]
    assert_exact(&cp::flatnonzero(&z)?, &[3], &[1i64, 2, 5]);
    assert_exact(&cp::flatnonzero(&z.t())?, &[3], &[2i64, 4, 5]);
    // bool, complex and empty inputs
    let b = cp::asarray([false, true, true])?;
    assert_exact(&cp::nonzero(&b)?[0], &[2], &[1i64, 2]);
    let c = cp::asarray([Complex64::new(0.0, 0.0), Complex64::new(0.0, 1.0)])?;
    assert_exact(&cp::nonzero(&c)?[0], &[1], &[1i64]);
    let e = cp::zeros([0, 3], cp::u16)?;
    let ne = cp::nonzero(&e)?;
    assert_eq!((ne.len(), ne[0].shape()), (2, &[0usize][..]));
});

// ---------------------------------------------------------------------------
// where_
// ---------------------------------------------------------------------------

on_every_device!(where_broadcasts_and_resolves_dtype, |dev| {
    // np.where(np.array([[True], [False], [True]]), np.arange(4, dtype=np.float32), 2.0)
    let c = cp::asarray([[true], [false], [true]])?;
    let x = ar(4)?.astype(cp::f32)?;
    let r = cp::where_(&c, &x, 2.0)?;
    assert_exact(
        &r,
        &[3, 4],
        &[
            0.0f32, 1.0, 2.0, 3.0, 2.0, 2.0, 2.0, 2.0, 0.0, 1.0, 2.0, 3.0,
        ],
    );
    assert_eq!(r.device(), dev);
    // np.where([True, False], 1, 2)  -> int64
    assert_exact(&cp::where_([true, false], 1, 2)?, &[2], &[1i64, 2]);
    // np.where([True, False], np.array([1, 2], np.int8), 2.5)  -> float64
    let i8s = cp::asarray([1i8, 2])?;
    assert_exact(&cp::where_([true, false], &i8s, 2.5)?, &[2], &[1.0f64, 2.5]);
    // np.where([True, False], np.array([1, 2], np.int32), np.array([0.5, 0.25], np.float32)) -> float64
    let r = cp::where_(
        [true, false],
        cp::asarray([1i32, 2])?,
        cp::asarray([0.5f32, 0.25])?,
    )?;
    assert_exact(&r, &[2], &[1.0f64, 0.25]);
    // A non-bool condition: np.where(np.array([0, 3, -1]), np.array([1, 2, 3], np.uint8), np.array([10], np.uint8))
    let r = cp::where_(
        [0i32, 3, -1],
        cp::asarray([1u8, 2, 3])?,
        cp::asarray([10u8])?,
    )?;
    assert_exact(&r, &[3], &[10u8, 2, 3]);
    // np.where([True, False], np.array([200, 1], np.uint8), np.array([-1, -2], np.int8)) -> int16
    let r = cp::where_(
        [true, false],
        cp::asarray([200u8, 1])?,
        cp::asarray([-1i8, -2])?,
    )?;
    assert_exact(&r, &[2], &[200i16, -2]);
    // An int8 array with a weak int that fits stays int8: np.where([True, False], i8s, 7)
    assert_exact(&cp::where_([true, false], &i8s, 7)?, &[2], &[1i8, 7]);
    // Non-contiguous operands: np.where(c.T, x[::-1][:3, None], 0.5)
    let xr = x.slice(s![..;-1])?.slice(s![..3, NewAxis])?; // [[3], [2], [1]]
    let r = cp::where_(c.t(), &xr, 0.5)?; // (1, 3) with (3, 1) -> (3, 3)
    assert_exact(
        &r,
        &[3, 3],
        &[3.0f32, 0.5, 3.0, 2.0, 0.5, 2.0, 1.0, 0.5, 1.0],
    );
    // Zero-size broadcast
    let r = cp::where_(cp::zeros([0, 1], cp::bool_)?, &x, 1.0)?;
    assert_eq!(r.shape(), &[0, 4]);
});

// ---------------------------------------------------------------------------
// put
// ---------------------------------------------------------------------------

on_every_device!(put_in_each_mode, |_dev| {
    // p = np.arange(6.0).reshape(2, 3); np.put(p, [0, -1, 2, 0], [10, 20])  (values cycle, last wins)
    let mut p = ar(6)?.astype(cp::f64)?.reshape([2, 3])?;
    cp::put(
        &mut p,
        [0i64, -1, 2, 0],
        cp::asarray([10i64, 20])?,
        PutMode::Raise,
    )?;
    assert_exact(&p, &[2, 3], &[20.0f64, 1.0, 10.0, 3.0, 4.0, 20.0]);
    // np.put(p, [-1, 7, -8], [10, 20, 30], mode='wrap')
    let mut p = ar(6)?.astype(cp::f64)?.reshape([2, 3])?;
    p.put(
        [-1i64, 7, -8],
        cp::asarray([10.0f64, 20.0, 30.0])?,
        PutMode::Wrap,
    )?;
    assert_exact(&p, &[2, 3], &[0.0f64, 20.0, 2.0, 3.0, 30.0, 10.0]);
    // np.put(p, [-1, 7, -8], [10, 20, 30], mode='clip')
    let mut p = ar(6)?.astype(cp::f64)?.reshape([2, 3])?;
    p.put(
        [-1i64, 7, -8],
        cp::asarray([10.0f64, 20.0, 30.0])?,
        PutMode::Clip,
    )?;
    assert_exact(&p, &[2, 3], &[30.0f64, 1.0, 2.0, 3.0, 4.0, 20.0]);
    // Through a transposed view, scalar value truncated:
    // p = np.arange(6, dtype=np.int16).reshape(2, 3); np.put(p.T, [0, 1, 5], 7.9)
    let p = ar(6)?.astype(cp::i16)?.reshape([2, 3])?;
    let mut v = p.t();
    v.put([0i64, 1, 5], 7.9, PutMode::Raise)?;
    assert_exact(&p, &[2, 3], &[7i16, 1, 2, 7, 4, 7]);
    // Through a reversed view: np.put(p[:, ::-1], [0, 4], [-1, -2])
    let p = ar(6)?.astype(cp::i16)?.reshape([2, 3])?;
    let mut v = p.slice(s![.., ..;-1])?;
    v.put([0u8, 4], cp::asarray([-1i64, -2])?, PutMode::Raise)?;
    assert_exact(&p, &[2, 3], &[0i16, 1, -1, 3, -2, 5]);
    // Empty values write nothing (np.put(b, [0, 1], []))
    let mut b = cp::zeros([4], cp::f64)?;
    b.put([0i64, 1], cp::asarray(Vec::<f64>::new())?, PutMode::Raise)?;
    assert_exact(&b, &[4], &[0.0f64; 4]);
    // 2-D index arrays are flattened: np.put(b, [[3], [1]], 5)
    b.put([[3i32], [1]], 5, PutMode::Raise)?;
    assert_exact(&b, &[4], &[0.0f64, 5.0, 0.0, 5.0]);
    // Empty indices into an empty array are fine.
    let mut e = cp::zeros([0], cp::f32)?;
    e.put(Vec::<i64>::new(), 1.0, PutMode::Wrap)?;
});

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

#[track_caller]
fn oob<T: std::fmt::Debug>(r: cp::Result<T>, index: i64, axis: usize, size: usize) {
    match r {
        Err(Error::IndexOutOfBounds {
            index: i,
            axis: a,
            size: s,
            ..
        }) => assert_eq!((i, a, s), (index, axis, size)),
        other => panic!("expected IndexOutOfBounds, got {other:?}"),
    }
}

on_every_device!(errors_out_of_bounds, |_dev| {
    let a = ar(12)?.reshape([3, 4])?;
    // a[3] / a[-4] (IndexError in NumPy)
    oob(a.slice(s![3]), 3, 0, 3);
    oob(a.at(-4), -4, 0, 3);
    // a[:, 4]
    oob(a.slice(s![.., 4]), 4, 1, 4);
    // a[..., -5]
    oob(a.slice(s![..., -5]), -5, 1, 4);
    oob(a.get(&[0, 9]), 9, 1, 4);
    let mut b = a.copy()?;
    oob(b.set(&[-4, 0], 1), -4, 0, 3);
    oob(b.slice_assign(s![1, 7], 1), 7, 1, 4);
    // np.take(a, [0, 3], axis=0); np.take(a, [-13]) (flattened)
    oob(a.take([0i64, 3], Some(0)), 3, 0, 3);
    oob(a.take([-13i64], None), -13, 0, 12);
    // u64 beyond i64::MAX is out of bounds too, not wrapped to a negative index
    oob(a.take([u64::MAX], None), i64::MAX, 0, 12);
    // A non-empty take from an empty axis fails in every mode.
    let e = cp::zeros([2, 0], cp::f32)?;
    oob(e.take_mode([0i64], Some(1), IndexMode::Wrap), 0, 1, 0);
    oob(e.take_mode([0i64], Some(1), IndexMode::Clip), 0, 1, 0);
    // np.put(a, [1, 12], 0) raises; nothing is written before the check
    let mut p = a.copy()?;
    oob(p.put([1i64, 12], 0, PutMode::Raise), 12, 0, 12);
    oob(cp::put(&mut p, [-13i64], 0, PutMode::Raise), -13, 0, 12);
    assert_eq!(p.to_vec::<i64>()?, (0..12).collect::<Vec<i64>>());
    let mut z = cp::zeros([0], cp::f64)?;
    oob(z.put([0i64], 1.0, PutMode::Clip), 0, 0, 0);
    // The message names the operation and the axis.
    let msg = a.take([5i64], Some(0)).unwrap_err().to_string();
    assert_eq!(msg, "take: index 5 is out of bounds for axis 0 with size 3");
});

on_every_device!(errors_bad_index_expressions, |_dev| {
    let a = ar(12)?.reshape([3, 4])?;
    // a[0, 1, 2]: too many indices
    let e = a.slice(s![0, 1, 2]).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { op: "slice", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("too many indices"), "{e}");
    // NewAxis and ... do not count: a[None, 0, ..., 1, None] is fine
    assert_eq!(a.slice(s![NewAxis, 0, ..., 1, NewAxis])?.shape(), &[1, 1]);
    // a[..., 0, ..., 1]: two ellipses
    assert!(matches!(
        a.slice(s![..., 0, ...]),
        Err(Error::InvalidArgument { .. })
    ));
    // a[::0]: zero step
    let e = a.slice(s![..;0]).unwrap_err();
    assert!(e.to_string().contains("step cannot be zero"), "{e}");
    // at() on a 0-d array: too many indices
    assert!(matches!(
        cp::asarray(1.0f32)?.at(0),
        Err(Error::InvalidArgument { .. })
    ));
    // get/set need one index per axis
    assert!(matches!(a.get(&[1]), Err(Error::InvalidArgument { .. })));
    assert!(matches!(
        a.copy()?.set(&[1, 2, 3], 0),
        Err(Error::InvalidArgument { .. })
    ));
    let mut b = a.copy()?;
    assert!(matches!(
        b.slice_assign(s![0, 0, 0], 1),
        Err(Error::InvalidArgument { .. })
    ));
});

on_every_device!(errors_wrong_dtypes, |_dev| {
    let a = ar(12)?.reshape([3, 4])?;
    // np.take(a, np.array([1.0])) -> TypeError: float indices
    let e = a.take([1.0f64], None).unwrap_err();
    assert!(matches!(e, Error::DType { op: "take", .. }), "{e}");
    assert!(e.to_string().contains("float64"), "{e}");
    assert!(matches!(
        a.take([Complex64::new(0.0, 0.0)], Some(0)),
        Err(Error::DType { .. })
    ));
    let mut p = a.copy()?;
    assert!(matches!(
        p.put([0.0f32], 1, PutMode::Raise),
        Err(Error::DType { op: "put", .. })
    ));
    // A mask must be bool: integer arrays go through take.
    let e = a.mask([1i64, 0, 1]).unwrap_err();
    assert!(matches!(e, Error::DType { op: "mask", .. }), "{e}");
    assert!(matches!(
        p.mask_assign([1.0f64, 0.0, 1.0], 0),
        Err(Error::DType { .. })
    ));
    // A Rust integer that does not fit the target integer dtype (NumPy 2:
    // x_int8[0] = 300 -> OverflowError).
    let mut i = ar(3)?.astype(cp::i8)?;
    assert!(matches!(
        i.slice_assign(s![0], 300),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        i.set(&[0], -129),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        i.put([0i64], 1000, PutMode::Raise),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        i.mask_assign([true, false, false], 256),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        cp::where_([true, false, true], &i, 300),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(i.to_vec::<i8>()?, vec![0, 1, 2]);
});

on_every_device!(errors_shapes_and_axes, |_dev| {
    let a = ar(12)?.reshape([3, 4])?;
    // a[np.array([True, False])]: mask does not match the leading axis
    let e = a.mask([true, false]).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "mask", .. }), "{e}");
    assert!(e.to_string().contains("axis 0"), "{e}");
    // A (3, 3) mask on a (3, 4) array: mismatch on axis 1
    let e = a.mask([[true; 3]; 3]).unwrap_err();
    assert!(e.to_string().contains("axis 1"), "{e}");
    // A mask with more axes than the array
    assert!(matches!(
        a.mask(cp::zeros([3, 4, 1], cp::bool_)?),
        Err(Error::Shape { .. })
    ));
    // a[m] = [1, 2] when m selects 3 elements: cannot broadcast (2,) to (3,)
    let mut b = a.copy()?;
    let m = cp::asarray([
        [true, false, false, false],
        [false; 4],
        [true, true, false, false],
    ])?;
    assert!(matches!(
        b.mask_assign(&m, cp::asarray([1i64, 2])?),
        Err(Error::Broadcast { .. })
    ));
    // a[:, 1:3] = [1, 2, 3]: cannot broadcast (3,) into (3, 2)
    assert!(matches!(
        b.slice_assign(s![.., 1..3], cp::asarray([1i64, 2, 3])?),
        Err(Error::Broadcast { .. })
    ));
    assert_eq!(b.to_vec::<i64>()?, (0..12).collect::<Vec<i64>>());
    // take along a missing axis
    assert!(matches!(
        a.take([0i64], Some(2)),
        Err(Error::Axis {
            axis: 2,
            ndim: 2,
            ..
        })
    ));
    assert!(matches!(
        a.index_select([0i64], -3),
        Err(Error::Axis { .. })
    ));
    // where_ with shapes that do not broadcast
    assert!(matches!(
        cp::where_([true, false], &a, 0),
        Err(Error::Broadcast { .. })
    ));
    // nonzero of a 0-d array (NumPy 2: ValueError)
    assert!(matches!(
        cp::nonzero(&cp::asarray(1.0f64)?),
        Err(Error::Shape { .. })
    ));
});

// ---------------------------------------------------------------------------
// Properties: slicing agrees with take on random shapes, bounds and steps
// ---------------------------------------------------------------------------

/// Python's `list(range(n))[start:stop:step]`, written out as a loop.
fn python_slice(n: usize, start: Option<isize>, stop: Option<isize>, step: isize) -> Vec<i64> {
    let n = n as isize;
    let adjust = |v: isize, neg_floor: isize, ceil: isize| {
        if v < 0 {
            (v + n).max(neg_floor)
        } else {
            v.min(ceil)
        }
    };
    let (floor, ceil) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let mut i = start.map_or(if step > 0 { 0 } else { n - 1 }, |v| adjust(v, floor, ceil));
    let end = stop.map_or(if step > 0 { n } else { -1 }, |v| adjust(v, floor, ceil));
    let mut out = Vec::new();
    while (step > 0 && i < end) || (step < 0 && i > end) {
        out.push(i as i64);
        i += step;
    }
    out
}

proptest::proptest! {
    #[test]
    fn slice_of_a_view_equals_take_of_python_positions(
        rows in 0usize..6,
        cols in 1usize..6,
        transpose in proptest::bool::ANY,
        r0 in proptest::option::of(-8isize..8),
        r1 in proptest::option::of(-8isize..8),
        rs in proptest::sample::select(vec![-3isize, -2, -1, 1, 2, 3]),
        c0 in proptest::option::of(-8isize..8),
        c1 in proptest::option::of(-8isize..8),
        cs in proptest::sample::select(vec![-3isize, -2, -1, 1, 2, 3]),
    ) {
        // A possibly transposed (non-contiguous) int32 base of shape (rows, cols).
        let base = if transpose {
            cp::arange((rows * cols) as i64).unwrap().astype(cp::i32).unwrap()
                .reshape([cols as isize, rows as isize]).unwrap().t()
        } else {
            cp::arange((rows * cols) as i64).unwrap().astype(cp::i32).unwrap()
                .reshape([rows as isize, cols as isize]).unwrap()
        };
        let elem = |a: Option<isize>, b: Option<isize>, step: isize| SliceElem::Slice {
            start: a, end: b, inclusive: false, step,
        };
        let v = base.slice([elem(r0, r1, rs), elem(c0, c1, cs)]).unwrap();
        let ri = python_slice(rows, r0, r1, rs);
        let ci = python_slice(cols, c0, c1, cs);
        let expect = base.take(ri.clone(), Some(0)).unwrap().take(ci.clone(), Some(1)).unwrap();
        proptest::prop_assert_eq!(v.shape(), &[ri.len(), ci.len()][..]);
        proptest::prop_assert_eq!(v.to_vec::<i32>().unwrap(), expect.to_vec::<i32>().unwrap());
        proptest::prop_assert!(v.shares_memory(&base));
    }
}

on_every_device!(take_and_mask_on_zero_size_arrays, |_dev| {
    // np.take(np.zeros((0, 3)), [1, 2], axis=1).shape -> (0, 2)
    let z = cp::zeros([0, 3], cp::f32)?;
    assert_eq!(z.take([1i64, 2], Some(1))?.shape(), &[0, 2]);
    // np.zeros((0, 3))[np.zeros(0, bool)].shape -> (0, 3)
    assert_eq!(z.mask(cp::zeros([0], cp::bool_)?)?.shape(), &[0, 3]);
    // z[np.zeros(0, bool)] = 1 is a no-op
    let mut z2 = z.clone();
    z2.mask_assign(cp::zeros([0], cp::bool_)?, 1.0)?;
    // np.zeros((0, 3))[:, ::-1].shape -> (0, 3)
    assert_eq!(z.slice(s![.., ..;-1])?.shape(), &[0, 3]);
    // np.zeros((0, 3))[:, 2] -> empty (0,), readable and copyable
    let col = z.slice(s![.., 2])?;
    assert_exact::<f32>(&col, &[0], &[]);
    assert_exact::<f32>(&z.slice(s![.., 1..;-1])?.copy()?, &[0, 2], &[]);
});

//! Operators on arrays (`&a + &b`, `&a * 2.0`, `-&a`, `!&m`, `a += &b`):
//! the same results as the functions, and panics carrying exactly the
//! functions' error messages. Expected values from NumPy 2.4 as noted.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::num_complex::{Complex32, Complex64};
use cuprite::Array;

/// The panic message of `f`, which must panic.
fn panic_message(f: impl FnOnce() -> Array) -> String {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .expect_err("the operator should panic");
    match err.downcast::<String>() {
        Ok(s) => *s,
        Err(e) => e
            .downcast::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

on_every_device!(arithmetic_operators, |dev| {
    let a = cp::asarray(vec![1.0, 2.0, 3.0])?;
    let b = cp::asarray(vec![4.0, 5.0, 6.0])?;
    // NumPy 2.4: a + b, a - b, a * b, a / b, b % a, -a
    assert_exact(&(&a + &b), &[3], &[5.0, 7.0, 9.0]);
    assert_exact(&(&a - &b), &[3], &[-3.0, -3.0, -3.0]);
    assert_exact(&(&a * &b), &[3], &[4.0, 10.0, 18.0]);
    assert_exact(&(&a / &b), &[3], &[0.25, 0.4, 0.5]);
    assert_exact(&(&b % &a), &[3], &[0.0, 1.0, 0.0]);
    assert_exact(&(-&a), &[3], &[-1.0, -2.0, -3.0]);
    // Scalars on either side: NumPy 2.4: a + 1.0, 10 - a, 2 * a, 1 / a, a % 2
    assert_exact(&(&a + 1.0), &[3], &[2.0, 3.0, 4.0]);
    assert_exact(&(10 - &a), &[3], &[9.0, 8.0, 7.0]);
    assert_exact(&(2 * &a), &[3], &[2.0, 4.0, 6.0]);
    assert_exact(&(1.0 / &a), &[3], &[1.0, 0.5, 1.0 / 3.0]);
    assert_exact(&(&a % 2), &[3], &[1.0, 0.0, 1.0]);
    // Owned arrays chain: NumPy 2.4: (a + b) * 2.0 - a
    let r = (&a + &b) * 2.0 - &a;
    assert_exact(&r, &[3], &[9.0, 12.0, 15.0]);
    let r = -(a.clone() * b.clone()) + 1.0;
    assert_exact(&r, &[3], &[-3.0, -9.0, -17.0]);
    let r = &a * (&b - 4.0);
    assert_exact(&r, &[3], &[0.0, 2.0, 6.0]);
    // Untyped literals chain with the array on the left; a literal on the
    // left of a chain is typed. NumPy 2.4: (a + 1.0) * 2 + (1.0 - a) * 3 -> [4, 3, 2]
    let r = (&a + 1.0) * 2 + (1.0f64 - &a) * 3;
    assert_exact(&r, &[3], &[4.0, 3.0, 2.0]);
    let r = (2i64 * &a + 1) / 2;
    assert_exact(&r, &[3], &[1.5, 2.5, 3.5]);
    // Broadcasting: NumPy 2.4: np.arange(3).reshape(3, 1) * np.arange(2)
    let col = cp::arange(3)?.reshape([3, 1])?;
    let row = cp::arange(2)?;
    assert_exact(&(&col * &row), &[3, 2], &[0i64, 0, 0, 1, 0, 2]);
});

on_every_device!(scalar_operands_keep_the_array_dtype, |dev| {
    // NEP 50: NumPy 2.4: np.array([1, 2], np.float32) * 2.0 -> float32
    let f = cp::asarray(vec![1.0f32, 2.0])?;
    assert_exact(&(&f * 2.0), &[2], &[2.0f32, 4.0]);
    assert_exact(&(&f * 2.0f32), &[2], &[2.0f32, 4.0]);
    // NumPy 2.4: np.array([100, 1], np.int8) + 100 -> int8 [-56, 101] (wraps)
    let i = cp::asarray(vec![100i8, 1])?;
    assert_exact(&(&i + 100), &[2], &[-56i8, 101]);
    assert_exact(&(&i + 100u8), &[2], &[-56i8, 101]);
    assert_exact(&(&i + 100i64), &[2], &[-56i8, 101]);
    // NumPy 2.4: np.array([100, 1], np.int8) + 1.5 -> float64
    assert_exact(&(&i + 1.5), &[2], &[101.5f64, 2.5]);
    // NumPy 2.4: np.array([1, 2], np.int8) / np.array([2, 4], np.int8) -> float64 [0.5, 0.5]
    let j = cp::asarray(vec![2i8, 4])?;
    assert_exact(&(&cp::asarray(vec![1i8, 2])? / &j), &[2], &[0.5f64, 0.5]);
    // Every supported scalar type works with an int64 array.
    let x = cp::asarray(vec![6i64])?;
    for r in [
        &x + 1i8,
        &x + 1i16,
        &x + 1i32,
        &x + 1i64,
        &x + 1isize,
        &x + 1u8,
        &x + 1u16,
        &x + 1u32,
        &x + 1u64,
        &x + 1usize,
        &x + true,
    ] {
        assert_exact(&r, &[1], &[7i64]);
    }
    assert_exact(&(&x + 1.0f32), &[1], &[7.0f64]);
    // Complex scalars: NumPy 2.4: np.array([1, 2], np.float32) * 1j -> complex64 [1j, 2j]
    let c = &f * Complex32::new(0.0, 1.0);
    assert_exact(
        &c,
        &[2],
        &[Complex32::new(0.0, 1.0), Complex32::new(0.0, 2.0)],
    );
    let c = Complex64::new(1.0, 1.0) + &f;
    assert_exact(
        &c,
        &[2],
        &[Complex32::new(2.0, 1.0), Complex32::new(3.0, 1.0)],
    );
});

on_every_device!(bitwise_and_logical_operators, |dev| {
    let m = cp::asarray(vec![true, false, true])?;
    let n = cp::asarray(vec![true, true, false])?;
    // NumPy 2.4: m & n, m | n, m ^ n, ~m
    assert_exact(&(&m & &n), &[3], &[true, false, false]);
    assert_exact(&(&m | &n), &[3], &[true, true, true]);
    assert_exact(&(&m ^ &n), &[3], &[false, true, true]);
    assert_exact(&(!&m), &[3], &[false, true, false]);
    assert_exact(&(&m & true), &[3], &[true, false, true]);
    // Bool arithmetic: NumPy 2.4: m + n -> logical or; m * n -> logical and
    assert_exact(&(&m + &n), &[3], &[true, true, true]);
    assert_exact(&(&m * &n), &[3], &[true, false, false]);
    // NumPy 2.4: np.array([12, -1], np.int16) & 10, | 1, ^ 5, ~x, << 2, >> 1
    let x = cp::asarray(vec![12i16, -1])?;
    assert_exact(&(&x & 10), &[2], &[8i16, 10]);
    assert_exact(&(&x | 1), &[2], &[13i16, -1]);
    assert_exact(&(&x ^ 5), &[2], &[9i16, -6]);
    assert_exact(&(!&x), &[2], &[-13i16, 0]);
    assert_exact(&(&x << 2), &[2], &[48i16, -4]);
    assert_exact(&(&x >> 1), &[2], &[6i16, -1]);
    assert_exact(&(!x.clone()), &[2], &[-13i16, 0]);
    // Comparisons give masks that combine with the operators.
    let v = cp::asarray(vec![1.0, 5.0, 9.0])?;
    let inside = cp::greater(&v, 2.0)? & cp::less(&v, 8.0)?;
    assert_exact(&inside, &[3], &[false, true, false]);
});

on_every_device!(assignment_operators_write_in_place, |dev| {
    let mut a = cp::asarray(vec![1.0, 2.0, 3.0])?;
    let view = a.clone(); // shares the buffer, as in CuPy
    a += 1.0;
    a *= &cp::asarray(vec![2.0, 2.0, 2.0])?;
    a -= 1;
    a /= 2.0;
    // NumPy 2.4: a = np.array([1., 2., 3.]); a += 1; a *= 2; a -= 1; a /= 2 -> [1.5, 2.5, 3.5]
    assert_exact(&a, &[3], &[1.5, 2.5, 3.5]);
    assert_exact(&view, &[3], &[1.5, 2.5, 3.5]);
    a %= 1.0;
    assert_exact(&a, &[3], &[0.5, 0.5, 0.5]);
    // Broadcast right-hand side into a transposed view.
    let m = cp::zeros([2, 3], cp::i32)?;
    let mut mt = m.t();
    mt += cp::asarray(vec![1i32, 2])?;
    // NumPy 2.4: m = np.zeros((2, 3), np.int32); mt = m.T; mt += [1, 2]; m.ravel()
    assert_exact(&m, &[2, 3], &[1i32, 1, 1, 2, 2, 2]);
    let mut bits = cp::asarray(vec![6u8, 3])?;
    bits &= 5u8;
    bits |= 8;
    bits ^= 1;
    // NumPy 2.4: b = np.array([6, 3], np.uint8); b &= 5; b |= 8; b ^= 1 -> [13, 8]
    assert_exact(&bits, &[2], &[13u8, 8]);
});

#[test]
#[should_panic(expected = "add: cannot broadcast shapes (3, 4) and (5,)")]
fn add_panics_with_the_broadcast_error() {
    let a = cp::ones([3, 4], cp::f64).unwrap();
    let b = cp::ones([5], cp::f64).unwrap();
    let _ = &a + &b;
}

#[test]
#[should_panic(expected = "add: the Rust integer 300 does not fit in uint8")]
fn scalar_out_of_range_panics() {
    let a = cp::asarray(vec![1u8, 2]).unwrap();
    let _ = &a + 300;
}

#[test]
#[should_panic(expected = "subtract: boolean subtract (the `-` operator) is not supported")]
fn bool_subtract_panics() {
    let m = cp::asarray(vec![true]).unwrap();
    let _ = &m - &m;
}

#[test]
#[should_panic(expected = "negative: boolean negative (the `-` operator) is not supported")]
fn bool_negative_panics() {
    let m = cp::asarray(vec![true]).unwrap();
    let _ = -&m;
}

#[test]
#[should_panic(expected = "add: cannot cast float64 to int64 under the 'same_kind' casting rule")]
fn in_place_add_of_floats_to_ints_panics() {
    // NumPy 2.4: a = np.array([1]); a += 1.5 raises UFuncTypeError (same_kind).
    let mut a = cp::asarray(vec![1i64]).unwrap();
    a += 1.5;
}

/// Every panic message is exactly the error message of the `Result` form.
#[test]
fn panic_messages_equal_the_function_errors() {
    let f = cp::asarray(vec![1.0, 2.0]).unwrap();
    let g = cp::ones([3], cp::f64).unwrap();
    let b = cp::asarray(vec![true, false]).unwrap();
    let cases: Vec<(String, String)> = vec![
        (
            cp::add(&f, &g).unwrap_err().to_string(),
            panic_message(|| &f + &g),
        ),
        (
            cp::multiply(&f, &g).unwrap_err().to_string(),
            panic_message(|| f.clone() * g.clone()),
        ),
        (
            cp::bitwise_and(&f, 1).unwrap_err().to_string(),
            panic_message(|| &f & 1),
        ),
        (
            cp::bitwise_xor(true, &f).unwrap_err().to_string(),
            panic_message(|| true ^ &f),
        ),
        (
            cp::invert(&f).unwrap_err().to_string(),
            panic_message(|| !&f),
        ),
        (
            cp::subtract(&b, &b).unwrap_err().to_string(),
            panic_message(|| &b - &b),
        ),
        (
            cp::remainder(cp::asarray(vec![Complex64::new(1.0, 0.0)]).unwrap(), 2)
                .unwrap_err()
                .to_string(),
            panic_message(|| &cp::asarray(vec![Complex64::new(1.0, 0.0)]).unwrap() % 2),
        ),
    ];
    for (err, msg) in cases {
        assert_eq!(msg, err);
    }
}

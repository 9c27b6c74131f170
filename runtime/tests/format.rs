//! NumPy-style text for arrays (`Display` is `str(x)`, `Debug` is `repr(x)`).

use cuprite as cp;

// Expected strings: str(x) and repr(x) in NumPy 2.4.
#[test]
fn text_matches_numpy() -> cp::Result<()> {
    let y = cp::asarray([3.0f32, 12.0])?;
    assert_eq!(y.to_string(), "[ 3. 12.]");
    assert_eq!(format!("{y:?}"), "array([ 3., 12.], dtype=float32)");

    let i = cp::arange(6)?.reshape([2, 3])?;
    assert_eq!(i.to_string(), "[[0 1 2]\n [3 4 5]]");
    assert_eq!(format!("{i:?}"), "array([[0, 1, 2],\n       [3, 4, 5]])");

    let f = cp::asarray([0.1, 2.5, -3.0])?;
    assert_eq!(f.to_string(), "[ 0.1  2.5 -3. ]");
    assert_eq!(format!("{f:?}"), "array([ 0.1,  2.5, -3. ])");

    assert_eq!(cp::asarray([1e-5, 1.0])?.to_string(), "[1.e-05 1.e+00]");
    assert_eq!(cp::asarray([true, false])?.to_string(), "[ True False]");
    let c = cp::asarray([
        cp::prelude::Complex64::new(1.0, 2.0),
        cp::prelude::Complex64::new(-0.5, -1.0),
    ])?;
    assert_eq!(c.to_string(), "[ 1. +2.j -0.5-1.j]");
    assert_eq!(
        cp::arange(2000.0)?.to_string(),
        "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]"
    );
    assert_eq!(
        format!("{:?}", cp::zeros([2, 0], cp::f64)?),
        "array([], shape=(2, 0), dtype=float64)"
    );
    assert_eq!(cp::asarray(2.5)?.to_string(), "2.5");
    assert_eq!(format!("{:?}", cp::asarray(2.5)?), "array(2.5)");
    let t = cp::arange(24)?.reshape([2, 3, 4])?.astype(cp::i8)?;
    assert_eq!(
        t.to_string(),
        "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]"
    );
    assert_eq!(
        cp::asarray([f64::NAN, 1.5, f64::INFINITY])?.to_string(),
        "[nan 1.5 inf]"
    );
    Ok(())
}

//! Each panic the API fuzzing found, kept as a case: the call now returns
//! `Ok` or an `Err` naming its operation.

use cuprite as cp;
use cuprite::fft::FftOptions;
use cuprite::DType;

/// `rfft_with`, `ihfft_with`, `rfft2_with`, `rfftn_with` of a `(1, 0)` array
/// along axis 0 with `n = 1` panicked in the CPU FFT ("chunk size must be
/// non-zero": cutting an empty array into lanes of length 0).
#[test]
fn real_fft_of_an_empty_array_along_a_leading_axis() {
    let a = cp::zeros([1usize, 0], DType::Bool).unwrap();
    let o = FftOptions {
        n: Some(1),
        axis: 0,
        ..FftOptions::default()
    };
    assert_eq!(cp::fft::rfft_with(&a, &o).unwrap().shape(), [1, 0]);
    assert_eq!(cp::fft::ihfft_with(&a, &o).unwrap().shape(), [1, 0]);
    let on = cp::fft::FftnOptions::new().axes(vec![-2]);
    // Ok or Err; the case is that neither panics.
    let _ = cp::fft::rfft2_with(&a, &on);
    let _ = cp::fft::rfftn_with(&a, &on);
}

/// `interp` with an unsorted `xp` whose first point is above `x` panicked
/// in the CPU loop ("attempt to subtract with overflow": no point of `xp`
/// at or below `x`). NumPy gives an unspecified value, not an error.
#[test]
fn interp_with_an_unsorted_xp() {
    let x = cp::asarray(vec![1.0f64]).unwrap();
    // The binary search finds no point <= 1.0 among the NaNs before 2.0.
    let xp = cp::asarray(vec![f64::NAN, f64::NAN, 2.0]).unwrap();
    let fp = cp::asarray(vec![0.0f64, 1.0, 2.0]).unwrap();
    assert_eq!(cp::interp(&x, &xp, &fp).unwrap().shape(), [1]);
}

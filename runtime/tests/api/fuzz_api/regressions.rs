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

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
/// at or below `x`), and on the GPU its kernel read `xp[-1]` (an illegal
/// address that ended the context). NumPy gives an unspecified value, not
/// an error; the GPU must stay usable.
#[test]
fn interp_with_an_unsorted_xp() {
    let on = |dev: cp::Device| {
        cp::with_device(dev, || {
            let x = cp::asarray(vec![1.0f64, 0.5]).unwrap();
            // The binary search finds no point <= 1.0 among the NaNs before 2.0.
            let xp = cp::asarray(vec![f64::NAN, f64::NAN, 2.0]).unwrap();
            let fp = cp::asarray(vec![0.0f64, 1.0, 2.0]).unwrap();
            let y = cp::interp(&x, &xp, &fp).unwrap();
            y.to_vec::<f64>().unwrap()
        })
    };
    assert_eq!(on(cp::Device::Cpu).len(), 2);
    if let Some(gpu) = crate::common::gpu_or_skip() {
        // Unspecified values (the devices' searches may differ), but the
        // context must live on.
        assert_eq!(on(gpu).len(), 2);
        cp::with_device(gpu, || {
            let after = cp::arange(4).unwrap().to_vec::<i64>().unwrap();
            assert_eq!(after, [0, 1, 2, 3]);
        });
    }
}

/// The GPU's inverse DCT/DST of an integer input (computed in float64, as
/// SciPy does) came out rounded to float32 in the fuzzing: element 3 of
/// `idct_with(uint32 [2], n = 7)` was 0.21428570940930147, a float32 value,
/// where the CPU gave 3/14. Each type, both directions, against the CPU.
#[test]
fn inverse_real_transforms_of_integers_keep_float64_on_the_gpu() {
    let Some(gpu) = crate::common::gpu_or_skip() else {
        return;
    };
    let o = FftOptions {
        n: Some(7),
        ..FftOptions::default()
    };
    type Transform = fn(&cp::Array, u8, &FftOptions) -> cp::Result<cp::Array>;
    let transforms: [(&str, Transform); 4] = [
        ("dct", cp::fft::dct_with),
        ("idct", cp::fft::idct_with),
        ("dst", cp::fft::dst_with),
        ("idst", cp::fft::idst_with),
    ];
    for dtype in [DType::UInt32, DType::Float64] {
        for (name, f) in transforms {
            for kind in 1..=4u8 {
                let run = |dev: cp::Device| {
                    cp::with_device(dev, || {
                        let x = cp::asarray(vec![3u32, 0, 5]).unwrap().astype(dtype).unwrap();
                        let x = x.slice(cp::s![..;2]).unwrap();
                        let y = f(&x, kind, &o).unwrap();
                        assert_eq!(y.dtype(), DType::Float64, "{name} type {kind}");
                        y.to_vec::<f64>().unwrap()
                    })
                };
                let (c, g) = (run(cp::Device::Cpu), run(gpu));
                for (i, (a, b)) in c.iter().zip(&g).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-13 * (1.0 + a.abs()),
                        "{name} type {kind} of {dtype} element {i}: CPU {a} GPU {b}"
                    );
                }
            }
        }
    }
}

//! Each panic the API fuzzing found, kept as a case: the call now returns
//! `Ok` or an `Err` naming its operation.

use cuprite as cp;
use cuprite::fft::FftOptions;
use cuprite::{DType, SliceElem};

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
                        let x = cp::asarray(vec![3u32, 0, 5])
                            .unwrap()
                            .astype(dtype)
                            .unwrap();
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

/// `round_decimals(x, i32::MIN)` panicked ("attempt to negate with
/// overflow"); NumPy gives NaN for a power of ten out of range.
#[test]
fn round_with_extreme_decimals() {
    let x = cp::asarray(vec![1.5f64, -2.25]).unwrap();
    for d in [i32::MIN, i32::MAX, 400, -400] {
        let r = cp::round_decimals(&x, d).unwrap().to_vec::<f64>().unwrap();
        assert!(r.iter().all(|v| v.is_nan()), "decimals {d}: {r:?}");
    }
    let i = cp::asarray(vec![15i64]).unwrap();
    assert_eq!(
        cp::round_decimals(&i, i32::MIN)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        [0]
    );
}

/// A slice step of `isize::MIN` panicked ("attempt to negate with
/// overflow"); it takes one element, as in NumPy.
#[test]
fn slice_with_the_most_negative_step() {
    let a = cp::arange(4).unwrap();
    let s = a.slice([SliceElem::stepped(.., isize::MIN)]).unwrap();
    assert_eq!(s.to_vec::<i64>().unwrap(), [3]);
}

/// `fft_with(n = usize::MAX)` of a `(0, 0)` array panicked in a slice
/// ("min > max"): `zeros` accepted an axis longer than `isize::MAX` because
/// the element count was 0.
#[test]
fn an_axis_longer_than_isize_max_is_refused() {
    assert!(cp::zeros([0, usize::MAX], DType::Float64).is_err());
    let a = cp::zeros([0usize, 0], DType::Bool).unwrap();
    let e = cp::fft::fft_with(&a, &FftOptions::default().n(usize::MAX)).unwrap_err();
    assert!(e.to_string().contains(':'), "{e}");
}

/// `ndimage.zoom` by 1e300 aborted the process (a 34 GB host allocation
/// failed); the output shape is now checked first.
#[test]
fn zoom_to_an_impossible_size() {
    let a = cp::ones([3usize], DType::Float64).unwrap();
    let o = cp::ndimage::InterpOptions::default();
    assert!(cp::ndimage::zoom(&a, &[1e300], false, &o).is_err());
}

/// Windows, IIR designs, frequency responses and Savitzky-Golay
/// coefficients of an absurd length (usize::MAX, 2^62) panicked
/// ("capacity overflow", "attempt to add with overflow", faer's unwrap).
#[test]
fn signal_designs_of_absurd_sizes() {
    use cp::signal::{self as s, windows as w, FreqzOptions, IirOptions, WorN};
    for m in [usize::MAX, 1 << 62] {
        assert!(s::hann(m, true).is_err());
        assert!(w::kaiser(m, 8.6, false).is_err());
        assert!(w::dpss(m, 2.0, false).is_err());
        assert!(s::butter(m, &[0.2], IirOptions::default()).is_err());
        assert!(s::bessel(m, &[0.2], Default::default(), IirOptions::default()).is_err());
        let o = FreqzOptions {
            wor_n: WorN::Count(m),
            ..FreqzOptions::default()
        };
        assert!(s::freqz(&[1.0], &[1.0], o.clone()).is_err());
        assert!(s::group_delay(&[1.0], &[1.0], o).is_err());
        assert!(s::savgol_coeffs(m, 2, 0, 1.0, None, true).is_err());
        let x = cp::ones([8usize], DType::Float64).unwrap();
        assert!(s::resample_poly(&x, m, 1, -1, s::Window::Hann).is_err());
        assert!(s::decimate(&x, m, None, s::DecimateFilter::Fir, -1).is_err());
        assert!(s::decimate(&x, 2, Some(m), s::DecimateFilter::Fir, -1).is_err());
    }
}

/// `choose_conv_method` of two empty arrays panicked ("attempt to
/// subtract with overflow").
#[test]
fn conv_method_of_empty_inputs() {
    let e = cp::zeros([0usize], DType::Float64).unwrap();
    let _ = cp::signal::choose_conv_method(&e, &e, cp::signal::Mode::Full);
}

/// The signal name parsers' errors named "signal mode", "filter btype"...
/// (not an operation); they now name the parser.
#[test]
fn signal_parsers_name_themselves() {
    use cp::signal as s;
    let texts = [
        s::Mode::parse("x").unwrap_err().to_string(),
        s::Method::parse("x").unwrap_err().to_string(),
        s::Boundary::parse("x").unwrap_err().to_string(),
        s::BandType::parse("x").unwrap_err().to_string(),
        s::FilterForm::parse("x").unwrap_err().to_string(),
    ];
    for t in texts {
        assert!(t.contains("::parse: "), "{t}");
    }
}

/// A huge `order` of `argrelextrema`, and a huge iteration count of
/// `iterate_structure` and the binary morphology, spun for ever; the loops
/// now stop where further steps change nothing.
#[test]
fn huge_counts_end() {
    let x = cp::asarray(vec![0.0f64, 2.0, 1.0, 3.0]).unwrap();
    let m = cp::signal::argrelmax(&x, 0, usize::MAX, Default::default()).unwrap();
    assert_eq!(m[0].size(), 0);
    let one = cp::ones([1usize, 1], DType::Bool).unwrap();
    assert_eq!(
        cp::ndimage::iterate_structure(&one, usize::MAX)
            .unwrap()
            .shape(),
        [1, 1]
    );
    let cross = cp::ndimage::generate_binary_structure(2, 1).unwrap();
    assert!(cp::ndimage::iterate_structure(&cross, usize::MAX).is_err());
    let img = cp::ones([4usize, 4], DType::Bool).unwrap();
    let o = cp::ndimage::BinaryOptions::default().iterations(usize::MAX);
    assert_eq!(
        cp::ndimage::binary_erosion(&img, &o).unwrap().shape(),
        [4, 4]
    );
}

/// `find_objects` of an array holding the label i64::MAX aborted the
/// process (one slot per label up to the largest).
#[test]
fn find_objects_of_a_huge_label() {
    let a = cp::asarray(vec![0i64, i64::MAX, 1]).unwrap();
    assert!(cp::ndimage::find_objects(&a, 0).is_err());
}

/// `grey_closing` / `grey_opening` of a 0-d array (a footprint of no
/// elements) panicked ("attempt to subtract with overflow": rank n - 1).
#[test]
fn grey_morphology_of_a_0d_array() {
    let a = cp::asarray(vec![true])
        .unwrap()
        .reshape(Vec::<isize>::new())
        .unwrap();
    let o = cp::ndimage::FilterOptions::default();
    let _ = cp::ndimage::grey_closing(&a, &[] as &[usize], None, &o);
    let _ = cp::ndimage::grey_opening(&a, 2usize, None, &o);
}

/// Zero and absurd sizes in the rank and grey-morphology filters panicked
/// ("capacity overflow" allocating a window of usize::MAX; "attempt to
/// multiply with overflow" counting one). A zero extent now follows SciPy:
/// the min/max, uniform and grey filters leave that axis as it is, while
/// the median, rank and percentile filters and the 1-D filters refuse an
/// empty window; an absurd size is an error naming the function and size.
#[test]
fn filters_of_zero_and_absurd_sizes() {
    use cp::ndimage as nd;
    let on = |dev: cp::Device| {
        cp::with_device(dev, || {
            let a = cp::arange(12)
                .unwrap()
                .astype(DType::Float64)
                .unwrap()
                .reshape([3isize, 4])
                .unwrap();
            let o = nd::FilterOptions::default();
            let row0 = |r: cp::Result<cp::Array>| -> Vec<f64> {
                r.unwrap().to_vec::<f64>().unwrap()[..4].to_vec()
            };
            // SciPy 1.17's first rows for size (0, 2) and (2, 0).
            assert_eq!(
                row0(nd::minimum_filter(&a, [0, 2], &o)),
                [0.0, 0.0, 1.0, 2.0]
            );
            assert_eq!(
                row0(nd::maximum_filter(&a, [2, 0], &o)),
                [0.0, 1.0, 2.0, 3.0]
            );
            assert_eq!(
                row0(nd::uniform_filter(&a, &[0, 2], &o)),
                [0.0, 0.5, 1.5, 2.5]
            );
            assert_eq!(
                row0(nd::grey_dilation(&a, [2, 0], None, &o)),
                [4.0, 5.0, 6.0, 7.0]
            );
            assert_eq!(
                row0(nd::grey_closing(&a, [0, 2], None, &o)),
                [1.0, 1.0, 2.0, 3.0]
            );
            assert_eq!(
                row0(nd::grey_opening(&a, 0, None, &o)),
                [0.0, 1.0, 2.0, 3.0]
            );
            assert_eq!(
                row0(nd::grey_erosion(&a, 0, None, &o)),
                [0.0, 1.0, 2.0, 3.0]
            );
            // SciPy raises for an empty rank window and a 1-D size of 0.
            assert!(nd::median_filter(&a, 0, &o).is_err());
            assert!(nd::rank_filter(&a, 0, [0, 2], &o).is_err());
            assert!(nd::percentile_filter(&a, 50.0, [2, 0], &o).is_err());
            assert!(nd::uniform_filter1d(&a, 0, 1, &o).is_err());
            assert!(nd::minimum_filter1d(&a, 0, 1, &o).is_err());
            for big in [usize::MAX, 1 << 62] {
                let named = |r: cp::Result<cp::Array>, name: &str| {
                    let e = r.unwrap_err().to_string();
                    assert!(e.contains(name) && e.contains(&big.to_string()), "{e}");
                };
                named(nd::minimum_filter(&a, [big, 2], &o), "minimum_filter");
                named(nd::maximum_filter(&a, [0, big], &o), "maximum_filter");
                named(nd::median_filter(&a, big, &o), "median_filter");
                named(nd::rank_filter(&a, 1, [2, big], &o), "rank_filter");
                named(nd::percentile_filter(&a, 5.0, big, &o), "percentile_filter");
                named(nd::uniform_filter(&a, &[big], &o), "uniform_filter");
                named(nd::uniform_filter1d(&a, big, 0, &o), "uniform_filter1d");
                named(nd::minimum_filter1d(&a, big, 0, &o), "minimum_filter1d");
                named(nd::maximum_filter1d(&a, big, 0, &o), "maximum_filter1d");
                named(nd::grey_erosion(&a, big, None, &o), "grey_erosion");
                named(nd::grey_dilation(&a, [1, big], None, &o), "grey_dilation");
                named(nd::grey_opening(&a, [big, 0], None, &o), "grey_opening");
                named(nd::grey_closing(&a, big, None, &o), "grey_closing");
            }
        })
    };
    on(cp::Device::Cpu);
    if let Some(gpu) = crate::common::gpu_or_skip() {
        on(gpu);
    }
}

/// `maximum_filter` of a 0-d array panicked ("attempt to subtract with
/// overflow": its one tap was counted as none); it returns the input.
#[test]
fn maximum_filter_of_a_0d_array() {
    let a = cp::asarray(vec![2.5f64])
        .unwrap()
        .reshape(Vec::<isize>::new())
        .unwrap();
    let o = cp::ndimage::FilterOptions::default();
    let m = cp::ndimage::maximum_filter(&a, 3usize, &o).unwrap();
    assert_eq!(m.to_vec::<f64>().unwrap(), [2.5]);
}

/// An origin of isize::MAX or isize::MIN panicked ("attempt to add with
/// overflow" placing the window's centre; "attempt to negate with
/// overflow" mirroring it for a convolution or dilation). SciPy's rule:
/// `-(size // 2) <= origin <= (size - 1) // 2`; anything else is an error
/// naming the function and the origin.
#[test]
fn filters_with_extreme_origins() {
    use cp::ndimage as nd;
    let a = cp::ones([4usize, 5], DType::Float64).unwrap();
    let w = cp::ones([2usize, 3], DType::Float64).unwrap();
    for origin in [isize::MAX, isize::MIN] {
        let all = nd::FilterOptions::default().origin(origin);
        let per = nd::FilterOptions::default().origins(&[0, origin]);
        for o in [&all, &per] {
            let results = [
                ("correlate", nd::correlate(&a, &w, o)),
                ("convolve", nd::convolve(&a, &w, o)),
                ("minimum_filter", nd::minimum_filter(&a, 3usize, o)),
                ("maximum_filter", nd::maximum_filter(&a, &w, o)),
                ("median_filter", nd::median_filter(&a, 3usize, o)),
                ("rank_filter", nd::rank_filter(&a, 1, [2usize, 2], o)),
                ("percentile_filter", nd::percentile_filter(&a, 20.0, &w, o)),
                ("uniform_filter", nd::uniform_filter(&a, &[3], o)),
                ("grey_erosion", nd::grey_erosion(&a, 2usize, None, o)),
                ("grey_dilation", nd::grey_dilation(&a, 2usize, None, o)),
                ("grey_opening", nd::grey_opening(&a, &w, None, o)),
                ("grey_closing", nd::grey_closing(&a, 3usize, Some(&w), o)),
            ];
            for (name, r) in results {
                let e = r.unwrap_err().to_string();
                assert!(e.contains(name) && e.contains(&origin.to_string()), "{e}");
            }
        }
        let one = &all;
        let results = [
            ("correlate1d", nd::correlate1d(&a, &[1.0, 2.0], 0, one)),
            ("convolve1d", nd::convolve1d(&a, &[1.0, 2.0], 1, one)),
            ("uniform_filter1d", nd::uniform_filter1d(&a, 3, 0, one)),
            ("minimum_filter1d", nd::minimum_filter1d(&a, 2, 1, one)),
            ("maximum_filter1d", nd::maximum_filter1d(&a, 4, 0, one)),
        ];
        for (name, r) in results {
            let e = r.unwrap_err().to_string();
            assert!(e.contains(name) && e.contains(&origin.to_string()), "{e}");
        }
        let bo = nd::BinaryOptions::default().origin(origin);
        let b = cp::ones([4usize, 5], DType::Bool).unwrap();
        assert!(nd::binary_dilation(&b, &bo).is_err());
        assert!(nd::binary_erosion(&b, &bo).is_err());
    }
}

/// `decimate` by q = 2^62 or usize::MAX with a short FIR (`n` given)
/// panicked ("attempt to add with overflow" padding the filter to a
/// multiple of q); it was then an error. The polyphase upfirdn pads
/// nothing, so it now gives the one output sample the definition asks
/// for: y[0] = sum h[k] x[2 - k] with the 5 Hamming taps normalized to a
/// unit sum, (0.08 * 2 + 0.54 * 1) / 2.24 = 0.3125. The IIR path sliced
/// with `q as isize`, a step of -1 for usize::MAX (the signal reversed);
/// it keeps the first sample, as any step past the end does.
#[test]
fn decimate_by_an_absurd_factor() {
    use cp::signal::{decimate, DecimateFilter};
    let x = cp::arange(8).unwrap().astype(DType::Float64).unwrap();
    for q in [usize::MAX, 1 << 62] {
        let y = decimate(&x, q, Some(4), DecimateFilter::Fir, -1).unwrap();
        assert_eq!(y.shape(), [1], "q {q}");
        let v = y.to_vec::<f64>().unwrap()[0];
        assert!((v - 0.3125).abs() < 1e-12, "q {q}: {v}");
        if let Ok(y) = decimate(&x, q, None, DecimateFilter::Iir, 0) {
            assert_eq!(y.shape(), [1], "q {q}");
        }
    }
}

/// A Gaussian filter of sigma 1e300 aborted the process (a kernel of
/// usize::MAX taps); it is now an error naming the filter.
#[test]
fn gaussian_filter_of_a_huge_sigma() {
    use cp::ndimage as nd;
    let a = cp::ones([3usize, 4], DType::Float64).unwrap();
    let o = nd::FilterOptions::default();
    for sigma in [1e300, 1e10] {
        let e = nd::gaussian_filter(&a, &[sigma], &[0], &o).unwrap_err();
        assert!(e.to_string().contains("gaussian_filter"), "{e}");
        assert!(nd::gaussian_filter1d(&a, sigma, 0, 1, &o).is_err());
    }
}

/// `zpk2sos` with NaN poles panicked ("removal index (is 0) should be <
/// len (is 0)"): `cplxreal` drops a NaN, so the poles ran out before the
/// sections did; it is now an error naming `zpk2sos`.
#[test]
fn zpk2sos_of_nan_poles() {
    use cp::num_complex::Complex64;
    use cp::signal::{zpk2sos, Pairing};
    let nan = Complex64::new(f64::NAN, f64::NAN);
    let e = zpk2sos(&[], &[nan; 3], 1.0, None, false).unwrap_err();
    assert!(e.to_string().contains("zpk2sos"), "{e}");
    assert!(zpk2sos(&[], &[nan; 2], 1.0, Some(Pairing::KeepOdd), false).is_err());
}

/// `map_coordinates` of an input with an empty axis panicked in the CPU
/// spline loop ("index out of bounds: the len is 0"); as SciPy, every
/// point is outside and takes `cval`.
#[test]
fn map_coordinates_of_an_empty_input() {
    use cp::ndimage as nd;
    let a = cp::zeros([0usize, 3], DType::Float64).unwrap();
    let c = cp::asarray(vec![vec![0.0f64], vec![1.0]]).unwrap();
    let o = nd::InterpOptions::default().cval(2.5);
    let y = nd::map_coordinates(&a, &c, &o).unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), [2.5]);
}

/// `fftn_with` with transform lengths whose product overflows (`s = [2^62,
/// 2^62]`) panicked on the overflowing count; it is an error naming fftn.
#[test]
fn fftn_of_lengths_whose_count_overflows() {
    let x = cuprite::ones([2usize, 2], cuprite::DType::Complex128).unwrap();
    let o = cuprite::fft::FftnOptions::default().s(vec![1usize << 62, 1usize << 62]);
    let e = cuprite::fft::fftn_with(&x, &o).unwrap_err();
    assert!(e.to_string().starts_with("fftn"), "{e}");
}

/// The H200's fuzzing (session 27): a 0-d input's window has one tap and no
/// offsets, which the backends counted as no tap. The GPU then returned its
/// output buffer unwritten (whatever the pool held: `correlate` of `true` by
/// -1 gave -1 on one run, 1 on another) and the CPU a sum of nothing (-0);
/// `binary_erosion`/`dilation`/`opening`/`closing` of a 0-d input differed
/// the same way. Weights that are all zero (no taps) are the other road to
/// an unwritten buffer. Expected values are SciPy's.
#[test]
fn filters_and_morphology_of_a_0d_input() {
    use cp::ndimage as nd;
    let on = |dev: cp::Device| {
        cp::with_device(dev, || {
            let scalar = |v: f64, dt: DType| {
                cp::asarray(vec![v])
                    .unwrap()
                    .astype(dt)
                    .unwrap()
                    .reshape(Vec::<isize>::new())
                    .unwrap()
            };
            let o = nd::FilterOptions::default();
            let t = scalar(1.0, DType::Bool);
            let f = scalar(0.0, DType::Bool);
            let w = scalar(-1.0, DType::Float32);
            let c = nd::correlate(&t, &w, &o).unwrap();
            assert_eq!(c.shape(), [] as [usize; 0]);
            assert_eq!(c.to_vec::<f64>().unwrap(), [-1.0]);
            let x = scalar(2.5, DType::Float64);
            let k = scalar(4.0, DType::Float64);
            assert_eq!(
                nd::convolve(&x, &k, &o).unwrap().to_vec::<f64>().unwrap(),
                [10.0]
            );
            let zeros = cp::zeros([3usize], DType::Float64).unwrap();
            let line = cp::asarray(vec![1.0f64, 2.0, 3.0]).unwrap();
            assert_eq!(
                nd::correlate(&line, &zeros, &o)
                    .unwrap()
                    .to_vec::<f64>()
                    .unwrap(),
                [0.0; 3]
            );
            let b = nd::BinaryOptions::default();
            for (input, want) in [(&t, true), (&f, false)] {
                for r in [
                    nd::binary_erosion(input, &b),
                    nd::binary_dilation(input, &b),
                    nd::binary_opening(input, &b),
                    nd::binary_closing(input, &b),
                    nd::binary_erosion(input, &b.clone().iterations(0).border_value(true)),
                ] {
                    let r = r.unwrap();
                    assert_eq!(r.shape(), [] as [usize; 0]);
                    assert_eq!(r.to_vec::<bool>().unwrap(), [want]);
                }
            }
            assert_eq!(
                nd::median_filter(&x, 3usize, &o)
                    .unwrap()
                    .to_vec::<f64>()
                    .unwrap(),
                [2.5]
            );
        })
    };
    on(cp::Device::Cpu);
    if let Some(gpu) = crate::common::gpu_or_skip() {
        on(gpu);
    }
}

/// The H200's fuzzing (session 27): `median_filter` of a bool `[1, 1, 1]`
/// with `Constant` padding and `cval = -1` gave `true` on the CPU (which
/// compared -1.0 with the 0/1 values) and `false` on the GPU (which read -1
/// as a uint8, 0). The padding is now `cval` as the input's dtype holds it
/// on every backend: `true` for a bool input, `astype`'s value for integers.
#[test]
fn order_filters_pad_with_cval_in_the_input_dtype() {
    use cp::ndimage as nd;
    let on = |dev: cp::Device| {
        cp::with_device(dev, || {
            let o = nd::FilterOptions::default()
                .mode(nd::Mode::Constant)
                .cval(-1.0);
            let b = cp::zeros([1usize, 1, 1], DType::Bool).unwrap();
            let m = nd::median_filter(&b, 3usize, &o).unwrap();
            assert_eq!(m.to_vec::<bool>().unwrap(), [true]);
            let u = cp::full([3usize], 5.0, DType::UInt8).unwrap();
            let lo = nd::minimum_filter(&u, 3usize, &o).unwrap();
            let want = cp::asarray(vec![-1.0f64])
                .unwrap()
                .astype(DType::UInt8)
                .unwrap()
                .to_vec::<u8>()
                .unwrap()[0];
            assert_eq!(lo.to_vec::<u8>().unwrap(), [want.min(5), 5, want.min(5)]);
            let p = nd::percentile_filter(&u, 50.0, 2usize, &o).unwrap();
            p.to_vec::<u8>().unwrap()
        })
    };
    let cpu = on(cp::Device::Cpu);
    if let Some(gpu) = crate::common::gpu_or_skip() {
        assert_eq!(on(gpu), cpu);
    }
}

/// The H200's fuzzing (session 27): `median_filter` with a window of
/// 9^4 = 6561 elements was an error on the GPU (its rank kernel sorts at
/// most 1024 values per thread) and a result on the CPU. Larger windows now
/// take the counted host path; the values agree.
#[test]
fn median_filter_over_a_window_larger_than_the_gpu_kernel_takes() {
    use cp::ndimage as nd;
    let on = |dev: cp::Device| {
        cp::with_device(dev, || {
            let x = cp::arange(3 * 4 * 5 * 2)
                .unwrap()
                .reshape([3isize, 4, 5, 2])
                .unwrap();
            let o = nd::FilterOptions::default();
            nd::median_filter(&x, 9usize, &o)
                .unwrap()
                .to_vec::<i64>()
                .unwrap()
        })
    };
    let cpu = on(cp::Device::Cpu);
    assert_eq!(cpu.len(), 120);
    if let Some(gpu) = crate::common::gpu_or_skip() {
        assert_eq!(on(gpu), cpu);
    }
}

//! cp::signal against SciPy 1.17.1 values, on every backend, and the GPU
//! kernels against the CPU backend on random inputs.

use crate::common;

use common::{assert_close, values_f64};
use cp::signal::{
    convolve, convolve2d, correlate, correlate2d, fftconvolve, firwin, get_window, hann, hanning,
    lfilter, medfilt, medfilt2d, oaconvolve, periodogram, spectrogram, Boundary, Detrend,
    FirwinOptions, Method, Mode, Scaling, SpectralOptions, Window,
};
use cp::{Array, DType, Device};
use cuprite as cp;

// SciPy 1.17.1: a = np.arange(20.).reshape(4, 5); a[1, 2] = -3; k = [[1, 2], [3, 4]]; fillvalue 1.5
/// (function, mode, boundary, shape, values)
type Case2d = (
    &'static str,
    &'static str,
    &'static str,
    &'static [usize],
    &'static [f64],
);
const CASES_2D: &[Case2d] = &[
    (
        "convolve2d",
        "full",
        "fill",
        &[5, 6],
        &[
            13.5, 11.5, 14.5, 17.5, 20.5, 20.0, 14.0, 19.0, 19.0, 19.0, 49.0, 40.0, 34.0, 69.0,
            49.0, 49.0, 99.0, 70.0, 54.0, 119.0, 129.0, 139.0, 149.0, 100.0, 55.5, 112.5, 119.5,
            126.5, 133.5, 85.0,
        ],
    ),
    (
        "convolve2d",
        "full",
        "wrap",
        &[5, 6],
        &[
            129.0, 109.0, 119.0, 129.0, 139.0, 129.0, 39.0, 19.0, 19.0, 19.0, 49.0, 39.0, 89.0,
            69.0, 49.0, 49.0, 99.0, 89.0, 139.0, 119.0, 129.0, 139.0, 149.0, 139.0, 129.0, 109.0,
            119.0, 129.0, 139.0, 129.0,
        ],
    ),
    (
        "convolve2d",
        "full",
        "symm",
        &[5, 6],
        &[
            0.0, 4.0, 14.0, 24.0, 34.0, 40.0, 15.0, 19.0, 19.0, 19.0, 49.0, 55.0, 65.0, 69.0, 49.0,
            49.0, 99.0, 105.0, 115.0, 119.0, 129.0, 139.0, 149.0, 155.0, 150.0, 154.0, 164.0,
            174.0, 184.0, 190.0,
        ],
    ),
    (
        "convolve2d",
        "same",
        "fill",
        &[4, 5],
        &[
            13.5, 11.5, 14.5, 17.5, 20.5, 14.0, 19.0, 19.0, 19.0, 49.0, 34.0, 69.0, 49.0, 49.0,
            99.0, 54.0, 119.0, 129.0, 139.0, 149.0,
        ],
    ),
    (
        "convolve2d",
        "same",
        "wrap",
        &[4, 5],
        &[
            129.0, 109.0, 119.0, 129.0, 139.0, 39.0, 19.0, 19.0, 19.0, 49.0, 89.0, 69.0, 49.0,
            49.0, 99.0, 139.0, 119.0, 129.0, 139.0, 149.0,
        ],
    ),
    (
        "convolve2d",
        "same",
        "symm",
        &[4, 5],
        &[
            0.0, 4.0, 14.0, 24.0, 34.0, 15.0, 19.0, 19.0, 19.0, 49.0, 65.0, 69.0, 49.0, 49.0, 99.0,
            115.0, 119.0, 129.0, 139.0, 149.0,
        ],
    ),
    (
        "convolve2d",
        "valid",
        "fill",
        &[3, 4],
        &[
            19.0, 19.0, 19.0, 49.0, 69.0, 49.0, 49.0, 99.0, 119.0, 129.0, 139.0, 149.0,
        ],
    ),
    (
        "convolve2d",
        "valid",
        "wrap",
        &[3, 4],
        &[
            19.0, 19.0, 19.0, 49.0, 69.0, 49.0, 49.0, 99.0, 119.0, 129.0, 139.0, 149.0,
        ],
    ),
    (
        "convolve2d",
        "valid",
        "symm",
        &[3, 4],
        &[
            19.0, 19.0, 19.0, 49.0, 69.0, 49.0, 49.0, 99.0, 119.0, 129.0, 139.0, 149.0,
        ],
    ),
    (
        "correlate2d",
        "full",
        "fill",
        &[5, 6],
        &[
            9.0, 8.5, 15.5, 22.5, 29.5, 22.5, 26.0, 41.0, 11.0, 31.0, 71.0, 40.0, 56.0, 91.0, 81.0,
            101.0, 121.0, 60.0, 86.0, 141.0, 151.0, 161.0, 171.0, 80.0, 42.0, 57.5, 60.5, 63.5,
            66.5, 32.5,
        ],
    ),
    (
        "correlate2d",
        "full",
        "wrap",
        &[5, 6],
        &[
            61.0, 51.0, 61.0, 71.0, 81.0, 61.0, 51.0, 41.0, 11.0, 31.0, 71.0, 51.0, 101.0, 91.0,
            81.0, 101.0, 121.0, 101.0, 151.0, 141.0, 151.0, 161.0, 171.0, 151.0, 61.0, 51.0, 61.0,
            71.0, 81.0, 61.0,
        ],
    ),
    (
        "correlate2d",
        "full",
        "symm",
        &[5, 6],
        &[
            0.0, 6.0, 16.0, 26.0, 36.0, 40.0, 35.0, 41.0, 11.0, 31.0, 71.0, 75.0, 85.0, 91.0, 81.0,
            101.0, 121.0, 125.0, 135.0, 141.0, 151.0, 161.0, 171.0, 175.0, 150.0, 156.0, 166.0,
            176.0, 186.0, 190.0,
        ],
    ),
    (
        "correlate2d",
        "same",
        "fill",
        &[4, 5],
        &[
            41.0, 11.0, 31.0, 71.0, 40.0, 91.0, 81.0, 101.0, 121.0, 60.0, 141.0, 151.0, 161.0,
            171.0, 80.0, 57.5, 60.5, 63.5, 66.5, 32.5,
        ],
    ),
    (
        "correlate2d",
        "same",
        "wrap",
        &[4, 5],
        &[
            41.0, 11.0, 31.0, 71.0, 51.0, 91.0, 81.0, 101.0, 121.0, 101.0, 141.0, 151.0, 161.0,
            171.0, 151.0, 51.0, 61.0, 71.0, 81.0, 61.0,
        ],
    ),
    (
        "correlate2d",
        "same",
        "symm",
        &[4, 5],
        &[
            41.0, 11.0, 31.0, 71.0, 75.0, 91.0, 81.0, 101.0, 121.0, 125.0, 141.0, 151.0, 161.0,
            171.0, 175.0, 156.0, 166.0, 176.0, 186.0, 190.0,
        ],
    ),
    (
        "correlate2d",
        "valid",
        "fill",
        &[3, 4],
        &[
            41.0, 11.0, 31.0, 71.0, 91.0, 81.0, 101.0, 121.0, 141.0, 151.0, 161.0, 171.0,
        ],
    ),
    (
        "correlate2d",
        "valid",
        "wrap",
        &[3, 4],
        &[
            41.0, 11.0, 31.0, 71.0, 91.0, 81.0, 101.0, 121.0, 141.0, 151.0, 161.0, 171.0,
        ],
    ),
    (
        "correlate2d",
        "valid",
        "symm",
        &[3, 4],
        &[
            41.0, 11.0, 31.0, 71.0, 91.0, 81.0, 101.0, 121.0, 141.0, 151.0, 161.0, 171.0,
        ],
    ),
];
// SciPy 1.17.1: x = [1, 2, 3, 4, 5]; h = [1, -1, 2]; h4 = [1, 2, 3, 4]
const CASES_1D: &[(&str, &str, bool, &[f64])] = &[
    (
        "convolve",
        "full",
        false,
        &[1.0, 1.0, 3.0, 5.0, 7.0, 3.0, 10.0],
    ),
    (
        "convolve",
        "full",
        true,
        &[1.0, 4.0, 10.0, 20.0, 30.0, 34.0, 31.0, 20.0],
    ),
    ("convolve", "same", false, &[1.0, 3.0, 5.0, 7.0, 3.0]),
    ("convolve", "same", true, &[4.0, 10.0, 20.0, 30.0, 34.0]),
    ("convolve", "valid", false, &[3.0, 5.0, 7.0]),
    ("convolve", "valid", true, &[4.0, 7.0, 10.0, 13.0]),
    (
        "correlate",
        "full",
        false,
        &[2.0, 3.0, 5.0, 7.0, 9.0, -1.0, 5.0],
    ),
    (
        "correlate",
        "full",
        true,
        &[4.0, 11.0, 20.0, 30.0, 40.0, 26.0, 14.0, 5.0],
    ),
    ("correlate", "same", false, &[3.0, 5.0, 7.0, 9.0, -1.0]),
    ("correlate", "same", true, &[11.0, 20.0, 30.0, 40.0, 26.0]),
    ("correlate", "valid", false, &[5.0, 7.0, 9.0]),
    ("correlate", "valid", true, &[14.0, 11.0, 8.0, 5.0]),
];
// SciPy 1.17.1: medfilt([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], 3) and (.., 5)
const MED3: &[f64] = &[1.0, 3.0, 1.0, 4.0, 5.0, 5.0, 6.0, 5.0, 5.0, 5.0, 3.0];
const MED5: &[f64] = &[1.0, 1.0, 3.0, 4.0, 4.0, 5.0, 5.0, 5.0, 5.0, 5.0, 3.0];
// SciPy 1.17.1: medfilt2d(m2, [3, 3]) with m2 = [[3,1,4,1],[5,9,2,6],[5,3,5,8],[9,7,9,3],[2,3,8,4]]; medfilt(m2, [5, 3])
const MED2D: &[f64] = &[
    0.0, 2.0, 1.0, 0.0, 3.0, 4.0, 4.0, 2.0, 5.0, 5.0, 6.0, 3.0, 3.0, 5.0, 5.0, 4.0, 0.0, 3.0, 3.0,
    0.0,
];
const MED53: &[f64] = &[
    0.0, 2.0, 1.0, 0.0, 1.0, 4.0, 3.0, 1.0, 3.0, 5.0, 4.0, 3.0, 2.0, 5.0, 4.0, 2.0, 0.0, 3.0, 3.0,
    0.0,
];
// SciPy 1.17.1: lfilter([1, 0.5], [2, -0.6], [1, 2, 3, 4, -1]) and with zi=[0.25]
const LF: &[f64] = &[0.5, 1.4, 2.42, 3.476, 1.5427999999999997];
const LF_ZI: &[f64] = &[0.75, 1.475, 2.4425, 3.48275, 1.544825];
const LF_ZF: &[f64] = &[0.21344749999999996];
// SciPy 1.17.1: lfilter([1, 1, 1], [1, 0.5], [[1, 0], [2, 1], [3, 0], [4, -1]], axis=0)
const LF_AX0: &[f64] = &[1.0, 0.0, 2.5, 1.0, 4.75, 0.5, 6.625, -0.25];
// SciPy 1.17.1: firwin(11, 0.3); firwin(11, [0.2, 0.5], pass_zero=False); firwin(8, 100, fs=1000, window='hann')
const FIR_LP: &[f64] = &[
    -0.005215537578805756,
    -0.008040161696770624,
    0.013358630903322724,
    0.10573868864477395,
    0.2405481183953142,
    0.30722052266433086,
    0.2405481183953142,
    0.10573868864477395,
    0.013358630903322724,
    -0.008040161696770624,
    -0.005215537578805756,
];
const FIR_BP: &[f64] = &[
    0.007226086510412356,
    -0.011139581126720933,
    -0.11685667205781718,
    -0.14650012584506206,
    0.16981338636235882,
    0.42565163053717026,
    0.16981338636235882,
    -0.14650012584506206,
    -0.11685667205781718,
    -0.011139581126720933,
    0.007226086510412356,
];
const FIR_HANN: &[f64] = &[
    0.0,
    0.03793883152564089,
    0.16610010451825408,
    0.29596106395610505,
    0.29596106395610505,
    0.16610010451825408,
    0.03793883152564089,
    0.0,
];
const FIR_HP: &[f64] = &[
    -1.0540442164778732e-18,
    0.004158747072201479,
    -0.0319197777849001,
    -0.2350113688962929,
    0.6021343119216174,
    -0.2350113688962929,
    -0.0319197777849001,
    0.004158747072201479,
    -1.0540442164778732e-18,
]; // firwin(9, 0.4, pass_zero=False, window='blackman')
   // SciPy 1.17.1: windows.hann(6, sym=False); np.hanning(6); get_window(('tukey', 0.25), 10)
const HANN6P: &[f64] = &[
    0.0,
    0.2499999999999999,
    0.75,
    1.0,
    0.7500000000000002,
    0.25000000000000033,
];
const HANNING6: &[f64] = &[
    0.0,
    0.34549150281252633,
    0.9045084971874737,
    0.9045084971874737,
    0.34549150281252633,
    0.0,
];
const TUKEY10: &[f64] = &[
    0.0,
    0.9045084971874737,
    1.0,
    1.0,
    1.0,
    1.0,
    1.0,
    1.0,
    1.0,
    0.9045084971874735,
];
// SciPy 1.17.1: px = [1, 2, 0, -1, 3, 1, 0, 2, 5]; periodogram(px); periodogram(px, fs=4, window='hann', nfft=6, scaling='spectrum')
const PER_F: &[f64] = &[
    0.0,
    0.1111111111111111,
    0.2222222222222222,
    0.3333333333333333,
    0.4444444444444444,
];
const PER_P: &[f64] = &[
    0.0,
    6.3454172428249525,
    7.040009953492671,
    9.555555555555554,
    3.281239470349039,
];
const PER2_F: &[f64] = &[0.0, 0.6666666666666666, 1.3333333333333333, 2.0];
const PER2_P: &[f64] = &[
    0.11111111111111102,
    1.3472222222222219,
    2.4305555555555545,
    0.6944444444444443,
];
// SciPy 1.17.1: sx = np.sin(np.arange(40) * 0.7) + 0.1 * np.arange(40); spectrogram(sx, nperseg=16)
const SPEC_F: &[f64] = &[0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, 0.5];
const SPEC_T: &[f64] = &[8.0, 22.0];
const SPEC_SHAPE: &[usize] = &[9, 2];
const SPEC_S: &[f64] = &[
    0.07637293659319765,
    0.05596652460794274,
    4.830603591051607,
    0.81034657498689,
    4.523643340352626,
    10.226619195499218,
    0.001462975746069261,
    0.1940017819548272,
    0.013381904063422696,
    0.005957737066886888,
    0.015115813816277085,
    0.040797497018748005,
    0.011885251646374611,
    0.04584775985926305,
    0.008774700493251979,
    0.018301213210349884,
    0.003796371163957966,
    0.000875321238928976,
];
// SciPy 1.17.1: spectrogram(sx, fs=2, window='hann', nperseg=10, noverlap=5, nfft=12, detrend='linear')
const SPEC2_T: &[f64] = &[2.5, 5.0, 7.5, 10.0, 12.5, 15.0, 17.5];
const SPEC2_SHAPE: &[usize] = &[7, 7];
const SPEC2_S: &[f64] = &[
    0.017441025612715436,
    0.1925088016999304,
    0.4756746671237129,
    0.7275656596286242,
    0.8242021684012885,
    0.7180201395275407,
    0.46128188887754024,
    0.5681581623183766,
    0.8224250268385183,
    1.288597217106134,
    1.737226882895816,
    1.9475005254364466,
    1.8159224059274928,
    1.4072546815467468,
    0.6961184463847269,
    0.7941263299262993,
    0.9535161357529013,
    1.0958369200753624,
    1.1510390345299824,
    1.0919522472712324,
    0.9476588085840606,
    0.0999503331444097,
    0.09969944722486397,
    0.09726469453283271,
    0.09384444936579653,
    0.09112214097415786,
    0.09043767727424493,
    0.09212794821312323,
    0.0006596439166355423,
    0.0007784148883857741,
    0.0008914984441740647,
    0.000943235367699772,
    0.0009081609784690683,
    0.0008035387327219501,
    0.0006808632281061437,
    9.67314810327994e-07,
    2.1152421842059224e-06,
    3.0573744056223976e-06,
    3.3299982429731355e-06,
    2.798929472692657e-06,
    1.725557749086097e-06,
    6.381917950199613e-07,
    9.90250940963525e-07,
    3.4736067154424735e-06,
    6.2277708079142505e-06,
    7.897156069721216e-06,
    7.660098601742036e-06,
    5.633277020893955e-06,
    2.8142837709714376e-06,
];
// SciPy 1.17.1: fftconvolve(fa, fk, mode) with fa = [[1,2,0],[3,-1,4],[0,2,1],[5,1,1]], fk = [[1,0.5],[0.25,-1]]
const FFT_FULL: &[f64] = &[
    1.0,
    2.5,
    1.0000000000000004,
    -5.329070518200752e-16,
    3.25,
    -3.552713678800501e-16,
    1.5,
    2.0000000000000004,
    0.75,
    -1.25,
    4.0,
    -3.5,
    5.0,
    4.0,
    -0.25,
    -0.5,
    1.25,
    -4.75,
    -0.75,
    -0.9999999999999997,
];
const FFT_SAME: &[f64] = &[
    1.0,
    2.5,
    1.0000000000000004,
    3.25,
    -3.552713678800501e-16,
    1.5,
    0.75,
    -1.25,
    4.0,
    5.0,
    4.0,
    -0.25,
];
const FFT_VALID: &[f64] = &[-3.552713678800501e-16, 1.5, -1.25, 4.0, 4.0, -0.25];
// SciPy 1.17.1: convolve([1+1j, 2-1j, 0.5j], [1-2j, 0.5]) and correlate(...) (re, im interleaved)
const CCONV: &[f64] = &[3.0, -1.0, 0.5, -4.5, 2.0, 0.0, 0.0, 0.25];
const CCORR: &[f64] = &[0.5, 0.5, 0.0, 2.5, 4.0, 3.25, -1.0, 0.5];

/// Shape, dtype and values within `tol` of the largest expected magnitude
/// (for results with entries that cancel to about zero).
#[track_caller]
fn assert_near(a: &Array, shape: &[usize], dtype: DType, want: &[f64], tol: f64) {
    assert_eq!(a.shape(), shape, "shape");
    assert_eq!(a.dtype(), dtype, "dtype");
    let got = values_f64(a);
    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (g, e)) in got.iter().zip(want).enumerate() {
        assert!(
            !g.is_nan() && (g - e).abs() <= tol * scale,
            "element {i}: got {g}, expected {e}; all: {got:?}"
        );
    }
}

fn arr(v: &[f64], shape: &[usize]) -> Array {
    cp::from_shape_vec(shape.to_vec(), v.to_vec(), cp::Order::C).unwrap()
}

fn img() -> Array {
    let mut v: Vec<f64> = (0..20).map(|x| x as f64).collect();
    v[7] = -3.0;
    arr(&v, &[4, 5])
}

on_every_device!(convolve2d_and_correlate2d_match_scipy, |dev| {
    let a = img();
    let k = arr(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    for &(f, mode, b, shape, want) in CASES_2D {
        let (mode, b) = (Mode::parse(mode)?, Boundary::parse(b)?);
        let r = if f == "convolve2d" {
            convolve2d(&a, &k, mode, b, 1.5)?
        } else {
            correlate2d(&a, &k, mode, b, 1.5)?
        };
        assert_eq!(r.device(), dev);
        assert_close(&r, shape, DType::Float64, want, 1e-12);
        // float32 inputs give float32 (the GPU kernel's single-precision path).
        let r32 = if f == "convolve2d" {
            convolve2d(&a.astype(cp::f32)?, &k.astype(cp::f32)?, mode, b, 1.5)?
        } else {
            correlate2d(&a.astype(cp::f32)?, &k.astype(cp::f32)?, mode, b, 1.5)?
        };
        assert_close(&r32, shape, DType::Float32, want, 1e-5);
    }
    // Swapped inputs in valid mode (the kernel is the larger one).
    let r = convolve2d(&k, &a, Mode::Valid, Boundary::Fill, 0.0)?;
    assert_close(&r, &[3, 4], DType::Float64, CASES_2D[6].4, 1e-12);
});

on_every_device!(convolve_and_correlate_1d_match_scipy, |_dev| {
    let x = arr(&[1.0, 2.0, 3.0, 4.0, 5.0], &[5]);
    let h = arr(&[1.0, -1.0, 2.0], &[3]);
    let h4 = arr(&[1.0, 2.0, 3.0, 4.0], &[4]);
    let h2 = arr(&[1.0, 2.0], &[2]);
    for &(f, mode, other, want) in CASES_1D {
        let m = Mode::parse(mode)?;
        for method in [Method::Auto, Method::Direct, Method::Fft] {
            let (a, b) = match (other, mode) {
                (false, _) => (&x, &h),
                (true, "valid") => (&h2, &x),
                (true, _) => (&x, &h4),
            };
            let r = if f == "convolve" {
                convolve(a, b, m, method)?
            } else {
                correlate(a, b, m, method)?
            };
            assert_close(&r, &[want.len()], DType::Float64, want, 1e-12);
        }
    }
    // Complex values (host path on every backend).
    let zc = cp::asarray(vec![
        cp::num_complex::Complex64::new(1.0, 1.0),
        cp::num_complex::Complex64::new(2.0, -1.0),
        cp::num_complex::Complex64::new(0.0, 0.5),
    ])?;
    let hc = cp::asarray(vec![
        cp::num_complex::Complex64::new(1.0, -2.0),
        cp::num_complex::Complex64::new(0.5, 0.0),
    ])?;
    for (r, want) in [
        (convolve(&zc, &hc, Mode::Full, Method::Auto)?, CCONV),
        (correlate(&zc, &hc, Mode::Full, Method::Direct)?, CCORR),
    ] {
        let v = r.to_vec::<cp::num_complex::Complex64>()?;
        for (i, c) in v.iter().enumerate() {
            assert!(
                (c.re - want[2 * i]).abs() < 1e-12 && (c.im - want[2 * i + 1]).abs() < 1e-12,
                "{v:?}"
            );
        }
    }
    // Integers stay integers.
    let xi = cp::asarray(vec![1i32, 2, 3])?;
    let r = convolve(&xi, &xi, Mode::Full, Method::Auto)?;
    common::assert_exact(&r, &[5], &[1i32, 4, 10, 12, 9]);
});

on_every_device!(fftconvolve_and_oaconvolve_match_scipy, |_dev| {
    let fa = arr(
        &[1.0, 2.0, 0.0, 3.0, -1.0, 4.0, 0.0, 2.0, 1.0, 5.0, 1.0, 1.0],
        &[4, 3],
    );
    let fk = arr(&[1.0, 0.5, 0.25, -1.0], &[2, 2]);
    for (mode, shape, want) in [
        (Mode::Full, [5usize, 4], FFT_FULL),
        (Mode::Same, [4, 3], FFT_SAME),
        (Mode::Valid, [3, 2], FFT_VALID),
    ] {
        assert_near(
            &fftconvolve(&fa, &fk, mode)?,
            &shape,
            DType::Float64,
            want,
            1e-12,
        );
        assert_near(
            &oaconvolve(&fa, &fk, mode)?,
            &shape,
            DType::Float64,
            want,
            1e-12,
        );
        assert_near(
            &convolve(&fa, &fk, mode, Method::Fft)?,
            &shape,
            DType::Float64,
            want,
            1e-12,
        );
    }
});

on_every_device!(medfilt_matches_scipy, |_dev| {
    let m = arr(
        &[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0],
        &[11],
    );
    assert_close(&medfilt(&m, Some(&[3]))?, &[11], DType::Float64, MED3, 0.0);
    assert_close(&medfilt(&m, None)?, &[11], DType::Float64, MED3, 0.0);
    assert_close(
        &medfilt(&m.astype(cp::f32)?, Some(&[5]))?,
        &[11],
        DType::Float32,
        MED5,
        0.0,
    );
    let m2 = arr(
        &[
            3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0, 8.0, 9.0, 7.0, 9.0, 3.0, 2.0,
            3.0, 8.0, 4.0,
        ],
        &[5, 4],
    );
    assert_close(&medfilt2d(&m2, None)?, &[5, 4], DType::Float64, MED2D, 0.0);
    assert_close(
        &medfilt(&m2, Some(&[5, 3]))?,
        &[5, 4],
        DType::Float64,
        MED53,
        0.0,
    );
    // Integers keep their dtype.
    let mi = m2.astype(cp::i32)?;
    let r = medfilt2d(&mi, Some([3, 3]))?;
    assert_eq!(r.dtype(), DType::Int32);
    assert_eq!(values_f64(&r), MED2D);
    // Errors: even kernel, wrong rank, complex.
    assert!(medfilt(&m, Some(&[4]))
        .unwrap_err()
        .to_string()
        .contains("odd"));
    assert!(medfilt2d(&m, None).is_err());
    assert!(medfilt(&m.astype(cp::c128)?, None).is_err());
});

on_every_device!(lfilter_matches_scipy, |_dev| {
    let b = arr(&[1.0, 0.5], &[2]);
    let a = arr(&[2.0, -0.6], &[2]);
    let x = arr(&[1.0, 2.0, 3.0, 4.0, -1.0], &[5]);
    let (y, zf) = lfilter(&b, &a, &x, -1, None)?;
    assert!(zf.is_none());
    assert_close(&y, &[5], DType::Float64, LF, 1e-12);
    let zi = arr(&[0.25], &[1]);
    let (y, zf) = lfilter(&b, &a, &x, -1, Some(&zi))?;
    assert_close(&y, &[5], DType::Float64, LF_ZI, 1e-12);
    assert_close(&zf.unwrap(), &[1], DType::Float64, LF_ZF, 1e-12);
    let xx = arr(&[1.0, 0.0, 2.0, 1.0, 3.0, 0.0, 4.0, -1.0], &[4, 2]);
    let (y, _) = lfilter(
        &arr(&[1.0, 1.0, 1.0], &[3]),
        &arr(&[1.0, 0.5], &[2]),
        &xx,
        0,
        None,
    )?;
    assert_close(&y, &[4, 2], DType::Float64, LF_AX0, 1e-12);
    // float32 stays float32.
    let (y, _) = lfilter(&b, &a, &x.astype(cp::f32)?, 0, None)?;
    assert_eq!(y.dtype(), DType::Float64); // b and a are float64, so the result is too
    let (y, _) = lfilter(
        &b.astype(cp::f32)?,
        &a.astype(cp::f32)?,
        &x.astype(cp::f32)?,
        0,
        None,
    )?;
    assert_close(&y, &[5], DType::Float32, LF, 1e-6);
    // Errors: a[0] == 0, wrong zi shape, bad axis.
    assert!(lfilter(&b, &arr(&[0.0, 1.0], &[2]), &x, -1, None).is_err());
    assert!(lfilter(&b, &a, &x, -1, Some(&arr(&[1.0, 2.0], &[2]))).is_err());
    assert!(lfilter(&b, &a, &x, 1, None).is_err());
});

on_every_device!(firwin_and_windows_match_scipy, |dev| {
    let lp = firwin(11, &[0.3], FirwinOptions::default())?;
    assert_eq!(lp.device(), dev);
    assert_close(&lp, &[11], DType::Float64, FIR_LP, 1e-12);
    let bp = firwin(
        11,
        &[0.2, 0.5],
        FirwinOptions {
            pass_zero: false,
            ..Default::default()
        },
    )?;
    assert_close(&bp, &[11], DType::Float64, FIR_BP, 1e-12);
    let hn = firwin(
        8,
        &[100.0],
        FirwinOptions {
            fs: 1000.0,
            window: Window::Hann,
            ..Default::default()
        },
    )?;
    assert_close(&hn, &[8], DType::Float64, FIR_HANN, 1e-12);
    let hp = firwin(
        9,
        &[0.4],
        FirwinOptions {
            pass_zero: false,
            window: Window::Blackman,
            ..Default::default()
        },
    )?;
    assert_close(&hp, &[9], DType::Float64, FIR_HP, 1e-12);
    // Errors: cutoff at Nyquist, even taps with a passband at Nyquist, not increasing.
    assert!(firwin(11, &[1.0], FirwinOptions::default()).is_err());
    assert!(firwin(
        10,
        &[0.3],
        FirwinOptions {
            pass_zero: false,
            ..Default::default()
        }
    )
    .is_err());
    assert!(firwin(11, &[0.5, 0.2], FirwinOptions::default()).is_err());
    assert_close(&hann(6, false)?, &[6], DType::Float64, HANN6P, 1e-12);
    assert_close(&hanning(6)?, &[6], DType::Float64, HANNING6, 1e-12);
    assert_close(
        &get_window(Window::Tukey(0.25), 10, true)?,
        &[10],
        DType::Float64,
        TUKEY10,
        1e-12,
    );
    assert_eq!(hanning(0)?.size(), 0);
    assert_close(&hanning(1)?, &[1], DType::Float64, &[1.0], 0.0);
});

on_every_device!(spectral_estimates_match_scipy, |_dev| {
    let px = arr(&[1.0, 2.0, 0.0, -1.0, 3.0, 1.0, 0.0, 2.0, 5.0], &[9]);
    let (f, p) = periodogram(&px, SpectralOptions::default())?;
    assert_near(&f, &[PER_F.len()], DType::Float64, PER_F, 1e-12);
    assert_near(&p, &[PER_P.len()], DType::Float64, PER_P, 1e-12);
    let o = SpectralOptions {
        fs: 4.0,
        window: Some(Window::Hann),
        nfft: Some(6),
        scaling: Scaling::Spectrum,
        ..Default::default()
    };
    let (f, p) = periodogram(&px, o)?;
    assert_near(&f, &[PER2_F.len()], DType::Float64, PER2_F, 1e-12);
    assert_near(&p, &[PER2_P.len()], DType::Float64, PER2_P, 1e-12);
    let sx: Vec<f64> = (0..40)
        .map(|i| (i as f64 * 0.7).sin() + 0.1 * i as f64)
        .collect();
    let sx = arr(&sx, &[40]);
    let (f, t, s) = spectrogram(
        &sx,
        SpectralOptions {
            nperseg: Some(16),
            ..Default::default()
        },
    )?;
    assert_near(&f, &[SPEC_F.len()], DType::Float64, SPEC_F, 1e-12);
    assert_near(&t, &[SPEC_T.len()], DType::Float64, SPEC_T, 1e-12);
    assert_near(&s, SPEC_SHAPE, DType::Float64, SPEC_S, 1e-9);
    let o = SpectralOptions {
        fs: 2.0,
        window: Some(Window::Hann),
        nperseg: Some(10),
        noverlap: Some(5),
        nfft: Some(12),
        detrend: Detrend::Linear,
        ..Default::default()
    };
    let (_, t, s) = spectrogram(&sx, o)?;
    assert_near(&t, &[SPEC2_T.len()], DType::Float64, SPEC2_T, 1e-12);
    assert_near(&s, SPEC2_SHAPE, DType::Float64, SPEC2_S, 1e-9);
    // float32 input gives float32 power; batched rows are independent.
    let (_, p32) = periodogram(&px.astype(cp::f32)?, SpectralOptions::default())?;
    assert_near(&p32, &[PER_P.len()], DType::Float32, PER_P, 1e-5);
    let two = cp::stack(&[&px, &px], 0)?;
    let (_, p2) = periodogram(&two, SpectralOptions::default())?;
    assert_eq!(p2.shape(), &[2, PER_P.len()]);
    // Complex input gives SciPy's two-sided spectrum (real power).
    let (fc, pc) = periodogram(&px.astype(cp::c128)?, SpectralOptions::default())?;
    assert_eq!(
        (fc.shape(), pc.shape(), pc.dtype()),
        (&[9][..], &[9][..], DType::Float64)
    );
    // Errors: noverlap >= nperseg.
    assert!(spectrogram(
        &sx,
        SpectralOptions {
            nperseg: Some(8),
            noverlap: Some(8),
            ..Default::default()
        }
    )
    .is_err());
});

on_every_device!(convolution_errors, |_dev| {
    let a = img();
    let v = arr(&[1.0, 2.0], &[2]);
    let e = convolve2d(&v, &a, Mode::Full, Boundary::Fill, 0.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("2-D"), "{e}");
    let wide = arr(&[1.0; 6], &[1, 6]);
    let e = convolve2d(&a, &wide, Mode::Valid, Boundary::Fill, 0.0)
        .unwrap_err()
        .to_string();
    assert!(e.contains("at least as large"), "{e}");
    assert!(convolve(&a, &v, Mode::Full, Method::Auto)
        .unwrap_err()
        .to_string()
        .contains("dimensionality"));
    assert!(Mode::parse("middle").is_err());
    assert!(Boundary::parse("reflect").is_err());
    assert!(Method::parse("fast").is_err());
    let empty = arr(&[], &[0, 3]);
    assert!(convolve2d(&a, &empty, Mode::Full, Boundary::Fill, 0.0).is_err());
    assert_eq!(
        convolve(&v, &arr(&[], &[0]), Mode::Full, Method::Auto)?.size(),
        0
    );
    // A complex fill value needs complex inputs.
    assert!(convolve2d(
        &a,
        &a,
        Mode::Same,
        Boundary::Fill,
        cp::num_complex::Complex64::new(0.0, 1.0)
    )
    .is_err());
});

/// Uniform values in [-1, 1) from a fixed-seed generator.
fn rand_vec(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

/// Largest |a - b| relative to the largest |b| (NaN fails).
fn rel_err(a: &Array, b: &Array) -> f64 {
    let (x, y) = (values_f64(a), values_f64(b));
    assert_eq!(a.shape(), b.shape());
    let scale = y.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
    x.iter()
        .zip(&y)
        .map(|(p, q)| {
            if p.is_nan() || q.is_nan() {
                f64::INFINITY
            } else {
                (p - q).abs() / scale
            }
        })
        .fold(0.0, f64::max)
}

/// The same operation on host copies under the CPU backend.
fn on_cpu<R>(f: impl FnOnce() -> R) -> R {
    cp::with_device(Device::Cpu, f)
}

on_every_device!(convolve2d_gpu_tiles_match_cpu, |dev| {
    // Image sizes that are not multiples of the tiles; odd, even, 1-wide,
    // 31x31 and larger-than-one-chunk (33 x 2, 40 x 17) kernels.
    let shapes = [(37usize, 53usize), (5, 300), (70, 9)];
    let kernels = [
        (3usize, 3usize),
        (4, 2),
        (1, 7),
        (31, 31),
        (33, 2),
        (40, 17),
    ];
    for (si, &(h, w)) in shapes.iter().enumerate() {
        for (ki, &(kh, kw)) in kernels.iter().enumerate() {
            let av = rand_vec(h * w, 1 + si as u64);
            let kv = rand_vec(kh * kw, 100 + ki as u64);
            let a_h = on_cpu(|| arr(&av, &[h, w]));
            let k_h = on_cpu(|| arr(&kv, &[kh, kw]));
            for dt in [DType::Float32, DType::Float64] {
                let a = a_h.astype(dt)?.to_device(&dev)?;
                let k = k_h.astype(dt)?.to_device(&dev)?;
                for mode in [Mode::Full, Mode::Same, Mode::Valid] {
                    if mode == Mode::Valid && !((h >= kh && w >= kw) || (h <= kh && w <= kw)) {
                        continue;
                    }
                    for b in [Boundary::Fill, Boundary::Wrap, Boundary::Symm] {
                        for corr in [false, true] {
                            // Large kernels: fewer combinations (the CPU reference is slow in debug builds).
                            if kh * kw > 100
                                && (corr || dt == DType::Float64 || b == Boundary::Symm)
                            {
                                continue;
                            }
                            let f = |x: &Array, y: &Array| {
                                if corr {
                                    correlate2d(x, y, mode, b, 0.75)
                                } else {
                                    convolve2d(x, y, mode, b, 0.75)
                                }
                            };
                            let got = f(&a, &k)?;
                            assert_eq!(got.device(), dev);
                            let want = on_cpu(|| f(&a_h, &k_h))?;
                            let tol = if dt == DType::Float32 { 1e-5 } else { 1e-12 };
                            let e = rel_err(&got, &want);
                            assert!(
                                e < tol,
                                "{dt} {h}x{w} * {kh}x{kw} {mode:?} {b:?} corr={corr}: {e}"
                            );
                        }
                    }
                }
            }
        }
    }
});

on_every_device!(convolve_1d_gpu_and_views_match_cpu, |dev| {
    let xv = rand_vec(1000, 7);
    let hv = rand_vec(45, 8);
    let x_h = on_cpu(|| arr(&xv, &[1000]));
    let h_h = on_cpu(|| arr(&hv, &[45]));
    let x = x_h.astype(cp::f32)?.to_device(&dev)?;
    let h = h_h.astype(cp::f32)?.to_device(&dev)?;
    for mode in [Mode::Full, Mode::Same, Mode::Valid] {
        let got = convolve(&x, &h, mode, Method::Auto)?;
        let want = on_cpu(|| convolve(&x_h, &h_h, mode, Method::Direct))?;
        assert!(rel_err(&got, &want) < 1e-5, "{mode:?}");
        let got = fftconvolve(&x, &h, mode)?;
        assert!(rel_err(&got, &want) < 1e-5, "fft {mode:?}");
        let got = correlate(&x, &h, mode, Method::Auto)?;
        let want = on_cpu(|| correlate(&x_h, &h_h, mode, Method::Direct))?;
        assert!(rel_err(&got, &want) < 1e-5, "corr {mode:?}");
    }
    // Transposed and reversed views as inputs.
    let av = rand_vec(30 * 20, 9);
    let a_h = on_cpu(|| arr(&av, &[30, 20]));
    let k_h = on_cpu(|| arr(&rand_vec(25, 10), &[5, 5]));
    let a = a_h.to_device(&dev)?;
    let k = k_h.to_device(&dev)?;
    let got = convolve2d(&a.t(), &k.t(), Mode::Same, Boundary::Symm, 0.0)?;
    let want = on_cpu(|| {
        convolve2d(
            &a_h.t().copy()?,
            &k_h.t().copy()?,
            Mode::Same,
            Boundary::Symm,
            0.0,
        )
    })?;
    assert!(rel_err(&got, &want) < 1e-12);
    let got = fftconvolve(&a, &k, Mode::Same)?;
    let want = on_cpu(|| convolve(&a_h, &k_h, Mode::Same, Method::Direct))?;
    assert!(rel_err(&got, &want) < 1e-12);
});

on_every_device!(medfilt_gpu_matches_cpu, |dev| {
    let v = rand_vec(5000, 11);
    let x_h = on_cpu(|| arr(&v, &[5000]));
    for dt in [DType::Float32, DType::Float64, DType::Int32] {
        let xh = on_cpu(|| (&x_h * 100.0).astype(dt))?;
        let x = xh.to_device(&dev)?;
        for k in [1usize, 3, 5, 7, 25] {
            let got = medfilt(&x, Some(&[k]))?;
            let want = on_cpu(|| medfilt(&xh, Some(&[k])))?;
            assert_eq!(values_f64(&got), values_f64(&want), "{dt} k={k}");
        }
    }
    let m = on_cpu(|| arr(&rand_vec(37 * 41, 12), &[37, 41]));
    let md = m.to_device(&dev)?;
    for ks in [[3usize, 3], [5, 3], [1, 9], [7, 7]] {
        let got = medfilt2d(&md, Some(ks))?;
        let want = on_cpu(|| medfilt2d(&m, Some(ks)))?;
        assert_eq!(values_f64(&got), values_f64(&want), "{ks:?}");
    }
    // A window of 81 elements takes the host path on the GPU too.
    let got = medfilt2d(&md, Some([9, 9]))?;
    let want = on_cpu(|| medfilt2d(&m, Some([9, 9])))?;
    assert_eq!(values_f64(&got), values_f64(&want));
});

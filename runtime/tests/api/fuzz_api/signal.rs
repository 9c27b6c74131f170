//! Rows for `cp::signal`'s array functions: convolution, filtering,
//! resampling, spectral estimates, peaks. Each runs once on the case's
//! arrays as they come (any dtype and rank) and, where dtype or rank would
//! stop it early, once on `flat` (1-D float64) so the numerics are reached.

use super::check::{run_table, Row};
use super::derive::{coefficients, count, flat, pick, sections, size};
use crate::rows;
use cuprite as cp;
use cuprite::signal::{
    self as s, Boundary, Comparator, DecimateFilter, Detrend, ExtremaMode, FiltfiltOptions,
    FindPeaksOptions, LombscargleOptions, Method, Mode, PadType, SavgolMode, SavgolOptions,
    SpectralOptions, StftOptions, Window,
};
use cuprite::Array;

fn mode(i: i64) -> Mode {
    pick(i, &[Mode::Full, Mode::Same, Mode::Valid])
}

fn method(i: isize) -> Method {
    pick(i as i64, &[Method::Auto, Method::Direct, Method::Fft])
}

fn boundary(i: isize) -> Boundary {
    pick(i as i64, &[Boundary::Fill, Boundary::Wrap, Boundary::Symm])
}

fn detrend_kind(i: i64) -> Detrend {
    pick(i, &[Detrend::None, Detrend::Constant, Detrend::Linear])
}

fn window(i: i64, p: f64) -> Window {
    pick(
        i,
        &[
            Window::Hann,
            Window::Boxcar,
            Window::Kaiser(p),
            Window::Tukey(p),
            Window::Gaussian(p),
            Window::GeneralGaussian(p, 2.0),
            Window::Chebwin(p),
            Window::Dpss(p),
            Window::Bartlett,
            Window::BlackmanHarris,
        ],
    )
}

fn spectral(g: &super::strategies::Built) -> SpectralOptions {
    SpectralOptions {
        fs: if g.flag { 1.0 } else { g.scalar },
        window: g.flag.then(|| window(g.n, 2.0)),
        nperseg: (g.n != 0).then(|| size(g.n)),
        noverlap: (g.axis > 3).then_some(g.axis as usize),
        nfft: (g.n > 5).then(|| g.n as usize + 1),
        detrend: detrend_kind(g.axis as i64),
        axis: g.axis,
        ..SpectralOptions::default()
    }
}

fn stft_options(g: &super::strategies::Built) -> StftOptions {
    StftOptions {
        nperseg: size(g.n),
        noverlap: g.flag.then_some(count(g.axis as i64)),
        window: window(g.axis as i64, 1.5),
        padded: g.flag,
        boundary: g.flag.then_some(s::StftBoundary::Even),
        ..StftOptions::default()
    }
}

/// Peak indices into a 1-D signal (in and out of range).
fn peaks(g: &super::strategies::Built) -> Array {
    let n = g.a.size() as i64;
    let v: Vec<i64> = [1, 2, n - 2, g.n, n + g.n]
        .into_iter()
        .take(count(g.axis as i64).min(5))
        .collect();
    cp::asarray(v).unwrap_or_else(|_| g.b.clone())
}

pub fn signal() -> Vec<Row> {
    rows![
        "convolve" => |g| s::convolve(&g.a, &g.b, mode(g.n), method(g.axis)),
        "convolve(1d)" => |g| s::convolve(&flat(&g.a), &flat(&g.b), mode(g.n), method(g.axis)),
        "correlate" => |g| s::correlate(&g.a, &g.b, mode(g.n), method(g.axis)),
        "correlate(1d)" => |g| s::correlate(&flat(&g.a), &flat(&g.b), mode(g.n), method(g.axis)),
        // A cost model of each device: the choice may differ between them.
        "choose_conv_method" => |g| { s::choose_conv_method(&g.a, &g.b, mode(g.n)); Ok(()) },
        "convolve2d" => |g| s::convolve2d(&g.a, &g.b, mode(g.n), boundary(g.axis), g.scalar),
        "correlate2d" => |g| s::correlate2d(&g.a, &g.b, mode(g.n), boundary(g.axis), g.scalar),
        "fftconvolve" => |g| s::fftconvolve(&g.a, &g.b, mode(g.n)),
        "oaconvolve" => |g| s::oaconvolve(&flat(&g.a), &flat(&g.b), mode(g.n)),
        "medfilt" => |g| s::medfilt(&g.a, g.flag.then_some(&[3usize, 1][..count(g.n).min(2)])),
        "medfilt2d" => |g| s::medfilt2d(&g.a, g.flag.then_some([size(g.n), 3])),
        "detrend" => |g| s::detrend(&g.a, g.axis, detrend_kind(g.n), &[count(g.n), 1]),
        "lfilter" => |g| s::lfilter(&flat(&g.b), &g.m, &g.a, g.axis, None).map(|(y, _)| y),
        "lfilter(1d)" => |g| { let (b, a) = coefficients(g); s::lfilter(&cp::asarray(b)?, &cp::asarray(a)?, &flat(&g.a), -1, g.flag.then_some(&g.m)).map(|(y, z)| vec![Some(y), z].into_iter().flatten().collect::<Vec<_>>()) },
        "lfilter_zi" => |g| { let (b, a) = coefficients(g); s::lfilter_zi(&cp::asarray(b)?, &cp::asarray(a)?) },
        "sosfilt" => |g| s::sosfilt(&g.b, &g.a, g.axis, None).map(|(y, _)| y),
        "sosfilt(1d)" => |g| s::sosfilt(&sections(g), &flat(&g.b), -1, None).map(|(y, _)| y),
        "sosfilt_zi" => |g| s::sosfilt_zi(&sections(g)),
        "filtfilt" => |g| { let (b, a) = coefficients(g); s::filtfilt(&cp::asarray(b)?, &cp::asarray(a)?, &g.b, FiltfiltOptions { axis: g.axis, padtype: pick(g.n, &[PadType::Odd, PadType::Even, PadType::Constant, PadType::None]), padlen: g.flag.then_some(size(g.n)) }) },
        "sosfiltfilt" => |g| s::sosfiltfilt(&sections(g), &flat(&g.b), FiltfiltOptions { padlen: g.flag.then_some(size(g.n)), ..FiltfiltOptions::default() }),
        "hilbert" => |g| s::hilbert(&g.a, g.flag.then_some(size(g.n)), g.axis),
        "hilbert2" => |g| s::hilbert2(&g.a, g.flag.then_some([size(g.n), 2]), [g.axis, g.n as isize]),
        "upfirdn" => |g| s::upfirdn(&flat(&g.b), &g.a, size(g.n), count(g.axis as i64), g.axis),
        "resample_poly" => |g| s::resample_poly(&g.a, size(g.n), size(g.axis as i64), g.axis, window(g.n, 5.0)),
        "decimate" => |g| s::decimate(&g.a, size(g.n), g.flag.then_some(size(g.axis as i64)), if g.flag { DecimateFilter::Fir } else { DecimateFilter::Iir }, g.axis),
        "resample" => |g| s::resample(&g.a, size(g.n), g.axis),
        "savgol_filter" => |g| s::savgol_filter(&g.a, size(g.n), count(g.axis as i64), SavgolOptions { deriv: count(g.axis as i64) / 2, delta: g.scalar, axis: g.axis, mode: pick(g.n, &[SavgolMode::Interp, SavgolMode::Mirror, SavgolMode::Constant(g.scalar), SavgolMode::Nearest, SavgolMode::Wrap]) }),
        "welch" => |g| s::welch(&g.a, spectral(g)),
        "csd" => |g| s::csd(&g.a, &g.b, spectral(g)),
        "coherence" => |g| s::coherence(&flat(&g.a), &flat(&g.b), spectral(g)),
        "periodogram" => |g| s::periodogram(&g.a, spectral(g)),
        "spectrogram" => |g| s::spectrogram(&flat(&g.a), spectral(g)),
        "stft" => |g| s::stft(&g.a, stft_options(g)),
        "istft" => |g| s::istft(&g.a, s::IstftOptions { nperseg: g.flag.then_some(size(g.n)), time_axis: g.axis, ..s::IstftOptions::default() }),
        "lombscargle" => |g| s::lombscargle(&flat(&g.a), &flat(&g.b), &g.m.ravel()?, LombscargleOptions { precenter: g.flag, ..LombscargleOptions::default() }),
        "argrelextrema" => |g| s::argrelextrema(&g.a, pick(g.n, &[Comparator::Greater, Comparator::LessEqual]), g.axis, size(g.n), if g.flag { ExtremaMode::Wrap } else { ExtremaMode::Clip }),
        "argrelmax" => |g| s::argrelmax(&g.a, g.axis, size(g.n), ExtremaMode::Clip),
        "argrelmin" => |g| s::argrelmin(&g.a, g.axis, size(g.n), ExtremaMode::Wrap),
        "find_peaks" => |g| s::find_peaks(&flat(&g.a), FindPeaksOptions { height: g.flag.then(|| g.scalar.into()), distance: (g.n > 0).then_some(g.n as f64), prominence: Some((0.0, g.scalar).into()), width: g.flag.then(|| 0.5.into()), wlen: (g.axis > 0).then_some(g.axis as f64), ..FindPeaksOptions::default() }).map(|(p, props)| { let mut v = vec![p]; v.extend([props.prominences, props.widths, props.left_ips, props.peak_heights].into_iter().flatten()); v }),
        "peak_prominences" => |g| s::peak_prominences(&flat(&g.a), &peaks(g), (g.n > 0).then_some(g.n as f64)),
        "peak_widths" => |g| s::peak_widths(&flat(&g.a), &peaks(g), g.scalar, None, (g.n > 0).then_some(g.n as f64)).map(|(a, b, c, d)| vec![a, b, c, d]),
    ]
}

#[test]
fn signal_functions() {
    run_table("signal", signal());
}

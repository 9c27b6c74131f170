//! Signal processing (`cupyx.scipy.signal`): convolution and correlation
//! (N-D, and 2-D with boundaries), FFT convolution, median filters, IIR/FIR
//! design and filtering, windows and spectral estimates, with SciPy's
//! semantics and defaults.
//!
//! One file per job: `conv` (convolution, correlation, median filters),
//! `window` (windows, `get_window`), `fir` (`firwin`), `prototypes`,
//! `iir_design` and `iir_order` (IIR design, order selection), `lti` (ba /
//! zpk / sos forms and conversions), `response` (`freqz`, `sosfreqz`,
//! `group_delay`), `filtering` (`lfilter`, `sosfilt`, initial states),
//! `zero_phase` (`filtfilt`, `sosfiltfilt`), `spectral` (periodogram,
//! welch, csd, coherence, spectrogram, stft, istft), `detrend`, `hilbert`,
//! `savgol`, `peaks` (find_peaks, prominences, widths, argrelextrema),
//! `resample` (upfirdn, resample_poly, decimate, resample), `lombscargle`.
//!
//! GPU paths: `convolve2d` / `correlate2d`, and `convolve` / `correlate` /
//! `fftconvolve` / `oaconvolve` of 1-D and 2-D real float32/float64 arrays
//! run the tiled shared-memory kernel of `cuda::conv`; `medfilt` /
//! `medfilt2d` of real 1-D and 2-D arrays with windows of at most 49
//! elements run a sorting-network kernel; `sosfilt`, real `lfilter` (order
//! up to 16), `filtfilt` and `sosfiltfilt` run the blocked parallel scan of
//! `cuda::iir`; peak prominences, widths and the distance rule of
//! `find_peaks` run the kernels of `cuda::peaks`. The spectral estimates,
//! detrending, analytic signals, Savitzky-Golay filters, peak detection,
//! resampling and Lomb-Scargle are array operations (strided views, batched
//! FFTs, reductions, fused elementwise work) on the input's device. Designs,
//! windows and responses are computed on the host (a few coefficients); the
//! remaining functions (and complex inputs) compute on the host and return
//! their result on the input's device.
//!
//! ```
//! use cuprite as cp;
//! use cp::signal::{convolve, Method, Mode};
//! let x = cp::asarray(vec![1.0f64, 2.0, 3.0])?;
//! let h = cp::asarray(vec![0.0f64, 1.0, 0.5])?;
//! let y = convolve(&x, &h, Mode::Full, Method::Auto)?;
//! assert_eq!(y.to_vec::<f64>()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
//! # Ok::<(), cp::Error>(())
//! ```

use crate::core::error::{Error, Result};

mod along;
mod conv;
mod detrend;
mod filtering;
mod fir;
mod hilbert;
mod iir_design;
mod iir_order;
mod lombscargle;
mod lti;
mod peaks;
mod prototypes;
mod resample;
mod response;
mod savgol;
mod spectral;
mod window;
mod zero_phase;

pub use conv::{
    choose_conv_method, convolve, convolve2d, correlate, correlate2d, fftconvolve, medfilt,
    medfilt2d, oaconvolve,
};
pub use detrend::{detrend, Detrend};
pub use filtering::{lfilter, lfilter_zi, sosfilt, sosfilt_zi};
pub use fir::{firwin, FirwinOptions};
pub use hilbert::{hilbert, hilbert2};
pub use iir_design::{
    bessel, butter, cheby1, cheby2, ellip, iirfilter, iirnotch, iirpeak, BandType, IirOptions,
    IirType,
};
pub use iir_order::{buttord, cheb1ord, cheb2ord, ellipord, iirdesign};
pub use lombscargle::{lombscargle, LombNormalize, LombscargleOptions};
pub use lti::{
    sos2tf, sos2zpk, tf2sos, tf2zpk, zpk2sos, zpk2tf, Ba, Filter, FilterForm, Pairing, Sos,
    SosCoefficients, Zpk,
};
pub use peaks::{
    argrelextrema, argrelmax, argrelmin, find_peaks, peak_prominences, peak_widths, Bounds,
    Comparator, ExtremaMode, FindPeaksOptions, PeakProperties,
};
pub use prototypes::BesselNorm;
pub use resample::{decimate, resample, resample_poly, upfirdn, DecimateFilter};
pub use response::{freqz, group_delay, sosfreqz, FreqzOptions, WorN};
pub use savgol::{savgol_coeffs, savgol_filter, SavgolMode, SavgolOptions};
pub use spectral::{
    coherence, csd, istft, periodogram, spectrogram, stft, welch, Average,
    Boundary as StftBoundary, IstftOptions, Scaling, SpectralOptions, StftOptions,
};
pub use window::{get_window, hann, hanning, windows, Window};
pub use zero_phase::{filtfilt, sosfiltfilt, FiltfiltOptions, PadType};

/// Output size of a convolution or correlation (SciPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Every point where the inputs overlap (`s1 + s2 - 1`).
    Full,
    /// The size of the first input, centred on the full result.
    Same,
    /// Only points where one input covers the other completely.
    Valid,
}

impl Mode {
    /// `"full"`, `"same"` or `"valid"`.
    pub fn parse(s: &str) -> Result<Mode> {
        match s {
            "full" => Ok(Mode::Full),
            "same" => Ok(Mode::Same),
            "valid" => Ok(Mode::Valid),
            _ => Err(Error::InvalidArgument {
                op: "Mode::parse",
                detail: format!("acceptable mode flags are 'valid', 'same', or 'full', not {s:?}"),
            }),
        }
    }
}

pub use crate::ops::signal::Boundary;

impl Boundary {
    /// `"fill"`, `"wrap"`, `"symm"` (also `"circular"`, `"symmetric"`).
    pub fn parse(s: &str) -> Result<Boundary> {
        match s {
            "fill" | "pad" => Ok(Boundary::Fill),
            "wrap" | "circular" => Ok(Boundary::Wrap),
            "symm" | "symmetric" => Ok(Boundary::Symm),
            _ => Err(Error::InvalidArgument {
                op: "Boundary::parse",
                detail: format!(
                    "acceptable boundary flags are 'fill', 'wrap' and 'symm', not {s:?}"
                ),
            }),
        }
    }
}

/// How `convolve` / `correlate` compute (SciPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Direct or FFT by an estimate of their cost.
    Auto,
    /// The sum of products at every output point.
    Direct,
    /// Through FFTs (`fftconvolve`).
    Fft,
}

impl Method {
    /// `"auto"`, `"direct"` or `"fft"`.
    pub fn parse(s: &str) -> Result<Method> {
        match s {
            "auto" => Ok(Method::Auto),
            "direct" => Ok(Method::Direct),
            "fft" => Ok(Method::Fft),
            _ => Err(Error::InvalidArgument {
                op: "Method::parse",
                detail: format!(
                    "acceptable method flags are 'auto', 'direct', or 'fft', not {s:?}"
                ),
            }),
        }
    }
}

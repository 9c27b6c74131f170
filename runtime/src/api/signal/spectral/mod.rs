//! Spectral estimates (`periodogram`, `welch`, `csd`, `coherence`,
//! `spectrogram`, `stft`, `istft`), SciPy's `_spectral_helper` as array
//! operations on the input's device: the segments are one strided view of
//! the signal (no copy per segment), detrended and windowed together and
//! transformed by one batched FFT; averaging over segments is one
//! reduction, and `istft`'s overlap-add is a few shifted sums (one per
//! overlapping segment, not one per segment).

mod estimates;
mod segments;
mod stft;

pub use estimates::{coherence, csd, periodogram, spectrogram, welch};
pub use stft::{istft, stft, Boundary, IstftOptions, StftOptions};

pub use super::detrend::Detrend;
use super::window::Window;

/// Scaling of spectral estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scaling {
    /// Power spectral density (V**2/Hz).
    #[default]
    Density,
    /// Power spectrum (V**2).
    Spectrum,
}

/// How `welch` and `csd` average the segments' spectra.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Average {
    /// The mean.
    #[default]
    Mean,
    /// The median, divided by its bias for exponentially distributed values.
    Median,
}

/// Options of [`periodogram`], [`welch`], [`csd`], [`coherence`] and
/// [`spectrogram`]; `None` fields take SciPy's defaults (window: boxcar for
/// periodogram, Tukey(0.25) for spectrogram, Hann otherwise; nperseg 256
/// clipped to the input; noverlap nperseg / 2, nperseg / 8 for spectrogram;
/// nfft nperseg).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpectralOptions {
    /// Sampling frequency (default 1).
    pub fs: f64,
    pub window: Option<Window>,
    pub nperseg: Option<usize>,
    pub noverlap: Option<usize>,
    pub nfft: Option<usize>,
    pub detrend: Detrend,
    pub scaling: Scaling,
    /// One-sided spectra for real data (default); complex data is always two-sided.
    pub return_onesided: bool,
    /// The axis of the signal (default -1).
    pub axis: isize,
    /// Averaging of `welch` / `csd` (default mean).
    pub average: Average,
}

impl Default for SpectralOptions {
    fn default() -> Self {
        SpectralOptions {
            fs: 1.0,
            window: None,
            nperseg: None,
            noverlap: None,
            nfft: None,
            detrend: Detrend::Constant,
            scaling: Scaling::Density,
            return_onesided: true,
            axis: -1,
            average: Average::Mean,
        }
    }
}

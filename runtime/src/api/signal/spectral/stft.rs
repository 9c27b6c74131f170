//! The short-time Fourier transform and its inverse (`scipy.signal.stft`,
//! `istft`). The inverse's overlap-add runs as `ceil(nperseg / step)`
//! shifted sums of whole arrays: segment `s` starts at `s * step`, so
//! splitting every segment into blocks of `step` samples puts block `k` of
//! segment `s` at output block `s + k`; block `k` of all segments is one
//! contiguous run, added in at offset `k * step`.

use crate::api::creation::arange;
use crate::api::elementwise::{divide, greater, multiply, real, square, subtract};
use crate::api::fft::{ifft_with, irfft_with, FftOptions};
use crate::api::shape::index::{slice_axis, where_};
use crate::api::shape::manip::{pad, PadMode};
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

use super::super::window::{window_values, Window};
use super::segments::{
    check_fs, compute_dtype, frequencies, plan, segment_spectra, signal_rows, small, times,
};
use super::{Detrend, Scaling};

/// How `stft` extends the signal by `nperseg / 2` samples at each end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Boundary {
    /// Zeros (SciPy's default).
    Zeros,
    /// Mirror reflection about each end sample.
    Even,
    /// Point reflection about each end sample.
    Odd,
    /// Repeats of each end sample.
    Constant,
}

/// Options of [`stft`]; `Default` is SciPy's (Hann window of 256 points,
/// half overlap, no detrending, zero boundaries, padded, 'spectrum' scaling).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StftOptions {
    pub fs: f64,
    pub window: Window,
    pub nperseg: usize,
    pub noverlap: Option<usize>,
    pub nfft: Option<usize>,
    pub detrend: Detrend,
    pub return_onesided: bool,
    /// The extension at both ends (`None`: no extension).
    pub boundary: Option<Boundary>,
    /// Zero-pad the end to a whole number of segments.
    pub padded: bool,
    pub axis: isize,
    pub scaling: Scaling,
}

impl Default for StftOptions {
    fn default() -> Self {
        StftOptions {
            fs: 1.0,
            window: Window::Hann,
            nperseg: 256,
            noverlap: None,
            nfft: None,
            detrend: Detrend::None,
            return_onesided: true,
            boundary: Some(Boundary::Zeros),
            padded: true,
            axis: -1,
            scaling: Scaling::Spectrum,
        }
    }
}

/// Options of [`istft`]; `Default` is SciPy's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IstftOptions {
    pub fs: f64,
    pub window: Window,
    /// Default: from the frequency axis (`2 (nfreq - 1)` when one-sided).
    pub nperseg: Option<usize>,
    pub noverlap: Option<usize>,
    pub nfft: Option<usize>,
    pub input_onesided: bool,
    /// Whether `stft` extended the signal (its extension is cut off).
    pub boundary: bool,
    pub time_axis: isize,
    pub freq_axis: isize,
    pub scaling: Scaling,
}

impl Default for IstftOptions {
    fn default() -> Self {
        IstftOptions {
            fs: 1.0,
            window: Window::Hann,
            nperseg: None,
            noverlap: None,
            nfft: None,
            input_onesided: true,
            boundary: true,
            time_axis: -1,
            freq_axis: -2,
            scaling: Scaling::Spectrum,
        }
    }
}

/// Zeros added to the last axis: `left` before, `right` after.
fn pad_last(a: &Array, left: usize, right: usize) -> Result<Array> {
    let mut w = vec![(0usize, 0usize); a.ndim()];
    w[a.ndim() - 1] = (left, right);
    pad(a, w, PadMode::Constant(0.into()))
}

/// `rows` extended by `edge` samples at each end of the last axis.
fn extend(op: &'static str, rows: &Array, edge: usize, how: Boundary) -> Result<Array> {
    let n = rows.shape()[rows.ndim() - 1];
    let mut w = vec![(0usize, 0usize); rows.ndim()];
    w[rows.ndim() - 1] = (edge, edge);
    if matches!(how, Boundary::Even | Boundary::Odd) && edge + 1 > n {
        return Err(Error::invalid(
            op,
            format!("the extension length ({edge}) is too big: it must not exceed the signal length minus one ({})", n.saturating_sub(1)),
        ));
    }
    match how {
        Boundary::Zeros => pad(rows, w, PadMode::Constant(0.into())),
        Boundary::Constant => pad(rows, w, PadMode::Edge),
        Boundary::Even => pad(rows, w, PadMode::Reflect),
        Boundary::Odd => subtract(
            multiply(pad(rows, w.clone(), PadMode::Edge)?, 2.0)?,
            pad(rows, w, PadMode::Reflect)?,
        ),
    }
}

/// The short-time Fourier transform of `x` (`scipy.signal.stft`):
/// (frequencies, segment times, complex Zxx with frequencies at the
/// signal's axis and segments last).
pub fn stft(x: &Array, opts: StftOptions) -> Result<(Array, Array, Array)> {
    let op = "stft";
    x.device().check_available(op)?;
    check_fs(op, opts.fs)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    if opts.nperseg == 0 {
        return Err(Error::invalid(op, "nperseg must be a positive integer"));
    }
    let dt = compute_dtype(op, x.dtype())?;
    let ax = normalize_axis(op, opts.axis, x.ndim())?;
    let mut rows = signal_rows(x, ax as isize, dt)?;
    let n = rows.shape()[rows.ndim() - 1];
    if n == 0 {
        return Err(Error::invalid(op, "x must not be empty along the axis"));
    }
    let nperseg = opts.nperseg.min(n);
    if let Some(b) = opts.boundary {
        rows = extend(op, &rows, nperseg / 2, b)?;
    }
    let p = plan(
        op,
        opts.window,
        Some(nperseg),
        opts.noverlap,
        opts.nfft,
        2,
        opts.return_onesided,
        usize::MAX,
        dt,
    )?;
    if opts.padded {
        let len = rows.shape()[rows.ndim() - 1] as i64;
        let (np, step) = (nperseg as i64, p.step() as i64);
        let nadd = (-(len - np)).rem_euclid(step).rem_euclid(np);
        rows = pad_last(&rows, 0, nadd as usize)?;
    }
    let n_ext = rows.shape()[rows.ndim() - 1];
    let zxx = segment_spectra(&rows, &p, opts.detrend)?;
    let scale = match opts.scaling {
        Scaling::Spectrum => 1.0 / p.win.iter().sum::<f64>(),
        Scaling::Density => (1.0 / (opts.fs * p.win.iter().map(|w| w * w).sum::<f64>())).sqrt(),
    };
    let zxx = multiply(&zxx, small(&[scale], x.device(), dt.real_dtype())?)?;
    let shift = if opts.boundary.is_some() {
        (nperseg / 2) as f64 / opts.fs
    } else {
        0.0
    };
    let f = frequencies(&p, opts.fs, x.device())?;
    let t = times(&p, n_ext, opts.fs, shift, x.device())?;
    Ok((f, t, zxx.moveaxis(-1, ax as isize)?.copy()?))
}

/// The overlap-add of `frames` (..., segments, nperseg) at hop `step`:
/// (..., (segments - 1) step + nperseg).
fn overlap_add(frames: &Array, step: usize) -> Result<Array> {
    let nd = frames.ndim();
    let (nseg, nperseg) = (frames.shape()[nd - 2], frames.shape()[nd - 1]);
    let r = nperseg.div_ceil(step);
    let lead = frames.shape()[..nd - 2].to_vec();
    let mut blocks_shape = lead.clone();
    blocks_shape.extend([nseg, r, step]);
    let blocks = pad_last(frames, 0, r * step - nperseg)?.reshape(blocks_shape)?;
    let mut run_shape = lead;
    run_shape.push(nseg * step);
    let mut acc: Option<Array> = None;
    for k in 0..r {
        let part = slice_axis(&blocks, nd - 1, Some(k as isize), Some(k as isize + 1), 1)?
            .reshape(run_shape.clone())?;
        let part = pad_last(&part, k * step, (r - 1 - k) * step)?;
        acc = Some(match acc {
            None => part,
            Some(a) => crate::api::elementwise::add(&a, &part)?,
        });
    }
    let total = (nseg - 1) * step + nperseg;
    let acc = acc.ok_or_else(|| Error::invalid("istft", "no segments"))?;
    slice_axis(&acc, nd - 2, Some(0), Some(total as isize), 1)
}

/// The inverse short-time Fourier transform (`scipy.signal.istft`):
/// (times, x) by weighted overlap-add of the inverse FFTs of the segments.
pub fn istft(zxx: &Array, opts: IstftOptions) -> Result<(Array, Array)> {
    let op = "istft";
    zxx.device().check_available(op)?;
    check_fs(op, opts.fs)?;
    let nd = zxx.ndim();
    if nd < 2 {
        return Err(Error::shape(op, "the STFT input must be at least 2-D"));
    }
    let fa = normalize_axis(op, opts.freq_axis, nd)?;
    let ta = normalize_axis(op, opts.time_axis, nd)?;
    if fa == ta {
        return Err(Error::invalid(
            op,
            "the frequency and time axes must differ",
        ));
    }
    let mut perm: Vec<usize> = (0..nd).filter(|&a| a != fa && a != ta).collect();
    perm.extend([fa, ta]);
    let perm: Vec<isize> = perm.iter().map(|&a| a as isize).collect();
    let z = zxx.permute_axes(&perm)?;
    let (nfreq_in, nseg) = (z.shape()[nd - 2], z.shape()[nd - 1]);
    let n_default = if opts.input_onesided {
        2 * nfreq_in.saturating_sub(1)
    } else {
        nfreq_in
    };
    let nperseg = opts.nperseg.unwrap_or(n_default);
    if nperseg < 1 || nseg == 0 {
        return Err(Error::invalid(
            op,
            format!("nperseg ({nperseg}) and the number of segments ({nseg}) must be positive"),
        ));
    }
    let nfft = opts.nfft.unwrap_or(nperseg);
    if nfft < nperseg {
        return Err(Error::invalid(
            op,
            format!("nfft ({nfft}) must be greater than or equal to nperseg ({nperseg})"),
        ));
    }
    let noverlap = opts.noverlap.unwrap_or(nperseg / 2);
    if noverlap >= nperseg {
        return Err(Error::invalid(
            op,
            format!("noverlap ({noverlap}) must be less than nperseg ({nperseg})"),
        ));
    }
    let step = nperseg - noverlap;
    let cdt = match compute_dtype(op, z.dtype())? {
        DType::Float32 | DType::Complex64 => DType::Complex64,
        _ => DType::Complex128,
    };
    let z = z.astype(cdt)?;
    let fo = FftOptions::new().n(nfft).axis(-2);
    let xsubs = if opts.input_onesided {
        irfft_with(&z, &fo)?
    } else {
        ifft_with(&z, &fo)?
    };
    let xsubs = slice_axis(&xsubs, nd - 2, Some(0), Some(nperseg as isize), 1)?;
    let win = window_values(op, opts.window, nperseg, false)?;
    let gain = match opts.scaling {
        Scaling::Spectrum => win.iter().sum::<f64>(),
        Scaling::Density => (opts.fs * win.iter().map(|w| w * w).sum::<f64>()).sqrt(),
    };
    let rdt = cdt.real_dtype();
    let w_dev = small(&win, zxx.device(), rdt)?;
    let wg: Vec<f64> = win.iter().map(|w| w * gain).collect();
    let frames = multiply(xsubs.swapaxes(-1, -2)?, small(&wg, zxx.device(), rdt)?)?;
    let x = overlap_add(&frames, step)?;
    let norm = overlap_add(&square(&w_dev)?.broadcast_to(&[nseg, nperseg])?, step)?;
    let (x, norm) = if opts.boundary {
        let len = x.shape()[x.ndim() - 1];
        let h = nperseg / 2;
        let end = Some((len - h.min(len)) as isize);
        (
            slice_axis(&x, x.ndim() - 1, Some(h as isize), end, 1)?,
            slice_axis(&norm, 0, Some(h as isize), end, 1)?,
        )
    } else {
        (x, norm)
    };
    let safe = where_(greater(&norm, 1e-10)?, &norm, 1.0)?;
    let mut x = divide(&x, &safe)?;
    if opts.input_onesided && x.dtype().is_complex() {
        x = real(&x)?;
    }
    if x.ndim() > 1 && ta != nd - 1 {
        let t_out = if fa < ta { ta - 1 } else { ta };
        x = x.moveaxis(-1, t_out as isize)?;
    }
    let len = x.shape()[if x.ndim() > 1 && ta != nd - 1 {
        if fa < ta {
            ta - 1
        } else {
            ta
        }
    } else {
        x.ndim() - 1
    }];
    let t = with_device(zxx.device(), || arange(len as i64))?.astype(DType::Float64)?;
    let t = divide(&t, opts.fs)?;
    Ok((t, x.copy()?))
}

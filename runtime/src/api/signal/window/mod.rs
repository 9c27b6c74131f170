//! Window functions (`scipy.signal.windows` and `get_window`): each window
//! is a few coefficients computed on the host in f64 (closed forms, a
//! Chebyshev FFT, a tridiagonal eigenvector) and placed on the current
//! device. `sym` windows are symmetric (filter design); periodic ones
//! (`sym = false`, `get_window`'s default) drop the last point of the
//! window one longer, as SciPy's `_extend` / `_truncate` do.

mod shapes;

use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// A window function for [`get_window`], the spectral estimates and [`firwin`](super::firwin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Window {
    /// Rectangular (all ones; SciPy's `boxcar`).
    Boxcar,
    /// Triangular with zero end points (`bartlett`).
    Bartlett,
    /// Hann (raised cosine).
    Hann,
    /// Hamming.
    Hamming,
    /// Blackman.
    Blackman,
    /// Minimum 4-term Blackman-Harris.
    BlackmanHarris,
    /// Kaiser with shape parameter `beta`.
    Kaiser(f64),
    /// Tukey (tapered cosine) with the given taper fraction.
    Tukey(f64),
    /// Gaussian with standard deviation `std` (in samples).
    Gaussian(f64),
    /// Generalized Gaussian of power `p` and width `sig`.
    GeneralGaussian(f64, f64),
    /// Dolph-Chebyshev with sidelobe attenuation `at` dB.
    Chebwin(f64),
    /// The first discrete prolate spheroidal (Slepian) sequence of
    /// standardized half bandwidth `NW`.
    Dpss(f64),
}

impl Window {
    /// A window from SciPy's name and parameters: `("hann", &[])`,
    /// `("kaiser", &[8.6])`, `("general_gaussian", &[1.5, 7.0])`; SciPy's
    /// aliases (`"hanning"`, `"boxcar"`/`"rect"`, `"triang"` is not Bartlett
    /// and is refused, `"blackmanharris"`, `"cheb"`, `"slepian"` is not
    /// `dpss` and is refused) are accepted where SciPy accepts them.
    pub fn from_name(name: &str, params: &[f64]) -> Result<Window> {
        let op = "get_window";
        let need = |k: usize| -> Result<()> {
            if params.len() == k {
                Ok(())
            } else {
                Err(Error::invalid(
                    op,
                    format!(
                        "the {name:?} window takes {k} parameter(s), got {}",
                        params.len()
                    ),
                ))
            }
        };
        let w = match name {
            "boxcar" | "box" | "ones" | "rect" | "rectangular" => {
                need(0)?;
                Window::Boxcar
            }
            "bartlett" | "bart" | "brt" => {
                need(0)?;
                Window::Bartlett
            }
            "hann" | "han" | "hanning" => {
                need(0)?;
                Window::Hann
            }
            "hamming" | "hamm" | "ham" => {
                need(0)?;
                Window::Hamming
            }
            "blackman" | "black" | "blk" => {
                need(0)?;
                Window::Blackman
            }
            "blackmanharris" | "blackharr" | "bkh" => {
                need(0)?;
                Window::BlackmanHarris
            }
            "kaiser" | "ksr" => {
                need(1)?;
                Window::Kaiser(params[0])
            }
            "tukey" | "tuk" => {
                need(1)?;
                Window::Tukey(params[0])
            }
            "gaussian" | "gauss" | "gss" => {
                need(1)?;
                Window::Gaussian(params[0])
            }
            "general_gaussian" | "general gaussian" | "general gauss" | "general_gauss" | "ggs" => {
                need(2)?;
                Window::GeneralGaussian(params[0], params[1])
            }
            "chebwin" | "cheb" => {
                need(1)?;
                Window::Chebwin(params[0])
            }
            "dpss" => {
                need(1)?;
                Window::Dpss(params[0])
            }
            _ => return Err(Error::invalid(op, format!("unknown window type {name:?}"))),
        };
        Ok(w)
    }
}

impl std::str::FromStr for Window {
    type Err = Error;
    /// A window without parameters by name (`"hann"`), or one with them
    /// written SciPy's tuple way without the brackets: `"kaiser,8.6"`.
    fn from_str(s: &str) -> Result<Window> {
        let mut parts = s.split(',').map(str::trim);
        let name = parts.next().unwrap_or("");
        let params = parts
            .map(|p| {
                p.parse::<f64>().map_err(|_| {
                    Error::invalid(
                        "get_window",
                        format!("window parameter {p:?} is not a number"),
                    )
                })
            })
            .collect::<Result<Vec<f64>>>()?;
        Window::from_name(name, &params)
    }
}

/// The values of `w` with `m` points, symmetric when `sym` (f64 on the host).
pub(crate) fn window_values(op: &'static str, w: Window, m: usize, sym: bool) -> Result<Vec<f64>> {
    if m <= 1 {
        return Ok(vec![1.0; m]);
    }
    // Periodic windows are the symmetric window one point longer, truncated.
    let len = if sym { m } else { m.saturating_add(1) };
    // Built on the host: a length it cannot hold is an error, not an abort.
    let n = crate::core::layout::checked_size(op, &[len])?;
    crate::core::layout::check_host_room(op, n, 8)?;
    let mut v = match w {
        Window::Boxcar => vec![1.0; len],
        Window::Bartlett => shapes::bartlett(len),
        Window::Hann => shapes::general_cosine(len, &[0.5, 0.5]),
        Window::Hamming => shapes::general_cosine(len, &[0.54, 0.46]),
        Window::Blackman => shapes::general_cosine(len, &[0.42, 0.50, 0.08]),
        Window::BlackmanHarris => {
            shapes::general_cosine(len, &[0.35875, 0.48829, 0.14128, 0.01168])
        }
        Window::Kaiser(beta) => shapes::kaiser(len, beta),
        Window::Tukey(alpha) => shapes::tukey(len, alpha),
        Window::Gaussian(std) => shapes::general_gaussian(len, 1.0, std),
        Window::GeneralGaussian(p, sig) => shapes::general_gaussian(len, p, sig),
        Window::Chebwin(at) => shapes::chebwin(len, at),
        Window::Dpss(nw) => {
            if !(nw > 0.0 && nw < m as f64 / 2.0) {
                return Err(Error::invalid(
                    op,
                    format!(
                        "dpss: NW ({nw}) must be positive and less than M/2 = {}",
                        m as f64 / 2.0
                    ),
                ));
            }
            shapes::dpss(len, nw)
        }
    };
    v.truncate(m);
    Ok(v)
}

/// A window of `nx` points (`scipy.signal.get_window`): periodic (for
/// spectral analysis) when `fftbins`, else symmetric. float64 on the current device.
pub fn get_window(window: Window, nx: usize, fftbins: bool) -> Result<Array> {
    let v = window_values("get_window", window, nx, !fftbins)?;
    Array::from_host_slice(&v, &[nx], current_device())
}

/// The Hann window of `m` points (`scipy.signal.windows.hann(m, sym)`).
pub fn hann(m: usize, sym: bool) -> Result<Array> {
    get_window(Window::Hann, m, !sym)
}

/// The symmetric Hann window of `m` points (`numpy.hanning(m)`).
pub fn hanning(m: usize) -> Result<Array> {
    hann(m, true)
}

/// `scipy.signal.windows`: one function per window, `(M, params..., sym)`.
pub mod windows {
    use super::{get_window, Window};
    use crate::core::array::Array;
    use crate::core::error::Result;

    /// `scipy.signal.windows.boxcar(m, sym)`.
    pub fn boxcar(m: usize, sym: bool) -> Result<Array> {
        get_window(Window::Boxcar, m, !sym)
    }
    /// `scipy.signal.windows.bartlett(m, sym)`.
    pub fn bartlett(m: usize, sym: bool) -> Result<Array> {
        get_window(Window::Bartlett, m, !sym)
    }
    /// `scipy.signal.windows.hann(m, sym)`.
    pub fn hann(m: usize, sym: bool) -> Result<Array> {
        get_window(Window::Hann, m, !sym)
    }
    /// `scipy.signal.windows.hamming(m, sym)`.
    pub fn hamming(m: usize, sym: bool) -> Result<Array> {
        get_window(Window::Hamming, m, !sym)
    }
    /// `scipy.signal.windows.blackman(m, sym)`.
    pub fn blackman(m: usize, sym: bool) -> Result<Array> {
        get_window(Window::Blackman, m, !sym)
    }
    /// `scipy.signal.windows.blackmanharris(m, sym)`.
    pub fn blackmanharris(m: usize, sym: bool) -> Result<Array> {
        get_window(Window::BlackmanHarris, m, !sym)
    }
    /// `scipy.signal.windows.kaiser(m, beta, sym)`.
    pub fn kaiser(m: usize, beta: f64, sym: bool) -> Result<Array> {
        get_window(Window::Kaiser(beta), m, !sym)
    }
    /// `scipy.signal.windows.tukey(m, alpha, sym)`.
    pub fn tukey(m: usize, alpha: f64, sym: bool) -> Result<Array> {
        get_window(Window::Tukey(alpha), m, !sym)
    }
    /// `scipy.signal.windows.gaussian(m, std, sym)`.
    pub fn gaussian(m: usize, std: f64, sym: bool) -> Result<Array> {
        get_window(Window::Gaussian(std), m, !sym)
    }
    /// `scipy.signal.windows.general_gaussian(m, p, sig, sym)`.
    pub fn general_gaussian(m: usize, p: f64, sig: f64, sym: bool) -> Result<Array> {
        get_window(Window::GeneralGaussian(p, sig), m, !sym)
    }
    /// `scipy.signal.windows.chebwin(m, at, sym)`.
    pub fn chebwin(m: usize, at: f64, sym: bool) -> Result<Array> {
        get_window(Window::Chebwin(at), m, !sym)
    }
    /// `scipy.signal.windows.dpss(m, nw, sym=sym)` (one taper, `Kmax=None`, norm 'approximate').
    pub fn dpss(m: usize, nw: f64, sym: bool) -> Result<Array> {
        get_window(Window::Dpss(nw), m, !sym)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hann_matches_numpy() {
        // NumPy 2.4: np.hanning(5) = [0, 0.5, 1, 0.5, 0]
        let w = window_values("t", Window::Hann, 5, true).unwrap();
        for (a, b) in w.iter().zip([0.0, 0.5, 1.0, 0.5, 0.0]) {
            assert!((a - b).abs() < 1e-15);
        }
    }

    #[test]
    fn names_parse() {
        assert_eq!(
            "kaiser, 8.6".parse::<Window>().unwrap(),
            Window::Kaiser(8.6)
        );
        assert_eq!("hann".parse::<Window>().unwrap(), Window::Hann);
        assert!("kaiser".parse::<Window>().is_err());
        assert!("nope".parse::<Window>().is_err());
    }
}

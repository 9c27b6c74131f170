//! Benchmark cases for cp::signal's spectra, peaks and resampling (CuPy's
//! side is the last section of cupy_extra.py): Welch's PSD of 64M float32
//! samples in Hann segments of 4096 with half overlap, find_peaks with a
//! height condition over 16M float64 samples, and resample_poly by 3/2 of
//! 16M float32 samples.

use super::{host_random, Bench};
use cuprite as cp;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let x = cp::asarray(host_random(1 << 26, 21))?;
    let o = cp::signal::SpectralOptions {
        nperseg: Some(4096),
        ..Default::default()
    };
    b.case("welch_64M_nperseg4096", None, None, 5, 2, || {
        cp::signal::welch(&x, o)
    })?;
    drop(x);
    let y = cp::asarray(host_random(1 << 24, 22))?.astype(cp::f64)?;
    let fo = cp::signal::FindPeaksOptions {
        height: Some(0.5.into()),
        ..Default::default()
    };
    b.case("find_peaks_16M", None, None, 5, 2, || {
        cp::signal::find_peaks(&y, fo)
    })?;
    drop(y);
    let z = cp::asarray(host_random(1 << 24, 23))?;
    b.case("resample_poly_16M_up3_down2", None, None, 5, 2, || {
        cp::signal::resample_poly(&z, 3, 2, -1, cp::signal::Window::Kaiser(5.0))
    })?;
    Ok(())
}

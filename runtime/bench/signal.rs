//! Benchmark cases for cp::signal and cp::sparse (the setups of
//! `cupy_bench.py`: a 4096 x 4096 float32 image with a normalised 31 x 31
//! Hanning kernel, a 1M-point float32 ramp, and a 1M x 1M CSR matrix with
//! 16 random columns per row).

use super::{host_random, Bench};
use cp::signal::{Boundary, Mode};
use cuprite as cp;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let n = 4096usize;
    let img = cp::from_shape_vec(vec![n, n], host_random(n * n, 11), cp::Order::C)?;
    // kern = outer(hanning(31), hanning(31)); kern /= kern.sum()
    let h = cp::signal::hanning(31)?.to_vec::<f64>()?;
    let mut k: Vec<f64> = h
        .iter()
        .flat_map(|a| h.iter().map(move |b| a * b))
        .collect();
    let s: f64 = k.iter().sum();
    k.iter_mut().for_each(|v| *v /= s);
    let kern = cp::from_shape_vec(vec![31, 31], k, cp::Order::C)?.astype(cp::f32)?;
    let flops = (n * n * 31 * 31 * 2) as f64;
    b.case(
        "convolve2d_4096_31_same_wrap",
        None,
        Some(flops),
        3,
        1,
        || cp::signal::convolve2d(&img, &kern, Mode::Same, Boundary::Wrap, 0.0),
    )?;
    b.case("fftconvolve_4096_31_same", None, None, 5, 3, || {
        cp::signal::fftconvolve(&img, &kern, Mode::Same)
    })?;
    let sx = cp::linspace_with(0.0, 10.0, 1 << 20, true, cp::f32)?;
    b.case("medfilt_1M_k5", None, None, 5, 3, || {
        cp::signal::medfilt(&sx, Some(&[5]))
    })?;
    // IIR (cupy_extra.py has CuPy's side): an 8th-order Butterworth in
    // float32 sections over 64 channels of 1M samples, and a 4th-order
    // zero-phase filter over 16M float64 samples.
    let as_sos = cp::signal::IirOptions {
        output: cp::signal::FilterForm::Sos,
        ..Default::default()
    };
    let sos = cp::signal::butter(8, &[0.1], as_sos)?
        .sos()?
        .to_array()?
        .astype(cp::f32)?;
    let chans = cp::from_shape_vec(vec![64, 1 << 20], host_random(64 << 20, 15), cp::Order::C)?;
    b.case("sosfilt_order8_64ch_1M", None, None, 5, 2, || {
        cp::signal::sosfilt(&sos, &chans, -1, None)
    })?;
    let (bb, aa) = cp::signal::butter(4, &[0.1], Default::default())?
        .ba()?
        .to_arrays()?;
    let long = cp::asarray(host_random(1 << 24, 16))?.astype(cp::f64)?;
    b.case("filtfilt_order4_16M", None, None, 5, 2, || {
        cp::signal::filtfilt(&bb, &aa, &long, Default::default())
    })?;

    let nrows = 1usize << 20;
    let nnz_per = 16usize;
    let rows: Vec<i32> = (0..nrows as i32)
        .flat_map(|r| std::iter::repeat_n(r, nnz_per))
        .collect();
    let cols: Vec<i32> = host_random(nrows * nnz_per, 12)
        .iter()
        .map(|u| ((*u as f64 * nrows as f64) as usize).min(nrows - 1) as i32)
        .collect();
    let vals = cp::asarray(host_random(nrows * nnz_per, 13))?;
    let sm = cp::sparse::CooMatrix::new(
        &vals,
        &cp::asarray(rows)?,
        &cp::asarray(cols)?,
        Some((nrows, nrows)),
    )?
    .tocsr()?;
    let v = cp::asarray(host_random(nrows, 14))?;
    let bytes = (8 * nrows * nnz_per + 8 * nrows) as f64;
    b.bandwidth("spmv_csr_1M_16nnz", bytes, || sm.dot(&v))?;
    Ok(())
}

//! The fixtures of tests/data/scipy/spectra.npz and the comparisons the
//! signal_spectra* tests share.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use cp::num_complex::Complex64;
use cp::{Array, Device};
use cuprite as cp;

fn fixtures() -> &'static BTreeMap<String, Array> {
    static F: OnceLock<BTreeMap<String, Array>> = OnceLock::new();
    F.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scipy/spectra.npz");
        let opts = cp::LoadOptions::default().device(Some(Device::Cpu));
        cp::load_npz_with(path, &opts).expect("spectra.npz (run generate_spectra.py)")
    })
}

pub fn fx(key: &str) -> &'static Array {
    fixtures()
        .get(key)
        .unwrap_or_else(|| panic!("fixture {key} missing"))
}

pub fn fx_f64(key: &str) -> Vec<f64> {
    fx(key)
        .astype(cp::DType::Float64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

pub fn fx_i64(key: &str) -> Vec<i64> {
    fx(key)
        .astype(cp::DType::Int64)
        .unwrap()
        .to_vec::<i64>()
        .unwrap()
}

pub fn fx_c64(key: &str) -> Vec<Complex64> {
    fx(key)
        .astype(cp::DType::Complex128)
        .unwrap()
        .to_vec::<Complex64>()
        .unwrap()
}

/// Every element within `tol` of the expected, relative to the largest
/// expected magnitude; NaN never passes.
#[track_caller]
pub fn assert_vec_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * scale,
            "{what}[{i}]: got {g}, want {w} (tol {tol} x {scale});\n got {got:?}\nwant {want:?}"
        );
    }
}

/// Complex values of `got` within `tol` of `want` (relative to the largest magnitude).
#[track_caller]
pub fn assert_c_close(what: &str, got: &Array, want: &[Complex64], tol: f64) {
    let g = got
        .astype(cp::DType::Complex128)
        .unwrap()
        .to_vec::<Complex64>()
        .unwrap();
    assert_eq!(g.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.norm())).max(1e-300);
    for (i, (a, b)) in g.iter().zip(want).enumerate() {
        assert!(
            (a - b).norm() <= tol * scale,
            "{what}[{i}]: got {a}, want {b} (tol {tol} x {scale})"
        );
    }
}

/// Exact integer indices.
#[track_caller]
pub fn assert_idx(what: &str, got: &Array, want: &[i64]) {
    let g = got
        .astype(cp::DType::Int64)
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    assert_eq!(g, want, "{what}");
}

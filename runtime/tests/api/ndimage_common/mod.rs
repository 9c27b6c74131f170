//! Fixtures of tests/data/scipy/ndimage.npz (written by generate_ndimage.py)
//! and comparisons shared by the ndimage test binaries.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use cp::{Array, Device};
use cuprite as cp;

pub fn fixtures() -> &'static BTreeMap<String, Array> {
    static F: OnceLock<BTreeMap<String, Array>> = OnceLock::new();
    F.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/scipy/ndimage.npz");
        let opts = cp::LoadOptions::default().device(Some(Device::Cpu));
        cp::load_npz_with(path, &opts).expect("ndimage.npz (run generate_ndimage.py)")
    })
}

/// The fixture `key` on the current device.
pub fn fx(key: &str) -> Array {
    fixtures()
        .get(key)
        .unwrap_or_else(|| panic!("fixture {key} missing"))
        .to_device(&cp::current_device())
        .unwrap()
}

pub fn vals(a: &Array) -> Vec<f64> {
    a.astype(cp::DType::Float64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

/// `got` has the fixture's shape and values within `tol` of its largest magnitude.
#[track_caller]
pub fn check(got: &Array, key: &str, tol: f64) {
    let want = fixtures()
        .get(key)
        .unwrap_or_else(|| panic!("fixture {key} missing"));
    assert_eq!(got.shape(), want.shape(), "{key}: shape");
    check_vals(key, &vals(got), &vals(want), tol);
}

#[track_caller]
pub fn check_vals(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want
        .iter()
        .filter(|v| v.is_finite())
        .fold(1e-300f64, |m, v| m.max(v.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_finite() {
            (g - w).abs() <= tol * scale
        } else {
            g == w
        };
        assert!(
            ok,
            "{what}[{i}]: got {g}, want {w} (tol {tol} x {scale})\n got {got:?}\nwant {want:?}"
        );
    }
}

pub const MODES: [&str; 5] = ["reflect", "constant", "nearest", "mirror", "wrap"];
pub const IMODES: [&str; 8] = [
    "reflect",
    "constant",
    "nearest",
    "mirror",
    "wrap",
    "grid-mirror",
    "grid-constant",
    "grid-wrap",
];

pub fn mode(name: &str) -> cp::ndimage::Mode {
    cp::ndimage::Mode::from_name("test", name).unwrap()
}

/// The same computation on the GPU and on the CPU (from the same host
/// values) agree within `tol` of the largest magnitude, and the GPU took
/// no host fallback.
#[track_caller]
pub fn gpu_matches_cpu(what: &str, tol: f64, f: impl Fn(Device) -> cp::Result<Array>) {
    let Some(dev) = crate::common::gpu_or_skip() else {
        return;
    };
    cp::cuda::reset_host_fallbacks();
    let g = cp::with_device(dev, || f(dev)).unwrap();
    assert_eq!(g.device(), dev, "{what}: result device");
    crate::common::assert_no_host_fallback(what);
    let c = cp::with_device(Device::Cpu, || f(Device::Cpu)).unwrap();
    assert_eq!(g.shape(), c.shape(), "{what}: shape");
    assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
    check_vals(what, &vals(&g), &vals(&c), tol);
}

/// A random array of `shape` in [0, 1) on `dev` (the same values on every device).
pub fn random(shape: &[usize], seed: u64, dev: Device) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = crate::common::rnd(n, seed)
        .into_iter()
        .map(|x| 0.5 * (x + 1.0))
        .collect();
    cp::from_shape_vec(shape, v, cp::Order::C)
        .unwrap()
        .to_device(&dev)
        .unwrap()
}

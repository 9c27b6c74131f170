//! The Krylov solvers on the GPU with automatic fusion off and on, against
//! the CPU, in variants that tell apart where a GPU result goes wrong:
//! bicgstab through a sparse matrix or a closure, from zero or from a
//! given x0; damped LSMR through `from_csr`'s lazily built A^T or a
//! prebuilt one, run twice in a row. Every variant is run and the failures
//! are reported together. A test binary of its own: fusion is switched for
//! the whole process. Skips without a GPU (fails with `CUPRITE_REQUIRE_GPU`).

mod common;

use std::collections::BTreeMap;
use std::sync::Mutex;

use cp::sparse::linalg::{bicgstab, lsmr, LinearOperator, LsmrOptions, SolveOptions};
use cp::sparse::CsrMatrix;
use cp::{Array, DType, Device};
use cuprite as cp;

/// Fusion is process-wide: the tests take turns.
static SWITCH: Mutex<()> = Mutex::new(());

fn fixtures() -> BTreeMap<String, Array> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/scipy/sparse_linalg.npz"
    );
    let opts = cp::LoadOptions::default().device(Some(Device::Cpu));
    cp::load_npz_with(path, &opts).expect("sparse_linalg.npz")
}

/// convdiff's matrix and right-hand side on `dev`.
fn convdiff(f: &BTreeMap<String, Array>, dev: Device) -> (CsrMatrix, Array) {
    let on = |k: &str| f[&format!("convdiff/{k}")].to_device(&dev).unwrap();
    let shape = f["convdiff/shape"].to_vec::<i64>().unwrap();
    let a = CsrMatrix::new(
        &on("data"),
        &on("indices"),
        &on("indptr"),
        (shape[0] as usize, shape[1] as usize),
    )
    .unwrap();
    (a, on("b"))
}

fn host(a: &Array) -> Vec<f64> {
    a.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// The largest difference relative to the largest magnitude of `want`.
fn rel_diff(got: &[f64], want: &[f64]) -> f64 {
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    got.iter()
        .zip(want)
        .map(|(g, w)| {
            if g.is_nan() {
                f64::INFINITY
            } else {
                (g - w).abs() / scale
            }
        })
        .fold(0.0, f64::max)
}

/// bicgstab in one variant: x and the true relative residual.
fn run_bicgstab(dev: Device, closure: bool, from_ones: bool) -> (Vec<f64>, f64) {
    let f = fixtures();
    cp::with_device(dev, || {
        let (a, b) = convdiff(&f, dev);
        let x0 = cp::ones_like(&b).unwrap();
        let mut opts = SolveOptions::new().rtol(1e-10);
        if from_ones {
            opts = opts.x0(&x0);
        }
        let r = if closure {
            let op = LinearOperator::new(a.shape(), DType::Float64, |x| a.dot(x));
            bicgstab(&op, &b, opts).unwrap()
        } else {
            bicgstab(&a, &b, opts).unwrap()
        };
        let res = host(&cp::subtract(&b, a.dot(&r.x).unwrap()).unwrap());
        (host(&r.x), norm(&res) / norm(&host(&b)))
    })
}

#[test]
fn bicgstab_variants_match_the_cpu_with_fusion_off_and_on() {
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    let mut failures = Vec::new();
    for fusion in [false, true] {
        cp::fusion::set_enabled(fusion).unwrap();
        for closure in [false, true] {
            for from_ones in [false, true] {
                let (want, _) = run_bicgstab(Device::Cpu, closure, from_ones);
                let (got, res) = run_bicgstab(gpu, closure, from_ones);
                let d = rel_diff(&got, &want);
                if d > 1e-8 || res > 1e-9 || res.is_nan() {
                    failures.push(format!(
                        "fusion {fusion}, closure {closure}, x0 ones {from_ones}: \
                         GPU vs CPU {d:e}, true residual {res:e}"
                    ));
                }
            }
        }
    }
    cp::fusion::set_enabled(false).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Damped LSMR on convdiff's first 30 columns, twice in a row; `prebuilt`:
/// A^T made before the solve (else by `from_csr` on first use).
fn run_lsmr(dev: Device, prebuilt: bool) -> Vec<Vec<f64>> {
    let f = fixtures();
    cp::with_device(dev, || {
        let (c, b) = convdiff(&f, dev);
        let tall =
            CsrMatrix::from_dense(&c.to_dense().unwrap().slice(cp::s![.., ..30]).unwrap()).unwrap();
        let opts = LsmrOptions::new().damp(0.5).tol(1e-12, 1e-12).iter_lim(300);
        (0..2)
            .map(|_| {
                let r = if prebuilt {
                    let t = tall.tocsc().unwrap().transpose();
                    let fwd = tall.clone();
                    let op = LinearOperator::new(tall.shape(), DType::Float64, move |x| fwd.dot(x))
                        .with_rmatvec(move |y| t.dot(y));
                    lsmr(op, &b, opts).unwrap()
                } else {
                    lsmr(&tall, &b, opts).unwrap()
                };
                let mut out = host(&r.x);
                out.push(r.iterations as f64);
                out
            })
            .collect()
    })
}

#[test]
fn damped_lsmr_variants_match_the_cpu_with_fusion_off_and_on() {
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    let mut failures = Vec::new();
    for fusion in [false, true] {
        cp::fusion::set_enabled(fusion).unwrap();
        for prebuilt in [false, true] {
            let want = run_lsmr(Device::Cpu, prebuilt);
            let got = run_lsmr(gpu, prebuilt);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let n = g.len() - 1;
                let d = rel_diff(&g[..n], &w[..n]);
                if d > 1e-10 {
                    failures.push(format!(
                        "fusion {fusion}, prebuilt A^T {prebuilt}, run {k}: GPU vs CPU {d:e} \
                         ({} vs {} iterations)",
                        g[n], w[n]
                    ));
                }
            }
        }
    }
    cp::fusion::set_enabled(false).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

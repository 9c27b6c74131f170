//! Runs a table's rows on generated arguments and checks the properties:
//! no panic, an `Err` names its operation, and a GPU `Ok` equals the CPU's.

use super::strategies::{args, Args, Built};
use cuprite::num_complex::Complex64;
use cuprite::{Array, DType, Device};
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a call gave back, in a form the two devices can be compared by.
pub enum Out {
    Arrays(Vec<Array>),
    /// A non-array result, as its `Debug` text.
    Text(String),
}

/// One public function and a way to call it with generated arguments.
pub struct Row {
    pub name: &'static str,
    pub call: fn(&Built) -> cuprite::Result<Out>,
}

/// Turns a function's result into an [`Out`].
pub trait IntoOut {
    fn into_out(self) -> Out;
}
impl IntoOut for Array {
    fn into_out(self) -> Out {
        Out::Arrays(vec![self])
    }
}
impl IntoOut for Vec<Array> {
    fn into_out(self) -> Out {
        Out::Arrays(self)
    }
}
impl IntoOut for Option<Array> {
    fn into_out(self) -> Out {
        Out::Arrays(self.into_iter().collect())
    }
}
impl IntoOut for (Array, Array) {
    fn into_out(self) -> Out {
        Out::Arrays(vec![self.0, self.1])
    }
}
impl IntoOut for (Array, Array, Array) {
    fn into_out(self) -> Out {
        Out::Arrays(vec![self.0, self.1, self.2])
    }
}
macro_rules! text_out {
    ($($t:ty),*) => {$(
        impl IntoOut for $t {
            fn into_out(self) -> Out {
                Out::Text(format!("{self:?}"))
            }
        }
    )*};
}
text_out!((), bool, f64, u64, usize, Vec<usize>, String, DType);

pub fn out<T: IntoOut>(r: cuprite::Result<T>) -> cuprite::Result<Out> {
    r.map(IntoOut::into_out)
}

/// Rows as `name => |g| call`, where the call's value is any [`IntoOut`].
#[macro_export]
macro_rules! rows {
    ($($name:literal => |$g:ident| $call:expr),* $(,)?) => {
        vec![$(
            $crate::fuzz_api::check::Row {
                name: $name,
                call: |$g| $crate::fuzz_api::check::out($call),
            }
        ),*]
    };
}

/// Cases per row: `CUPRITE_FUZZ_CASES`, else 32 (CI's budget).
pub fn cases() -> u32 {
    std::env::var("CUPRITE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32)
}

/// A fixed seed, so CI cannot flake; `CUPRITE_FUZZ_SEED=random` draws one
/// (printed, so a failure can be replayed with `CUPRITE_FUZZ_SEED=<n>`).
fn runner() -> TestRunner {
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 256,
        ..Config::default()
    };
    let seed: u64 = match std::env::var("CUPRITE_FUZZ_SEED").as_deref() {
        Ok("random") => {
            let s = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1);
            eprintln!("fuzz_api: CUPRITE_FUZZ_SEED={s}");
            s
        }
        Ok(v) => v.parse().unwrap_or(38),
        Err(_) => 38,
    };
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// Calls `row` on `device`, turning a panic into an error message.
fn call(row: &Row, args: &Args, device: Device) -> Result<cuprite::Result<Out>, String> {
    let built = args
        .build(device)
        .map_err(|e| format!("building the arguments failed: {e}"))?;
    catch_unwind(AssertUnwindSafe(|| {
        cuprite::with_device(device, || (row.call)(&built))
    }))
    .map_err(|p| {
        let what = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("PANIC on {device:?}: {what}")
    })
}

/// An error's text starts with the operation's name: `op: detail`.
fn names_its_operation(e: &cuprite::Error) -> bool {
    let text = e.to_string();
    match text.split_once(':') {
        Some((op, _)) => !op.trim().is_empty() && !op.contains(' '),
        None => false,
    }
}

/// What the comparison needs to know of a case's array arguments: the
/// largest finite magnitude among them, and whether any value is hostile
/// to linear algebra (non-finite, beyond 1e100, or a non-zero below
/// 1e-100), where LAPACK on the GPU and faer on the CPU may each give an
/// answer or an error, and different ones.
struct Inputs {
    scale: f64,
    hostile: bool,
}

fn inputs(args: &Args) -> Inputs {
    let mut facts = Inputs {
        scale: 0.0,
        hostile: false,
    };
    let Ok(built) = args.build(Device::Cpu) else {
        return facts;
    };
    for a in [&built.a, &built.b, &built.m] {
        for v in host_values(a).unwrap_or_default() {
            for x in [v.re, v.im] {
                if x.is_finite() {
                    facts.scale = facts.scale.max(x.abs());
                }
                facts.hostile |=
                    !x.is_finite() || x.abs() > 1e100 || (x != 0.0 && x.abs() < 1e-100);
            }
        }
    }
    facts
}

/// One case of one row of `table`: the properties, as a proptest verdict.
pub fn check_case(table: &str, row: &Row, args: &Args) -> Result<(), TestCaseError> {
    let fail = |m: String| TestCaseError::fail(format!("{}: {m}", row.name));
    let cpu = call(row, args, Device::Cpu).map_err(fail)?;
    if let Err(e) = &cpu {
        if !names_its_operation(e) {
            return Err(fail(format!("error does not name its operation: {e}")));
        }
    }
    let Some(gpu_device) = gpu() else {
        return Ok(());
    };
    let gpu = call(row, args, gpu_device).map_err(fail)?;
    let facts = inputs(args);
    let linalg = table == "linalg";
    let policy = if linalg && facts.hostile {
        Compare::Errors
    } else {
        policy(row.name)
    };
    // Transforms and factorisations round at the scale of their inputs,
    // which may be far above that of an output element; so do filters and
    // spline interpolation (an int32 input, whose drawn values reach 2^31,
    // zoomed with order 2 gave an element of 2.99999928 on the CPU and
    // 2.99999923 on the GPU: a sum of terms at the inputs' scale).
    let scale = if linalg || matches!(table, "fft" | "signal" | "ndimage") {
        facts.scale
    } else {
        0.0
    };
    match (&cpu, &gpu) {
        (Ok(c), Ok(g)) => {
            same(c, g, policy, scale).map_err(|m| fail(format!("GPU differs from CPU: {m}")))
        }
        (Ok(_), Err(e)) | (Err(e), Ok(_))
            if matches!(policy, Compare::Outcome | Compare::Errors) =>
        {
            if names_its_operation(e) {
                Ok(())
            } else {
                Err(fail(format!("error does not name its operation: {e}")))
            }
        }
        (Err(_), Err(e)) if !names_its_operation(e) => {
            Err(fail(format!("GPU error does not name its operation: {e}")))
        }
        (Err(_), Err(_)) => Ok(()),
        (Ok(_), Err(e)) => Err(fail(format!("CPU Ok but GPU Err: {e}"))),
        (Err(e), Ok(_)) => Err(fail(format!("GPU Ok but CPU Err: {e}"))),
    }
}

fn gpu() -> Option<Device> {
    (cuprite::device_count() > 0).then_some(Device::Cuda(0))
}

/// Runs every row of `table` and fails naming each row that broke a
/// property, with its smallest failing arguments.
pub fn run_table(table: &str, rows: Vec<Row>) {
    let strategy = args();
    let mut failures = Vec::new();
    // `CUPRITE_FUZZ_ROW=name` runs only the rows whose name contains it.
    let only = std::env::var("CUPRITE_FUZZ_ROW").ok();
    // `CUPRITE_FUZZ_TRACE=1` names each row as it starts: which row a hang
    // or an out-of-memory kill stopped in (the failure list is printed only
    // at the end).
    let trace = std::env::var_os("CUPRITE_FUZZ_TRACE").is_some();
    for row in rows
        .iter()
        .filter(|r| only.as_deref().is_none_or(|o| r.name.contains(o)))
    {
        if trace {
            eprintln!("fuzz_api {table}: row {}", row.name);
        }
        let mut runner = runner();
        if let Err(e) = runner.run(&strategy, |a| check_case(table, row, &a)) {
            failures.push(format!("{}: {e}", row.name));
        }
    }
    assert!(
        failures.is_empty(),
        "fuzz_api {table}: {} of {} rows failed:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n\n")
    );
}

/// Values as complex numbers (every dtype converts), for comparing.
fn host_values(a: &Array) -> Result<Vec<Complex64>, String> {
    a.astype(DType::Complex128)
        .and_then(|c| c.to_vec::<Complex64>())
        .map_err(|e| e.to_string())
}

/// `x` and `y` agree within `tol`, relative to the larger of them and to
/// `scale` (the inputs' magnitude, where rounding happened at that scale).
fn close(x: f64, y: f64, tol: f64, scale: f64) -> bool {
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if x.is_infinite() || y.is_infinite() {
        return x == y;
    }
    (x - y).abs() <= tol * (1.0 + x.abs().max(y.abs()).max(scale))
}

fn tolerance(d: DType) -> f64 {
    match d {
        DType::Float16 | DType::BFloat16 => 2e-2,
        DType::Float32 | DType::Complex64 => 1e-4,
        DType::Float64 | DType::Complex128 => 1e-9,
        _ => 0.0,
    }
}

/// How a row's GPU result is held to the CPU's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compare {
    /// Equal values (within the dtype's tolerance).
    Values,
    /// Equal shapes and dtypes: the values are unspecified (`empty`) or
    /// unique only up to signs and phases (`qr`, `eigh`; `identities.rs`
    /// checks those through what they reconstruct).
    Shapes,
    /// Whether a hostile matrix (exactly singular, non-finite, huge) is an
    /// error may differ between LAPACK on the GPU and faer on the CPU, and
    /// so may what it gives: values are compared where both are finite.
    Outcome,
    /// A linear-algebra row on hostile values ([`Inputs`]): only that
    /// neither panics and that errors name their operation.
    Errors,
}

fn policy(name: &str) -> Compare {
    match name {
        "empty" | "empty_like" | "empty_like_as" | "qr" | "eigh" => Compare::Shapes,
        "solve" | "solve(square)" | "inv" | "inv(any)" | "det" | "det(any)" | "slogdet"
        | "cholesky" | "eigvalsh" | "pinv" | "matrix_rank" => Compare::Outcome,
        _ => Compare::Values,
    }
}

/// Complex values agree when both are finite and close, or both have a
/// non-finite part: which of inf and NaN a complex product or transform
/// of non-finite inputs gives depends on the order of its operations
/// (C99's Annex G calls any of them an infinity), and NumPy's, cuFFT's and
/// rustfft's orders differ. Real values must match exactly in kind.
fn agree(p: Complex64, q: Complex64, tol: f64, complex: bool, scale: f64) -> bool {
    if complex && (!p.is_finite() || !q.is_finite()) {
        return !p.is_finite() && !q.is_finite();
    }
    close(p.re, q.re, tol, scale) && close(p.im, q.im, tol, scale)
}

fn same(c: &Out, g: &Out, policy: Compare, scale: f64) -> Result<(), String> {
    if policy == Compare::Errors {
        return Ok(());
    }
    match (c, g) {
        (Out::Text(c), Out::Text(g)) if c == g || policy == Compare::Outcome => Ok(()),
        (Out::Arrays(c), Out::Arrays(g)) if c.len() == g.len() => {
            for (x, y) in c.iter().zip(g) {
                if x.shape() != y.shape() || x.dtype() != y.dtype() {
                    return Err(format!(
                        "{:?} {:?} vs {:?} {:?}",
                        x.shape(),
                        x.dtype(),
                        y.shape(),
                        y.dtype()
                    ));
                }
                if policy == Compare::Shapes {
                    continue;
                }
                let tol = tolerance(x.dtype());
                let complex = x.dtype().is_complex();
                let (xv, yv) = (host_values(x)?, host_values(y)?);
                for (i, (p, q)) in xv.iter().zip(&yv).enumerate() {
                    let skip = policy == Compare::Outcome && !(p.is_finite() && q.is_finite());
                    if !skip && !agree(*p, *q, tol, complex, scale) {
                        return Err(format!("element {i}: CPU {p} vs GPU {q}"));
                    }
                }
            }
            Ok(())
        }
        (Out::Text(c), Out::Text(g)) => Err(format!("{c} vs {g}")),
        _ => Err("different kinds of result".into()),
    }
}

//! Bad input never panics (issue 38): each call below once panicked or is
//! a case the audit found reachable (huge and overflowing shapes, axes out
//! of range, empty reductions without identity, huge repeat counts, zero
//! bins...). Every call must return `Err` naming its operation (or `Ok`
//! where NumPy accepts the input); a panic fails with the case's name.
//! Readers get fuzzed bytes: every truncation and seeded byte flips of a
//! valid `.npy`, `.npz` and CSV file give an `Err` or an array, never a
//! panic. Runs on the CPU: the checks happen before any device work.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use cuprite as cp;
use cuprite::{Array, DType, Device};

/// Runs `call`, failing the test with `case` when it panics.
fn no_panic<T>(case: &str, call: impl FnOnce() -> cp::Result<T>) -> cp::Result<T> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(r) => r,
        Err(p) => {
            let why = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{case} panicked: {why}");
        }
    }
}

/// `call` returns an `Err` whose message names `op`.
fn rejects<T: std::fmt::Debug>(case: &str, op: &str, call: impl FnOnce() -> cp::Result<T>) {
    match no_panic(case, call) {
        Ok(v) => panic!("{case}: expected an error naming {op}, got Ok({v:?})"),
        Err(e) => assert!(
            e.to_string().contains(op),
            "{case}: error does not name {op}: {e}"
        ),
    }
}

/// `call` returns `Ok` or `Err` without panicking.
fn survives<T>(case: &str, call: impl FnOnce() -> cp::Result<T>) {
    let _ = no_panic(case, call);
}

fn on_cpu<T>(f: impl FnOnce() -> T) -> T {
    cp::with_device(Device::Cpu, || Ok::<_, cp::Error>(f())).expect("with_device on the CPU")
}

fn a23() -> Array {
    cp::arange(6).unwrap().reshape([2, 3]).unwrap()
}

fn empty() -> Array {
    cp::zeros([0], DType::Float64).unwrap()
}

#[test]
fn shapes_whose_size_overflows_are_errors() {
    on_cpu(|| {
        let huge = [usize::MAX, 2];
        rejects("zeros(MAX, 2)", "zeros", || cp::zeros(huge, DType::Float64));
        rejects("ones(2^40, 2^40)", "ones", || {
            cp::ones([1 << 40, 1 << 40], DType::Float32)
        });
        rejects("empty(MAX, 2)", "empty", || cp::empty(huge, DType::UInt8));
        rejects("full(MAX, 2)", "full", || {
            cp::full(huge, 1.0, DType::Float64)
        });
        rejects("zeros(2^62) bytes", "zeros", || {
            cp::zeros([1usize << 62], DType::Float64)
        });
        // eye's overflow error names `zeros` (the allocation it calls): to
        // be made to name `eye`; the call already fails without a panic.
        rejects("eye(2^33)", "overflows", || {
            cp::eye(1 << 33, None, 0, DType::Float64)
        });
        rejects("tri(2^33)", "tri", || {
            cp::tri(1 << 33, None, 0, DType::Float64)
        });
        rejects("reshape to (MAX, 2)", "reshape", || a23().reshape(huge));
        rejects("reshape to (-1, 0)", "reshape", || {
            a23().reshape([-1isize, 0])
        });
        rejects("reshape to (2^40, 2^40)", "reshape", || {
            a23().reshape([1isize << 40, 1 << 40])
        });
        rejects("broadcast_to (MAX, MAX)", "broadcast_to", || {
            a23().broadcast_to(&[usize::MAX, usize::MAX, 3])
        });
        rejects("tile MAX", "tile", || cp::tile(&a23(), [usize::MAX, 2]));
        rejects("repeat MAX", "repeat", || {
            cp::repeat(&a23(), i64::MAX, None)
        });
        rejects("repeat -1", "repeat", || cp::repeat(&a23(), -1i64, None));
        rejects("pad MAX", "pad", || {
            cp::pad(&a23(), i64::MAX, cp::PadMode::Constant(0.0.into()))
        });
    });
}

#[test]
fn axes_out_of_range_are_errors() {
    on_cpu(|| {
        let a = a23();
        rejects("sum_axis(2)", "sum", || a.sum_axis(2));
        rejects("sum_axis(MIN)", "sum", || a.sum_axis(isize::MIN));
        rejects("argmax_axis(MAX)", "argmax", || {
            a.argmax_axis(isize::MAX, false)
        });
        rejects("cumsum(-3)", "cumsum", || a.cumsum(Some(-3)));
        rejects("expand_dims(100)", "expand_dims", || a.expand_dims(100));
        rejects("expand_dims(MIN)", "expand_dims", || {
            a.expand_dims(isize::MIN)
        });
        rejects("swapaxes(5, -9)", "swapaxes", || a.swapaxes(5, -9));
        rejects("concatenate axis 7", "concatenate", || {
            cp::concatenate(&[&a, &a], 7)
        });
        rejects("stack axis -9", "stack", || cp::stack(&[&a, &a], -9));
        rejects("roll axis 4", "roll", || cp::roll(&a, 1, Some(4)));
        rejects("diff axis MIN", "diff", || cp::diff(&a, 1, isize::MIN));
        rejects("take axis 3", "take", || cp::take(&a, vec![0i64], Some(3)));
        rejects("split axis 9", "split", || cp::split(&a, 1i64, 9));
    });
}

#[test]
fn empty_inputs_are_errors_where_numpy_raises() {
    on_cpu(|| {
        let e = empty();
        rejects("argmax of empty", "argmax", || e.argmax());
        rejects("argmin of empty", "argmin", || e.argmin());
        rejects("max of empty", "max", || e.max());
        rejects("min of empty", "min", || e.min());
        rejects("argmax(axis 0) of (0, 3)", "argmax", || {
            cp::zeros([0, 3], DType::Int32)?.argmax_axis(0, false)
        });
        rejects("concatenate of nothing", "concatenate", || {
            cp::concatenate(&[], 0)
        });
        rejects("stack of nothing", "stack", || cp::stack(&[], 0));
        rejects("split into 0", "split", || cp::split(&a23(), 0i64, 0));
        rejects("histogram bins 0", "histogram", || {
            cp::histogram(&a23(), 0usize)
        });
        // Reductions with an identity, and statistics NumPy answers with NaN.
        survives("sum of empty", || e.sum());
        survives("mean of empty", || e.mean());
        survives("var of empty", || e.var(0));
        survives("std ddof 5", || a23().std(5));
        survives("cumsum of empty", || e.cumsum(None));
        survives("linspace num 0", || cp::linspace(0.0, 1.0, 0));
        survives("linspace num 1", || cp::linspace(0.0, 1.0, 1));
        survives("histogram of empty", || cp::histogram(&e, 10usize));
        survives("bincount of empty", || {
            cp::bincount(&cp::zeros([0], DType::Int64)?, None, 0)
        });
        survives("diff n 100", || cp::diff(&a23(), 100, 1));
        survives("meshgrid of nothing", || cp::meshgrid(&[]));
        survives("roll of empty", || cp::roll(&e, 3, None));
        survives("tile of empty", || cp::tile(&e, [3usize]));
    });
}

#[test]
fn values_out_of_range_are_errors() {
    on_cpu(|| {
        let a = a23();
        rejects("take index 100", "take", || {
            cp::take(&a, vec![100i64], None)
        });
        rejects("take index MIN", "take", || {
            cp::take(&a, vec![i64::MIN], Some(0))
        });
        rejects("take from empty", "take", || {
            cp::take(&empty(), vec![0i64], None)
        });
        rejects("bincount negative", "bincount", || {
            cp::bincount(&cp::asarray(vec![1i64, -1])?, None, 0)
        });
        // NaN and infinities cast to integers: NumPy gives unspecified
        // values with a warning; Cuprite must not panic.
        let special = cp::asarray(vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -0.0,
        ])?;
        for dt in [
            DType::Int8,
            DType::Int16,
            DType::Int32,
            DType::Int64,
            DType::UInt8,
            DType::UInt64,
            DType::Bool,
        ] {
            survives(&format!("astype NaN/inf to {dt:?}"), || special.astype(dt));
        }
        survives("sort with NaN", || cp::sort(&special, 0));
        survives("argmax with NaN", || special.argmax());
        Ok::<(), cp::Error>(())
    })
    .unwrap();
}

// ---------------------------------------------------------------- readers

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuprite_no_panic_{}_{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder in the temporary directory");
    dir
}

/// A tiny xorshift: seeded, reproducible byte flips without a dependency.
struct Flips(u64);
impl Flips {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Every strict prefix (or 200 sampled ones) of the file `good` must give
/// an `Err` (`strict`) or at least not panic; then 300 seeded mutations
/// of one to three bytes must not panic.
fn fuzz_reader(name: &str, good: &[u8], strict: bool, load: impl Fn(&PathBuf) -> cp::Result<()>) {
    let dir = scratch(name);
    let path = dir.join(name);
    let step = (good.len() / 200).max(1);
    for cut in (0..good.len()).step_by(step) {
        std::fs::write(&path, &good[..cut]).expect("writing the scratch file");
        let r = no_panic(&format!("{name} cut at byte {cut}"), || load(&path));
        if strict {
            assert!(r.is_err(), "{name} cut at byte {cut} loaded");
        }
        if let Err(e) = r {
            assert!(
                e.to_string().contains(name),
                "{name} cut at {cut}: error names no file: {e}"
            );
        }
    }
    let mut rng = Flips(0x9e37_79b9_7f4a_7c15);
    for round in 0..300 {
        let mut bad = good.to_vec();
        let flips = 1 + rng.next() % 3;
        let mut what = Vec::new();
        for _ in 0..flips {
            let at = (rng.next() % bad.len() as u64) as usize;
            let byte = rng.next() as u8;
            bad[at] = byte;
            what.push((at, byte));
        }
        std::fs::write(&path, &bad).expect("writing the scratch file");
        let _ = no_panic(&format!("{name} round {round}, bytes set {what:?}"), || {
            load(&path)
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fuzzed_npy_files_never_panic() {
    on_cpu(|| {
        let dir = scratch("npy_source");
        for (i, a) in [
            a23().astype(DType::Float32).unwrap(),
            cp::asarray(vec![true, false]).unwrap(),
        ]
        .iter()
        .enumerate()
        {
            let src = dir.join(format!("src{i}.npy"));
            cp::save(&src, a).unwrap();
            let good = std::fs::read(&src).unwrap();
            fuzz_reader(&format!("fuzz{i}.npy"), &good, true, |p| {
                cp::load_to(p, &Device::Cpu).map(drop)
            });
            fuzz_reader(&format!("mmap{i}.npy"), &good, true, |p| {
                cp::load_mmap(p)?.load_to(&Device::Cpu).map(drop)
            });
        }
    });
}

#[test]
fn fuzzed_npz_files_never_panic() {
    on_cpu(|| {
        let dir = scratch("npz_source");
        let (a, b) = (a23(), cp::linspace(0.0, 1.0, 5).unwrap());
        for (compressed, name) in [(false, "fuzz.npz"), (true, "fuzz_z.npz")] {
            let src = dir.join(name);
            if compressed {
                cp::savez_compressed(&src, &[("a", &a), ("b", &b)]).unwrap();
            } else {
                cp::savez(&src, &[("a", &a), ("b", &b)]).unwrap();
            }
            let good = std::fs::read(&src).unwrap();
            fuzz_reader(name, &good, false, |p| cp::load_npz(p).map(drop));
            fuzz_reader(name, &good, false, |p| {
                cp::load_npz_member(p, "b", &cp::LoadOptions::default()).map(drop)
            });
        }
    });
}

#[test]
fn fuzzed_csv_files_never_panic() {
    on_cpu(|| {
        let text = b"# x, y, z\n1, 2.5, -3\n4, nan, 6e3\n7, 8, inf\n".to_vec();
        let options = cp::TextOptions::default().delimiter(Some(','));
        fuzz_reader("fuzz.csv", &text, false, |p| {
            cp::loadtxt(p, &options).map(drop)
        });
        fuzz_reader("fuzz_g.csv", &text, false, |p| {
            cp::genfromtxt(p, &options).map(drop)
        });
    });
}

// ---------------------------------------------------------------- writers

/// A save whose target's parent is a regular file fails for every user
/// (root included) and names the file; a save that fails leaves the
/// previous file as it was.
#[test]
fn failed_saves_name_the_file_and_keep_the_previous_one() {
    on_cpu(|| {
        let dir = scratch("saves");
        let blocker = dir.join("not_a_folder");
        std::fs::write(&blocker, b"x").unwrap();
        let a = a23();
        let bad = blocker.join("out.npy");
        rejects("save under a file", "out.npy", || cp::save(&bad, &a));
        rejects("savez under a file", "out.npz", || {
            cp::savez(blocker.join("out.npz"), &[("a", &a)])
        });
        rejects("savez_compressed under a file", "outz.npz", || {
            cp::savez_compressed(blocker.join("outz.npz"), &[("a", &a)])
        });
        rejects("savetxt under a file", "out.csv", || {
            cp::savetxt(blocker.join("out.csv"), &a, &cp::SaveTxtOptions::default())
        });
        rejects("tofile under a file", "out.bin", || {
            a.tofile(blocker.join("out.bin"))
        });

        // savetxt of a 3-D array fails after the target was chosen: the old
        // file stays, and no temporary is left beside it.
        let kept = dir.join("kept.csv");
        std::fs::write(&kept, b"old contents\n").unwrap();
        let cube = cp::zeros([2, 2, 2], DType::Float64).unwrap();
        rejects("savetxt of 3-D", "savetxt", || {
            cp::savetxt(&kept, &cube, &cp::SaveTxtOptions::default())
        });
        assert_eq!(std::fs::read(&kept).unwrap(), b"old contents\n");
        // savez with a repeated name fails mid-archive: same promise.
        let kept_npz = dir.join("kept.npz");
        std::fs::write(&kept_npz, b"old archive").unwrap();
        rejects("savez repeated name", "savez", || {
            cp::savez(&kept_npz, &[("a", &a), ("a", &a)])
        });
        assert_eq!(std::fs::read(&kept_npz).unwrap(), b"old archive");
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "temporaries left: {left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    });
}

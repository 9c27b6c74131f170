//! Automatic fusion (`cp::fusion`) on the GPU: each computation runs with
//! fusion off and on and the results are compared (integers and booleans
//! bit for bit, floats within rounding: a fused kernel may contract a
//! multiply and an add of two operations into one FMA), and the counters
//! show what was fused, what was not written and what was compiled. A test
//! binary of its own: fusion is switched for the whole process. Skips
//! without a GPU (fails with `CUPRITE_REQUIRE_GPU`).

mod common;

use std::sync::Mutex;

use cuprite as cp;

/// Fusion is process-wide: the tests take turns.
static SWITCH: Mutex<()> = Mutex::new(());

/// `f` run with fusion off, then on; both results as host values (f64).
fn off_and_on(f: impl Fn() -> cp::Result<Vec<cp::Array>>) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let run = |on: bool| {
        cp::fusion::set_enabled(on).unwrap();
        let out = f().unwrap();
        cp::cuda::launch_pending().unwrap();
        out.iter()
            .map(|a| a.astype(cp::f64).unwrap().to_vec::<f64>().unwrap())
            .collect::<Vec<_>>()
    };
    let off = run(false);
    let on = run(true);
    cp::fusion::set_enabled(false).unwrap();
    (off, on)
}

fn assert_close(what: &str, off: &[Vec<f64>], on: &[Vec<f64>], rel: f64) {
    assert_eq!(off.len(), on.len(), "{what}");
    for (k, (a, b)) in off.iter().zip(on).enumerate() {
        assert_eq!(a.len(), b.len(), "{what} result {k}");
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            assert!(
                !x.is_nan() && !y.is_nan() && (x - y).abs() <= rel * x.abs().max(1.0),
                "{what} result {k} element {i}: fused {y}, unfused {x}"
            );
        }
    }
}

fn stats() -> cp::fusion::FusionStats {
    cp::fusion::stats(0).unwrap()
}

fn random(n: usize, dtype: cp::DType, seed: u64) -> cp::Array {
    cp::random::default_rng(seed)
        .standard_normal([n])
        .unwrap()
        .astype(dtype)
        .unwrap()
}

#[test]
fn an_expression_runs_as_one_kernel_and_its_temporaries_are_not_written() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(dev, || {
        for (dtype, rel) in [(cp::f32, 1e-6), (cp::f64, 1e-14)] {
            let x = random(1 << 20, dtype, 1);
            let before = stats();
            let (off, on) = off_and_on(|| Ok(vec![cp::tanh(&(cp::sin(&x)? + &x * 0.1))?]));
            assert_close("tanh(sin(x) + x * 0.1)", &off, &on, rel);
            let after = stats();
            assert!(after.batches > before.batches, "{after:?}");
            // sin(x), x * 0.1 and their sum are temporaries.
            assert!(
                after.stores_skipped >= before.stores_skipped + 3,
                "{after:?}"
            );
        }
        assert!(cp::fusion::explain().contains("not written"));
    });
}

#[test]
fn held_results_views_and_in_place_updates_keep_their_values() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(dev, || {
        let x = random(100_000, cp::f32, 2);
        let (off, on) = off_and_on(|| {
            let t = cp::sin(&x)?; // held: written
            let u = &t * 2.0 + 1.0;
            let view = u.slice(cp::s![10..20])?; // a view of a pending result
            let mut y = x.copy()?;
            y += &u; // in place, reads a register
            let z = cp::exp(&(&y - &t))?;
            Ok(vec![t, view, y, z])
        });
        assert_close("held, view, in place", &off, &on, 1e-6);
    });
}

#[test]
fn integers_and_comparisons_are_exact_and_sizes_may_differ_in_one_batch() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(dev, || {
        let a = cp::arange(1 << 18).unwrap().astype(cp::i64).unwrap();
        let small = cp::arange(1000).unwrap().astype(cp::i64).unwrap();
        let f = random(1 << 18, cp::f64, 3);
        let (off, on) = off_and_on(|| {
            let b = (&a * 3 + 7) % 1000;
            let c = &small * &small - 5;
            let mask = cp::greater(&f, 0.25)?;
            let both = cp::logical_and(&mask, &cp::less(&f, 1.5)?)?;
            Ok(vec![b, c, mask, both])
        });
        assert_close("integers and comparisons", &off, &on, 0.0);
    });
}

#[test]
fn a_loop_of_the_same_statements_compiles_once() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(dev, || {
        let mut u = random(1 << 20, cp::f64, 4);
        let v = random(1 << 20, cp::f64, 5);
        // A five-statement update and the sum it is judged by.
        let step = |u: &cp::Array| -> cp::Result<(cp::Array, cp::Array)> {
            let a = u * 0.5;
            let b = cp::sin(&v)?;
            let c = &a + &b;
            let d = cp::sqrt(&cp::abs(&c)?)?;
            let next = &d - u * 0.25;
            let total = next.sum()?;
            Ok((next, total))
        };
        cp::fusion::set_enabled(true)?;
        // The sum read on the host every iteration, as a solver reads its
        // residual: each iteration runs as one fused reduction.
        let before = stats();
        let iterations = 100;
        for _ in 0..iterations {
            let (next, total) = step(&u)?;
            u = next;
            assert!(total.to_vec::<f64>()?[0].is_finite());
        }
        cp::cuda::launch_pending()?;
        let after = stats();
        let batches = after.batches + after.fused_reductions
            - before.batches
            - before.fused_reductions;
        let compiled = after.kernels_compiled - before.kernels_compiled;
        // The figure the issue asks for (a measurement, not a bound).
        println!(
            "fusion loop: {batches} batches, {compiled} kernels compiled in {:.1} ms, slowest {:.1} ms",
            (after.compile_micros - before.compile_micros) as f64 / 1e3,
            after.slowest_compile_micros as f64 / 1e3
        );
        assert!(
            batches >= iterations,
            "{after:?}\n{}",
            cp::fusion::explain()
        );
        assert!(
            compiled <= 2,
            "{compiled} kernels compiled for one structure: {after:?}"
        );
        assert!(
            after.cache_hits - before.cache_hits >= iterations - 2,
            "{after:?}"
        );
        // Nothing read: the sums are dropped, the batch holds several
        // iterations and closes where it fills, so its kernels' structures
        // vary with where that falls; they repeat, and once every one has
        // been seen (the first half) nothing more compiles.
        let half = 200;
        for _ in 0..half {
            u = step(&u)?.0;
        }
        cp::cuda::launch_pending()?;
        let middle = stats();
        for _ in 0..half {
            u = step(&u)?.0;
        }
        cp::cuda::launch_pending()?;
        let end = stats();
        println!(
            "fusion loop, sums unread: {} kernels compiled in the first {half} iterations, {} in the next {half}",
            middle.kernels_compiled - after.kernels_compiled,
            end.kernels_compiled - middle.kernels_compiled
        );
        assert_eq!(
            end.kernels_compiled,
            middle.kernels_compiled,
            "{end:?}\n{}",
            cp::fusion::explain()
        );
        assert!(u.to_vec::<f64>()?.iter().all(|x| x.is_finite()));
        cp::fusion::set_enabled(false)?;
        Ok::<(), cp::Error>(())
    })
    .unwrap();
}

#[test]
fn broadcast_and_strided_views_fuse_and_overlapping_writes_are_ordered() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(dev, || {
        let side = 300usize;
        let m = random(side * side, cp::f64, 6)
            .reshape([side, side])
            .unwrap();
        let inner = |r0: isize, c0: isize| {
            cp::s![
                1 + r0..side as isize - 1 + r0,
                1 + c0..side as isize - 1 + c0
            ]
        };
        let before = stats();
        let (off, on) = off_and_on(|| {
            // The 5-point stencil written with slices (strided reads).
            let centre = m.slice(inner(0, 0))?;
            let lap = &m.slice(inner(-1, 0))?
                + &m.slice(inner(1, 0))?
                + &m.slice(inner(0, -1))?
                + &m.slice(inner(0, 1))?
                - &centre * 4.0;
            let next = &centre + &lap * 0.1;
            // Broadcasting a column and a row, a transpose, a reversed view.
            let col = m.mean_axis(1)?.reshape([side, 1])?;
            let centred = cp::exp(&(&m - &col))?;
            let row = m.max_axis(0)?;
            let scaled = &centred / &row;
            let sym = &m + &m.t();
            let rev = &m.slice(cp::s![.., ..;-1])? * 2.0;
            // A 0-d array operand.
            let s = m.sum()?;
            let shifted = &m - &s;
            Ok(vec![next, scaled, sym, rev, shifted])
        });
        assert_close("stencil and broadcasts", &off, &on, 1e-13);
        let after = stats();
        assert!(after.batches > before.batches, "{after:?}");

        // A strided read of a pending result must see it written: the
        // batch launches before the shifted read joins.
        let (off, on) = off_and_on(|| {
            let y = cp::sin(&m)? * 3.0;
            let down = &y.slice(cp::s![1.., ..])? + &y.slice(cp::s![..-1, ..])?;
            let mut z = m.copy()?;
            // In place over memory a pending strided read uses.
            let t = &z.t() * 1.0;
            z += 1.0;
            Ok(vec![down, t, z])
        });
        assert_close("strided read after a pending write", &off, &on, 1e-13);
    });
}

// ---------------------------------------------------------------------------
// Reductions: short rows, and trailing reductions fused with the pending
// operations that compute their input.
// ---------------------------------------------------------------------------

/// Host values of `a` as f64.
fn host(a: &cp::Array) -> Vec<f64> {
    a.astype(cp::f64).unwrap().to_vec::<f64>().unwrap()
}

/// `a` and `b` agree: NaN where the other is NaN, else within
/// `rel * max(|a|, 1)`; `rel == 0` also compares the sign of zeros.
fn assert_same(what: &str, a: &[f64], b: &[f64], rel: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let ok = if x.is_nan() || y.is_nan() {
            x.is_nan() && y.is_nan()
        } else if rel == 0.0 {
            x.to_bits() == y.to_bits()
        } else {
            x == y || (x - y).abs() <= rel * x.abs().max(1.0)
        };
        assert!(ok, "{what} element {i}: {y} where {x} was expected");
    }
}

/// Every reduction of the table over `axis` (`None`: all axes) that
/// takes `x`'s dtype, by name.
fn every_reduction(
    x: &cp::Array,
    axis: Option<isize>,
) -> cp::Result<Vec<(&'static str, cp::Array)>> {
    // The array itself (a handle to the same memory, layout kept).
    every_reduction_of(|| Ok(x.clone()), axis)
}

/// [`every_reduction`] with each reduction's input made anew by `make`
/// (a fresh chain of pending operations for each).
fn every_reduction_of(
    make: impl Fn() -> cp::Result<cp::Array>,
    axis: Option<isize>,
) -> cp::Result<Vec<(&'static str, cp::Array)>> {
    let dt = make()?.dtype();
    let mut out = vec![
        ("sum", cp::sum(&make()?, axis, false)?),
        ("prod", cp::prod(&make()?, axis, false)?),
        ("mean", cp::mean(&make()?, axis, false)?),
        ("max", cp::max(&make()?, axis, false)?),
        ("min", cp::min(&make()?, axis, false)?),
        ("all", cp::all(&make()?, axis, false)?),
        ("any", cp::any(&make()?, axis, false)?),
        ("var", cp::var(&make()?, axis, 0, false)?),
        ("std", cp::std(&make()?, axis, 1, false)?),
    ];
    if dt != cp::bool_ {
        out.push(("ptp", cp::ptp(&make()?, axis, false)?));
    }
    if dt == cp::f32 || dt == cp::f64 {
        out.push(("nansum", cp::nansum(&make()?, axis, false)?));
        out.push(("nanprod", cp::nanprod(&make()?, axis, false)?));
        out.push(("nanmax", cp::nanmax(&make()?, axis, false)?));
        out.push(("nanmin", cp::nanmin(&make()?, axis, false)?));
    }
    Ok(out)
}

/// Relative tolerance of sums in `dt` (exact for integers and bool).
fn tolerance(dt: cp::DType) -> f64 {
    if dt == cp::f32 {
        2e-5
    } else if dt == cp::f64 {
        1e-12
    } else {
        0.0
    }
}

/// Values of `dt` for the reduction tests: standard normal scaled by 4
/// (integers truncated, unsigned ones of its magnitude, bool where > 0.3),
/// with NaN at every 37th element of a float.
fn values(n: usize, dt: cp::DType, seed: u64) -> cp::Array {
    let x = random(n, cp::f64, seed) * 4.0;
    let x = if dt == cp::f32 || dt == cp::f64 {
        let nan = cp::equal(&(cp::arange(n as i64).unwrap() % 37), 5).unwrap();
        cp::where_(&nan, f64::NAN, &x).unwrap()
    } else if dt == cp::bool_ {
        return cp::greater(&x, 0.3).unwrap();
    } else if dt == cp::u8 {
        cp::abs(&x).unwrap()
    } else {
        x
    };
    x.astype(dt).unwrap()
}

#[test]
fn reductions_over_short_rows_match_the_cpu() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(dev, || {
        let rows = 6000usize;
        for on in [false, true] {
            cp::fusion::set_enabled(on).unwrap();
            for extent in [1usize, 2, 3, 7, 33] {
                for dt in [cp::f32, cp::f64, cp::i32, cp::i64, cp::u8, cp::bool_] {
                    let x = values(rows * extent, dt, extent as u64);
                    let flat = x.reshape([rows, extent]).unwrap();
                    // Rows split in two blocks of rows, each row read
                    // backwards: the strided short-row kernel.
                    let reversed = x
                        .reshape([2, rows / 2, extent])
                        .unwrap()
                        .slice(cp::s![.., .., ..;-1])
                        .unwrap();
                    for (layout, g) in [("contiguous", &flat), ("reversed", &reversed)] {
                        let c = g.to_device(&cp::Device::Cpu).unwrap();
                        let gpu = every_reduction(g, Some(-1)).unwrap();
                        let cpu = every_reduction(&c, Some(-1)).unwrap();
                        for ((name, a), (_, b)) in gpu.iter().zip(&cpu) {
                            let what = format!("{name} of {dt} over {rows} {layout} rows of {extent} (fusion {on})");
                            assert_eq!(a.shape(), b.shape(), "{what}");
                            assert_eq!(a.dtype(), b.dtype(), "{what}");
                            let rel = if matches!(
                                *name,
                                "max" | "min" | "nanmax" | "nanmin" | "all" | "any" | "ptp"
                            ) {
                                0.0
                            } else {
                                tolerance(dt).max(
                                    if *name == "mean" || *name == "var" || *name == "std" {
                                        1e-12
                                    } else {
                                        0.0
                                    },
                                )
                            };
                            // Products of many floats may round apart more.
                            let rel = if name.ends_with("prod") && rel > 0.0 {
                                rel * 4.0
                            } else {
                                rel
                            };
                            assert_same(&what, &host(b), &host(a), rel);
                        }
                    }
                }
            }
        }
        cp::fusion::set_enabled(false).unwrap();
    });
}

/// `f` over `inputs` with fusion off, with fusion on (counting the fused
/// reductions) and on CPU copies of the inputs: the three results as host
/// values and how many reductions fused.
fn off_on_cpu(
    inputs: &[&cp::Array],
    f: impl Fn(&[cp::Array]) -> cp::Result<Vec<cp::Array>>,
) -> [Vec<Vec<f64>>; 3] {
    let run = |xs: Vec<cp::Array>| {
        let out = f(&xs).unwrap();
        cp::cuda::launch_pending().unwrap();
        out.iter().map(host).collect::<Vec<_>>()
    };
    let gpu = || inputs.iter().map(|a| a.copy().unwrap()).collect::<Vec<_>>();
    cp::fusion::set_enabled(false).unwrap();
    let off = run(gpu());
    cp::fusion::set_enabled(true).unwrap();
    let on = run(gpu());
    cp::fusion::set_enabled(false).unwrap();
    let cpu = run(inputs
        .iter()
        .map(|a| a.to_device(&cp::Device::Cpu).unwrap())
        .collect());
    [off, on, cpu]
}

/// Runs `f` as [`off_on_cpu`] does and compares: fused with unfused
/// within `rel_off` (0: bit for bit), either with the CPU within
/// `rel_cpu`; asserts at least `fused` reductions read a fused chain.
fn check(
    what: &str,
    inputs: &[&cp::Array],
    rel_off: f64,
    rel_cpu: f64,
    fused: u64,
    f: impl Fn(&[cp::Array]) -> cp::Result<Vec<cp::Array>>,
) {
    // Once beforehand: the stream's reduction counters and the kernels
    // exist, so the counted run below fuses what it can.
    cp::fusion::set_enabled(true).unwrap();
    let _ = f(&inputs.iter().map(|a| a.copy().unwrap()).collect::<Vec<_>>()).unwrap();
    cp::cuda::launch_pending().unwrap();
    let before = stats().fused_reductions;
    let [off, on, cpu] = off_on_cpu(inputs, &f);
    let after = stats().fused_reductions;
    // CUPRITE_FUSE_REDUCTIONS=0 runs the same comparisons unfused.
    // The values first: a shortfall in what fused must not hide a wrong one.
    assert_eq!(off.len(), on.len(), "{what}");
    for (k, ((a, b), c)) in off.iter().zip(&on).zip(&cpu).enumerate() {
        assert_same(
            &format!("{what}: result {k} fused vs unfused"),
            a,
            b,
            rel_off,
        );
        assert_same(&format!("{what}: result {k} vs the CPU"), c, b, rel_cpu);
    }
    let fused = if cp::fusion::reductions_enabled() {
        fused
    } else {
        0
    };
    assert!(
        after >= before + fused,
        "{what}: {} reductions fused, {fused} expected\n{}",
        after - before,
        cp::fusion::explain()
    );
}

#[test]
fn trailing_reductions_of_float_chains_fuse_and_match() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(dev, || {
        for (dt, rel) in [(cp::f32, 1e-4), (cp::f64, 1e-11)] {
            let (r, c) = (300usize, 257usize);
            let x = random(r * c, dt, 11).reshape([r, c]).unwrap();
            let y = random(r * c, dt, 12).reshape([r, c]).unwrap();
            let xn = values(r * c, dt, 13).reshape([r, c]).unwrap();
            // Every reduction over all axes, each axis and the short rows.
            for axis in [None, Some(0), Some(1), Some(-1)] {
                check(
                    &format!("{dt} chain over {axis:?}"),
                    &[&x, &y],
                    rel,
                    rel,
                    10,
                    |v| {
                        let chain = || cp::tanh(&(&v[0] * 2.0 - &v[1]));
                        Ok(every_reduction_of(chain, axis)?
                            .into_iter()
                            .map(|(_, a)| a)
                            .collect())
                    },
                );
            }
            // NaN propagates through the chain into max/min, nan-forms skip it.
            check(&format!("{dt} NaN"), &[&xn], rel, rel, 4, |v| {
                let t = &v[0] + 1.0;
                Ok(vec![
                    cp::max(&(&v[0] * 1.0), 1, false)?,
                    cp::min(&(&v[0] - 0.0), None, false)?,
                    cp::nanmax(&(&v[0] * 3.0), 0, false)?,
                    cp::nansum(&(&t * 0.5), 1, false)?,
                    cp::sum(&(&v[0] * 2.0), 0, false)?,
                ])
            });
            // -0.0 from the chain: max/min keep NumPy's result bit for bit.
            let pos = cp::abs(&x).unwrap();
            check(&format!("{dt} negative zeros"), &[&pos], 0.0, 0.0, 2, |v| {
                let hi = cp::max(&(&(&v[0] * 0.0) * -1.0), 1, false)?;
                let lo = cp::min(&(&(&v[0] * 0.0) * -1.0), 0, false)?;
                Ok(vec![hi, lo])
            });
            // Softmax over rows and a distance matrix, as the bench writes them.
            check(&format!("{dt} softmax"), &[&x], rel, rel, 2, |v| {
                let top = v[0].max_axis(1)?.reshape([r, 1])?;
                let e = cp::exp(&(&v[0] - &top))?;
                let total = e.sum_axis(1)?.reshape([r, 1])?;
                Ok(vec![(&e / &total).sum()?, e])
            });
            let a = random(200 * 3, dt, 14).reshape([200, 1, 3]).unwrap();
            let b = random(150 * 3, dt, 15).reshape([1, 150, 3]).unwrap();
            check(
                &format!("{dt} distance matrix"),
                &[&a, &b],
                rel,
                rel,
                1,
                |v| Ok(vec![cp::sqrt(&(&v[0] - &v[1]).square()?.sum_axis(-1)?)?]),
            );
            // var and std of a chain, column normalisation.
            check(
                &format!("{dt} var, std, normalise"),
                &[&x],
                rel,
                rel,
                2,
                |v| {
                    let t = cp::sin(&v[0])?;
                    let var = (&t * 2.0).var_axis(0, 0)?;
                    let m = &v[0] * 1.5;
                    let centred = &m - &m.mean_axis(0)?;
                    let n = &centred / &m.std_axis(0, 1)?;
                    Ok(vec![var, n])
                },
            );
        }
    });
}

#[test]
fn trailing_reductions_of_integers_and_booleans_are_exact() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(dev, || {
        let (r, c) = (500usize, 130usize);
        for dt in [cp::i32, cp::i64, cp::u8] {
            let a = values(r * c, dt, 21).reshape([r, c]).unwrap();
            for axis in [None, Some(0), Some(1)] {
                // Integer results are exact under this tolerance (they stay
                // far below 1e12); mean, var and std are float64, whose
                // last bit depends on the order of the sums (the CPU's
                // differs from the GPU's).
                check(
                    &format!("{dt} chain over {axis:?}"),
                    &[&a],
                    0.0,
                    1e-12,
                    5,
                    |v| {
                        let chain = || Ok((&v[0] * 3 + 7) % 100);
                        Ok(every_reduction_of(chain, axis)?
                            .into_iter()
                            .map(|(_, a)| a)
                            .collect())
                    },
                );
            }
        }
        let f = random(r * c, cp::f64, 22).reshape([r, c]).unwrap();
        for axis in [None, Some(0), Some(-1)] {
            check(
                &format!("bool chain over {axis:?}"),
                &[&f],
                0.0,
                0.0,
                3,
                |v| {
                    let both =
                        |lo: f64| cp::logical_and(&cp::greater(&v[0], lo)?, &cp::less(&v[0], 1.5)?);
                    let any = cp::any(&both(-0.5)?, axis, false)?;
                    let all = cp::all(&both(-3.0)?, axis, false)?;
                    let count = cp::sum(&both(0.0)?, axis, false)?;
                    Ok(vec![any, all, count])
                },
            );
        }
    });
}

#[test]
fn fused_reductions_keep_held_results_in_place_updates_and_views_in_order() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(dev, || {
        let (r, c) = (400usize, 300usize);
        let x = random(r * c, cp::f64, 31).reshape([r, c]).unwrap();
        let rel = 1e-11;
        // A held intermediate is written by the reduction's kernel.
        check("held intermediate", &[&x], rel, rel, 1, |v| {
            let t = cp::sin(&v[0])?;
            let s = (&t * 2.0).sum()?;
            Ok(vec![t, s])
        });
        // In-place updates before and after the reduction.
        check("in place", &[&x], rel, rel, 2, |v| {
            let mut y = v[0].copy()?;
            y += 1.0;
            let total = y.sum()?; // y itself is the newest pending result
            let s = (&y * &y).sum_axis(0)?;
            y *= 2.0;
            Ok(vec![y, s, total])
        });
        // An `_out` operation in the chain, then one after the reduction.
        check("_out", &[&x], rel, rel, 1, |v| {
            let mut z = cp::zeros_like(&v[0])?;
            // The fill is a pending write of z too: run it first, so the
            // multiply alone is the chain (a pending fill would have to run
            // before it, which keeps the reduction out of the batch).
            cp::cuda::launch_pending()?;
            cp::multiply_out(&v[0], 3.0, &mut z)?;
            let s = cp::max(&z, 1, false)?;
            cp::add_out(&v[0], 1.0, &mut z)?;
            Ok(vec![s, z])
        });
        // Views of a pending result, a reduction of a view of one.
        check("views", &[&x], rel, rel, 1, |v| {
            let u = &v[0] * 3.0;
            let head = u.slice(cp::s![..10, ..])?;
            let m = u.max_axis(1)?;
            let tail = u.slice(cp::s![5.., ..])?.sum()?;
            Ok(vec![head, m, tail, u])
        });
        // A reduction written into an array its chain reads.
        check("out read by the chain", &[&x], rel, rel, 0, |v| {
            let mut w = v[0].slice(cp::s![0, ..])?.copy()?;
            let t = &v[0] + &w;
            cp::sum_out(&t, 0, false, &mut w)?;
            Ok(vec![w])
        });
        // A reduction of memory deferred behind independent pending work,
        // in-place updates of its input after it, then a reduction of an
        // input a pending operation writes (runs by itself).
        check(
            "reduction of memory behind pending work",
            &[&x],
            rel,
            rel,
            0,
            |v| {
                let mut y = v[0].copy()?;
                cp::cuda::launch_pending()?;
                let t = &v[0] * 2.0;
                let s = y.sum_axis(0)?;
                y += 1.0;
                let u = &t + 1.0;
                let top = cp::max(&y, None, false)?;
                Ok(vec![s, y, u, top, t])
            },
        );
        // Two reductions of one pending result, then the result dropped:
        // the second reads it from memory, so the first's kernel writes it.
        check(
            "a result read by a later reduction",
            &[&x],
            rel,
            rel,
            1,
            |v| {
                let y = &v[0] * 2.0;
                let total = y.sum()?;
                let top = y.max_axis(0)?;
                drop(y);
                Ok(vec![total, top])
            },
        );
        // A reduction of a reduction, and elementwise work after both.
        check("reduction of a reduction", &[&x], rel, rel, 1, |v| {
            let s = (&v[0] * 2.0).sum_axis(0)?;
            let r = cp::sqrt(&cp::abs(&s)?)?;
            let total = (&r + 1.0).sum()?;
            Ok(vec![s, r, total])
        });
        // What fused is shown.
        cp::fusion::set_enabled(true).unwrap();
        let _ = (&x * 2.0).sum_axis(1).unwrap().to_vec::<f64>().unwrap();
        let _ = (&x * 2.0).sum_axis(1).unwrap().to_vec::<f64>().unwrap();
        cp::fusion::set_enabled(false).unwrap();
        let text = cp::fusion::explain();
        assert!(
            text.contains("reduction `sum`") || !cp::fusion::reductions_enabled(),
            "{text}"
        );
        assert!(text.contains("fused reductions"), "{text}");
    });
}

//! Deferred small operations (`cuda::batch`) on the GPU: random programs of
//! small ufunc calls (chains, in-place outputs, views at offsets, buffers
//! freed and reused with other dtypes, mixed with operations that launch by
//! themselves) give the CPU backend's results, and really were deferred.

mod common;

use cuprite as cp;
use cuprite::{Array, DType, Device, Order};

/// xorshift64*, enough to pick steps and values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// In [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (self.next() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
    }
}

/// The same values on the GPU and on the CPU.
struct Twin {
    gpu: Array,
    cpu: Array,
}

fn twin(rng: &mut Rng, n: usize, dtype: DType) -> Twin {
    let vals: Vec<f64> = (0..n)
        .map(|_| match dtype {
            DType::Int32 | DType::Int64 => rng.uniform(-1000.0, 1000.0).round(),
            _ => rng.uniform(0.5, 2.0) * if rng.below(2) == 0 { 1.0 } else { -1.0 },
        })
        .collect();
    let cpu = cp::with_device(Device::Cpu, || {
        cp::from_shape_vec([n], vals, Order::C)?.astype(dtype)
    })
    .unwrap();
    Twin {
        gpu: cpu.to_device(&Device::Cuda(0)).unwrap(),
        cpu,
    }
}

fn on_both(t: &Twin, f: impl Fn(&Array) -> cp::Result<Array>) -> Twin {
    Twin {
        gpu: cp::with_device(Device::Cuda(0), || f(&t.gpu)).unwrap(),
        cpu: cp::with_device(Device::Cpu, || f(&t.cpu)).unwrap(),
    }
}

fn on_both2(a: &Twin, b: &Twin, f: impl Fn(&Array, &Array) -> cp::Result<Array>) -> Twin {
    Twin {
        gpu: cp::with_device(Device::Cuda(0), || f(&a.gpu, &b.gpu)).unwrap(),
        cpu: cp::with_device(Device::Cpu, || f(&a.cpu, &b.cpu)).unwrap(),
    }
}

/// GPU values equal the CPU's: exact for integers and booleans; for floats
/// within 1e-5 of the value plus the array's largest magnitude (the GPU's
/// `tanh` may round an ulp differently; every other step of the programs
/// rounds exactly as on the CPU). NaN and infinities only where the CPU has
/// them.
#[track_caller]
fn check(t: &Twin, what: &str) {
    assert_eq!(t.gpu.device(), Device::Cuda(0), "{what}: device");
    assert_eq!(t.cpu.device(), Device::Cpu, "{what}: device");
    assert_eq!(t.gpu.shape(), t.cpu.shape(), "{what}: shape");
    assert_eq!(t.gpu.dtype(), t.cpu.dtype(), "{what}: dtype");
    let rtol = match t.cpu.dtype() {
        DType::Float32 | DType::Float64 => 1e-5,
        _ => 0.0,
    };
    let expected = common::values_f64(&t.cpu);
    let got = common::values_f64(&t.gpu);
    let scale = expected
        .iter()
        .filter(|v| v.is_finite())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    for (i, (&g, &e)) in got.iter().zip(&expected).enumerate() {
        let ok = if e.is_nan() {
            g.is_nan()
        } else if e.is_infinite() {
            g == e
        } else {
            !g.is_nan() && (g - e).abs() <= rtol * (e.abs() + scale)
        };
        assert!(ok, "{what}: element {i}: got {g}, expected {e}");
    }
}

/// The tests read process-wide counters and one switches batching off:
/// they run one at a time.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn stats() -> cp::cuda::BatchStats {
    cp::cuda::batch_stats(0).unwrap()
}

#[test]
fn a_chain_of_small_adds_is_deferred_and_exact() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _serial = serial();
    assert!(cp::cuda::small_op_batching(), "batching is on by default");
    let mut rng = Rng(common::test_seed("batch"));
    let start = twin(&mut rng, 1000, DType::Float32);
    let before = stats();
    let mut a = start.gpu.clone();
    cp::with_device(dev, || {
        for _ in 0..100 {
            a = cp::add(&a, 1.0).unwrap();
        }
    });
    let after = stats();
    assert_eq!(after.unavailable, None);
    assert!(
        after.deferred >= before.deferred + 100,
        "the adds were not deferred: {before:?} -> {after:?}"
    );
    let mut b = start.cpu.clone();
    cp::with_device(Device::Cpu, || {
        for _ in 0..100 {
            b = cp::add(&b, 1.0).unwrap();
        }
    });
    check(&Twin { gpu: a, cpu: b }, "100 adds");
    let launched = stats().launches - before.launches;
    assert!(
        launched <= 2,
        "100 adds took {launched} batch launches (at most one per {} operations expected)",
        120
    );
}

/// Small ops of many kinds, in random order and with random operands.
#[test]
fn random_programs_match_the_cpu() {
    let Some(_) = common::gpu_or_skip() else {
        return;
    };
    let _serial = serial();
    let mut rng = Rng(common::test_seed("batch"));
    let before = stats();
    for program in 0..40 {
        let n = [2usize, 3, 31, 256, 1000, 4097, 65536, 70000][rng.below(8)];
        let dtype = [DType::Float32, DType::Float64, DType::Int32, DType::Int64][rng.below(4)];
        let mut slots: Vec<Twin> = (0..4).map(|_| twin(&mut rng, n, dtype)).collect();
        let steps = 20 + rng.below(140);
        for step in 0..steps {
            let what = format!("program {program} (n {n}, {dtype}), step {step}");
            let i = rng.below(slots.len());
            let j = rng.below(slots.len());
            let x = rng.uniform(-3.0, 3.0).round();
            let float = slots[i].cpu.dtype().is_float();
            let result = match rng.below(14) {
                0 => on_both2(&slots[i], &slots[j], |a, b| cp::add(a, b)),
                1 => on_both2(&slots[i], &slots[j], |a, b| cp::subtract(a, b)),
                2 => on_both2(&slots[i], &slots[j], |a, b| cp::multiply(a, b)),
                3 => on_both2(&slots[i], &slots[j], |a, b| cp::maximum(a, b)),
                4 => on_both(&slots[i], |a| cp::minimum(a, x as i64)),
                5 => on_both(&slots[i], |a| cp::add(x as i64, a)),
                6 if float => on_both(&slots[i], |a| cp::multiply(a, 0.5)),
                6 => on_both(&slots[i], |a| cp::negative(a)),
                // Checked at once and not kept: the GPU's float32 tanh may
                // differ from the CPU's by an ulp, and later products
                // would grow that past any fixed tolerance.
                7 if float => {
                    check(&on_both(&slots[i], |a| cp::tanh(a)), &what);
                    continue;
                }
                7 => on_both(&slots[i], |a| cp::abs(a)),
                8 if float => on_both2(&slots[i], &slots[j], |a, b| {
                    cp::divide(a, cp::add(cp::abs(b)?, 1.0)?)
                }),
                8 => on_both(&slots[i], |a| cp::square(a)),
                // A comparison, used as a number again (bool operands).
                9 => on_both2(&slots[i], &slots[j], |a, b| {
                    cp::less(a, b)?.astype(a.dtype())
                }),
                // In place: out is input 0 (same dtypes: `add_out` does
                // not narrow float64 into an int32 output, as NumPy).
                10 if slots[i].cpu.dtype() == slots[j].cpu.dtype() => {
                    let b = on_both(&slots[j], |b| Ok(b.clone()));
                    let s = &mut slots[i];
                    cp::with_device(Device::Cuda(0), || {
                        cp::add_out(s.gpu.clone(), &b.gpu, &mut s.gpu)
                    })
                    .unwrap();
                    cp::with_device(Device::Cpu, || {
                        cp::add_out(s.cpu.clone(), &b.cpu, &mut s.cpu)
                    })
                    .unwrap();
                    continue;
                }
                // A view one element in: reads what a pending op wrote, at
                // another element's thread.
                11 => {
                    let shifted = on_both(&slots[i], |a| {
                        let tail = a.slice(cp::s![1..])?;
                        let head = a.slice(cp::s![..-1])?;
                        cp::concatenate(&[&cp::add(&tail, &head)?, &a.slice(cp::s![..1])?], 0)
                    });
                    check(&shifted, &what);
                    shifted
                }
                // Launched by itself: a reduction, broadcast back.
                12 => on_both(&slots[i], |a| cp::subtract(a, &a.max()?)),
                // Free a slot and make a fresh one of another dtype, so the
                // pool may hand its block to a different item size.
                _ => {
                    let other = [DType::Float64, DType::Int32, DType::Float32][rng.below(3)];
                    slots.remove(i);
                    let t = twin(&mut rng, n, other);
                    slots.push(t);
                    continue;
                }
            };
            // Replace a slot (dropping its arrays) or add one.
            if slots.len() < 6 && rng.below(2) == 0 {
                slots.push(result);
            } else {
                let k = rng.below(slots.len());
                slots[k] = result;
            }
            if rng.below(25) == 0 {
                check(slots.last().unwrap(), &what);
            }
        }
        for (k, s) in slots.iter().enumerate() {
            check(s, &format!("program {program} (n {n}, {dtype}), slot {k}"));
        }
    }
    let after = stats();
    assert!(after.deferred > before.deferred, "nothing was deferred");
    assert!(after.launches > before.launches);
}

#[test]
fn streams_events_and_switching_off() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _serial = serial();
    let mut rng = Rng(common::test_seed("batch"));
    let t = twin(&mut rng, 5000, DType::Float64);
    cp::with_device(dev, || {
        // On a created stream, timed with events around deferred work.
        let s = cp::cuda::Stream::new().unwrap();
        let (start, end) = (
            cp::cuda::Event::new().unwrap(),
            cp::cuda::Event::new().unwrap(),
        );
        let out = cp::cuda::with_stream(&s, || {
            start.record(&s).unwrap();
            let mut a = t.gpu.clone();
            for _ in 0..50 {
                a = cp::multiply(cp::add(&a, 0.25).unwrap(), 0.5).unwrap();
            }
            end.record(&s).unwrap();
            a
        });
        let ms = cp::cuda::Event::elapsed_ms(&start, &end).unwrap();
        assert!(ms >= 0.0);
        s.synchronize().unwrap();
        let mut b = t.cpu.clone();
        for _ in 0..50 {
            b = cp::multiply(cp::add(&b, 0.25).unwrap(), 0.5).unwrap();
        }
        check(
            &Twin {
                gpu: out,
                cpu: b.clone(),
            },
            "on a created stream",
        );

        // Switched off: nothing more is deferred, results unchanged. (With
        // fusion on, fusion defers every elementwise operation by its own
        // switch, so it is off for this part.)
        let fused = cp::fusion::enabled();
        cp::fusion::set_enabled(false).unwrap();
        cp::cuda::set_small_op_batching(false).unwrap();
        let before = stats();
        let mut a = t.gpu.clone();
        for _ in 0..50 {
            a = cp::multiply(cp::add(&a, 0.25).unwrap(), 0.5).unwrap();
        }
        let after = stats();
        cp::cuda::set_small_op_batching(true).unwrap();
        cp::fusion::set_enabled(fused).unwrap();
        assert_eq!(after.deferred, before.deferred);
        check(&Twin { gpu: a, cpu: b }, "with batching off");
    });
}

#[test]
fn pending_work_is_launched_before_the_pool_releases_memory() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _serial = serial();
    let mut rng = Rng(common::test_seed("batch"));
    let t = twin(&mut rng, 4096, DType::Float32);
    cp::with_device(dev, || {
        let mut a = t.gpu.clone();
        for _ in 0..30 {
            a = cp::add(&a, 2.0).unwrap();
        }
        // Blocks the pending adds used go back to the driver here.
        cp::cuda::memory_pool().unwrap().free_all_blocks().unwrap();
        let big = cp::zeros([1 << 22], DType::Float32).unwrap();
        let mut b = t.cpu.clone();
        for _ in 0..30 {
            b = cp::add(&b, 2.0).unwrap();
        }
        check(&Twin { gpu: a, cpu: b }, "after free_all_blocks");
        assert_eq!(big.sum().unwrap().to_vec::<f32>().unwrap(), vec![0.0]);
    });
}

//! `cp::profiler`: benchmark timings (CPU always, GPU with CUDA events) and
//! NVTX ranges. GPU parts skip with a notice without a usable GPU.

mod common;
use common::*;
use cuprite as cp;
use cuprite::profiler::{benchmark, benchmark_with, time_range, Stats};
use cuprite::Device;

#[test]
fn cpu_benchmark_records_cpu_times_only() {
    cp::with_device(Device::Cpu, || {
        let x = cp::ones([1000], cp::f32).unwrap();
        let mut calls = 0;
        let t = benchmark_with(
            "sum",
            || {
                calls += 1;
                x.sum()
            },
            7,
            2,
        )
        .unwrap()
        .bytes(4000)
        .flops(1000);
        assert_eq!(calls, 9, "2 warm-up runs and 7 timed ones");
        assert_eq!(t.cpu_times.len(), 7);
        assert!(t.gpu_times.is_empty() && t.gpu().is_none());
        assert!(t.cpu_times.iter().all(|&s| s >= 0.0));
        let s = t.cpu().unwrap();
        assert!(s.min <= s.median && s.median <= s.max);
        assert_eq!(t.median(), s.median);
        assert!(t.bytes_per_second().unwrap() > 0.0);
        let text = t.to_string();
        assert!(text.starts_with("sum:    CPU:"), "{text}");
        assert!(text.contains("GPU: not measured (CPU backend)"), "{text}");
        assert_eq!(t.device, Device::Cpu);
    });
}

#[test]
fn benchmark_errors() {
    cp::with_device(Device::Cpu, || {
        assert!(benchmark(|| Ok(()), 0).is_err());
        let e = benchmark(
            || -> cp::Result<()> {
                Err(cp::Error::InvalidArgument {
                    op: "f",
                    detail: "boom".into(),
                })
            },
            3,
        )
        .unwrap_err();
        assert!(e.to_string().contains("boom"));
    });
}

#[test]
fn stats_match_numpy() {
    // NumPy 2.4: np.mean/np.std/np.median of [2., 4., 4., 4., 5., 5., 7., 9.] = 5., 2., 4.5
    let s = Stats::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
    assert_eq!(
        (s.mean, s.std, s.median, s.min, s.max),
        (5.0, 2.0, 4.5, 2.0, 9.0)
    );
}

#[test]
fn time_range_is_a_guard_with_or_without_nvtx() {
    let g = time_range("cuprite test range");
    println!("NVTX recording: {}", g.is_recording());
    drop(g);
    let _nested = time_range("outer");
    let _inner = time_range("inner");
}

#[test]
fn gpu_benchmark_records_event_times() {
    let Some(dev) = gpu_or_skip() else { return };
    cp::with_device(dev, || {
        let x = cp::ones([1 << 24], cp::f32).unwrap();
        let t = benchmark(|| x.sum(), 10)
            .unwrap()
            .bytes(4.0 * (1 << 24) as f64);
        assert_eq!(t.gpu_times.len(), 10);
        assert_eq!(t.cpu_times.len(), 10);
        assert!(t.gpu_times.iter().all(|&s| s > 0.0), "{:?}", t.gpu_times);
        let text = t.to_string();
        assert!(text.contains("GPU-0:"), "{text}");
        println!("{text}");
    });
}

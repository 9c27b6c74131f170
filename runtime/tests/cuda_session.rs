//! The CUDA session itself: probing, memory pool, streams and events.
//! Each test skips with a notice when no GPU is usable (CI) and fails when
//! `CUPRITE_REQUIRE_GPU` is set and none is.

mod common;
use common::*;
use cuprite as cp;
use cuprite::cuda::{Event, Stream};

#[test]
fn report_names_the_libraries() {
    let report = cp::cuda::cuda_report();
    println!("{report}");
    assert!(report.starts_with("CUDA: "));
    if gpu_or_skip().is_some() {
        assert!(report.contains("  cuda:0: "), "{report}");
        assert!(report.contains("nvrtc: "), "{report}");
    }
}

/// Pool figures are process-wide: tests that read them run one at a time.
static POOL_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn pool_counts_allocations_and_recovers_from_out_of_memory() {
    let _serial = POOL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let Some(dev) = gpu_or_skip() else { return };
    cp::with_device(dev, || {
        let pool = cp::cuda::memory_pool().unwrap();
        let before = pool.stats().unwrap();
        let a = cp::zeros([1 << 20], cp::f32).unwrap();
        let during = pool.stats().unwrap();
        assert_eq!(during.used_bytes, before.used_bytes + (4 << 20));
        assert_eq!(during.allocations, before.allocations + 1);
        assert!(during.reserved_bytes >= during.used_bytes);
        drop(a);
        let after = pool.stats().unwrap();
        assert_eq!(after.used_bytes, before.used_bytes);
        assert!(after.peak_bytes >= before.used_bytes + (4 << 20));

        // A request larger than the GPU fails cleanly and the next one works.
        let huge = 1usize << 46; // 64 TiB of f32 elements / 4
        let err = cp::empty([huge], cp::u8).unwrap_err();
        println!("out of memory as expected: {err}");
        assert!(matches!(err, cp::Error::OutOfMemory { .. }), "{err}");
        let ok = cp::ones([1000], cp::f32).unwrap();
        assert_eq!(ok.to_vec::<f32>().unwrap(), vec![1.0; 1000]);

        // A limit turns into OutOfMemory too.
        pool.set_limit(1 << 20).unwrap();
        assert!(cp::zeros([1 << 20], cp::f32).is_err());
        pool.set_limit(0).unwrap();
        pool.free_all_blocks().unwrap();
    });
}

#[test]
fn allocate_free_cycle_is_cheap() {
    let _serial = POOL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let Some(dev) = gpu_or_skip() else { return };
    cp::with_device(dev, || {
        // Warm the pool, then time allocate + free + synchronize.
        for _ in 0..10 {
            drop(cp::empty([1 << 20], cp::f32).unwrap());
        }
        Stream::null().synchronize().unwrap();
        let n = 2000;
        let t = std::time::Instant::now();
        for _ in 0..n {
            let a = cp::empty([1 << 20], cp::f32).unwrap();
            drop(a);
            Stream::null().synchronize().unwrap();
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!("allocate/free/sync cycle: {us:.2} us");
    });
}

#[test]
fn events_time_work_on_streams() {
    let _serial = POOL_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let Some(dev) = gpu_or_skip() else { return };
    cp::with_device(dev, || {
        let s = Stream::new().unwrap();
        let (start, end) = (Event::new().unwrap(), Event::new().unwrap());
        cp::cuda::with_stream(&s, || {
            let x = cp::ones([1 << 22], cp::f32).unwrap();
            start.record(&s).unwrap();
            let y = x.astype(cp::f64).unwrap();
            end.record(&s).unwrap();
            s.synchronize().unwrap();
            assert_eq!(y.to_vec::<f64>().unwrap()[12345], 1.0);
        });
        let ms = Event::elapsed_ms(&start, &end).unwrap();
        println!("astype f32->f64 of 4M elements: {ms:.3} ms");
        assert!(ms > 0.0 && ms < 1000.0);
        assert!(end.done().unwrap());
    });
}

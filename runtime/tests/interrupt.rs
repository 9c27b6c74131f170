//! An interrupt stops the next runtime call with `Error::Interrupted` on the
//! CPU backend (no CUDA needed), leaves existing arrays intact, and makes
//! operators panic with it; on a GPU, an interrupt that arrives while vendor
//! library work is in flight, while operations wait in a deferred batch or
//! during a copy between host and GPU keeps every array's value and the
//! session usable. The flag is process-wide: the tests of this binary take
//! turns (`TURN`), and no other test binary shares their process.

mod common;

use cuprite as cp;
use std::sync::Mutex;
use std::time::Duration;

static TURN: Mutex<()> = Mutex::new(());

/// A runtime call to interrupt.
type Call<'a> = Box<dyn Fn() -> cp::Result<cp::Array> + 'a>;

#[test]
fn an_interrupt_stops_the_next_operation_and_keeps_arrays() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    cp::with_device(cp::Device::Cpu, || {
        let a = cp::arange(6).unwrap();
        let b = cp::ones([6], cp::i64).unwrap();

        let calls: Vec<(&str, Call<'_>)> = vec![
            ("add", Box::new(|| cp::add(&a, &b))),
            ("sum", Box::new(|| a.sum())),
            ("arange", Box::new(|| cp::arange(3))),
            ("astype", Box::new(|| a.astype(cp::f32))),
            ("matmul", Box::new(|| cp::matmul(&a, &b))),
            (
                "benchmark",
                Box::new(|| cp::profiler::benchmark(|| Ok(1), 3).map(|_| a.clone())),
            ),
        ];
        for (what, call) in &calls {
            cp::interrupt::request();
            assert!(cp::interrupt::is_requested());
            match call() {
                Err(cp::Error::Interrupted { .. }) => {}
                other => panic!("{what}: expected Interrupted, got {other:?}"),
            }
            // A request stops one call; the next one runs.
            assert!(call().is_ok(), "{what} after the interrupt");
        }

        cp::interrupt::request();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| &a + 1));
        let msg = r.expect_err("the operator should panic");
        let text = msg.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.ends_with("interrupted"), "{text}");
        // The arrays are untouched.
        assert_eq!(a.to_vec::<i64>().unwrap(), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(b.to_vec::<i64>().unwrap(), vec![1; 6]);
        cp::interrupt::clear();
        assert!(!cp::interrupt::is_requested());
    });
}

/// Runs `f`, requesting an interrupt from another thread `delay` after it
/// starts: the request lands before, inside or after `f`'s work.
fn with_interrupt_after<T>(delay: Duration, f: impl FnOnce() -> T) -> T {
    std::thread::scope(|scope| {
        scope.spawn(move || {
            std::thread::sleep(delay);
            cp::interrupt::request();
        });
        f()
    })
}

fn host(a: &cp::Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn assert_close(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-4 * w.abs().max(1.0),
            "{what}: element {k} is {g}, expected {w}"
        );
    }
}

#[test]
fn an_interrupt_during_gpu_work_keeps_every_array_and_the_session() {
    let Some(dev) = common::gpu_or_skip() else {
        return;
    };
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    cp::interrupt::clear();
    cp::with_device(dev, || {
        let stream = cp::cuda::Stream::null();
        let mut rng = cp::random::default_rng(7);
        let side = 4096usize;
        let a = rng.standard_normal_as([side, side], cp::f32).unwrap();
        let a_host = host(&a);

        // 1. Vendor library work in flight: cuBLAS products queued, the
        //    interrupt requested while the GPU runs them. The wait returns
        //    early; the products finish on their stream and hold the values
        //    they hold without an interrupt.
        let reference = host(&cp::matmul(&a, &a).unwrap());
        let products: Vec<cp::Array> = (0..8).map(|_| cp::matmul(&a, &a).unwrap()).collect();
        cp::interrupt::request();
        match stream.synchronize() {
            Err(cp::Error::Interrupted { .. }) | Ok(()) => {}
            Err(e) => panic!("waiting for the products: {e}"),
        }
        cp::interrupt::clear();
        stream.synchronize().unwrap();
        for (k, p) in products.iter().enumerate() {
            assert_close(&format!("product {k}"), &host(p), &reference);
        }
        // An interrupt arriving at any moment of a solve (cuSOLVER's
        // factorization and its host waits): the call fails as interrupted
        // or succeeds, and the next one succeeds with the same result.
        let b = rng.standard_normal_as([side, 4], cp::f32).unwrap();
        let x_ref = host(&cp::linalg::solve(&a, &b).unwrap());
        for delay_us in [0u64, 200, 1_000, 5_000, 20_000] {
            let r = with_interrupt_after(Duration::from_micros(delay_us), || {
                cp::linalg::solve(&a, &b)
            });
            // The request may also land after the call returned.
            cp::interrupt::clear();
            match r {
                Ok(x) => assert_close("solve as the interrupt arrived", &host(&x), &x_ref),
                Err(cp::Error::Interrupted { .. }) => {}
                Err(e) => panic!("solve with an interrupt after {delay_us} µs: {e}"),
            }
            cp::interrupt::clear();
            let x = cp::linalg::solve(&a, &b).unwrap();
            assert_close("solve after the interrupt", &host(&x), &x_ref);
        }
        assert_eq!(host(&a), a_host, "the matrix after the interrupts");

        // 2. A deferred batch: small operations wait in the stream's batch
        //    (and, with fusion on, in its pending graph) when the interrupt
        //    comes. The next call is refused before it is recorded; what
        //    was recorded before still runs and reads right.
        for fusion in [false, true] {
            cp::fusion::set_enabled(fusion).unwrap();
            let x = cp::arange(1000).unwrap().astype(cp::f32).unwrap();
            let y = &(&x + 1.0) * 2.0;
            let z = cp::sin(&y).unwrap();
            cp::interrupt::request();
            match cp::add(&z, 1.0) {
                Err(cp::Error::Interrupted { .. }) => {}
                other => panic!("fusion {fusion}: expected Interrupted, got {other:?}"),
            }
            // The interrupt at the cell's end, where the kernel launches
            // what is pending: refused or run, never lost.
            cp::interrupt::request();
            let _ = cp::cuda::launch_pending();
            cp::interrupt::clear();
            let want_y: Vec<f32> = (0..1000).map(|i| (i as f32 + 1.0) * 2.0).collect();
            let want_z: Vec<f32> = want_y.iter().map(|v| v.sin()).collect();
            assert_close(&format!("fusion {fusion}: y"), &host(&y), &want_y);
            assert_close(&format!("fusion {fusion}: z"), &host(&z), &want_z);
            let w = cp::add(&z, 1.0).unwrap();
            let want_w: Vec<f32> = want_z.iter().map(|v| v + 1.0).collect();
            assert_close(
                &format!("fusion {fusion}: the next call"),
                &host(&w),
                &want_w,
            );
        }
        cp::fusion::set_enabled(false).unwrap();

        // 3. Copies between host and GPU (256 MiB each way): an interrupt
        //    before one refuses it, one during it lets it complete (its
        //    staging memory is in use); either way the data are whole.
        let n = 64usize << 20;
        let data: Vec<f32> = (0..n).map(|i| (i % 65_521) as f32).collect();
        let on_gpu = cp::asarray(data.clone()).unwrap();
        for delay_us in [0u64, 500, 2_000, 10_000] {
            let up = with_interrupt_after(Duration::from_micros(delay_us), || {
                cp::asarray(data.clone())
            });
            cp::interrupt::clear();
            match up {
                Ok(u) => assert!(
                    host(&u) == data,
                    "an upload as the interrupt arrived is whole"
                ),
                Err(cp::Error::Interrupted { .. }) => {}
                Err(e) => panic!("upload with an interrupt after {delay_us} µs: {e}"),
            }
            cp::interrupt::clear();
            let down =
                with_interrupt_after(Duration::from_micros(delay_us), || on_gpu.to_vec::<f32>());
            match down {
                Ok(v) => assert!(v == data, "a download as the interrupt arrived is whole"),
                Err(cp::Error::Interrupted { .. }) => {}
                Err(e) => panic!("download with an interrupt after {delay_us} µs: {e}"),
            }
            cp::interrupt::clear();
            assert!(
                host(&on_gpu) == data,
                "the array after the interrupted copies"
            );
        }
        // The session is whole: nothing sticky, new work runs.
        let check = cp::matmul(&a, &a).unwrap();
        assert_close("a product after everything", &host(&check), &reference);
    });
    cp::interrupt::clear();
}

//! An interrupt stops the next runtime call with `Error::Interrupted` on the
//! CPU backend (no CUDA needed), leaves existing arrays intact, and makes
//! operators panic with it. One test in its own binary: the flag is
//! process-wide, so no other test may run beside it.

use cuprite as cp;

/// A runtime call to interrupt.
type Call<'a> = Box<dyn Fn() -> cp::Result<cp::Array> + 'a>;

#[test]
fn an_interrupt_stops_the_next_operation_and_keeps_arrays() {
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

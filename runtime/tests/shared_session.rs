//! Two copies of the crate in one process share the process-wide state and
//! the CUDA session, as notebook cells do under evcxr (each cell links its
//! own copy of the crate).

mod common;

use std::path::PathBuf;

/// The probe library built from `examples/session_probe.rs` next to this test.
fn probe_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    let lib = dir.join("libsession_probe.so");
    assert!(
        lib.exists(),
        "{} was not built (cargo builds examples with the tests)",
        lib.display()
    );
    lib
}

/// Loads one more copy of the probe library under a fresh file name.
fn load_copy(n: usize) -> libloading::Library {
    let src = probe_library();
    let dst = std::env::temp_dir().join(format!("cuprite_probe_{}_{n}.so", std::process::id()));
    std::fs::copy(&src, &dst).unwrap();
    // SAFETY: the library only defines the probe functions.
    let lib = unsafe { libloading::Library::new(&dst) }.unwrap();
    let _ = std::fs::remove_file(&dst);
    lib
}

#[test]
fn two_copies_share_process_state_and_the_gpu_session() {
    let (a, b) = (load_copy(1), load_copy(2));
    type Addr = unsafe extern "C" fn() -> usize;
    // SAFETY: the symbols have these signatures (examples/session_probe.rs).
    unsafe {
        let ga: libloading::Symbol<Addr> = a.get(b"cuprite_probe_global").unwrap();
        let gb: libloading::Symbol<Addr> = b.get(b"cuprite_probe_global").unwrap();
        // Distinct copies of the code...
        assert_ne!(
            *ga as usize, *gb as usize,
            "the two copies must be distinct"
        );
        // ...reach one process-wide value, also the one this test binary sees.
        assert_eq!(ga(), gb());
        assert_eq!(ga(), cuprite::global_address_for_tests());

        if common::gpu_or_skip().is_none() {
            return;
        }
        let sa: libloading::Symbol<Addr> = a.get(b"cuprite_probe_session").unwrap();
        let sb: libloading::Symbol<Addr> = b.get(b"cuprite_probe_session").unwrap();
        assert_ne!(sa(), 0);
        assert_eq!(sa(), sb());
        assert_eq!(Some(sa()), cuprite::cuda::session_address_for_tests(0));
        // A device array made by one copy is read correctly by the other.
        type Make = unsafe extern "C" fn() -> *mut std::ffi::c_void;
        type Sum = unsafe extern "C" fn(*mut std::ffi::c_void) -> f32;
        let make: libloading::Symbol<Make> = a.get(b"cuprite_probe_make_array").unwrap();
        let sum: libloading::Symbol<Sum> = b.get(b"cuprite_probe_sum").unwrap();
        let h = make();
        assert!(!h.is_null());
        assert_eq!(sum(h), 6.0);
    }
}

#[test]
fn settings_made_in_one_copy_hold_in_another() {
    let (a, b) = (load_copy(3), load_copy(4));
    type SetU32 = unsafe extern "C" fn(u32);
    type GetU32 = unsafe extern "C" fn() -> u32;
    type SetU64 = unsafe extern "C" fn(u64);
    type GetF64 = unsafe extern "C" fn() -> f64;
    // SAFETY: the symbols have these signatures (examples/session_probe.rs).
    unsafe {
        let set: libloading::Symbol<SetU32> = a.get(b"cuprite_probe_set_precision").unwrap();
        let get: libloading::Symbol<GetU32> = b.get(b"cuprite_probe_precision").unwrap();
        set(1);
        assert_eq!(
            get(),
            1,
            "TF32 set in one copy (one notebook cell) holds in the next"
        );
        set(0);
        assert_eq!(get(), 0);

        // The legacy generator is one per process: seeding through one copy
        // fixes what the other draws next.
        let seed: libloading::Symbol<SetU64> = a.get(b"cuprite_probe_seed").unwrap();
        let rand_a: libloading::Symbol<GetF64> = a.get(b"cuprite_probe_rand").unwrap();
        let rand_b: libloading::Symbol<GetF64> = b.get(b"cuprite_probe_rand").unwrap();
        seed(7);
        let first = rand_a();
        seed(7);
        let again = rand_b();
        assert!(first.is_finite());
        assert_eq!(first.to_bits(), again.to_bits());
    }
}

//! A shared library that links its own copy of `cuprite`, as evcxr links one
//! into every notebook cell. The test `shared_session` loads two copies of
//! it into one process and checks that they share the process-wide state.

/// Address of the process-wide self-test value seen by this copy of the crate.
#[unsafe(no_mangle)]
pub extern "C" fn cuprite_probe_global() -> usize {
    cuprite::global_address_for_tests()
}

/// Address of the CUDA session of device 0 seen by this copy (0 without a GPU).
#[unsafe(no_mangle)]
pub extern "C" fn cuprite_probe_session() -> usize {
    cuprite::cuda::session_address_for_tests(0).unwrap_or(0)
}

/// A device buffer made by this copy, kept alive, as an opaque array handle.
#[unsafe(no_mangle)]
pub extern "C" fn cuprite_probe_make_array() -> *mut std::ffi::c_void {
    match cuprite::asarray_on([1.0f32, 2.0, 3.0], cuprite::Device::cuda(0)) {
        Ok(a) => Box::into_raw(Box::new(a)) as *mut std::ffi::c_void,
        Err(_) => std::ptr::null_mut(),
    }
}

/// Sum of an array handle made by any copy, read by this copy.
///
/// # Safety
/// `handle` must come from `cuprite_probe_make_array` of an identical build.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuprite_probe_sum(handle: *mut std::ffi::c_void) -> f32 {
    unsafe {
        let a = &*(handle as *const cuprite::Array);
        a.to_vec::<f32>()
            .map(|v| v.iter().sum())
            .unwrap_or(f32::NAN)
    }
}

/// Sets the matmul precision in this copy (0 Highest, 1 TF32, 2 FP16).
#[unsafe(no_mangle)]
pub extern "C" fn cuprite_probe_set_precision(p: u32) {
    cuprite::set_matmul_precision(match p {
        1 => cuprite::MatmulPrecision::TF32,
        2 => cuprite::MatmulPrecision::FP16,
        _ => cuprite::MatmulPrecision::Highest,
    });
}

/// The matmul precision this copy sees (0 Highest, 1 TF32, 2 FP16).
#[unsafe(no_mangle)]
pub extern "C" fn cuprite_probe_precision() -> u32 {
    match cuprite::matmul_precision() {
        cuprite::MatmulPrecision::Highest => 0,
        cuprite::MatmulPrecision::TF32 => 1,
        cuprite::MatmulPrecision::FP16 => 2,
    }
}

/// Seeds the legacy generator in this copy.
#[unsafe(no_mangle)]
pub extern "C" fn cuprite_probe_seed(seed: u64) {
    cuprite::random::seed(seed);
}

/// The next legacy `rand()` value drawn through this copy (on the CPU).
#[unsafe(no_mangle)]
pub extern "C" fn cuprite_probe_rand() -> f64 {
    cuprite::with_device(cuprite::Device::Cpu, || {
        cuprite::random::rand([1]).and_then(|a| a.to_vec::<f64>())
    })
    .map(|v| v[0])
    .unwrap_or(f64::NAN)
}

//! A shared library that links its own copy of `cuprite`, as evcxr links one
//! into every notebook cell. The test `shared_session` loads two copies of
//! it into one process and checks that they share the process-wide state.

/// Address of the process-wide self-test value seen by this copy of the crate.
#[no_mangle]
pub extern "C" fn cuprite_probe_global() -> usize {
    cuprite::global_address_for_tests()
}

/// Address of the CUDA session of device 0 seen by this copy (0 without a GPU).
#[no_mangle]
pub extern "C" fn cuprite_probe_session() -> usize {
    cuprite::cuda::session_address_for_tests(0).unwrap_or(0)
}

/// A device buffer made by this copy, kept alive, as an opaque array handle.
#[no_mangle]
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
#[no_mangle]
pub unsafe extern "C" fn cuprite_probe_sum(handle: *mut std::ffi::c_void) -> f32 {
    let a = &*(handle as *const cuprite::Array);
    a.to_vec::<f32>()
        .map(|v| v.iter().sum())
        .unwrap_or(f32::NAN)
}

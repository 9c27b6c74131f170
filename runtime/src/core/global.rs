//! Process-wide values shared by every copy of this crate in a process.
//!
//! evcxr links each notebook cell with its own copy of every dependency, so
//! a plain `static` is a different object in each cell. A value that must be
//! one per process (the CUDA sessions, print options, the interrupt flag) is
//! created by the first copy that asks, leaked, and its address published in
//! an environment variable; later copies read the address and use the same
//! object. The variable's name includes the crate version and the type's
//! name and size, so only an identical type is ever shared.

use std::sync::Mutex;

/// The process-wide instance of `T` for `key`, created by `init` on first use.
pub fn process_global<T: Send + Sync + 'static>(key: &str, init: impl FnOnce() -> T) -> &'static T {
    // Serializes initialisation within this copy; copies run cells one at a time.
    static INIT: Mutex<()> = Mutex::new(());
    let var = env_name::<T>(key);
    if let Some(p) = published::<T>(&var) {
        return p;
    }
    let _guard = INIT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = published::<T>(&var) {
        return p;
    }
    let leaked: &'static T = Box::leak(Box::new(init()));
    let addr = leaked as *const T as usize;
    // The value names this process: child processes inherit the environment
    // and must not take the parent's address for their own.
    // TODO: Audit that the environment access only happens in single-threaded code.
    unsafe { std::env::set_var(&var, format!("{}:{addr:#x}", std::process::id())) };
    leaked
}

fn env_name<T>(key: &str) -> String {
    let ty: String = std::any::type_name::<T>()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!(
        "CUPRITE_PROCESS_{key}_{}_{ty}_{}_{}",
        env!("CARGO_PKG_VERSION").replace('.', "_"),
        std::mem::size_of::<T>(),
        std::mem::align_of::<T>()
    )
}

fn published<T>(var: &str) -> Option<&'static T> {
    // SAFETY: the variable is written only by `process_global` in this
    // process for exactly this type (name, size and alignment are in the
    // variable's name), with the address of a leaked, never-freed value.
    unsafe { address_in_this_process(&std::env::var(var).ok()?) }
}

/// The value at the address in `text` (`pid:hexaddr`, as `process_global`
/// and the notebook kernel publish them), when `pid` is this process (a
/// child inherits the environment, not the value) and the address is
/// non-null and aligned for `T`.
///
/// # Safety
/// An address published with this process's id must point to a `T` that
/// lives for the rest of the process.
pub(crate) unsafe fn address_in_this_process<T>(text: &str) -> Option<&'static T> {
    let (pid, addr) = text.split_once(':')?;
    if pid.parse::<u32>().ok()? != std::process::id() {
        return None;
    }
    let addr = usize::from_str_radix(addr.trim_start_matches("0x"), 16).ok()?;
    if addr == 0 || addr % std::mem::align_of::<T>() != 0 {
        return None;
    }
    // SAFETY: the caller vouches for what this process published there.
    Some(unsafe { &*(addr as *const T) })
}

/// The address of the process-wide value for `key`, for tests that check
/// two copies of the crate share it.
#[doc(hidden)]
pub fn process_global_address_for_tests() -> usize {
    let v: &'static std::sync::atomic::AtomicU64 =
        process_global("selftest", || std::sync::atomic::AtomicU64::new(0));
    v as *const _ as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn an_address_published_by_another_process_is_ignored() {
        let var = env_name::<AtomicU32>("inherited");
        // As a child would inherit it from its parent.
        // TODO: Audit that the environment access only happens in single-threaded code.
        unsafe {
            std::env::set_var(
                &var,
                format!("{}:0x1000", std::process::id().wrapping_add(1)),
            )
        };
        let a: &AtomicU32 = process_global("inherited", || AtomicU32::new(7));
        assert_eq!(a.load(Ordering::SeqCst), 7);
        assert!(std::env::var(&var)
            .unwrap()
            .starts_with(&format!("{}:", std::process::id())));
    }

    #[test]
    fn same_key_gives_the_same_object() {
        let a: &AtomicU32 = process_global("unit", || AtomicU32::new(5));
        a.fetch_add(1, Ordering::SeqCst);
        let b: &AtomicU32 = process_global("unit", || AtomicU32::new(100));
        assert!(std::ptr::eq(a, b));
        assert_eq!(b.load(Ordering::SeqCst), 6);
        let c: &AtomicU32 = process_global("other", || AtomicU32::new(1));
        assert!(!std::ptr::eq(a, c));
    }
}

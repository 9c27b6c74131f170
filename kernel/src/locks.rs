//! Locks that outlive a panic. A thread that panics while holding one of the
//! kernel's mutexes poisons it; `lock().unwrap()` would then panic in every
//! later request (the shell loop, the control loop, the side channel), so
//! one fault would take the kernel down. The state these mutexes guard
//! (who runs, what was printed, the history) stays usable after a panic
//! elsewhere, so a poisoned lock is taken as it is.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, WaitTimeoutResult};
use std::time::Duration;

/// `lock()` that takes a poisoned mutex as it is.
pub trait Locked<T> {
    /// The guard, poisoned or not.
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `Condvar` waits that take a poisoned mutex as it is.
pub trait Waits {
    /// `wait`, poisoned or not.
    fn wait_on<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T>;
    /// `wait_timeout`, poisoned or not.
    fn wait_on_for<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
    ) -> (MutexGuard<'a, T>, WaitTimeoutResult);
}

impl Waits for Condvar {
    fn wait_on<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.wait(guard).unwrap_or_else(PoisonError::into_inner)
    }

    fn wait_on_for<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        timeout: Duration,
    ) -> (MutexGuard<'a, T>, WaitTimeoutResult) {
        self.wait_timeout(guard, timeout)
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_poisoned_lock_is_still_taken() {
        let m = Arc::new(Mutex::new(1));
        let m2 = m.clone();
        let _ = std::thread::spawn(move || {
            let _g = m2.lock().unwrap();
            panic!("poison it");
        })
        .join();
        assert!(m.is_poisoned());
        *m.locked() += 1;
        assert_eq!(*m.locked(), 2);
        let cv = Condvar::new();
        let (g, timeout) = cv.wait_on_for(m.locked(), Duration::from_millis(1));
        assert!(timeout.timed_out());
        assert_eq!(*g, 2);
    }
}

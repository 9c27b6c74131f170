//! The few POSIX calls output capture needs, declared by hand so that this
//! crate has no dependencies (libc is linked by std anyway).

use std::fs::File;
use std::io::{self, Write};
use std::mem::ManuallyDrop;
use std::os::raw::{c_int, c_long, c_short};
use std::os::unix::io::{FromRawFd, RawFd};

#[repr(C)]
pub(crate) struct PollFd {
    pub fd: c_int,
    pub events: c_short,
    pub revents: c_short,
}

#[cfg(target_os = "linux")]
type NfdsT = std::os::raw::c_ulong;
#[cfg(not(target_os = "linux"))]
type NfdsT = std::os::raw::c_uint;

extern "C" {
    fn pipe(fds: *mut c_int) -> c_int;
    fn dup2(old: c_int, new: c_int) -> c_int;
    fn close(fd: c_int) -> c_int;
    fn fcntl(fd: c_int, cmd: c_int, ...) -> c_int;
    fn poll(fds: *mut PollFd, nfds: NfdsT, timeout: c_int) -> c_int;
    fn signal(signum: c_int, handler: usize) -> usize;
    fn getrusage(who: c_int, usage: *mut [c_long; 18]) -> c_int;
    #[cfg(target_os = "linux")]
    fn prctl(option: c_int, ...) -> c_int;
}

/// Asks Linux to kill this process when the thread that started it (the
/// kernel's session thread) exits, so a cell stuck in a loop never outlives
/// its kernel.
pub(crate) fn die_with_parent() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_PDEATHSIG (1) with a signal number has no memory effects.
    unsafe {
        prctl(1, 9 as std::os::raw::c_ulong);
    }
}

pub(crate) const POLLIN: c_short = 0x1;
pub(crate) const POLLERR: c_short = 0x8;
pub(crate) const POLLHUP: c_short = 0x10;
pub(crate) const SIGINT: c_int = 2;

const F_SETFD: c_int = 2;
const F_GETFL: c_int = 3;
const F_SETFL: c_int = 4;
const FD_CLOEXEC: c_int = 1;
#[cfg(target_os = "linux")]
const F_DUPFD_CLOEXEC: c_int = 1030;
#[cfg(not(target_os = "linux"))]
const F_DUPFD_CLOEXEC: c_int = 67;
#[cfg(target_os = "linux")]
const O_NONBLOCK: c_int = 0o4000;
#[cfg(not(target_os = "linux"))]
const O_NONBLOCK: c_int = 0x4;

fn check(rc: c_int) -> io::Result<c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// A borrowed view of `fd` as a `File` (never closed by us).
pub(crate) fn borrow_fd(fd: RawFd) -> ManuallyDrop<File> {
    // SAFETY: the File is never dropped, so `fd` is not closed here.
    ManuallyDrop::new(unsafe { File::from_raw_fd(fd) })
}

/// Writes all of `bytes` to `fd`.
pub(crate) fn write_all_fd(fd: RawFd, bytes: &[u8]) -> io::Result<()> {
    let mut f = borrow_fd(fd);
    f.write_all(bytes)
}

/// Reads one line from `fd` a byte at a time (so nothing past the newline is
/// taken from the descriptor); without the newline at end of file.
pub(crate) fn read_line_fd(fd: RawFd) -> io::Result<String> {
    use std::io::Read;
    let mut f = borrow_fd(fd);
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match f.read(&mut byte) {
            Ok(0) => break,
            Ok(_) => {
                line.push(byte[0]);
                if byte[0] == b'\n' {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

/// Duplicates `fd` to a new descriptor that is closed on exec.
pub(crate) fn dup_cloexec(fd: RawFd) -> io::Result<RawFd> {
    // SAFETY: plain syscall on an integer descriptor.
    check(unsafe { fcntl(fd, F_DUPFD_CLOEXEC, 0 as c_int) })
}

/// A pipe (read end, write end), both closed on exec.
pub(crate) fn pipe_cloexec() -> io::Result<(RawFd, RawFd)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: `fds` has room for the two descriptors.
    check(unsafe { pipe(fds.as_mut_ptr()) })?;
    for fd in fds {
        // SAFETY: plain syscall on a descriptor we own.
        check(unsafe { fcntl(fd, F_SETFD, FD_CLOEXEC) })?;
    }
    Ok((fds[0], fds[1]))
}

/// Makes `new` refer to what `old` refers to.
pub(crate) fn dup2_fd(old: RawFd, new: RawFd) -> io::Result<()> {
    // SAFETY: plain syscall on integer descriptors.
    check(unsafe { dup2(old, new) }).map(|_| ())
}

/// Closes `fd`.
pub(crate) fn close_fd(fd: RawFd) {
    // SAFETY: the caller owns `fd` and does not use it afterwards.
    unsafe { close(fd) };
}

/// Puts `fd` in non-blocking mode.
pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: plain syscalls on a descriptor we own.
    let flags = check(unsafe { fcntl(fd, F_GETFL) })?;
    check(unsafe { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }).map(|_| ())
}

/// Waits until one of `fds` is ready or `timeout_ms` passes (-1: forever).
pub(crate) fn poll_fds(fds: &mut [PollFd], timeout_ms: i32) -> io::Result<usize> {
    // SAFETY: `fds` is a valid array of pollfd structures.
    let rc = unsafe { poll(fds.as_mut_ptr(), fds.len() as NfdsT, timeout_ms) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(0);
        }
        return Err(e);
    }
    Ok(rc as usize)
}

/// Installs `handler` for SIGINT.
pub(crate) fn on_sigint(handler: extern "C" fn(c_int)) {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe { signal(SIGINT, handler as usize) };
}

/// User and system CPU time of this process, in nanoseconds.
pub(crate) fn cpu_times_ns() -> (u128, u128) {
    let mut usage = [0 as c_long; 18];
    // SAFETY: struct rusage is 18 longs on the 64-bit Unix targets we support
    // (two timevals of two longs each, then 14 longs).
    if unsafe { getrusage(0, &mut usage) } != 0 {
        return (0, 0);
    }
    let tv = |s: c_long, us: c_long| s.max(0) as u128 * 1_000_000_000 + us.max(0) as u128 * 1000;
    (tv(usage[0], usage[1]), tv(usage[2], usage[3]))
}

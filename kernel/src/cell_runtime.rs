//! The cell process: loads each cell's library and calls it, as evcxr's own
//! runtime does, with one difference: a cell cannot read the command pipe.
//!
//! evcxr writes its commands (`LOAD_AND_RUN lib fn`) and the answers to input
//! requests into the cell process's stdin. Its runtime reads them from fd 0,
//! where a cell's `std::io::stdin().read_line(..)` would read them too: it
//! would wait for the next command and then take it, breaking the session.
//! Here the command pipe moves to a private descriptor; fd 0 becomes the root
//! directory, so any read of stdin (by a cell or by a program it starts) fails
//! at once ("Is a directory"; std reads a closed or write-only stdin as an
//! empty one, a directory it cannot), and the kernel adds a hint naming
//! `cp::input` to the cell's error. Lines that arrive
//! while a cell runs are answers to its input requests: they go to a pipe that
//! `cuprite_kernel_io::input` reads (its descriptor in
//! [`cuprite_kernel_io::INPUT_FD_ENV`]).

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

/// evcxr's variable for "this process is the cell process".
const IS_RUNTIME_ENV: &str = "EVCXR_IS_RUNTIME";
/// What evcxr waits for after each cell.
const EXECUTION_COMPLETE: &str = "EVCXR_EXECUTION_COMPLETE";

/// Whether this process was started as evcxr's cell process.
pub fn is_cell_process() -> bool {
    std::env::var_os(IS_RUNTIME_ENV).is_some()
}

/// Runs the cell process until evcxr closes its stdin.
pub fn run() -> ! {
    install_crash_messages();
    let commands = match take_stdin() {
        Ok(fd) => fd,
        Err(e) => {
            eprintln!("cuprite-kernel: cell process: cannot set up stdin: {e}");
            std::process::exit(99);
        }
    };
    let (answers_read, answers_write) = match pipe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cuprite-kernel: cell process: cannot make the input pipe: {e}");
            std::process::exit(99);
        }
    };
    std::env::set_var(
        cuprite_kernel_io::INPUT_FD_ENV,
        format!("{}:{answers_read}", std::process::id()),
    );

    let running = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<String>();
    let route = running.clone();
    std::thread::spawn(move || {
        // SAFETY: both descriptors were made above and are owned by this thread from here.
        let input = BufReader::new(unsafe { std::fs::File::from_raw_fd(commands) });
        let mut answers = unsafe { std::fs::File::from_raw_fd(answers_write) };
        for line in input.lines() {
            let Ok(line) = line else { break };
            if route.load(Ordering::SeqCst) {
                // A cell runs: evcxr sends nothing but answers until it completes.
                let _ = answers.write_all(format!("{line}\n").as_bytes());
            } else if tx.send(line).is_err() {
                break;
            }
        }
        // stdin closed: the main loop ends when the channel does.
    });

    let mut libraries = Vec::new();
    let mut store: *mut std::ffi::c_void = std::ptr::null_mut();
    for line in rx {
        let Some((path, function)) = parse_command(&line) else {
            eprintln!("cuprite-kernel: cell process: unrecognised command {line:?}");
            std::process::exit(99);
        };
        running.store(true, Ordering::SeqCst);
        // SAFETY: evcxr built this library for this process, with an
        // `extern "C" fn(*mut c_void) -> *mut c_void` of this name that takes
        // and returns the variable store, exactly as its own runtime calls it.
        let loaded = unsafe { libloading::Library::new(path) }.and_then(|lib| {
            let f = unsafe {
                lib.get::<extern "C" fn(*mut std::ffi::c_void) -> *mut std::ffi::c_void>(
                    function.as_bytes(),
                )
            }?;
            store = f(store);
            Ok(lib)
        });
        running.store(false, Ordering::SeqCst);
        match loaded {
            // Never unloaded: thread-local destructors and values in the store
            // point into these libraries (evcxr leaks them too).
            Ok(lib) => libraries.push(lib),
            Err(e) => {
                eprintln!("cuprite-kernel: cell process: {line}: {e}");
                std::process::exit(99);
            }
        }
        println!("{EXECUTION_COMPLETE}");
        let _ = std::io::stdout().flush();
    }
    std::mem::forget(libraries);
    std::process::exit(0);
}

/// `LOAD_AND_RUN <library> <function>`.
fn parse_command(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("LOAD_AND_RUN ")?;
    let (path, function) = rest.split_once(' ')?;
    (!path.is_empty() && !function.is_empty() && !function.contains(' '))
        .then_some((path, function))
}

/// Moves the command pipe off fd 0 (returned) and puts a descriptor there
/// that cannot be read.
fn take_stdin() -> std::io::Result<RawFd> {
    // SAFETY: plain descriptor calls on a NUL-terminated path; every result is checked.
    unsafe {
        let commands = check(libc::fcntl(0, libc::F_DUPFD_CLOEXEC, 10))?;
        let root = check(libc::open(
            c"/".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY,
        ))?;
        check(libc::dup2(root, 0))?;
        libc::close(root);
        Ok(commands)
    }
}

/// A pipe (read end, write end), both closed on exec.
fn pipe() -> std::io::Result<(RawFd, RawFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    Ok((fds[0], fds[1]))
}

fn check(rc: libc::c_int) -> std::io::Result<libc::c_int> {
    if rc < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// Says what killed the process on stderr (the kernel shows it), then dies of it.
fn install_crash_messages() {
    extern "C" fn on_crash(signal: libc::c_int) {
        let text: &[u8] = match signal {
            libc::SIGSEGV => b"Segmentation fault.\n",
            libc::SIGILL => b"Illegal instruction.\n",
            libc::SIGBUS => b"Bus error.\n",
            _ => b"Fatal signal.\n",
        };
        // SAFETY: write, signal and raise are async-signal-safe.
        unsafe {
            libc::write(2, text.as_ptr().cast(), text.len());
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    }
    for signal in [libc::SIGSEGV, libc::SIGILL, libc::SIGBUS] {
        // SAFETY: the handler only makes async-signal-safe calls.
        unsafe { libc::signal(signal, on_crash as *const () as libc::sighandler_t) };
    }
}

#[cfg(test)]
mod tests {
    use super::parse_command;

    #[test]
    fn commands_parse() {
        assert_eq!(
            parse_command("LOAD_AND_RUN /tmp/x/libcode_3.so run_user_code_3"),
            Some(("/tmp/x/libcode_3.so", "run_user_code_3"))
        );
        assert_eq!(parse_command("LOAD_AND_RUN /tmp/x.so"), None);
        assert_eq!(parse_command("hello"), None);
        assert_eq!(parse_command("LOAD_AND_RUN a b c"), None);
    }
}

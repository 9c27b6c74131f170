//! Fault injection: the disk fills up while a save is writing.
//!
//! A file-size limit (`RLIMIT_FSIZE`) makes every write past it fail with
//! `EFBIG`, as a full disk fails them with `ENOSPC`, without needing a
//! small filesystem to fill: the save's temporary file stops growing part
//! way. Each writer must then fail with an error naming the operation and
//! the file, leave the file it would have replaced as it was, and leave no
//! temporary beside it. A binary of its own: the limit is the process's.
//! (Run it with `--nocapture` to see that a failed `.npz` prints nothing
//! beside its error.)

use cuprite as cp;
use std::path::{Path, PathBuf};

/// Bytes a file may grow to while the limit is on.
const LIMIT: u64 = 64 << 10;

/// Runs `f` with files limited to [`LIMIT`] bytes, restoring the old limit after.
fn with_file_size_limit<R>(f: impl FnOnce() -> R) -> R {
    // SAFETY: getrlimit/setrlimit on this process with a valid struct;
    // SIGXFSZ ignored so that a write past the limit returns EFBIG instead
    // of ending the process.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let mut old = std::mem::zeroed::<libc::rlimit>();
        assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut old), 0);
        let limited = libc::rlimit {
            rlim_cur: LIMIT as libc::rlim_t,
            rlim_max: old.rlim_max,
        };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limited), 0);
        let r = f();
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &old), 0);
        r
    }
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuprite-disk-full-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

#[test]
fn saves_that_run_out_of_space_fail_and_keep_the_previous_file() {
    cp::with_device(cp::Device::Cpu, || {
        let dir = scratch();
        // Random values: compression cannot bring them under the limit.
        let big = cp::random::default_rng(7)
            .standard_normal_as([50_000], cp::DType::Float64)
            .unwrap();
        let old = b"the previous contents\n";
        type Save<'a> = Box<dyn Fn(&Path) -> cp::Result<()> + 'a>;
        let saves: Vec<(&str, &str, Save)> = vec![
            ("save", "kept.npy", Box::new(|p: &Path| cp::save(p, &big))),
            (
                "savez",
                "kept.npz",
                Box::new(|p: &Path| cp::savez(p, &[("x", &big)])),
            ),
            (
                "savez_compressed",
                "kept_z.npz",
                Box::new(|p: &Path| cp::savez_compressed(p, &[("x", &big)])),
            ),
            (
                "savetxt",
                "kept.csv",
                Box::new(|p: &Path| cp::savetxt(p, &big, &cp::SaveTxtOptions::default())),
            ),
            ("tofile", "kept.bin", Box::new(|p: &Path| big.tofile(p))),
        ];
        for (op, name, save) in &saves {
            let path = dir.join(name);
            std::fs::write(&path, old).unwrap();
            let result = with_file_size_limit(|| save(&path));
            let e = result.expect_err(&format!("{op} wrote past the file-size limit"));
            let text = e.to_string();
            assert!(
                text.contains(op) && text.contains(*name),
                "{op}: the error names neither the operation nor the file: {text}"
            );
            assert_eq!(
                std::fs::read(&path).unwrap(),
                old,
                "{op}: the previous file changed"
            );
            assert_eq!(
                temporaries(&dir),
                Vec::<String>::new(),
                "{op}: temporaries left"
            );
            // With room again, the same save succeeds and replaces the file.
            save(&path).unwrap();
            assert!(std::fs::metadata(&path).unwrap().len() > LIMIT, "{op}");
        }
        let back = cp::load(dir.join("kept.npy")).unwrap();
        assert!(cp::array_equal(&back, &big).unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    });
}

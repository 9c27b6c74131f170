//! The per-notebook build directory that evcxr compiles cells in, reused
//! across kernel restarts so dependencies are not rebuilt, and locked so two
//! kernels never share one.

use anyhow::{Context, Result};
use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// A locked build directory; the lock is held while this lives.
pub struct BuildDir {
    /// The directory (holding `ctx/`, evcxr's crate, and `.cargo/config.toml`).
    pub root: PathBuf,
    /// Where sibling build directories are (seeding looks there).
    base: PathBuf,
    _lock: File,
}

impl BuildDir {
    /// evcxr's crate directory (`EVCXR_TMPDIR`).
    pub fn ctx(&self) -> PathBuf {
        self.root.join("ctx")
    }

    /// The seeding still to do, as a value the session thread can take.
    pub fn seeder(&self) -> Seeder {
        Seeder {
            root: self.root.clone(),
            base: self.base.clone(),
        }
    }
}

/// Fills a new build directory with compiled dependencies found elsewhere
/// ([`seed_sources`]). It is separate from [`acquire`] because the copy takes
/// seconds: the kernel answers `kernel_info` first and seeds in the session
/// thread, before evcxr runs cargo.
#[derive(Debug, Clone)]
pub struct Seeder {
    root: PathBuf,
    base: PathBuf,
}

impl Seeder {
    /// Copies compiled dependencies in when the directory has compiled none.
    pub fn seed_if_new(&self) {
        if self.root.join("ctx/target").exists() {
            return;
        }
        let started = std::time::Instant::now();
        for from in seed_sources(&self.root, Some(&self.base)) {
            if seed(&self.root, &from) {
                if std::env::var_os("CUPRITE_KERNEL_DEBUG").is_some() {
                    eprintln!(
                        "cuprite-kernel: build folder {} starts from {} ({:.1?})",
                        self.root.display(),
                        from.display(),
                        started.elapsed()
                    );
                }
                break;
            }
        }
    }
}

/// What identifies a notebook: Jupyter's `JPY_SESSION_NAME` (the notebook's
/// path) when set, else the working directory Jupyter started us in.
pub fn notebook_key() -> String {
    std::env::var("JPY_SESSION_NAME")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|d| d.to_string_lossy().to_string())
        })
        .unwrap_or_else(|| "default".into())
}

/// Opens (creating) and locks the build directory for `key` under `base`:
/// `CUPRITE_KERNEL_BUILD_DIR` overrides the choice. When another kernel holds
/// the notebook's directory, a numbered sibling is used. A new directory
/// starts from compiled dependencies found elsewhere once
/// [`Seeder::seed_if_new`] has run.
pub fn acquire(base: &Path, key: &str) -> Result<BuildDir> {
    if let Some(dir) = std::env::var_os("CUPRITE_KERNEL_BUILD_DIR") {
        let root = PathBuf::from(dir);
        std::fs::create_dir_all(&root)?;
        let lock = open_lock(&root)?;
        if !try_lock(&lock) {
            anyhow::bail!(
                "CUPRITE_KERNEL_BUILD_DIR={} is in use by another kernel",
                root.display()
            );
        }
        configure(&root)?;
        return Ok(BuildDir {
            root,
            base: base.to_path_buf(),
            _lock: lock,
        });
    }
    let stem = dir_name(key);
    for n in 0..32 {
        let root = if n == 0 {
            base.join(&stem)
        } else {
            base.join(format!("{stem}-{n}"))
        };
        std::fs::create_dir_all(&root)
            .with_context(|| format!("cannot create {}", root.display()))?;
        let lock = open_lock(&root)?;
        if try_lock(&lock) {
            configure(&root)?;
            return Ok(BuildDir {
                root,
                base: base.to_path_buf(),
                _lock: lock,
            });
        }
    }
    anyhow::bail!(
        "every build directory for this notebook under {} is in use",
        base.display()
    )
}

/// A readable, unique directory name for a notebook key.
pub fn dir_name(key: &str) -> String {
    let base = Path::new(key)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!(
        "{}-{:012x}",
        if clean.is_empty() { "notebook" } else { &clean },
        h & 0xffff_ffff_ffff
    )
}

fn open_lock(root: &Path) -> Result<File> {
    let p = root.join(".lock");
    File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&p)
        .with_context(|| format!("cannot open {}", p.display()))
}

fn try_lock(f: &File) -> bool {
    // SAFETY: flock on a descriptor we own; released when the file closes.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Cargo configuration for the cells' builds, found by cargo above evcxr's
/// crate directory: dependencies (the runtime above all) stay optimized while
/// cell code, compiled at `:opt 0`, builds fast.
pub const CARGO_CONFIG: &str = r#"# Written by cuprite-kernel.
[profile.dev.package."*"]
opt-level = 2
debug = false
"#;

/// Environment variable naming a pre-warmed build directory (a container
/// image builds one at image build time): a build directory that has not
/// compiled anything yet starts as a copy of its compiled dependencies, so a
/// new notebook's first cell compiles only the cell. Cargo reuses the copy
/// when the crates' sources are at the same paths as when it was built
/// (`CUPRITE_KERNEL_SOURCES`, `CARGO_HOME`) and the toolchain is the same.
pub const SEED_ENV: &str = "CUPRITE_KERNEL_SEED_DIR";

/// Copies `SEED/ctx/target` into `root/ctx/target` when `root` has none yet
/// (`cp -a`, which keeps the modification times cargo's fingerprints check).
/// Returns whether a copy was made; failures only cost the warm start.
fn seed(root: &Path, seed: &Path) -> bool {
    let from = seed.join("ctx/target");
    let to = root.join("ctx/target");
    if to.exists() || !from.is_dir() || same_dir(seed, root) {
        return false;
    }
    let tmp = root.join("ctx/.target-seed");
    let _ = std::fs::remove_dir_all(&tmp);
    let copied = copy_except_incremental(&from, &tmp, 3);
    if copied && std::fs::rename(&tmp, &to).is_ok() {
        return true;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!(
        "cuprite-kernel: could not copy the pre-warmed build {} (the first cell compiles everything)",
        from.display()
    );
    false
}

/// Copies the directory `from` to `to` (`cp -a`, which keeps the
/// modification times cargo's fingerprints check), leaving out rustc's
/// `incremental` caches within `depth` levels: they are most of a build
/// folder (gigabytes of old sessions) and cargo does not need them to see
/// the copied crates as fresh. The cell builds recorded there
/// (`cell_build`) are left out too: they name the other folder's paths.
fn copy_except_incremental(from: &Path, to: &Path, depth: usize) -> bool {
    let Ok(entries) = std::fs::read_dir(from) else {
        return false;
    };
    if std::fs::create_dir_all(to).is_err() {
        return false;
    }
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == "incremental" || name == crate::cell_build::RECORDS_DIR {
            continue;
        }
        let dest = to.join(&name);
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        // Only folders with an `incremental` cache below are walked; the
        // others (`deps`, `build`, `.fingerprint`: a thousand entries) go in
        // one `cp` each, since a process per file took most of a second.
        let ok = if is_dir && depth > 0 && holds_incremental(&entry.path(), depth - 1) {
            copy_except_incremental(&entry.path(), &dest, depth - 1)
        } else {
            // `--reflink=auto` shares the blocks on file systems that can (btrfs, XFS).
            cp_a(&entry.path(), &dest, &["--reflink=auto"]) || cp_a(&entry.path(), &dest, &[])
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Whether `dir` or a folder within `depth` levels below it has an
/// `incremental` folder.
fn holds_incremental(dir: &Path, depth: usize) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        entry.file_type().map(|t| t.is_dir()).unwrap_or(false)
            && (entry.file_name() == "incremental"
                || (depth > 0 && holds_incremental(&entry.path(), depth - 1)))
    })
}

/// Removes rustc's `incremental` caches within `depth` levels of `dir` (a
/// prebuilt folder keeps only what copies of it use).
pub fn remove_incremental(dir: &Path, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            continue;
        }
        if entry.file_name() == "incremental" {
            let _ = std::fs::remove_dir_all(entry.path());
        } else if depth > 0 {
            remove_incremental(&entry.path(), depth - 1);
        }
    }
}

fn cp_a(from: &Path, to: &Path, extra: &[&str]) -> bool {
    std::process::Command::new("cp")
        .arg("-a")
        .args(extra)
        .arg(from)
        .arg(to)
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Writes the cargo configuration and the pinned `Cargo.lock` (cheap; the
/// seeding is [`Seeder`]'s).
fn configure(root: &Path) -> Result<()> {
    let cfg_dir = root.join(".cargo");
    std::fs::create_dir_all(&cfg_dir)?;
    let cfg = cfg_dir.join("config.toml");
    if std::fs::read_to_string(&cfg).ok().as_deref() != Some(CARGO_CONFIG) {
        std::fs::write(&cfg, CARGO_CONFIG)?;
    }
    let ctx = root.join("ctx");
    std::fs::create_dir_all(&ctx)?;
    // Pin the dependency versions the workspace was tested with.
    let lock = ctx.join("Cargo.lock");
    if !lock.exists() && !crate::sources::CARGO_LOCK.is_empty() {
        std::fs::write(&lock, crate::sources::CARGO_LOCK)?;
    }
    Ok(())
}

/// Where a new build directory's compiled dependencies may come from, best
/// first: `CUPRITE_KERNEL_SEED_DIR`, the user's most recently warmed build
/// directory for the same toolchain and crates (so a second notebook does not
/// compile the dependencies again), then the shared prebuilt cache
/// (`CUPRITE_KERNEL_SHARED_CACHE`, see `prewarm`).
pub fn seed_sources(root: &Path, siblings: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(dir) = std::env::var_os(SEED_ENV).filter(|d| !d.is_empty()) {
        out.push(PathBuf::from(dir));
    }
    let key = warm_key();
    if let Some(base) = siblings {
        out.extend(warm_siblings(base, root, &key));
    }
    if let Some(dir) = crate::prewarm::shared_build_dir() {
        out.push(dir);
    }
    out
}

/// The file in a build directory saying that it holds the compiled
/// dependencies for [`warm_key`] (written once the session has built them).
const WARM_MARKER: &str = ".warm";

/// What compiled dependencies can be reused under: the kernel's version and
/// embedded crates (first line), then [`reuse_key`].
pub fn warm_key() -> String {
    format!(
        "cuprite-kernel {} sources {}\n{}",
        env!("CARGO_PKG_VERSION"),
        crate::sources::SOURCES_HASH,
        reuse_key()
    )
}

/// What cargo needs to reuse any compiled crate at all: the toolchain,
/// `CARGO_HOME` (where registry sources are) and the build settings. A
/// build directory warmed by another version of the embedded crates still
/// holds every registry dependency compiled: starting from it, cargo
/// compiles only Cuprite's own crates again.
fn reuse_key() -> String {
    format!(
        "{}\nCARGO_HOME {}\n{}",
        crate::prewarm::rustc_version(),
        crate::prewarm::cargo_home().display(),
        CARGO_CONFIG,
    )
}

/// Records that `root` (a build directory) holds warm dependencies.
pub fn mark_warm(root: &Path) {
    let marker = root.join(WARM_MARKER);
    let key = warm_key();
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(key.as_str()) {
        let _ = std::fs::write(&marker, key);
    } else {
        // Newest first when choosing a seed: touch it.
        let _ = std::fs::File::options()
            .write(true)
            .open(&marker)
            .and_then(|f| f.set_modified(std::time::SystemTime::now()));
    }
}

/// Build directories under `base` other than `root` that are warm for `key`
/// (the most recently warmed first), then those warmed by other embedded
/// crates under the same toolchain and settings (their registry
/// dependencies are still good), the most recent first.
fn warm_siblings(base: &Path, root: &Path, key: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(base) else {
        return Vec::new();
    };
    let reusable_tail = key.split_once('\n').map_or("", |(_, tail)| tail);
    // (exact match, time warmed, directory)
    let mut found: Vec<(bool, std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| !same_dir(p, root) && p.join("ctx/target").is_dir())
        .filter_map(|p| {
            let marker = p.join(WARM_MARKER);
            let text = std::fs::read_to_string(&marker).ok()?;
            let exact = text == key;
            let reusable = exact
                || text
                    .split_once('\n')
                    .is_some_and(|(_, tail)| tail == reusable_tail);
            let warmed = marker.metadata().and_then(|m| m.modified()).ok()?;
            reusable.then_some((exact, warmed, p))
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse((f.0, f.1)));
    found.into_iter().map(|(_, _, p)| p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_stable_and_distinct() {
        let a = dir_name("/home/u/work/My Notebook.ipynb");
        assert!(a.starts_with("My_Notebook-"), "{a}");
        assert_eq!(a, dir_name("/home/u/work/My Notebook.ipynb"));
        assert_ne!(a, dir_name("/home/u/other/My Notebook.ipynb"));
        assert!(dir_name("").starts_with("notebook-"));
    }

    #[test]
    fn new_build_dirs_start_from_the_seed() {
        let base = std::env::temp_dir().join(format!("cuprite-seed-test-{}", std::process::id()));
        let seed_dir = base.join("seed");
        let dep = seed_dir.join("ctx/target/debug/deps/libdep.rlib");
        std::fs::create_dir_all(dep.parent().unwrap()).unwrap();
        std::fs::write(&dep, b"rlib").unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        std::fs::File::options()
            .write(true)
            .open(&dep)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let root = base.join("new");
        std::fs::create_dir_all(root.join("ctx")).unwrap();
        assert!(seed(&root, &seed_dir));
        let copy = root.join("ctx/target/debug/deps/libdep.rlib");
        assert_eq!(std::fs::read(&copy).unwrap(), b"rlib");
        assert_eq!(std::fs::metadata(&copy).unwrap().modified().unwrap(), old);
        assert!(!root.join("ctx/.target-seed").exists());
        // Only once, never over a build directory's own outputs, never onto itself.
        assert!(!seed(&root, &seed_dir));
        assert!(!seed(&seed_dir, &seed_dir));
        assert!(!seed(&base.join("other"), &base.join("missing")));
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn warm_siblings_are_found_newest_first() {
        let base = std::env::temp_dir().join(format!("cuprite-warm-test-{}", std::process::id()));
        let key = warm_key();
        let make = |name: &str, marker: Option<&str>| {
            let d = base.join(name);
            std::fs::create_dir_all(d.join("ctx/target")).unwrap();
            if let Some(m) = marker {
                std::fs::write(d.join(WARM_MARKER), m).unwrap();
            }
            d
        };
        let old = make("old", Some(&key));
        let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        std::fs::File::options()
            .write(true)
            .open(old.join(WARM_MARKER))
            .unwrap()
            .set_modified(t)
            .unwrap();
        let new = make("new", None);
        mark_warm(&new);
        make("cold", None);
        make("other-toolchain", Some("cuprite-kernel 0.0.0 ..."));
        // Warmed by other embedded crates: after every exact match.
        let (_, tail) = key.split_once('\n').unwrap();
        let older_crates = make(
            "older-crates",
            Some(&format!("cuprite-kernel 0.0.9 sources 1\n{tail}")),
        );
        let me = make("me", Some(&key));
        assert_eq!(
            warm_siblings(&base, &me, &key),
            vec![new, old, older_crates]
        );
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn seeding_copies_everything_but_incremental_caches() {
        // Not the folder of `new_build_dirs_start_from_the_seed`: tests run at once.
        let base =
            std::env::temp_dir().join(format!("cuprite-seed-incr-test-{}", std::process::id()));
        let deps = base.join("warm/ctx/target/x86_64-unknown-linux-gnu/debug/deps");
        let inc = base.join("warm/ctx/target/x86_64-unknown-linux-gnu/debug/incremental/c-1");
        std::fs::create_dir_all(&deps).unwrap();
        std::fs::create_dir_all(&inc).unwrap();
        std::fs::write(deps.join("libx.rlib"), b"x").unwrap();
        std::fs::write(inc.join("query-cache.bin"), b"q").unwrap();
        let records = base
            .join("warm/ctx/target")
            .join(crate::cell_build::RECORDS_DIR);
        std::fs::create_dir_all(&records).unwrap();
        std::fs::create_dir_all(base.join("new/ctx")).unwrap();
        assert!(seed(&base.join("new"), &base.join("warm")));
        let copied = base.join("new/ctx/target/x86_64-unknown-linux-gnu/debug");
        assert_eq!(std::fs::read(copied.join("deps/libx.rlib")).unwrap(), b"x");
        assert!(!copied.join("incremental").exists());
        assert!(!base
            .join("new/ctx/target")
            .join(crate::cell_build::RECORDS_DIR)
            .exists());
        // A second seed does not overwrite a folder that has its own target.
        assert!(!seed(&base.join("new"), &base.join("warm")));
        remove_incremental(&base.join("warm"), 5);
        assert!(!inc.exists());
        assert!(deps.join("libx.rlib").exists());
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn second_kernel_gets_a_sibling() {
        let base =
            std::env::temp_dir().join(format!("cuprite-builddir-test-{}", std::process::id()));
        let a = acquire(&base, "/x/nb.ipynb").unwrap();
        let b = acquire(&base, "/x/nb.ipynb").unwrap();
        assert_ne!(a.root, b.root);
        assert!(a.root.join(".cargo/config.toml").is_file());
        assert!(a.ctx().is_dir());
        let root = a.root.clone();
        drop(a);
        // Another test thread forking a child can hold a duplicate of the
        // lock's descriptor for the instant before the child's exec closes
        // it; a freed directory is taken again once that instant is over.
        let mut c = acquire(&base, "/x/nb.ipynb").unwrap();
        for _ in 0..100 {
            if c.root == root {
                break;
            }
            drop(c);
            std::thread::sleep(std::time::Duration::from_millis(20));
            c = acquire(&base, "/x/nb.ipynb").unwrap();
        }
        assert_eq!(c.root, root);
        drop((b, c));
        std::fs::remove_dir_all(&base).unwrap();
    }
}

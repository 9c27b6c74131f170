//! The crates cells link, carried inside the binary and unpacked into the
//! kernel's data directory on first use (no source checkout needed).

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// The directory holding `cuprite/`, `cuprite-display/`, `cuprite-kernel-io/` and `cuprite-cells/`
/// for this build of the kernel, unpacked if it is not there yet.
pub fn unpacked() -> Result<PathBuf> {
    let d = dir();
    if std::env::var_os("CUPRITE_KERNEL_SOURCES").is_some() || d.join(".complete").is_file() {
        return Ok(d);
    }
    write_to(&d)?;
    Ok(d)
}

/// Where the crates are (or will be unpacked): `CUPRITE_KERNEL_SOURCES` (for
/// development: crates in place), else the prebuilt cache's copy (its
/// compiled code was built from those paths), else the data directory.
pub fn dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CUPRITE_KERNEL_SOURCES") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = crate::prewarm::prebuilt_sources().filter(|d| d.join(".complete").is_file())
    {
        return dir;
    }
    crate::paths::data_dir()
        .join("crates")
        .join(format!("{}-{SOURCES_HASH}", env!("CARGO_PKG_VERSION")))
}

/// Writes the embedded crates into `dir` (atomically: a temporary folder
/// renamed into place, marked complete).
pub fn write_to(dir: &Path) -> Result<()> {
    let root = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(root).with_context(|| format!("cannot create {}", root.display()))?;
    let tmp = root.join(format!(".unpack-{}-{}", std::process::id(), SOURCES_HASH));
    let _ = std::fs::remove_dir_all(&tmp);
    write_all(&tmp)?;
    std::fs::write(tmp.join(".complete"), SOURCES_HASH)?;
    match std::fs::rename(&tmp, dir) {
        Ok(()) => {}
        // Another kernel unpacked the same sources first.
        Err(_) if dir.join(".complete").is_file() => {
            let _ = std::fs::remove_dir_all(&tmp);
        }
        Err(e) => return Err(e).with_context(|| format!("cannot create {}", dir.display())),
    }
    Ok(())
}

fn write_all(dir: &Path) -> Result<()> {
    for (rel, bytes) in CRATE_SOURCES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_crates_are_standalone() {
        let names: Vec<&str> = CRATE_SOURCES.iter().map(|(p, _)| *p).collect();
        for krate in [
            "cuprite",
            "cuprite-jit-macros",
            "cuprite-display",
            "cuprite-kernel-io",
            "cuprite-cells",
        ] {
            assert!(
                names.contains(&format!("{krate}/Cargo.toml").as_str()),
                "{krate}"
            );
            assert!(
                names.contains(&format!("{krate}/src/lib.rs").as_str()),
                "{krate}"
            );
        }
        for (path, bytes) in CRATE_SOURCES {
            if path.ends_with("Cargo.toml") {
                let text = std::str::from_utf8(bytes).unwrap();
                assert!(!text.contains("workspace"), "{path} still inherits: {text}");
            }
            assert!(!path.contains("/tests/"), "{path}");
            // The nested crate is embedded once, on its own.
            assert!(!path.starts_with("cuprite/jit-macros/"), "{path}");
        }
        let display = CRATE_SOURCES
            .iter()
            .find(|(p, _)| *p == "cuprite-display/Cargo.toml")
            .unwrap();
        assert!(std::str::from_utf8(display.1)
            .unwrap()
            .contains("../cuprite"));
        assert!(!CARGO_LOCK.is_empty());
    }

    #[test]
    fn unpacks_once() {
        let tmp = std::env::temp_dir().join(format!("cuprite-sources-test-{}", std::process::id()));
        write_all(&tmp).unwrap();
        assert!(tmp.join("cuprite/src/lib.rs").is_file());
        assert!(tmp.join("cuprite-kernel-io/src/wire.rs").is_file());
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}

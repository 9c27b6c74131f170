//! Golden files: `check_golden(name, text)` compares with `tests/golden/<name>`;
//! run with `UPDATE_GOLDEN=1` to (re)write them, then review the diff by eye.

#![allow(dead_code)]

use std::path::PathBuf;

/// The folder of the golden files.
pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

/// True when golden files are being regenerated.
pub fn updating() -> bool {
    std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1")
}

/// Asserts that `actual` equals the golden file `name` (or writes it when updating).
pub fn check_golden(name: &str, actual: &str) {
    let path = golden_dir().join(name);
    if updating() {
        std::fs::create_dir_all(golden_dir()).expect("create tests/golden");
        std::fs::write(&path, actual).expect("write a golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "golden file {} is missing; run `UPDATE_GOLDEN=1 cargo test -p cuprite-display` and review it",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from its golden file at line {}:\n--- expected\n{}\n--- actual\n{}\n\
             (if the change is intended: UPDATE_GOLDEN=1 cargo test -p cuprite-display)",
            line + 1,
            expected.lines().nth(line).unwrap_or("<end>"),
            actual.lines().nth(line).unwrap_or("<end>")
        );
    }
}

/// How many times `needle` occurs in `hay`.
pub fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

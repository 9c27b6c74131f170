//! The table covers the public API: every public function of the runtime
//! has a row, or a line in `not_fuzzed.txt` saying why not.
//!
//! The public functions are read from the source, which is cheap and needs
//! neither rustdoc nor nightly: each `pub fn` item under `src/api`,
//! `src/core` and `src/backend` (the layers `lib.rs` re-exports), plus the
//! functions the ufunc and reduction tables generate (`src/ops/ufunc.rs`,
//! `src/ops/reduce.rs`), which have no `pub fn` line of their own. Names
//! are compared without their module, so `cp::fft::fft` and `cp::fft` are
//! one name; a row's name may carry a note in parentheses (`"take(fn)"`) or
//! a receiver (`"add.reduce"`), which are dropped.

use std::collections::BTreeSet;
use std::path::Path;

fn src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `pub fn name` items (not `pub(crate)`), outside `#[cfg(test)]` modules
/// (those start a file's tail by the house style, so reading stops there).
fn pub_fns(text: &str, out: &mut BTreeSet<String>) {
    for line in text.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let t = line.trim_start();
        let rest = t
            .strip_prefix("pub fn ")
            .or_else(|| t.strip_prefix("pub const fn "))
            .or_else(|| t.strip_prefix("pub unsafe fn "));
        if let Some(rest) = rest {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
}

/// The names a table macro's rows generate: `name name_out Variant:` rows
/// in ufunc.rs, `api: [name name_out]` in reduce.rs.
fn table_fns(out: &mut BTreeSet<String>) {
    let ufunc = std::fs::read_to_string(src().join("ops/ufunc.rs")).unwrap();
    for line in ufunc.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [name, name_out, var, ..] = words[..] {
            if *name_out == format!("{name}_out") && var.ends_with(':') {
                out.insert(name.to_string());
                out.insert(name_out.to_string());
            }
        }
    }
    let reduce = std::fs::read_to_string(src().join("ops/reduce.rs")).unwrap();
    for part in reduce.split("api: [").skip(1) {
        let inside = part.split(']').next().unwrap_or("");
        out.extend(
            inside
                .split_whitespace()
                .filter(|w| w.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .map(str::to_string),
        );
    }
}

/// Every public function's name, as the coverage check sees it.
pub fn public_functions() -> BTreeSet<String> {
    let mut files = Vec::new();
    for dir in ["api", "core", "backend"] {
        rust_files(&src().join(dir), &mut files);
    }
    let mut names = BTreeSet::new();
    for f in files {
        pub_fns(&std::fs::read_to_string(&f).unwrap(), &mut names);
    }
    table_fns(&mut names);
    names
}

/// The function a row's name stands for: `"add.reduce"` -> `reduce`,
/// `"take(fn)"` -> `take`.
fn row_function(row: &str) -> String {
    let base = row.split('(').next().unwrap_or(row);
    base.rsplit('.').next().unwrap_or(base).to_string()
}

/// Names and reasons from `not_fuzzed.txt` (`name: reason` lines).
fn not_fuzzed() -> Vec<(String, String)> {
    include_str!("not_fuzzed.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (n, r) = l.split_once(':').unwrap_or((l, ""));
            (n.trim().to_string(), r.trim().to_string())
        })
        .collect()
}

fn table_functions() -> BTreeSet<String> {
    use super::*;
    let all = [
        ufuncs::unary(),
        ufuncs::binary(),
        ufuncs::methods(),
        arrays::methods(),
        arrays::shape_functions(),
        arrays::creation(),
        reductions::reductions(),
        reductions::sorting(),
        linalg_fft::linalg(),
        linalg_fft::fft(),
        extras::creation_and_elementwise(),
        extras::reductions_and_indexing(),
        signal::signal(),
        signal_design::design(),
        ndimage::ndimage(),
        sparse::matrices(),
        sparse::linalg(),
        stats::stats(),
        interpolate::interpolate(),
        random::random(),
    ];
    all.iter().flatten().map(|r| row_function(r.name)).collect()
}

#[test]
fn every_public_function_has_a_row_or_a_reason() {
    let public = public_functions();
    let rows = table_functions();
    let listed = not_fuzzed();
    let missing: Vec<&String> = public
        .iter()
        .filter(|n| !rows.contains(*n) && !listed.iter().any(|(l, _)| l == *n))
        .collect();
    assert!(
        missing.is_empty(),
        "public functions with no fuzz row and no line in fuzz_api/not_fuzzed.txt \
         (add a row, or a `name: reason` line):\n{}",
        missing
            .iter()
            .map(|n| format!("{n}: "))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let unreasoned: Vec<&String> = listed
        .iter()
        .filter(|(_, r)| r.is_empty())
        .map(|(n, _)| n)
        .collect();
    assert!(
        unreasoned.is_empty(),
        "not_fuzzed.txt lines without a reason: {unreasoned:?}"
    );
    // A stale line (the function is gone, or now has a row) is removed.
    let stale: Vec<&String> = listed
        .iter()
        .map(|(n, _)| n)
        .filter(|n| !public.contains(*n) || rows.contains(*n))
        .collect();
    assert!(
        stale.is_empty(),
        "not_fuzzed.txt lines to remove: {stale:?}"
    );
}

//! The runtime's layers, checked: arrows point down only.
//!
//! ```text
//! api      what users call            may use backend, ops, core
//! backend  on(), probe, transfers     may use cpu, cuda, ops, core
//! cpu/cuda the backends               may use backend, ops, core (each its own)
//! ops      the tables, family traits  may use core
//! core     arrays, dtypes, layouts    uses nothing above it
//! ```
//!
//! This test reads every `crate::` path of `runtime/src` outside comments,
//! strings and `#[cfg(test)]` items (tests may build arrays through the
//! public API): `use` lines, grouped `use crate::{a::b, c}` and paths
//! written inline. A path into a layer the file's layer may not use fails,
//! as does a backend naming `core::array` (backends take views, never an
//! `Array`, so they cannot call its dispatching methods). The few allowed
//! exceptions are listed in [`EXCEPTIONS`] with their reason; an exception
//! no file needs any more fails too, so the list only shrinks.

use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    Core,
    Ops,
    Backend,
    Cpu,
    Cuda,
    Api,
    /// `lib.rs`: the re-exports, which may name anything.
    Root,
    /// Crates and macros re-exported at the root (`crate::half`, `with_dtype!`).
    External,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Layer::Core => "core/",
            Layer::Ops => "ops/",
            Layer::Backend => "backend/",
            Layer::Cpu => "cpu/",
            Layer::Cuda => "cuda/",
            Layer::Api => "api/",
            Layer::Root => "lib.rs",
            Layer::External => "an external crate",
        };
        f.write_str(name)
    }
}

/// The layers a file of `from` may name.
fn allowed(from: Layer) -> &'static [Layer] {
    use Layer::*;
    match from {
        Core => &[Core],
        Ops => &[Core, Ops],
        Backend => &[Core, Ops, Backend, Cpu, Cuda],
        Cpu => &[Core, Ops, Backend, Cpu],
        Cuda => &[Core, Ops, Backend, Cuda],
        Api => &[Core, Ops, Backend, Api],
        Root | External => &[Core, Ops, Backend, Cpu, Cuda, Api, Root],
    }
}

/// Imports that break the rules for now: (file or folder under `src/`, path
/// prefix after `crate::`, why). Keep this short; fix rather than add.
const EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "api/kernels/",
        "cuda::",
        "user kernels are CUDA C++ by definition: compiled and launched on a device, no CPU half",
    ),
    (
        "api/jit/",
        "cuda::",
        "jit kernels launch on a CUDA stream as RawKernel does (the stream type is CUDA's)",
    ),
    (
        "api/nccl/",
        "cuda::",
        "NCCL communicators own CUDA contexts and streams; collectives have no CPU backend",
    ),
    (
        "api/interop/",
        "cuda::",
        "cudarc slices, DLPack and __cuda_array_interface__ hand raw device memory and streams across",
    ),
    (
        "api/profiler.rs",
        "cuda::",
        "device time is CUDA events on the current stream",
    ),
    (
        "api/fuse.rs",
        "cuda::",
        "cp::fuse compiles its expression into one CUDA kernel (no backend trait for fusion yet)",
    ),
    (
        "cuda/runtime/host_buffer.rs",
        "core::array",
        "copy_to_device_async returns the Array it fills from a pinned buffer (no dispatch)",
    ),
];

fn layer_of_file(rel: &str) -> Layer {
    match rel.split('/').next() {
        Some("core") => Layer::Core,
        Some("ops") => Layer::Ops,
        Some("backend") => Layer::Backend,
        Some("cpu") => Layer::Cpu,
        Some("cuda") => Layer::Cuda,
        Some("api") => Layer::Api,
        Some("lib.rs") => Layer::Root,
        other => panic!("runtime/src/{rel}: {other:?} is no layer; add it to tests/api/layers.rs"),
    }
}

/// The layer a `crate::` path points into.
fn layer_of_path(path: &[String]) -> Layer {
    match path.first().map(String::as_str) {
        Some("core") => Layer::Core,
        Some("ops") => Layer::Ops,
        Some("backend") => Layer::Backend,
        Some("cpu") => Layer::Cpu,
        Some("cuda") => Layer::Cuda,
        Some("api") => Layer::Api,
        Some("half" | "num_complex" | "ndarray" | "cudarc" | "with_dtype") => Layer::External,
        // Root re-exports of core items.
        Some(
            "dtype" | "layout" | "interrupt" | "Array" | "DType" | "Error" | "Result" | "Element"
            | "Scalar" | "Layout" | "Order" | "Casting" | "Kind" | "Device",
        ) => Layer::Core,
        // `cp::device` also re-exports the probe.
        Some("device") => Layer::Backend,
        // Every other root name is a public function or type of the api.
        _ => Layer::Api,
    }
}

/// `text` with comments, string and character literals blanked out (line
/// breaks kept, so positions keep their line numbers).
fn strip(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !ident_char(b.get(i.wrapping_sub(1)))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                match b.get(j) {
                    None => break,
                    Some('"') if (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) => {
                        j += 1 + hashes;
                        break;
                    }
                    Some(&x) => {
                        blank(&mut out, x);
                        j += 1;
                    }
                }
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                if let Some(&x) = b.get(i) {
                    blank(&mut out, x);
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' && (b.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal ('x', '\n', '\u{..}'); lifetimes stay.
            i += 1;
            while i < b.len() && b[i] != '\'' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_char(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// `code` without its `#[cfg(test)]` items (a module, function or `use`).
fn without_tests(code: &str) -> String {
    let mut out = code.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let rest = &out[at..];
        let end = match (rest.find('{'), rest.find(';')) {
            (Some(brace), semi) if semi.is_none_or(|s| brace < s) => {
                let mut depth = 0;
                let mut end = rest.len();
                for (k, ch) in rest[brace..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = brace + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (_, Some(semi)) => semi + 1,
            _ => rest.len(),
        };
        let kept_lines = rest[..end].matches('\n').count();
        out.replace_range(at..at + end, &"\n".repeat(kept_lines));
    }
    out
}

/// Every `crate::` path in `code`, with its line number; groups
/// (`crate::{a::b, c::{d, e}}`) expand to one path each.
fn crate_paths(code: &str) -> Vec<(usize, Vec<String>)> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 7 <= chars.len() {
        let is_crate = chars[i..i + 7].iter().collect::<String>() == "crate::"
            && !ident_char(chars.get(i.wrapping_sub(1)))
            && chars.get(i.wrapping_sub(1)) != Some(&'$');
        if is_crate {
            let line = chars[..i].iter().filter(|&&c| c == '\n').count() + 1;
            let mut at = i + 7;
            for p in parse_tree(&chars, &mut at, Vec::new()) {
                found.push((line, p));
            }
            i = at.max(i + 7);
        } else {
            i += 1;
        }
    }
    found
}

/// Parses a path (or group) at `at`, after `prefix`.
fn parse_tree(chars: &[char], at: &mut usize, prefix: Vec<String>) -> Vec<Vec<String>> {
    let skip_ws = |at: &mut usize| {
        while chars.get(*at).is_some_and(|c| c.is_whitespace()) {
            *at += 1;
        }
    };
    let mut path = prefix;
    loop {
        skip_ws(at);
        if chars.get(*at) == Some(&'{') {
            *at += 1;
            let mut all = Vec::new();
            loop {
                skip_ws(at);
                match chars.get(*at) {
                    Some('}') => {
                        *at += 1;
                        break;
                    }
                    Some(',') => *at += 1,
                    None => break,
                    _ => {
                        let before = *at;
                        all.extend(parse_tree(chars, at, path.clone()));
                        // Skip `as alias` and anything else up to `,` or `}`.
                        while chars.get(*at).is_some_and(|c| *c != ',' && *c != '}') {
                            *at += 1;
                        }
                        if *at == before {
                            *at += 1;
                        }
                    }
                }
            }
            return all;
        }
        let start = *at;
        while ident_char(chars.get(*at)) || chars.get(*at) == Some(&'*') {
            *at += 1;
        }
        let seg: String = chars[start..*at].iter().collect();
        if !seg.is_empty() && seg != "self" {
            path.push(seg);
        }
        if chars.get(*at) == Some(&':') && chars.get(*at + 1) == Some(&':') {
            *at += 2;
        } else {
            return vec![path];
        }
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("runtime/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn arrows_point_down_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut bad = Vec::new();
    let mut used = vec![false; EXCEPTIONS.len()];
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let from = layer_of_file(&rel);
        let text = std::fs::read_to_string(file).expect("a source file is readable");
        let code = without_tests(&strip(&text));
        for (line, path) in crate_paths(&code) {
            let to = layer_of_path(&path);
            let joined = path.join("::");
            let names_array = matches!(from, Layer::Cpu | Layer::Cuda)
                && (joined.starts_with("core::array") || joined == "Array");
            let upward = to != Layer::External && !allowed(from).contains(&to);
            if !upward && !names_array {
                continue;
            }
            let excused = EXCEPTIONS.iter().position(|(f, p, _)| {
                (rel == *f || (f.ends_with('/') && rel.starts_with(f))) && joined.starts_with(p)
            });
            match excused {
                Some(k) => used[k] = true,
                None if names_array => bad.push(format!(
                    "src/{rel}:{line}: crate::{joined}: a backend takes views, never an Array"
                )),
                None => bad.push(format!(
                    "src/{rel}:{line}: crate::{joined}: {from} may not use {to}"
                )),
            }
        }
    }
    for (k, (f, p, why)) in EXCEPTIONS.iter().enumerate() {
        if !used[k] {
            bad.push(format!(
                "exception ({f}, {p}) is no longer needed ({why}): remove it"
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "imports against the layers (runtime/README.md, \"Layers\"):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_parser_sees_groups_and_skips_comments_and_tests() {
    let code = without_tests(&strip(
        "use crate::{core::array::Array, ops::{ufunc, reduce::Op as R}};\n\
         // crate::api::hidden\n\
         let s = \"crate::api::in_a_string\";\n\
         let c = '\"'; let x = crate::cuda::runtime::session::session(0);\n\
         #[cfg(test)]\nmod tests { use crate::api::sum; }\n",
    ));
    let paths: Vec<String> = crate_paths(&code)
        .into_iter()
        .map(|(_, p)| p.join("::"))
        .collect();
    assert_eq!(
        paths,
        [
            "core::array::Array",
            "ops::ufunc",
            "ops::reduce::Op",
            "cuda::runtime::session::session"
        ]
    );
}

//! Embeds the sources of the crates every notebook cell links (`cuprite`,
//! `cuprite-display`, `cuprite-kernel-io`, `cuprite-jit-macros` (the proc
//! macros of `cp::jit`), and `cuprite-cells`, the shared
//! library that holds them) into the kernel binary, with
//! manifests made standalone (workspace inheritance resolved, path
//! dependencies pointing at each other), so that an installed kernel needs no
//! source checkout: it unpacks them into its data directory on first use.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// (directory in the workspace, package name): the crates cells link.
const CRATES: &[(&str, &str)] = &[
    ("runtime", "cuprite"),
    ("runtime/jit-macros", "cuprite-jit-macros"),
    ("display", "cuprite-display"),
    ("kernel/io", "cuprite-kernel-io"),
    ("kernel/cells", "cuprite-cells"),
];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.parent().unwrap().to_path_buf();
    let ws_text = read(&root.join("Cargo.toml"));
    let ws: Table = toml::from_str(&ws_text).expect("workspace Cargo.toml parses");
    let ws = ws
        .get("workspace")
        .and_then(Value::as_table)
        .cloned()
        .unwrap_or_default();

    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (dir, name) in CRATES {
        let crate_dir = root.join(dir);
        println!("cargo:rerun-if-changed={}", crate_dir.display());
        let manifest = read(&crate_dir.join("Cargo.toml"));
        let standalone = standalone_manifest(&manifest, &ws, &root, &crate_dir);
        files.push((format!("{name}/Cargo.toml"), standalone.into_bytes()));
        collect(&crate_dir, &crate_dir, name, &mut files);
    }
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.toml").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.lock").display()
    );
    files.sort();

    let lock = std::fs::read(root.join("Cargo.lock")).unwrap_or_default();
    let mut hash = Fnv::new();
    for (path, bytes) in &files {
        hash.write(path.as_bytes());
        hash.write(&[0]);
        hash.write(bytes);
        hash.write(&[0]);
    }

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let mut code = String::new();
    code.push_str("/// Sources of the crates cells link: (relative path, contents).\n");
    code.push_str("pub const CRATE_SOURCES: &[(&str, &[u8])] = &[\n");
    for (i, (path, bytes)) in files.iter().enumerate() {
        let blob = out_dir.join(format!("embedded-{i}"));
        std::fs::write(&blob, bytes).unwrap();
        writeln!(
            code,
            "    ({path:?}, include_bytes!({:?})),",
            blob.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let lock_path = out_dir.join("embedded-Cargo.lock");
    std::fs::write(&lock_path, &lock).unwrap();
    writeln!(
        code,
        "/// The workspace's Cargo.lock, to pin the versions cells build with."
    )
    .unwrap();
    writeln!(
        code,
        "pub const CARGO_LOCK: &[u8] = include_bytes!({:?});",
        lock_path.display().to_string()
    )
    .unwrap();
    writeln!(code, "/// A hash of CRATE_SOURCES.").unwrap();
    writeln!(
        code,
        "pub const SOURCES_HASH: &str = \"{:016x}\";",
        hash.finish()
    )
    .unwrap();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc_version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    writeln!(code, "/// The rustc that built the kernel.").unwrap();
    writeln!(code, "pub const BUILD_RUSTC: &str = {rustc_version:?};").unwrap();
    writeln!(code, "/// The evcxr version in Cargo.lock.").unwrap();
    writeln!(
        code,
        "pub const EVCXR_VERSION: &str = {:?};",
        lock_version(&lock, "evcxr")
    )
    .unwrap();
    std::fs::write(out_dir.join("embedded.rs"), code).unwrap();
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every file of a crate except tests, benches, examples, build outputs and hidden files.
fn collect(base: &Path, dir: &Path, name: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let file_name = entry.file_name().to_string_lossy().to_string();
        let rel = path.strip_prefix(base).unwrap();
        if file_name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            if dir == base
                && ["tests", "benches", "examples", "target"].contains(&file_name.as_str())
            {
                continue;
            }
            // A crate inside another (runtime/jit-macros) is embedded on its own.
            if path.join("Cargo.toml").exists() {
                continue;
            }
            collect(base, &path, name, out);
        } else if rel != Path::new("Cargo.toml") {
            let rel = rel.to_string_lossy().replace('\\', "/");
            out.push((format!("{name}/{rel}"), std::fs::read(&path).unwrap()));
        }
    }
}

/// The manifest with workspace inheritance resolved and without dev-only parts.
fn standalone_manifest(text: &str, ws: &Table, root: &Path, crate_dir: &Path) -> String {
    let mut m: Table = toml::from_str(text).expect("crate Cargo.toml parses");
    let ws_package = ws
        .get("package")
        .and_then(Value::as_table)
        .cloned()
        .unwrap_or_default();
    let ws_deps = ws
        .get("dependencies")
        .and_then(Value::as_table)
        .cloned()
        .unwrap_or_default();

    if let Some(Value::Table(package)) = m.get_mut("package") {
        let keys: Vec<String> = package.keys().cloned().collect();
        for key in keys {
            if is_inherited(&package[&key]) {
                match ws_package.get(&key) {
                    Some(v) => {
                        package.insert(key, v.clone());
                    }
                    None => {
                        package.remove(&key);
                    }
                }
            }
        }
        package.insert("publish".into(), Value::Boolean(false));
    }
    for key in [
        "dev-dependencies",
        "lints",
        "test",
        "bench",
        "example",
        "workspace",
    ] {
        m.remove(key);
    }
    for key in ["dependencies", "build-dependencies"] {
        if let Some(Value::Table(deps)) = m.get_mut(key) {
            resolve_deps(deps, &ws_deps, root, crate_dir);
        }
    }
    if let Some(Value::Table(targets)) = m.get_mut("target") {
        for (_, t) in targets.iter_mut() {
            if let Value::Table(t) = t {
                t.remove("dev-dependencies");
                for key in ["dependencies", "build-dependencies"] {
                    if let Some(Value::Table(deps)) = t.get_mut(key) {
                        resolve_deps(deps, &ws_deps, root, crate_dir);
                    }
                }
            }
        }
    }
    toml::to_string(&m).unwrap()
}

fn is_inherited(v: &Value) -> bool {
    v.as_table()
        .and_then(|t| t.get("workspace"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn resolve_deps(deps: &mut Table, ws_deps: &Table, root: &Path, crate_dir: &Path) {
    let names: Vec<String> = deps.keys().cloned().collect();
    for name in names {
        let local = deps[&name].clone();
        let mut resolved: Table;
        let base_dir: &Path;
        if is_inherited(&local) {
            resolved = match ws_deps.get(&name) {
                Some(Value::String(v)) => {
                    let mut t = Table::new();
                    t.insert("version".into(), Value::String(v.clone()));
                    t
                }
                Some(Value::Table(t)) => t.clone(),
                _ => panic!("workspace dependency {name} not found"),
            };
            base_dir = root;
            let local = local.as_table().unwrap();
            for (k, v) in local {
                match k.as_str() {
                    "workspace" => {}
                    "features" => {
                        let mut f = resolved
                            .get("features")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default();
                        f.extend(v.as_array().cloned().unwrap_or_default());
                        resolved.insert("features".into(), Value::Array(f));
                    }
                    _ => {
                        resolved.insert(k.clone(), v.clone());
                    }
                }
            }
        } else {
            resolved = match local {
                Value::Table(t) => t,
                other => {
                    deps.insert(name, other);
                    continue;
                }
            };
            base_dir = crate_dir;
        }
        if let Some(Value::String(p)) = resolved.get("path").cloned() {
            let target = normalize(&base_dir.join(p));
            let dest = CRATES
                .iter()
                .find(|(dir, _)| normalize(&root.join(dir)) == target)
                .map(|(_, n)| *n)
                .unwrap_or_else(|| {
                    panic!("path dependency {name} is not one of the embedded crates")
                });
            resolved.insert("path".into(), Value::String(format!("../{dest}")));
        }
        deps.insert(name, Value::Table(resolved));
    }
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn lock_version(lock: &[u8], name: &str) -> String {
    let text = String::from_utf8_lossy(lock);
    let parsed: Table = toml::from_str(&text).unwrap_or_default();
    let mut found = BTreeMap::new();
    if let Some(Value::Array(pkgs)) = parsed.get("package") {
        for p in pkgs {
            if p.get("name").and_then(Value::as_str) == Some(name) {
                if let Some(v) = p.get("version").and_then(Value::as_str) {
                    found.insert(v.to_string(), ());
                }
            }
        }
    }
    found.keys().last().cloned().unwrap_or_default()
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust releases.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

//! `%save_vars` and `%load_vars`: a session's variables in one `.npz` file, so
//! that state outlives a kernel (an Open OnDemand session at its wall time, a
//! preempted job).
//!
//! Arrays are the archive's members (NumPy reads them as they are); the other
//! values of the types in [`value_json`] go into a manifest, stored in the same
//! archive as the `uint8` member [`MANIFEST`] (JSON: each array's device, each
//! value's type and value, what was left out and why). The archive is written
//! to a temporary file and renamed (`cp::savez`), so an interrupted save never
//! leaves a broken file. Floats are kept as their bits, so NaN and -0.0 come
//! back exactly. `%load_vars` is the kernel's: it reads the manifest and writes
//! one `let` per variable, with [`__load_array`] for the arrays.

use std::any::Any;

use crate::wire::json_string;

/// The member holding the manifest.
pub const MANIFEST: &str = "__cuprite_vars__";

/// Saves the arrays and the supported values among `vars` (name, type as
/// evcxr gives it, value) to `path`; prints what was saved and what was not.
#[doc(hidden)]
pub fn __save_vars(path: &str, vars: &[(&str, &str, &dyn Any)]) -> cuprite::Result<()> {
    let mut arrays: Vec<(&str, &cuprite::Array)> = Vec::new();
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    for (name, ty, value) in vars {
        if let Some(a) = value.downcast_ref::<cuprite::Array>() {
            arrays.push((name, a));
            entries.push(format!(
                "{}:{{\"kind\":\"array\",\"device\":{}}}",
                json_string(name),
                json_string(&a.device().to_string())
            ));
        } else if let Some((rust_type, json)) = value_json(*value) {
            entries.push(format!(
                "{}:{{\"kind\":\"value\",\"type\":{},\"value\":{json}}}",
                json_string(name),
                json_string(rust_type)
            ));
        } else {
            skipped.push(format!("{name} ({ty})"));
        }
    }
    let manifest = format!(
        "{{\"format\":1,\"variables\":{{{}}},\"skipped\":[{}]}}",
        entries.join(","),
        skipped
            .iter()
            .map(|s| json_string(s))
            .collect::<Vec<_>>()
            .join(",")
    );
    let manifest = cuprite::with_device(cuprite::Device::Cpu, || {
        cuprite::asarray(manifest.into_bytes())
    })?;
    let mut members = arrays.clone();
    members.push((MANIFEST, &manifest));
    cuprite::savez(path, &members)?;
    println!(
        "Saved {} variable{} to {path}{}",
        entries.len(),
        if entries.len() == 1 { "" } else { "s" },
        if skipped.is_empty() {
            String::new()
        } else {
            format!(
                "; not saved (neither an array nor a number, bool, String or Vec of them): {}",
                skipped.join(", ")
            )
        }
    );
    Ok(())
}

/// Loads the array `name` saved by [`__save_vars`]: onto `device` when given
/// (`cpu`, `cuda:N`), else onto the device it was saved from when this
/// machine has it, else onto the current device.
#[doc(hidden)]
pub fn __load_array(
    path: &str,
    name: &str,
    saved_on: &str,
    device: Option<&str>,
) -> cuprite::Result<cuprite::Array> {
    let target = match device.or(Some(saved_on)).and_then(parse_device) {
        Some(cuprite::Device::Cuda(n)) if device.is_none() && n >= cuprite::device_count() => None,
        other => other,
    };
    let options = cuprite::LoadOptions::default().device(target);
    cuprite::load_npz_member(path, name, &options)
}

fn parse_device(s: &str) -> Option<cuprite::Device> {
    match s {
        "cpu" => Some(cuprite::Device::Cpu),
        _ => s
            .strip_prefix("cuda:")?
            .parse()
            .ok()
            .map(cuprite::Device::Cuda),
    }
}

/// The Rust type and JSON of the values `%save_vars` keeps besides arrays:
/// numbers, `bool`, `String` and `Vec`s of them. Floats are their bits (as
/// a hex string), integers decimal strings (no JSON number loses them).
pub fn value_json(value: &dyn Any) -> Option<(&'static str, String)> {
    macro_rules! ints {
        ($($t:ty),*) => {$(
            if let Some(v) = value.downcast_ref::<$t>() {
                return Some((stringify!($t), json_string(&v.to_string())));
            }
            if let Some(v) = value.downcast_ref::<Vec<$t>>() {
                let items: Vec<String> = v.iter().map(|x| json_string(&x.to_string())).collect();
                return Some((concat!("Vec<", stringify!($t), ">"), format!("[{}]", items.join(","))));
            }
        )*};
    }
    macro_rules! floats {
        ($($t:ty),*) => {$(
            if let Some(v) = value.downcast_ref::<$t>() {
                return Some((stringify!($t), json_string(&format!("{:#x}", v.to_bits()))));
            }
            if let Some(v) = value.downcast_ref::<Vec<$t>>() {
                let items: Vec<String> =
                    v.iter().map(|x| json_string(&format!("{:#x}", x.to_bits()))).collect();
                return Some((concat!("Vec<", stringify!($t), ">"), format!("[{}]", items.join(","))));
            }
        )*};
    }
    ints!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);
    floats!(f32, f64);
    if let Some(v) = value.downcast_ref::<bool>() {
        return Some(("bool", v.to_string()));
    }
    if let Some(v) = value.downcast_ref::<Vec<bool>>() {
        let items: Vec<String> = v.iter().map(bool::to_string).collect();
        return Some(("Vec<bool>", format!("[{}]", items.join(","))));
    }
    if let Some(v) = value.downcast_ref::<String>() {
        return Some(("String", json_string(v)));
    }
    if let Some(v) = value.downcast_ref::<Vec<String>>() {
        let items: Vec<String> = v.iter().map(|s| json_string(s)).collect();
        return Some(("Vec<String>", format!("[{}]", items.join(","))));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_type_and_exact_bits() {
        assert_eq!(value_json(&5usize), Some(("usize", "\"5\"".into())));
        assert_eq!(
            value_json(&u64::MAX),
            Some(("u64", "\"18446744073709551615\"".into()))
        );
        assert_eq!(
            value_json(&-0.0f64),
            Some(("f64", "\"0x8000000000000000\"".into()))
        );
        assert_eq!(
            value_json(&vec![1.5f32]),
            Some(("Vec<f32>", "[\"0x3fc00000\"]".into()))
        );
        assert_eq!(
            value_json(&"a\"b".to_string()),
            Some(("String", "\"a\\\"b\"".into()))
        );
        assert_eq!(
            value_json(&vec![true]),
            Some(("Vec<bool>", "[true]".into()))
        );
        assert_eq!(value_json(&(1, 2)), None);
    }

    #[test]
    fn saves_arrays_and_values_in_one_archive() {
        let dir = std::env::temp_dir().join(format!("cuprite-vars-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("state.npz");
        let path = path.to_str().unwrap();
        let a = cuprite::arange(6).unwrap();
        let (n, pair) = (7i32, (1, 2));
        __save_vars(
            path,
            &[
                ("a", "Array", &a),
                ("n", "i32", &n),
                ("pair", "(i32, i32)", &pair),
            ],
        )
        .unwrap();
        let all = cuprite::load_npz(path).unwrap();
        assert_eq!(all.keys().collect::<Vec<_>>(), ["__cuprite_vars__", "a"]);
        let manifest = String::from_utf8(all[MANIFEST].to_vec::<u8>().unwrap()).unwrap();
        assert!(
            manifest.contains("\"a\":{\"kind\":\"array\",\"device\":\"cpu\"}"),
            "{manifest}"
        );
        assert!(
            manifest.contains("\"n\":{\"kind\":\"value\",\"type\":\"i32\",\"value\":\"7\"}"),
            "{manifest}"
        );
        assert!(
            manifest.contains("\"skipped\":[\"pair ((i32, i32))\"]"),
            "{manifest}"
        );
        let back = __load_array(path, "a", "cuda:7", None).unwrap();
        assert_eq!(back.to_vec::<i64>().unwrap(), vec![0, 1, 2, 3, 4, 5]);
        // Saved on a GPU this machine lacks: loaded onto the current device.
        assert_eq!(back.device(), cuprite::current_device());
        let e = __load_array(path, "missing", "cpu", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no array named \"missing\""), "{e}");
    }
}

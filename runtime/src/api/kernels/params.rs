//! CuPy's parameter lists (`"float32 x, raw T y"`) and the resolution of
//! type placeholders from the arguments of a call.

use std::collections::HashMap;

use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::{Error, Result};

/// The declared type of a parameter.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A concrete dtype (`float32`).
    DType(DType),
    /// A one-letter placeholder (`T`), resolved from the arguments.
    Placeholder(char),
}

/// One parameter of a user kernel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Param {
    /// The name the kernel code uses.
    pub name: String,
    /// The declared type.
    pub ty: ParamType,
    /// `raw`: the whole array is passed and indexed by the code, not one element.
    pub raw: bool,
}

/// Whether `s` is a C identifier.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f == '_' || f.is_ascii_alphabetic())
        && c.all(|ch| ch == '_' || ch.is_ascii_alphanumeric())
}

/// Names the generated code uses itself.
const RESERVED: [&str; 6] = ["i", "_ind", "_in_ind", "_out_ind", "_n", "_i"];

/// Parses a CuPy parameter list: comma-separated `[raw] TYPE NAME`, where
/// TYPE is a NumPy dtype name (`float32`, `int64`, `bool`, `complex64`, ...)
/// or a single letter (a type placeholder). `op` names the caller in errors.
pub fn parse_params(op: &'static str, text: &str) -> Result<Vec<Param>> {
    let bad = |detail: String| Error::InvalidArgument { op, detail };
    let mut out: Vec<Param> = Vec::new();
    if text.trim().is_empty() {
        return Ok(out);
    }
    for piece in text.split(',') {
        let toks: Vec<&str> = piece.split_whitespace().collect();
        if toks.len() < 2 {
            return Err(bad(format!(
                "parameter {:?} in {text:?} needs a type and a name (for example \"float32 x\" or \"raw T y\")",
                piece.trim()
            )));
        }
        let name = toks[toks.len() - 1];
        let ty = toks[toks.len() - 2];
        let mut raw = false;
        for m in &toks[..toks.len() - 2] {
            match *m {
                "raw" => raw = true,
                other => {
                    return Err(bad(format!(
                    "unknown keyword {other:?} in parameter {:?} (only `raw` may precede the type)",
                    piece.trim()
                )))
                }
            }
        }
        if !is_identifier(name) {
            return Err(bad(format!(
                "parameter name {name:?} is not a C identifier"
            )));
        }
        if RESERVED.contains(&name) || name.starts_with("_raw_") || name.starts_with("_cp_") {
            return Err(bad(format!(
                "parameter name {name:?} is reserved by the generated code (as are `i`, `_ind`, `_in_ind`, `_out_ind` and names starting with `_raw_` or `_cp_`)"
            )));
        }
        let ty = if ty.chars().count() == 1 && ty.chars().all(|c| c.is_ascii_alphabetic()) {
            ParamType::Placeholder(ty.chars().next().unwrap_or('T'))
        } else {
            match DType::ALL.iter().find(|d| d.name() == ty) {
                Some(d) => ParamType::DType(*d),
                None => {
                    return Err(bad(format!(
                        "unknown type {ty:?} for parameter `{name}`; use a dtype name ({}) or a one-letter type placeholder such as T",
                        DType::ALL.map(|d| d.name()).join(", ")
                    )))
                }
            }
        };
        if out.iter().any(|p| p.name == name) {
            return Err(bad(format!("parameter `{name}` is declared twice")));
        }
        out.push(Param {
            name: name.to_string(),
            ty,
            raw,
        });
    }
    Ok(out)
}

/// Checks that no name is used both as an input and an output.
pub(crate) fn check_unique(op: &'static str, ins: &[Param], outs: &[Param]) -> Result<()> {
    for o in outs {
        if ins.iter().any(|p| p.name == o.name) {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "parameter `{}` is both an input and an output; give the output another name",
                    o.name
                ),
            });
        }
    }
    Ok(())
}

/// What an argument contributes to type resolution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ArgType {
    /// An array of this dtype.
    Array(DType),
    /// A scalar value with its natural dtype.
    Scalar(Scalar, DType),
    /// Nothing given (an output to allocate).
    Missing,
}

/// Per-parameter dtypes and the placeholder bindings.
pub(crate) type Resolved = (Vec<DType>, Vec<(char, DType)>);

/// The dtype of every parameter (inputs then outputs) for these arguments,
/// and the placeholder bindings in order of first appearance.
pub(crate) fn resolve_types(
    op: &'static str,
    kernel: &str,
    params: &[&Param],
    args: &[ArgType],
    n_in: usize,
) -> Result<Resolved> {
    debug_assert_eq!(params.len(), args.len());
    let mut bound: HashMap<char, (DType, String)> = HashMap::new();
    let mut order: Vec<char> = Vec::new();
    let bad = |detail: String| Error::DType {
        op,
        detail: format!("kernel `{kernel}`: {detail}"),
    };
    // Arrays bind placeholders and must match raw or output dtypes exactly.
    for (k, (p, a)) in params.iter().zip(args).enumerate() {
        let is_out = k >= n_in;
        if let ArgType::Array(dt) = a {
            match &p.ty {
                ParamType::Placeholder(c) => {
                    if let Some((prev, from)) = bound.get(c) {
                        if prev != dt {
                            return Err(bad(format!(
                                "type placeholder {c} is {prev} (from `{from}`) but `{}` is a {dt} array",
                                p.name
                            )));
                        }
                    } else {
                        bound.insert(*c, (*dt, p.name.clone()));
                        order.push(*c);
                    }
                }
                ParamType::DType(want) => {
                    if (p.raw || is_out) && want != dt {
                        return Err(bad(format!(
                            "`{}` is declared {want}{} but the array given is {dt}; pass a {want} array (`.astype(cp::{})`)",
                            p.name,
                            if p.raw { " (raw)" } else { " (output)" },
                            short_name(*want)
                        )));
                    }
                }
            }
        }
    }
    // Scalars bind what arrays left open, by their natural dtype.
    let mut from_scalars: HashMap<char, Vec<DType>> = HashMap::new();
    for (p, a) in params.iter().zip(args) {
        if let (ArgType::Scalar(_, d), ParamType::Placeholder(c)) = (a, &p.ty) {
            if !bound.contains_key(c) {
                from_scalars.entry(*c).or_default().push(*d);
                if !order.contains(c) {
                    order.push(*c);
                }
            }
        }
    }
    for (c, ds) in from_scalars {
        let mut dt = ds[0];
        for d in &ds[1..] {
            dt = crate::core::dtype::promote_types(dt, *d);
        }
        bound.insert(c, (dt, "a scalar".into()));
    }
    let mut types = Vec::with_capacity(params.len());
    for (p, a) in params.iter().zip(args) {
        let dt = match &p.ty {
            ParamType::DType(d) => *d,
            ParamType::Placeholder(c) => match bound.get(c) {
                Some((d, _)) => *d,
                None => {
                    return Err(bad(format!(
                        "cannot determine the type placeholder {c} of `{}`{}: no argument of type {c} was given; pass an array for it or declare a concrete dtype",
                        p.name,
                        if *a == ArgType::Missing { " (an output to allocate)" } else { "" }
                    )))
                }
            },
        };
        types.push(dt);
    }
    let placeholders = order
        .into_iter()
        .filter_map(|c| bound.get(&c).map(|(d, _)| (c, *d)))
        .collect();
    Ok((types, placeholders))
}

/// The Rust-side short name of a dtype (`f32`), for hints in messages.
pub(crate) fn short_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool_",
        DType::Int8 => "i8",
        DType::Int16 => "i16",
        DType::Int32 => "i32",
        DType::Int64 => "i64",
        DType::UInt8 => "u8",
        DType::UInt16 => "u16",
        DType::UInt32 => "u32",
        DType::UInt64 => "u64",
        DType::Float16 => "f16",
        DType::BFloat16 => "bf16",
        DType::Float32 => "f32",
        DType::Float64 => "f64",
        DType::Complex64 => "c64",
        DType::Complex128 => "c128",
    }
}

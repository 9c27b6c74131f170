//! The C spelling of dtypes in generated kernels: type names, casts with
//! NumPy's semantics and constants. The tables' CUDA halves (`ufunc`,
//! `reduce`) and every generator of `cuda/` (and `fuse`) write C with these.

use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};

/// The C type that holds a dtype in kernels.
pub(crate) fn ctype(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::Int8 => "int8_t",
        DType::Int16 => "int16_t",
        DType::Int32 => "int32_t",
        DType::Int64 => "int64_t",
        DType::UInt8 => "uint8_t",
        DType::UInt16 => "uint16_t",
        DType::UInt32 => "uint32_t",
        DType::UInt64 => "uint64_t",
        DType::Float16 => "f16",
        DType::BFloat16 => "bf16",
        DType::Float32 => "float",
        DType::Float64 => "double",
        DType::Complex64 => "c64",
        DType::Complex128 => "c128",
    }
}

/// A C expression converting `x` of dtype `from` to dtype `to` with NumPy's
/// unsafe-cast semantics (bool is "non-zero"; complex to real keeps the real part).
pub(crate) fn cast_expr(from: DType, to: DType, x: &str) -> String {
    use DType::*;
    if from == to {
        return x.to_string();
    }
    let half = |d: DType| matches!(d, Float16 | BFloat16);
    match (from, to) {
        (Bool, _) if to.is_complex() => format!("mk<{}>({x} ? 1 : 0, 0)", real_c(to)),
        (Bool, Float16) => format!("make_f16({x} ? 1.0f : 0.0f)"),
        (Bool, BFloat16) => format!("make_bf16({x} ? 1.0f : 0.0f)"),
        (Bool, _) => format!("({})({x} ? 1 : 0)", ctype(to)),
        (_, Bool) if from.is_complex() => format!("({x}.re != 0 || {x}.im != 0)"),
        (_, Bool) if half(from) => format!("(to_float({x}) != 0.0f)"),
        (_, Bool) => format!("({x} != 0)"),
        (f, _) if half(f) => cast_expr(Float32, to, &format!("to_float({x})")),
        (_, Float16) if from.is_complex() => format!("make_f16((float){x}.re)"),
        (_, BFloat16) if from.is_complex() => format!("make_bf16((float){x}.re)"),
        (_, Float16) => format!("make_f16((float)({x}))"),
        (_, BFloat16) => format!("make_bf16((float)({x}))"),
        (f, t) if f.is_complex() && t.is_complex() => {
            format!("mk<{0}>(({0}){x}.re, ({0}){x}.im)", real_c(t))
        }
        (f, _) if f.is_complex() => cast_expr(f.real_dtype(), to, &format!("{x}.re")),
        (_, t) if t.is_complex() => format!("mk<{0}>(({0})({x}), ({0})0)", real_c(t)),
        // Floats become integers through int64, as NumPy does on x86-64
        // (out-of-range values wrap instead of saturating at the target).
        (f, UInt64) if f.is_float() => {
            format!("(({x}) < 0 ? (uint64_t)(long long)({x}) : (uint64_t)({x}))")
        }
        (f, t) if f.is_float() && t.is_integer() => format!("({})(long long)({x})", ctype(t)),
        _ => format!("({})({x})", ctype(to)),
    }
}

fn real_c(d: DType) -> &'static str {
    if d == DType::Complex64 {
        "float"
    } else {
        "double"
    }
}

/// A C expression for a constant of dtype `dt`.
pub(crate) fn scalar_literal(v: Scalar, dt: DType) -> String {
    crate::with_dtype!(dt, T => {
        let x = T::from_scalar(v).to_scalar();
        let c = x.as_c64();
        let f = |x: f64| {
            if x.is_nan() {
                "__longlong_as_double(0x7ff8000000000000LL)".to_string()
            } else if x.is_infinite() {
                if x > 0.0 { "__longlong_as_double(0x7ff0000000000000LL)".to_string() } else { "__longlong_as_double(0xfff0000000000000LL)".to_string() }
            } else {
                format!("{:e}", x)
            }
        };
        match dt {
            DType::Bool => if x.as_bool() { "true".into() } else { "false".into() },
            d if d.is_signed_integer() => format!("(({})({}LL))", ctype(d), x.as_i64()),
            d if d.is_unsigned_integer() => format!("(({})({}ULL))", ctype(d), x.as_u64()),
            DType::Float16 => format!("make_f16((float)({}))", f(c.re)),
            DType::BFloat16 => format!("make_bf16((float)({}))", f(c.re)),
            DType::Float32 => format!("((float)({}))", f(c.re)),
            DType::Float64 => format!("((double)({}))", f(c.re)),
            DType::Complex64 => format!("mk<float>((float)({}), (float)({}))", f(c.re), f(c.im)),
            _ => format!("mk<double>((double)({}), (double)({}))", f(c.re), f(c.im)),
        }
    })
}

//! Reduction kernels of the built-in reductions, with the result dtypes of
//! the CPU backend (NumPy's): sums of integers in 64 bits, means of integers
//! in float64, half floats accumulated in float32.

use super::reduce::ReduceSpec;
use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::ops::c_types::{cast_expr, ctype, scalar_literal};
use crate::ops::reduce::ReduceOp;

/// The GPU reduction `name` of an array of `dt`, when one exists.
pub(crate) fn spec(name: &str, dt: DType) -> Option<ReduceSpec> {
    let half = matches!(dt, DType::Float16 | DType::BFloat16);
    let wide = |d: DType| if half { DType::Float32 } else { d };
    let sum_dtype = crate::ops::reduce::sum_dtype(dt);
    let simple =
        |name: &'static str, acc: DType, result: DType, identity: Scalar, combine: &str| {
            ReduceSpec {
                name,
                compute: acc,
                map: "in0".into(),
                acc,
                identity: scalar_literal(identity, acc),
                combine: combine.into(),
                post: cast_expr(acc, result, "acc"),
                result,
                support: String::new(),
            }
        };
    Some(match name {
        "sum" => simple("sum", wide(sum_dtype), sum_dtype, Scalar::Int(0), "a + b"),
        "prod" => simple("prod", wide(sum_dtype), sum_dtype, Scalar::Int(1), "a * b"),
        "mean" => {
            let result = ReduceOp::Mean.result(dt);
            let acc = wide(result);
            let post = if acc.is_complex() {
                let r = ctype(acc.real_dtype());
                format!("mk<{r}>(acc.re / ({r})count, acc.im / ({r})count)")
            } else {
                format!("(acc / ({})count)", ctype(acc))
            };
            ReduceSpec {
                name: "mean",
                compute: acc,
                map: "in0".into(),
                acc,
                identity: scalar_literal(Scalar::Int(0), acc),
                combine: "a + b".into(),
                post: cast_expr(acc, result, &post),
                result,
                support: String::new(),
            }
        }
        "max" | "min" if !dt.is_complex() => {
            let acc = wide(dt);
            let max = name == "max";
            let better = if max { "b > a" } else { "b < a" };
            let combine = if acc.is_float() {
                // NaN wins, as in NumPy.
                format!("((a != a) ? a : ((b != b) ? b : ({better} ? b : a)))")
            } else {
                format!("({better} ? b : a)")
            };
            let identity = extreme_identity(acc, max);
            ReduceSpec {
                name: if max { "max" } else { "min" },
                compute: acc,
                map: "in0".into(),
                acc,
                identity,
                combine,
                post: cast_expr(acc, dt, "acc"),
                result: dt,
                support: String::new(),
            }
        }
        // The nan-forms of dtypes without NaN are the plain reductions.
        "nansum" | "nanprod" | "nanmin" | "nanmax" if !dt.is_inexact() => {
            return spec(&name[3..], dt);
        }
        "nansum" | "nanprod" => {
            // One pass: the map turns NaN into the identity.
            let prod = name == "nanprod";
            let (name, identity, combine) = if prod {
                ("nanprod", Scalar::Int(1), "a * b")
            } else {
                ("nansum", Scalar::Int(0), "a + b")
            };
            let acc = wide(sum_dtype);
            let id = scalar_literal(identity, acc);
            ReduceSpec {
                map: format!("((in0 != in0) ? {id} : in0)"),
                ..simple(name, acc, sum_dtype, identity, combine)
            }
        }
        "nanmax" | "nanmin" if !dt.is_complex() => {
            // NaN is the identity and loses to any number, so an all-NaN
            // slice gives NaN (NumPy's result; its RuntimeWarning dropped).
            let acc = wide(dt);
            let max = name == "nanmax";
            let better = if max { "b > a" } else { "b < a" };
            ReduceSpec {
                name: if max { "nanmax" } else { "nanmin" },
                compute: acc,
                map: "in0".into(),
                acc,
                identity: scalar_literal(Scalar::Float(f64::NAN), acc),
                combine: format!("((b != b) ? a : ((a != a) ? b : ({better} ? b : a)))"),
                post: cast_expr(acc, dt, "acc"),
                result: dt,
                support: String::new(),
            }
        }
        "all" | "any" => {
            let all = name == "all";
            ReduceSpec {
                name: if all { "all" } else { "any" },
                compute: DType::Bool,
                map: "in0".into(),
                acc: DType::Bool,
                identity: if all { "true".into() } else { "false".into() },
                combine: if all {
                    "(a && b)".into()
                } else {
                    "(a || b)".into()
                },
                post: "acc".into(),
                result: DType::Bool,
                support: String::new(),
            }
        }
        _ => return None,
    })
}

/// The identity of max (the lowest value) or min (the highest value).
fn extreme_identity(acc: DType, max: bool) -> String {
    use DType::*;
    match (acc, max) {
        (Float32, true) => "__int_as_float(0xff800000)".into(),
        (Float32, false) => "__int_as_float(0x7f800000)".into(),
        (Float64, true) => "__longlong_as_double(0xfff0000000000000LL)".into(),
        (Float64, false) => "__longlong_as_double(0x7ff0000000000000LL)".into(),
        (Bool, true) => "false".into(),
        (Bool, false) => "true".into(),
        (d, true) => scalar_literal(min_value(d), d),
        (d, false) => scalar_literal(max_value(d), d),
    }
}

fn min_value(d: DType) -> Scalar {
    match d {
        DType::Int8 => Scalar::Int(i8::MIN as i64),
        DType::Int16 => Scalar::Int(i16::MIN as i64),
        DType::Int32 => Scalar::Int(i32::MIN as i64),
        DType::Int64 => Scalar::Int(i64::MIN),
        _ => Scalar::UInt(0),
    }
}

fn max_value(d: DType) -> Scalar {
    match d {
        DType::Int8 => Scalar::Int(i8::MAX as i64),
        DType::Int16 => Scalar::Int(i16::MAX as i64),
        DType::Int32 => Scalar::Int(i32::MAX as i64),
        DType::Int64 => Scalar::Int(i64::MAX),
        DType::UInt8 => Scalar::UInt(u8::MAX as u64),
        DType::UInt16 => Scalar::UInt(u16::MAX as u64),
        DType::UInt32 => Scalar::UInt(u32::MAX as u64),
        _ => Scalar::UInt(u64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_dtypes_match_the_cpu_backend() {
        assert_eq!(spec("sum", DType::Int8).unwrap().result, DType::Int64);
        assert_eq!(spec("sum", DType::UInt16).unwrap().result, DType::UInt64);
        assert_eq!(spec("sum", DType::Float16).unwrap().acc, DType::Float32);
        assert_eq!(spec("sum", DType::Float16).unwrap().result, DType::Float16);
        assert_eq!(spec("mean", DType::Int32).unwrap().result, DType::Float64);
        assert_eq!(
            spec("max", DType::UInt8).unwrap().identity,
            "((uint8_t)(0ULL))"
        );
        assert_eq!(
            spec("min", DType::Int16).unwrap().identity,
            "((int16_t)(32767LL))"
        );
        assert!(spec("max", DType::Complex64).is_none());
        assert!(spec("var", DType::Float32).is_none());
    }

    #[test]
    fn result_dtypes_are_the_tables() {
        use ReduceOp::*;
        for dt in DType::ALL {
            for op in [
                Sum, Prod, Mean, Min, Max, All, Any, NanSum, NanProd, NanMin, NanMax,
            ] {
                let op = op.plain_for(dt);
                if let Some(s) = spec(op.name(), dt) {
                    assert_eq!(s.result, op.result(dt), "{} of {dt}", op.name());
                }
            }
        }
    }
}

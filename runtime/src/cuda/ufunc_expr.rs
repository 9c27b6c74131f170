//! C expressions of the built-in ufuncs for generated kernels, matching the
//! CPU backend's semantics (NumPy's): integer division by zero gives 0,
//! floor division and remainder follow Python's signs, maximum/minimum
//! propagate NaN, half floats compute in float32.

use crate::dtype::DType;

/// The expression of one ufunc for one loop dtype.
pub(crate) struct Expr {
    /// The dtype inputs are converted to before the expression sees them.
    pub compute: DType,
    /// C expression over `in0` (and `in1`).
    pub expr: String,
    /// The dtype of the expression's value.
    pub result: DType,
    /// Helper definitions the expression needs.
    pub support: &'static str,
}

/// The dtype a loop of `dt` computes in on the GPU.
fn compute_of(dt: DType) -> DType {
    match dt {
        DType::Float16 | DType::BFloat16 => DType::Float32,
        other => other,
    }
}

const INT_DIV: &str = r#"
template <class T> __device__ __forceinline__ T py_floordiv(T a, T b) {
  if (b == 0) return 0;
  if ((T)-1 < (T)0 && b == (T)-1) return (T)(0 - a);
  T q = a / b;
  return ((a % b != 0) && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <class T> __device__ __forceinline__ T py_mod(T a, T b) {
  if (b == 0) return 0;
  if ((T)-1 < (T)0 && b == (T)-1) return 0;
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
template <class T> __device__ __forceinline__ T int_pow(T b, T e) {
  if ((T)-1 < (T)0 && e < 0) return 0;
  T r = 1;
  unsigned long long k = (unsigned long long)e;
  while (k) { if (k & 1) r = (T)(r * b); b = (T)(b * b); k >>= 1; }
  return r;
}
template <class T> __device__ __forceinline__ T int_shl(T a, T b) {
  return ((unsigned long long)b < sizeof(T) * 8) ? (T)(a << b) : (T)0;
}
template <class T> __device__ __forceinline__ T int_shr(T a, T b) {
  if ((unsigned long long)b < sizeof(T) * 8) return (T)(a >> b);
  return ((T)-1 < (T)0 && a < 0) ? (T)-1 : (T)0;
}
"#;

const FLOAT_DIV: &str = r#"
template <class T> __device__ __forceinline__ T py_fmod(T a, T b) {
  if (b == T(0)) return fmod(a, b);
  T m = fmod(a, b);
  if (m != T(0)) { if ((b < T(0)) != (m < T(0))) m += b; }
  else { m = copysign(T(0), b); }
  return m;
}
template <class T> __device__ __forceinline__ T py_ffloordiv(T a, T b) {
  if (b == T(0)) return a / b;
  T m = fmod(a, b);
  T div = (a - m) / b;
  if (m != T(0) && ((b < T(0)) != (m < T(0)))) div -= T(1);
  T fl;
  if (div != T(0)) { fl = floor(div); if (div - fl > T(0.5)) fl += T(1); }
  else { fl = copysign(T(0), a / b); }
  return fl;
}
template <class T> __device__ __forceinline__ T nan_max(T a, T b) { return (a != a || a >= b) ? a : b; }
template <class T> __device__ __forceinline__ T nan_min(T a, T b) { return (a != a || a <= b) ? a : b; }
template <class T> __device__ __forceinline__ T f_sign(T x) { return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x); }
"#;

/// `op(in0, in1)` for a binary ufunc with loop dtype `dt`, when a GPU expression exists.
pub(crate) fn binary(op: &str, dt: DType) -> Option<Expr> {
    let c = compute_of(dt);
    let cmp = |sym: &str| Expr {
        compute: c,
        expr: format!("in0 {sym} in1"),
        result: DType::Bool,
        support: "",
    };
    let same = |e: String, support: &'static str| Expr {
        compute: c,
        expr: e,
        result: c,
        support,
    };
    let int = dt.is_integer();
    let float = dt.is_float();
    let cplx = dt.is_complex();
    let boolean = dt == DType::Bool;
    Some(match op {
        "add" if boolean => same("in0 || in1".into(), ""),
        "multiply" if boolean => same("in0 && in1".into(), ""),
        "add" => same(wrap(c, "in0 + in1"), ""),
        "subtract" if !boolean => same(wrap(c, "in0 - in1"), ""),
        "multiply" => same(wrap(c, "in0 * in1"), ""),
        "divide" if float || cplx => same("in0 / in1".into(), ""),
        "floor_divide" if int => same("py_floordiv(in0, in1)".into(), INT_DIV),
        "remainder" if int => same("py_mod(in0, in1)".into(), INT_DIV),
        "floor_divide" if float => same("py_ffloordiv(in0, in1)".into(), FLOAT_DIV),
        "remainder" if float => same("py_fmod(in0, in1)".into(), FLOAT_DIV),
        "power" if int => same("int_pow(in0, in1)".into(), INT_DIV),
        "power" if float => same("pow(in0, in1)".into(), ""),
        "maximum" if float => same("nan_max(in0, in1)".into(), FLOAT_DIV),
        "minimum" if float => same("nan_min(in0, in1)".into(), FLOAT_DIV),
        "fmax" if float => same("fmax(in0, in1)".into(), ""),
        "fmin" if float => same("fmin(in0, in1)".into(), ""),
        "maximum" | "fmax" if int || boolean => same("(in0 >= in1 ? in0 : in1)".into(), ""),
        "minimum" | "fmin" if int || boolean => same("(in0 <= in1 ? in0 : in1)".into(), ""),
        "arctan2" if float => same("atan2(in0, in1)".into(), ""),
        "equal" => cmp("=="),
        "not_equal" => cmp("!="),
        "less" if !cplx => cmp("<"),
        "less_equal" if !cplx => cmp("<="),
        "greater" if !cplx => cmp(">"),
        "greater_equal" if !cplx => cmp(">="),
        "logical_and" => logical(dt, "&&")?,
        "logical_or" => logical(dt, "||")?,
        "logical_xor" => logical(dt, "!=")?,
        "bitwise_and" if int || boolean => same(wrap(c, "in0 & in1"), ""),
        "bitwise_or" if int || boolean => same(wrap(c, "in0 | in1"), ""),
        "bitwise_xor" if int || boolean => same(wrap(c, "in0 ^ in1"), ""),
        "left_shift" if int => same("int_shl(in0, in1)".into(), INT_DIV),
        "right_shift" if int => same("int_shr(in0, in1)".into(), INT_DIV),
        _ => return None,
    })
}

/// Logical ops read their inputs as truth values.
fn logical(dt: DType, sym: &str) -> Option<Expr> {
    if dt != DType::Bool {
        return None;
    }
    Some(Expr {
        compute: DType::Bool,
        expr: format!("(in0 {sym} in1)"),
        result: DType::Bool,
        support: "",
    })
}

/// Small integer arithmetic promotes to int in C; convert back so it wraps.
fn wrap(c: DType, e: &str) -> String {
    match c {
        DType::Int8 | DType::Int16 | DType::UInt8 | DType::UInt16 | DType::Bool => {
            format!("({})({e})", super::elementwise::ctype(c))
        }
        _ => e.to_string(),
    }
}

/// `op(in0)` for a unary ufunc with loop dtype `dt`, when a GPU expression exists.
pub(crate) fn unary(op: &str, dt: DType) -> Option<Expr> {
    let c = compute_of(dt);
    let float = dt.is_float();
    let cplx = dt.is_complex();
    let int = dt.is_integer();
    let boolean = dt == DType::Bool;
    let same = |e: &str, support: &'static str| Expr {
        compute: c,
        expr: e.to_string(),
        result: c,
        support,
    };
    let test = |e: &str| Expr {
        compute: c,
        expr: e.to_string(),
        result: DType::Bool,
        support: "",
    };
    // Complex transcendental functions run on the host for now: their
    // branch cuts and special values follow C99 there, tested against NumPy.
    let math = |f: &str| -> Option<Expr> {
        if float {
            Some(same(&format!("{f}(in0)"), ""))
        } else {
            None
        }
    };
    Some(match op {
        "negative" if int => same(&wrap(c, "-in0"), ""),
        "negative" if float || cplx => same("-in0", ""),
        "positive" => same("in0", ""),
        "abs" if float => same("fabs(in0)", ""),
        "abs" if int && dt.is_signed_integer() => same(&wrap(c, "(in0 < 0 ? -in0 : in0)"), ""),
        "abs" if int || boolean => same("in0", ""),
        "abs" if cplx => Expr {
            compute: c,
            expr: "cabs(in0)".into(),
            result: c.real_dtype(),
            support: "",
        },
        "sign" if float => same("f_sign(in0)", FLOAT_DIV),
        "sign" if int => same(&wrap(c, "(in0 > 0) - (in0 < 0)"), ""),
        "square" if int => same(&wrap(c, "in0 * in0"), ""),
        "square" if float || cplx => same("in0 * in0", ""),
        "reciprocal" if float => same("(decltype(in0))1 / in0", ""),
        "sqrt" => math("sqrt")?,
        "exp" => math("exp")?,
        "exp2" => math("exp2")?,
        "log" => math("log")?,
        "log2" => math("log2")?,
        "log10" => math("log10")?,
        "log1p" => math("log1p")?,
        "expm1" => math("expm1")?,
        "sin" => math("sin")?,
        "cos" => math("cos")?,
        "tan" => math("tan")?,
        "arcsin" => math("asin")?,
        "arccos" => math("acos")?,
        "arctan" => math("atan")?,
        "sinh" => math("sinh")?,
        "cosh" => math("cosh")?,
        "tanh" => math("tanh")?,
        "arcsinh" => math("asinh")?,
        "arccosh" => math("acosh")?,
        "arctanh" => math("atanh")?,
        "floor" if float => same("floor(in0)", ""),
        "ceil" if float => same("ceil(in0)", ""),
        "trunc" if float => same("trunc(in0)", ""),
        "rint" if float => same("rint(in0)", ""),
        "isnan" if float => test("(in0 != in0)"),
        "isinf" if float => test("isinf(in0)"),
        "isfinite" if float => test("isfinite(in0)"),
        "isnan" if cplx => test("(in0.re != in0.re || in0.im != in0.im)"),
        "isinf" if cplx => test("(isinf(in0.re) || isinf(in0.im))"),
        "isfinite" if cplx => test("(isfinite(in0.re) && isfinite(in0.im))"),
        "isnan" | "isinf" if int || boolean => test("false"),
        "isfinite" if int || boolean => test("true"),
        "logical_not" if boolean => test("!in0"),
        "bitwise_not" if boolean => same("!in0", ""),
        "bitwise_not" if int => same(&wrap(c, "~in0"), ""),
        _ => return None,
    })
}

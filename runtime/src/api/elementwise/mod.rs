//! Elementwise functions (NumPy's ufuncs): arithmetic, comparisons, logic,
//! bit operations and the usual math functions, with NumPy's broadcasting
//! and NumPy 2 (NEP 50) type resolution.
//!
//! Every function takes its inputs as operands ([`IntoOperand`]): `&Array`,
//! `Array`, or a Rust number, bool or complex. Rust scalars are *weak*: they
//! take the dtype of the arrays they meet, so `add(&x_i8, 1)` is int8,
//! `multiply(&x_f32, 2.0)` is float32 and `add(&x_i8, 1.5)` is float64. A
//! Rust integer that does not fit that dtype is an error (`add(&x_u8, 300)`),
//! except in comparisons, where it compares as its true value, as in NumPy 2.
//!
//! Results follow NumPy:
//! - integer arithmetic wraps; integer division and remainder by zero give 0
//!   (NumPy's value; NumPy also warns);
//! - `divide` of integers gives float64; math functions of integers give the
//!   smallest float that holds them (int8 → float16, int16 → float32, int32
//!   and int64 → float64: [`DType::to_inexact`]);
//! - float16 and bfloat16 compute in f32 and round back once per operation;
//! - bool `add` is logical or, `multiply` logical and; `subtract`,
//!   `negative`, `positive` and `sign` of bools are errors;
//! - `floor_divide` and `remainder` round toward negative infinity (Python's
//!   sign rule), for integers and floats.
//!
//! Each function `name` has a `name_out` form that writes into an existing
//! array (a view works, and `out` may be one of the inputs). The inputs
//! broadcast to `out`'s shape, and the result is cast into `out`'s dtype
//! under the `same_kind` rule (int8 into float32 is allowed, float64 into
//! int64 is not), as NumPy's `out=` argument.
//!
//! ```
//! use cuprite as cp;
//! let x = cp::asarray(vec![1i8, 2, 100])?;
//! let y = cp::add(&x, 100)?; // int8: wraps like NumPy
//! assert_eq!(y.to_vec::<i8>()?, vec![101, 102, -56]);
//! assert_eq!(cp::divide(&x, 2)?.dtype(), cp::float64);
//! assert_eq!(cp::sqrt(&x)?.dtype(), cp::float16);
//! let mut out = cp::zeros([2, 3], cp::f32)?; // the input broadcasts to (2, 3)
//! cp::multiply_out(&x, 0.5, &mut out)?;
//! assert_eq!(out.to_vec::<f32>()?, vec![0.5, 1.0, 50.0, 0.5, 1.0, 50.0]);
//! assert!(cp::add(&x, 300).is_err()); // 300 does not fit int8
//! # Ok::<(), cp::Error>(())
//! ```

pub(crate) mod logic;
mod operators;
pub mod ufuncs;

use crate::api::operand::{common_device, IntoOperand, Operand};
use crate::backend::Backend;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{can_cast, result_type, Casting, DType, TypeOperand};
use crate::core::element::{Element, Scalar};
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::{broadcast_shapes, Layout};
use crate::ops::ufunc::{
    for_each_binary, for_each_ternary, for_each_unary, no_loop, Binary, Input, MapOp, Reject,
    Ternary, Ufunc, Unary,
};

// ---------------------------------------------------------------------------
// Type resolution helpers
// ---------------------------------------------------------------------------

/// How an operand reads in messages: its dtype, or "a Rust integer".
fn describe(op: &Operand<'_>) -> String {
    match op {
        Operand::Array(a) => a.dtype().name().to_string(),
        Operand::Scalar(s) => match s {
            Scalar::Bool(_) => "a Rust bool".into(),
            Scalar::Int(_) | Scalar::UInt(_) => "a Rust integer".into(),
            Scalar::Float(_) => "a Rust float".into(),
            Scalar::Complex(_) => "a Rust complex".into(),
        },
    }
}

/// The error for inputs whose (common) dtype has no loop.
fn unsupported(name: &'static str, inputs: &[&Operand<'_>], common: DType, valid: &str) -> Error {
    let names: Vec<String> = inputs.iter().map(|o| describe(o)).collect();
    let detail = match inputs {
        [one] if one.as_array().is_some() => {
            format!("input dtype {common} is not supported; valid dtypes: {valid}")
        }
        [_] => format!(
            "{} input ({common}) is not supported; valid dtypes: {valid}",
            names[0]
        ),
        _ => format!(
            "inputs {} (common dtype {common}) are not supported; valid dtypes: {valid}",
            names.join(" and ")
        ),
    };
    Error::DType { op: name, detail }
}

/// The error for a type rule's refusal.
fn rejected(name: &'static str, inputs: &[&Operand<'_>], common: DType, why: Reject) -> Error {
    match why {
        Reject::Unsupported(valid) => unsupported(name, inputs, common, valid),
        Reject::Message(detail) => Error::DType {
            op: name,
            detail: detail.into(),
        },
    }
}

/// The operand as an array of `dtype` on `device` (arrays are converted with
/// NumPy's unsafe cast; weak integers must fit an integer `dtype`).
fn operand_as(op: &Operand<'_>, name: &'static str, dtype: DType, device: Device) -> Result<Array> {
    match op {
        Operand::Array(a) if a.dtype() != dtype => a.astype(dtype),
        other => other.to_array(name, dtype, device),
    }
}

/// Checks that `out` can receive a result of `shape` (which it may
/// broadcast) and `dtype`, on `device` (also for reductions' `_out` forms).
pub(crate) fn check_out(
    name: &'static str,
    shape: &[usize],
    dtype: DType,
    device: Device,
    out: &Array,
) -> Result<()> {
    let fits = broadcast_shapes(name, &[shape, out.shape()])
        .map(|s| s == out.shape())
        .unwrap_or(false);
    if !fits {
        return Err(Error::Shape {
            op: name,
            detail: format!(
                "out has shape {} but the inputs broadcast to {}; out must have the broadcast shape",
                fmt_shape(out.shape()),
                fmt_shape(shape)
            ),
        });
    }
    if out
        .shape()
        .iter()
        .zip(out.strides())
        .any(|(&d, &s)| d > 1 && s == 0)
    {
        return Err(Error::InvalidArgument {
            op: name,
            detail: format!(
                "out (shape {}, strides {:?}) is a broadcast view that repeats elements; write into a copy instead",
                fmt_shape(out.shape()),
                out.strides()
            ),
        });
    }
    if !can_cast(dtype, out.dtype(), Casting::SameKind) {
        return Err(Error::Cast {
            op: name,
            from: dtype,
            to: out.dtype(),
            casting: Casting::SameKind.name(),
        });
    }
    if out.device() != device {
        return Err(Error::DeviceMismatch {
            op: name,
            a: device.to_string(),
            b: out.device().to_string(),
        });
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Calling the backend
// ---------------------------------------------------------------------------

/// An operand as a backend input: arrays as views (the backend converts
/// them), weak scalars by value in the loop dtype (checked to fit, as NumPy).
fn input<'a>(o: &'a Operand<'_>, name: &'static str, loop_dt: DType) -> Result<Input<'a>> {
    match o {
        Operand::Array(a) => Ok(Input::Array(a.view())),
        Operand::Scalar(v) => {
            if loop_dt.is_integer() && !v.fits(loop_dt) {
                return Err(Error::InvalidArgument {
                    op: name,
                    detail: format!("the Rust integer {v} does not fit in {loop_dt}"),
                });
            }
            Ok(Input::Scalar(*v, loop_dt))
        }
    }
}

/// `op` of `inputs` (broadcast to `shape`) as a new C-contiguous array of
/// the plan's result dtype.
fn run_new(plan: &Plan, op: MapOp, inputs: &[Input<'_>], shape: &[usize]) -> Result<Array> {
    let layout = Layout::contiguous(shape);
    let storage = plan
        .backend
        .map_new(op, plan.loop_dt, plan.out_dt, inputs, &layout)?;
    Ok(Array::from_parts(storage, layout, plan.out_dt))
}

/// What a call resolved to.
struct Plan {
    /// The dtype the loop computes in (inputs are converted to it).
    loop_dt: DType,
    /// The dtype of the result.
    out_dt: DType,
    /// The broadcast shape of the inputs.
    shape: Vec<usize>,
    device: Device,
    /// The backend of `device`.
    backend: &'static dyn Backend,
}

// ---------------------------------------------------------------------------
// Binary ufuncs
// ---------------------------------------------------------------------------

fn plan_binary(op: Binary, a: &Operand<'_>, b: &Operand<'_>) -> Result<Plan> {
    plan_broadcast(Ufunc::Binary(op), &[a, b])
}

/// The plan of a ufunc of several operands, which broadcast together and
/// compute in their common dtype's loop.
fn plan_broadcast(op: Ufunc, operands: &[&Operand<'_>]) -> Result<Plan> {
    let name = op.name();
    let device = common_device(name, operands)?;
    let backend = crate::backend::on(name, device)?;
    let shapes: Vec<&[usize]> = operands.iter().map(|o| o.shape()).collect();
    let shape = broadcast_shapes(name, &shapes)?;
    let types: Vec<TypeOperand> = operands.iter().map(|o| o.type_operand()).collect();
    let common = result_type(&types)?;
    let (loop_dt, out_dt) = op
        .types(common)
        .map_err(|why| rejected(name, operands, common, why))?;
    if device.is_cpu() {
        let item = out_dt.itemsize().max(loop_dt.itemsize());
        crate::core::layout::check_host_room(name, shape.iter().product(), item)?;
    }
    Ok(Plan {
        loop_dt,
        out_dt,
        shape,
        device,
        backend,
    })
}

fn is_comparison(op: Binary) -> bool {
    use Binary::*;
    matches!(
        op,
        Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual
    )
}

/// For a comparison of an integer array with a Rust integer outside the
/// array's dtype, the answer for every element (NumPy 2 compares the true
/// values, so `x_u8 < 300` is all true).
fn out_of_range_comparison(
    op: Binary,
    a: &Operand<'_>,
    b: &Operand<'_>,
    dt: DType,
) -> Option<bool> {
    let (scalar, scalar_left) = match (a, b) {
        (Operand::Array(_), Operand::Scalar(s)) => (*s, false),
        (Operand::Scalar(s), Operand::Array(_)) => (*s, true),
        _ => return None,
    };
    if !matches!(scalar, Scalar::Int(_) | Scalar::UInt(_)) || scalar.fits(dt) {
        return None;
    }
    // Out of range: above every value of `dt` or below every value.
    let high = match scalar {
        Scalar::Int(i) => i > 0,
        _ => true,
    };
    // `x OP s` with s beyond every x; flipped when the scalar is on the left.
    let less = high != scalar_left;
    Some(match op {
        Binary::Equal => false,
        Binary::NotEqual => true,
        Binary::Less | Binary::LessEqual => less,
        Binary::Greater | Binary::GreaterEqual => !less,
        _ => unreachable!("only comparisons"),
    })
}

/// Fails when a signed integer exponent array holds a negative value.
fn check_integer_exponent(b: &Array, shape: &[usize]) -> Result<()> {
    if !b.dtype().is_signed_integer() || shape.iter().product::<usize>() == 0 {
        return Ok(());
    }
    // Runs where `b` lives (a GPU reduction for GPU arrays).
    let negative = less(b, 0i64)?.any()?.item::<bool>()?;
    if negative {
        return Err(Error::InvalidArgument {
            op: "power",
            detail: "integers to negative integer powers are not allowed; convert the base to a float dtype first (x.astype(cp::f64))".into(),
        });
    }
    Ok(())
}

/// For an integer comparison with an out-of-range Rust integer, the answer
/// for every element; else checks a signed integer power's exponents.
fn binary_special(
    op: Binary,
    plan: &Plan,
    a: &Operand<'_>,
    b: &Operand<'_>,
    shape: &[usize],
) -> Result<Option<bool>> {
    if is_comparison(op) && plan.loop_dt.is_integer() {
        if let Some(v) = out_of_range_comparison(op, a, b, plan.loop_dt) {
            return Ok(Some(v));
        }
    }
    if op == Binary::Power && plan.loop_dt.is_signed_integer() {
        check_integer_exponent(&operand_as(b, op.name(), plan.loop_dt, plan.device)?, shape)?;
    }
    Ok(None)
}

pub(crate) fn binary(op: Binary, a: Operand<'_>, b: Operand<'_>) -> Result<Array> {
    let plan = plan_binary(op, &a, &b)?;
    let name = op.name();
    if let Some(v) = binary_special(op, &plan, &a, &b, &plan.shape)? {
        let n: usize = plan.shape.iter().product();
        return Array::from_host(bool::into_data(vec![v; n]), &plan.shape, plan.device);
    }
    let inputs = [
        input(&a, name, plan.loop_dt)?,
        input(&b, name, plan.loop_dt)?,
    ];
    run_new(&plan, MapOp::Ufunc(Ufunc::Binary(op)), &inputs, &plan.shape)
}

pub(crate) fn binary_out(
    op: Binary,
    a: Operand<'_>,
    b: Operand<'_>,
    out: &mut Array,
) -> Result<()> {
    let plan = plan_binary(op, &a, &b)?;
    let name = op.name();
    check_out(name, &plan.shape, plan.out_dt, plan.device, out)?;
    if let Some(v) = binary_special(op, &plan, &a, &b, out.shape())? {
        return out.fill(v);
    }
    let inputs = [
        input(&a, name, plan.loop_dt)?,
        input(&b, name, plan.loop_dt)?,
    ];
    plan.backend.map_into(
        MapOp::Ufunc(Ufunc::Binary(op)),
        plan.loop_dt,
        &inputs,
        out.view(),
    )
}

/// The loop and result dtypes of a binary ufunc for these operands, as
/// the function would resolve them (for `fuse`).
pub(crate) fn binary_types(op: Binary, a: &Operand<'_>, b: &Operand<'_>) -> Result<(DType, DType)> {
    let p = plan_binary(op, a, b)?;
    Ok((p.loop_dt, p.out_dt))
}

macro_rules! binary_functions {
    ($($name:ident $name_out:ident $Var:ident $doc:literal;)*) => {$(
        #[doc = $doc]
        pub fn $name<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<Array> {
            binary(Binary::$Var, a.into_operand(), b.into_operand())
        }

        #[doc = concat!("[`", stringify!($name), "`] written into `out` (inputs broadcast to its shape; the result is cast under the `same_kind` rule).")]
        pub fn $name_out<'a, 'b>(
            a: impl IntoOperand<'a>,
            b: impl IntoOperand<'b>,
            out: &mut Array,
        ) -> Result<()> {
            binary_out(Binary::$Var, a.into_operand(), b.into_operand(), out)
        }
    )*};
}
/// Hands the rows of a table family that belong to namespace `[$want]`
/// (`[]`: the top level, NumPy's functions; `[special]`: `cp::special`) to
/// the generator `$gen!`, and drops the others.
macro_rules! rows_in {
    (@row [] [] $gen:ident $($row:tt)*) => { $gen! { $($row)*; } };
    (@row [special] [special] $gen:ident $($row:tt)*) => { $gen! { $($row)*; } };
    (@row [$($want:ident)?] [$($module:ident)?] $gen:ident $($row:tt)*) => {};
    ($want:tt $gen:ident; $([$($module:ident)?] $name:ident $name_out:ident $Var:ident $doc:literal;)*) => {
        $( rows_in!(@row $want [$($module)?] $gen $name $name_out $Var $doc); )*
    };
}
macro_rules! top_level_binary {
    ($($rows:tt)*) => { rows_in!([] binary_functions; $($rows)*); };
}
for_each_binary!(top_level_binary);

// Other names NumPy gives the same functions.
binary_functions! {
    true_divide true_divide_out Divide "True division `a / b`, the same as [`divide`] (`np.true_divide`).";
    mod_ mod_out Remainder "The same as [`remainder`] (`np.mod`).";
}

// ---------------------------------------------------------------------------
// Ternary ufuncs
// ---------------------------------------------------------------------------

pub(crate) fn ternary(
    op: Ternary,
    a: Operand<'_>,
    b: Operand<'_>,
    c: Operand<'_>,
) -> Result<Array> {
    let plan = plan_broadcast(Ufunc::Ternary(op), &[&a, &b, &c])?;
    let name = op.name();
    let inputs = [
        input(&a, name, plan.loop_dt)?,
        input(&b, name, plan.loop_dt)?,
        input(&c, name, plan.loop_dt)?,
    ];
    run_new(
        &plan,
        MapOp::Ufunc(Ufunc::Ternary(op)),
        &inputs,
        &plan.shape,
    )
}

pub(crate) fn ternary_out(op: Ternary, operands: [Operand<'_>; 3], out: &mut Array) -> Result<()> {
    let [a, b, c] = &operands;
    let plan = plan_broadcast(Ufunc::Ternary(op), &[a, b, c])?;
    let name = op.name();
    check_out(name, &plan.shape, plan.out_dt, plan.device, out)?;
    let inputs = [
        input(a, name, plan.loop_dt)?,
        input(b, name, plan.loop_dt)?,
        input(c, name, plan.loop_dt)?,
    ];
    plan.backend.map_into(
        MapOp::Ufunc(Ufunc::Ternary(op)),
        plan.loop_dt,
        &inputs,
        out.view(),
    )
}

macro_rules! ternary_functions {
    ($($name:ident $name_out:ident $Var:ident $doc:literal;)*) => {$(
        #[doc = $doc]
        pub fn $name<'a, 'b, 'c>(
            a: impl IntoOperand<'a>,
            b: impl IntoOperand<'b>,
            c: impl IntoOperand<'c>,
        ) -> Result<Array> {
            ternary(Ternary::$Var, a.into_operand(), b.into_operand(), c.into_operand())
        }

        #[doc = concat!("[`", stringify!($name), "`] written into `out` (inputs broadcast to its shape; the result is cast under the `same_kind` rule).")]
        pub fn $name_out<'a, 'b, 'c>(
            a: impl IntoOperand<'a>,
            b: impl IntoOperand<'b>,
            c: impl IntoOperand<'c>,
            out: &mut Array,
        ) -> Result<()> {
            ternary_out(Ternary::$Var, [a.into_operand(), b.into_operand(), c.into_operand()], out)
        }
    )*};
}
macro_rules! top_level_ternary {
    ($($rows:tt)*) => { rows_in!([] ternary_functions; $($rows)*); };
}
for_each_ternary!(top_level_ternary);

// ---------------------------------------------------------------------------
// Unary ufuncs
// ---------------------------------------------------------------------------

fn plan_unary(op: Unary, a: &Operand<'_>) -> Result<Plan> {
    let name = op.name();
    let device = common_device(name, &[a])?;
    let backend = crate::backend::on(name, device)?;
    let dt = result_type(&[a.type_operand()])?;
    let (loop_dt, out_dt) = op.types(dt).map_err(|why| rejected(name, &[a], dt, why))?;
    Ok(Plan {
        loop_dt,
        out_dt,
        shape: a.shape().to_vec(),
        device,
        backend,
    })
}

pub(crate) fn unary(op: Unary, a: Operand<'_>) -> Result<Array> {
    let plan = plan_unary(op, &a)?;
    let inputs = [input(&a, op.name(), plan.loop_dt)?];
    run_new(&plan, MapOp::Ufunc(Ufunc::Unary(op)), &inputs, &plan.shape)
}

fn unary_out(op: Unary, a: Operand<'_>, out: &mut Array) -> Result<()> {
    let plan = plan_unary(op, &a)?;
    check_out(op.name(), a.shape(), plan.out_dt, plan.device, out)?;
    let inputs = [input(&a, op.name(), plan.loop_dt)?];
    plan.backend.map_into(
        MapOp::Ufunc(Ufunc::Unary(op)),
        plan.loop_dt,
        &inputs,
        out.view(),
    )
}

/// The loop and result dtypes of a unary ufunc for this operand (for `fuse`).
pub(crate) fn unary_types(op: Unary, a: &Operand<'_>) -> Result<(DType, DType)> {
    let p = plan_unary(op, a)?;
    Ok((p.loop_dt, p.out_dt))
}

macro_rules! unary_functions {
    ($($name:ident $name_out:ident $Var:ident $doc:literal;)*) => {$(
        #[doc = $doc]
        pub fn $name<'a>(a: impl IntoOperand<'a>) -> Result<Array> {
            unary(Unary::$Var, a.into_operand())
        }

        #[doc = concat!("[`", stringify!($name), "`] written into `out` (the input broadcasts to its shape; the result is cast under the `same_kind` rule).")]
        pub fn $name_out<'a>(a: impl IntoOperand<'a>, out: &mut Array) -> Result<()> {
            unary_out(Unary::$Var, a.into_operand(), out)
        }
    )*};
}
macro_rules! top_level_unary {
    ($($rows:tt)*) => { rows_in!([] unary_functions; $($rows)*); };
}
for_each_unary!(top_level_unary);

// Other names NumPy gives the same functions.
unary_functions! {
    absolute absolute_out Absolute "The same as [`abs`] (`np.absolute`).";
    invert invert_out Invert "The same as [`bitwise_not`] (`np.invert`).";
    conjugate conjugate_out Conj "The same as [`conj`] (`np.conjugate`).";
    degrees degrees_out Rad2deg "The same as [`rad2deg`] (`np.degrees`).";
    radians radians_out Deg2rad "The same as [`deg2rad`] (`np.radians`).";
}

// After the generators above, which it uses.
pub mod special;

// ---------------------------------------------------------------------------
// round
// ---------------------------------------------------------------------------

/// The loop and result dtype of `round`: bools round as float16, as in NumPy.
fn round_types(dt: DType) -> DType {
    if dt.is_bool() {
        DType::Float16
    } else {
        dt
    }
}

fn round_compute(a: &Operand<'_>, decimals: i32, out: Option<&mut Array>) -> Result<Option<Array>> {
    let name = "round";
    let device = common_device(name, &[a])?;
    let backend = crate::backend::on(name, device)?;
    let dt = round_types(result_type(&[a.type_operand()])?);
    if let Some(out) = &out {
        check_out(name, a.shape(), dt, device, out)?;
    }
    let inputs = [input(a, name, dt)?];
    let op = MapOp::Round(decimals);
    match out {
        Some(out) => backend.map_into(op, dt, &inputs, out.view()).map(|_| None),
        None => {
            let plan = Plan {
                loop_dt: dt,
                out_dt: dt,
                shape: Vec::new(),
                device,
                backend,
            };
            run_new(&plan, op, &inputs, a.shape()).map(Some)
        }
    }
}

/// `a` rounded to the nearest integer, half to even (`np.round`); integers
/// are returned unchanged and bools give float16, as in NumPy.
pub fn round<'a>(a: impl IntoOperand<'a>) -> Result<Array> {
    round_decimals(a, 0)
}

/// [`round`] written into `out`.
pub fn round_out<'a>(a: impl IntoOperand<'a>, out: &mut Array) -> Result<()> {
    round_decimals_out(a, 0, out)
}

/// The same as [`round`] (`np.around`).
pub fn around<'a>(a: impl IntoOperand<'a>) -> Result<Array> {
    round_decimals(a, 0)
}

/// `a` rounded to `decimals` decimal places, half to even (`np.round(a,
/// decimals)`); negative `decimals` round to tens, hundreds, ... (integers too).
pub fn round_decimals<'a>(a: impl IntoOperand<'a>, decimals: i32) -> Result<Array> {
    let r = round_compute(&a.into_operand(), decimals, None)?;
    r.ok_or_else(|| no_loop("round", DType::Bool))
}

/// [`round_decimals`] written into `out`.
pub fn round_decimals_out<'a>(
    a: impl IntoOperand<'a>,
    decimals: i32,
    out: &mut Array,
) -> Result<()> {
    round_compute(&a.into_operand(), decimals, Some(out)).map(|_| ())
}

// ---------------------------------------------------------------------------
// clip
// ---------------------------------------------------------------------------

/// The range of an integer dtype.
fn int_limits(dtype: DType) -> (i128, i128) {
    let bits = dtype.itemsize() as u32 * 8;
    if dtype.is_signed_integer() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// A Rust integer outside an integer `dtype` clamped to its range (NumPy's
/// `clip` accepts out-of-range bounds).
fn saturate(op: &Operand<'_>, dtype: DType) -> Option<Scalar> {
    let v: i128 = match op {
        Operand::Scalar(Scalar::Int(i)) => *i as i128,
        Operand::Scalar(Scalar::UInt(u)) => *u as i128,
        _ => return None,
    };
    if !dtype.is_integer() {
        return None;
    }
    let (lo, hi) = int_limits(dtype);
    if (lo..=hi).contains(&v) {
        return None;
    }
    let v = v.clamp(lo, hi);
    Some(if v < 0 {
        Scalar::Int(v as i64)
    } else {
        Scalar::UInt(v as u64)
    })
}

fn plan_clip(a: &Operand<'_>, lo: &Operand<'_>, hi: &Operand<'_>) -> Result<Plan> {
    let name = "clip";
    let device = common_device(name, &[a, lo, hi])?;
    let backend = crate::backend::on(name, device)?;
    let shape = broadcast_shapes(name, &[a.shape(), lo.shape(), hi.shape()])?;
    let ops: Vec<TypeOperand> = [a, lo, hi].iter().map(|o| o.type_operand()).collect();
    let dt = result_type(&ops)?;
    if device.is_cpu() {
        crate::core::layout::check_host_room(name, shape.iter().product(), dt.itemsize())?;
    }
    Ok(Plan {
        loop_dt: dt,
        out_dt: dt,
        shape,
        device,
        backend,
    })
}

fn clip_compute(
    plan: &Plan,
    a: &Operand<'_>,
    lo: &Operand<'_>,
    hi: &Operand<'_>,
    out: Option<&mut Array>,
) -> Result<Option<Array>> {
    let name = "clip";
    let dt = plan.loop_dt;
    let lo = saturate(lo, dt).map_or_else(|| lo.clone(), Operand::Scalar);
    let hi = saturate(hi, dt).map_or_else(|| hi.clone(), Operand::Scalar);
    let inputs = [
        input(a, name, dt)?,
        input(&lo, name, dt)?,
        input(&hi, name, dt)?,
    ];
    match out {
        Some(out) => plan
            .backend
            .map_into(MapOp::Clip, dt, &inputs, out.view())
            .map(|_| None),
        None => run_new(plan, MapOp::Clip, &inputs, &plan.shape).map(Some),
    }
}

/// `a` limited to `[min, max]` elementwise (`np.clip`): `minimum(maximum(a,
/// min), max)`, so NaN anywhere gives NaN and `min > max` gives `max`. The
/// bounds are operands and broadcast; a Rust integer bound outside an integer
/// dtype is clamped to its range.
pub fn clip<'a, 'b, 'c>(
    a: impl IntoOperand<'a>,
    min: impl IntoOperand<'b>,
    max: impl IntoOperand<'c>,
) -> Result<Array> {
    let (a, lo, hi) = (a.into_operand(), min.into_operand(), max.into_operand());
    let plan = plan_clip(&a, &lo, &hi)?;
    clip_compute(&plan, &a, &lo, &hi, None)?.ok_or_else(|| no_loop("clip", plan.loop_dt))
}

/// [`clip`] written into `out`.
pub fn clip_out<'a, 'b, 'c>(
    a: impl IntoOperand<'a>,
    min: impl IntoOperand<'b>,
    max: impl IntoOperand<'c>,
    out: &mut Array,
) -> Result<()> {
    let (a, lo, hi) = (a.into_operand(), min.into_operand(), max.into_operand());
    let plan = plan_clip(&a, &lo, &hi)?;
    check_out("clip", &plan.shape, plan.out_dt, plan.device, out)?;
    clip_compute(&plan, &a, &lo, &hi, Some(out)).map(|_| ())
}

// ---------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------

impl Array {
    /// The absolute value ([`abs`]).
    pub fn abs(&self) -> Result<Array> {
        abs(self)
    }
    /// The square root ([`sqrt`]).
    pub fn sqrt(&self) -> Result<Array> {
        sqrt(self)
    }
    /// `e ** self` ([`exp`]).
    pub fn exp(&self) -> Result<Array> {
        exp(self)
    }
    /// The natural logarithm ([`log`]).
    pub fn log(&self) -> Result<Array> {
        log(self)
    }
    /// The sine ([`sin`]).
    pub fn sin(&self) -> Result<Array> {
        sin(self)
    }
    /// The cosine ([`cos`]).
    pub fn cos(&self) -> Result<Array> {
        cos(self)
    }
    /// The tangent ([`tan`]).
    pub fn tan(&self) -> Result<Array> {
        tan(self)
    }
    /// The hyperbolic tangent ([`tanh`]).
    pub fn tanh(&self) -> Result<Array> {
        tanh(self)
    }
    /// Rounded down ([`floor`]).
    pub fn floor(&self) -> Result<Array> {
        floor(self)
    }
    /// Rounded up ([`ceil`]).
    pub fn ceil(&self) -> Result<Array> {
        ceil(self)
    }
    /// Rounded half to even ([`round`]).
    pub fn round(&self) -> Result<Array> {
        round(self)
    }
    /// `self * self` ([`square`]).
    pub fn square(&self) -> Result<Array> {
        square(self)
    }
    /// `self ** exponent` ([`power`]).
    pub fn pow<'b>(&self, exponent: impl IntoOperand<'b>) -> Result<Array> {
        power(self, exponent)
    }
    /// Limited to `[min, max]` ([`clip`]).
    pub fn clip<'b, 'c>(
        &self,
        min: impl IntoOperand<'b>,
        max: impl IntoOperand<'c>,
    ) -> Result<Array> {
        clip(self, min, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::layout::Layout;
    use crate::ops::scalar_math::{f_divmod, round_int_neg};

    fn arr<T: Element>(v: Vec<T>, shape: &[usize]) -> Array {
        Array::from_cpu_data(T::into_data(v), shape)
    }

    /// A view of `a` with its last axis reversed (negative stride).
    fn reversed_last(a: &Array) -> Array {
        let l = a.layout();
        let nd = l.ndim();
        let mut strides = l.strides().to_vec();
        let last = l.shape()[nd - 1];
        let offset = l.offset() as isize + (last as isize - 1) * strides[nd - 1];
        strides[nd - 1] = -strides[nd - 1];
        a.with_layout(Layout::from_parts(
            l.shape().to_vec(),
            strides,
            offset as usize,
        ))
    }

    // NumPy 2.4: a = np.arange(6, dtype=np.int8).reshape(2, 3);
    // a[:, ::-1] + np.array([10, 20, 30], np.int8) == [[12, 21, 30], [15, 24, 33]]
    #[test]
    fn negative_strides_in_binary_loops() {
        let a = arr((0i8..6).collect(), &[2, 3]);
        let r = reversed_last(&a);
        assert_eq!(r.to_vec::<i8>().unwrap(), vec![2, 1, 0, 5, 4, 3]);
        let b = arr(vec![10i8, 20, 30], &[3]);
        let s = add(&r, &b).unwrap();
        assert_eq!(s.to_vec::<i8>().unwrap(), vec![12, 21, 30, 15, 24, 33]);
        // Both operands reversed, and a reversed view of the same buffer.
        let s = subtract(&r, &a).unwrap();
        // NumPy 2.4: a[:, ::-1] - a == [[2, 0, -2], [2, 0, -2]]
        assert_eq!(s.to_vec::<i8>().unwrap(), vec![2, 0, -2, 2, 0, -2]);
        // Unary over a reversed, transposed view.
        let t = reversed_last(&a).t();
        // NumPy 2.4: np.negative(a[:, ::-1].T).ravel() == [-2, -5, -1, -4, 0, -3]
        assert_eq!(
            negative(&t).unwrap().to_vec::<i8>().unwrap(),
            vec![-2, -5, -1, -4, 0, -3]
        );
    }

    // NumPy 2.4: x = np.array([1., 2., 3., 4.]); np.multiply(x[::-1], 2, out=x[::-1])
    // leaves x == [2., 4., 6., 8.]
    #[test]
    fn out_through_a_reversed_view_aliasing_the_input() {
        let x = arr(vec![1.0f64, 2.0, 3.0, 4.0], &[4]);
        let mut rv = reversed_last(&x);
        let src = rv.clone();
        multiply_out(&src, 2.0, &mut rv).unwrap();
        assert_eq!(x.to_vec::<f64>().unwrap(), vec![2.0, 4.0, 6.0, 8.0]);
        // NumPy 2.4: x[::-1] + x (x = [2., 4., 6., 8.]) == [10., 10., 10., 10.]
        let y = add(reversed_last(&x), &x).unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), vec![10.0; 4]);
        // NumPy 2.4: np.clip(x[::-1], 3, 7) == [7., 6., 4., 3.]
        let c = clip(reversed_last(&x), 3.0, 7.0).unwrap();
        assert_eq!(c.to_vec::<f64>().unwrap(), vec![7.0, 6.0, 4.0, 3.0]);
    }

    // NumPy 2.4: np.divmod([-5., 5., 1., -2.], [3., -3., 0.3, np.inf])
    // -> ([-2., -2., 3., -1.], [1., -1., 0.10000000000000003, inf])
    #[test]
    fn float_divmod_matches_numpy() {
        assert_eq!(f_divmod(-5.0f64, 3.0), (-2.0, 1.0));
        assert_eq!(f_divmod(5.0f64, -3.0), (-2.0, -1.0));
        assert_eq!(f_divmod(1.0f64, 0.3), (3.0, 0.10000000000000003));
        assert_eq!(f_divmod(-2.0f64, f64::INFINITY), (-1.0, f64::INFINITY));
    }

    #[test]
    fn round_int_neg_is_half_even() {
        // NumPy 2.4: np.round(np.array([125, 135, -125, 15, 25]), -1) == [120, 140, -120, 20, 20]
        let got: Vec<i128> = [125, 135, -125, 15, 25]
            .iter()
            .map(|&v| round_int_neg(v, -1))
            .collect();
        assert_eq!(got, vec![120, 140, -120, 20, 20]);
        assert_eq!(round_int_neg(5, -30), 0);
    }
}

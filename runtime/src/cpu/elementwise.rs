//! Elementwise ufuncs on the CPU: the rows of the ufunc table, `round` and
//! `clip`, over views broadcast to the result's shape.

use super::create::{cast_data, store};
use super::loops::{map1, map2, map3};
use super::CpuBackend;
use crate::core::dtype::DType;
use crate::core::element::Element;
use crate::core::error::Result;
use crate::core::layout::Layout;
use crate::core::storage::{CpuData, CpuStorage, Storage};
use crate::core::view::View;
use crate::ops::scalar_math::{Arith, Inexact, Integer};
use crate::ops::ufunc::{no_loop, Elementwise, Input, Map1, Map2, Map3, MapOp, Ufunc};

/// The CPU loop over one view, for a row's CPU body.
struct Loop1<'a>(View<'a>);

impl Map1 for Loop1<'_> {
    type Out = CpuData;
    fn map<T: Element, O: Element, F: Fn(T) -> O>(self, f: F) -> CpuData {
        map1(self.0, f)
    }
}

/// The CPU loop over two views broadcast to a shape, for a row's CPU body.
struct Loop2<'a> {
    a: View<'a>,
    b: View<'a>,
    shape: &'a [usize],
}

impl Map2 for Loop2<'_> {
    type Out = CpuData;
    fn map<T: Element, O: Element, F: Fn(T, T) -> O>(self, f: F) -> CpuData {
        map2(self.a, self.b, self.shape, f)
    }
}

/// The CPU loop over three views broadcast to a shape, for a row's CPU body.
struct Loop3<'a> {
    views: [View<'a>; 3],
    shape: &'a [usize],
}

impl Map3 for Loop3<'_> {
    type Out = CpuData;
    fn map<T: Element, O: Element, F: Fn(T, T, T) -> O>(self, f: F) -> CpuData {
        map3(self.views, self.shape, f)
    }
}

/// Binds `$T` to the element type of `$dt`, for the listed dtypes only. Type
/// resolution rejects every other dtype before a loop is chosen.
macro_rules! dispatch {
    ($dt:expr, $T:ident => $body:expr, [$($v:ident : $t:ty),* $(,)?]) => {
        match $dt {
            $($crate::core::dtype::DType::$v => {
                type $T = $t;
                $body
            })*
            #[allow(unreachable_patterns)]
            other => unreachable!("no {other} loop: type resolution admits only supported dtypes"),
        }
    };
}

macro_rules! ints {
    ($dt:expr, $T:ident => $body:expr) => {
        dispatch!($dt, $T => $body, [Int8: i8, Int16: i16, Int32: i32, Int64: i64,
            UInt8: u8, UInt16: u16, UInt32: u32, UInt64: u64])
    };
}
macro_rules! inexact {
    ($dt:expr, $T:ident => $body:expr) => {
        dispatch!($dt, $T => $body, [Float16: half::f16, BFloat16: half::bf16,
            Float32: f32, Float64: f64, Complex64: num_complex::Complex32,
            Complex128: num_complex::Complex64])
    };
}

/// `round` on the CPU.
fn round_cpu(x: View<'_>, decimals: i32) -> CpuData {
    let dt = x.dtype();
    if dt.is_inexact() {
        if decimals == 0 {
            inexact!(dt, T => map1(x, <T as Inexact>::rint))
        } else {
            inexact!(dt, T => map1(x, |v: T| v.round_dec(decimals)))
        }
    } else if decimals >= 0 {
        crate::with_dtype!(dt, T => map1(x, |v: T| v))
    } else {
        ints!(dt, T => map1(x, |v: T| <T as Integer>::round_neg(v, decimals)))
    }
}

/// An input seen in the loop dtype, broadcast to the result's shape: the
/// caller's buffer where it already holds that dtype (with a broadcast
/// layout where its shape differs), else a converted copy.
enum Held<'a> {
    Borrowed(View<'a>, Option<Layout>),
    Owned(Storage, Layout, DType),
}

impl Held<'_> {
    fn view(&self) -> View<'_> {
        match self {
            Held::Borrowed(v, None) => *v,
            Held::Borrowed(v, Some(l)) => View::new(v.storage, l, v.dtype),
            Held::Owned(s, l, dt) => View::new(s, l, *dt),
        }
    }
}

/// `input` as a view of dtype `dt` broadcast to `shape`.
fn held<'a>(input: &Input<'a>, dt: DType, shape: &[usize]) -> Held<'a> {
    let broadcast = |l: &Layout| {
        (l.shape() != shape).then(|| l.broadcast_to(shape).expect("shapes were checked"))
    };
    let owned = |data: CpuData, l: Layout| {
        let l = broadcast(&l).unwrap_or(l);
        Held::Owned(Storage::Cpu(CpuStorage::new(data)), l, dt)
    };
    match input {
        Input::Array(v) if v.dtype == dt => Held::Borrowed(*v, broadcast(v.layout)),
        Input::Array(v) => owned(cast_data(*v, dt), Layout::contiguous(v.shape())),
        Input::Scalar(s, _) => owned(
            crate::with_dtype!(dt, T => T::into_data(vec![T::from_scalar(*s)])),
            Layout::contiguous(&[]),
        ),
    }
}

/// `op` of `inputs` in loop dtype `dt`, broadcast to `shape`, in C order.
fn compute(op: MapOp, dt: DType, inputs: &[Input<'_>], shape: &[usize]) -> Result<CpuData> {
    let held: smallvec::SmallVec<[Held; 3]> = inputs.iter().map(|i| held(i, dt, shape)).collect();
    let v = |k: usize| held[k].view();
    match op {
        MapOp::Ufunc(Ufunc::Unary(u)) => u.cpu(dt, Loop1(v(0))),
        MapOp::Ufunc(Ufunc::Binary(b)) => b.cpu(
            dt,
            Loop2 {
                a: v(0),
                b: v(1),
                shape,
            },
        ),
        MapOp::Ufunc(Ufunc::Ternary(t)) => t.cpu(
            dt,
            Loop3 {
                views: [v(0), v(1), v(2)],
                shape,
            },
        ),
        MapOp::Round(decimals) => Some(round_cpu(v(0), decimals)),
        MapOp::Clip => Some(crate::with_dtype!(dt, T => map3([v(0), v(1), v(2)], shape,
            |x: T, l: T, h: T| <T as Arith>::minimum(<T as Arith>::maximum(x, l), h)))),
    }
    .ok_or_else(|| no_loop(op.name(), dt))
}

impl Elementwise for CpuBackend {
    fn map_new(
        &self,
        op: MapOp,
        loop_dt: DType,
        _out_dt: DType,
        inputs: &[Input<'_>],
        layout: &Layout,
    ) -> Result<Storage> {
        let data = compute(op, loop_dt, inputs, layout.shape())?;
        Ok(Storage::Cpu(CpuStorage::new(data)))
    }

    fn map_into(
        &self,
        op: MapOp,
        loop_dt: DType,
        inputs: &[Input<'_>],
        out: View<'_>,
    ) -> Result<()> {
        let data = compute(op, loop_dt, inputs, out.shape())?;
        store(data, out);
        Ok(())
    }
}

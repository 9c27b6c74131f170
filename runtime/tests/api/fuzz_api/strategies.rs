//! Generators: array specs of every dtype and rank 0-5 (empty and size-1
//! axes; contiguous, transposed, stepped and reversed views; NaN, ±inf, -0.0,
//! subnormals and extreme integers), axes in and out of range, scalars.
//!
//! A spec is plain data, so proptest can print and shrink it; `build` makes
//! the array on a device. Values come from a seed through a small LCG so a
//! spec stays short to print however many elements it has.

use cuprite::half::{bf16, f16};
use cuprite::num_complex::{Complex32, Complex64};
use cuprite::{Array, DType, Device, Element, Order, SliceElem};
use proptest::prelude::*;

pub const DTYPES: [DType; 15] = [
    DType::Bool,
    DType::Int8,
    DType::Int16,
    DType::Int32,
    DType::Int64,
    DType::UInt8,
    DType::UInt16,
    DType::UInt32,
    DType::UInt64,
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

/// How the array's memory is laid out behind its shape.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum View {
    Contiguous,
    /// Built with the axes reversed, then transposed (F-order strides).
    Transposed,
    /// Every other element of a twice-as-long base (step 2 on each axis).
    Stepped,
    /// The base walked backwards on every axis (negative strides).
    Reversed,
}

#[derive(Debug, Clone)]
pub struct ArraySpec {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub view: View,
    pub seed: u64,
}

/// The generated arguments of one call.
#[derive(Debug, Clone)]
pub struct Args {
    pub a: ArraySpec,
    pub b: ArraySpec,
    /// A square (or batch of square) float matrix, for linear algebra.
    pub m: ArraySpec,
    pub axis: isize,
    pub axes: Vec<isize>,
    pub n: i64,
    pub scalar: f64,
    pub flag: bool,
}

/// The arguments built on one device.
pub struct Built {
    pub a: Array,
    pub b: Array,
    pub m: Array,
    pub axis: isize,
    pub axes: Vec<isize>,
    pub n: i64,
    pub scalar: f64,
    pub flag: bool,
}

const FLOATS: [f64; 14] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    -3.25,
    7.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    1e300,
    -1e-310,
    f64::MIN_POSITIVE,
];

pub fn scalar() -> impl Strategy<Value = f64> {
    prop::sample::select(FLOATS.to_vec())
}

pub fn dtype() -> impl Strategy<Value = DType> {
    prop::sample::select(DTYPES.to_vec())
}

pub fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![Just(1usize), 0usize..=3], 0..=5)
}

pub fn view() -> impl Strategy<Value = View> {
    prop::sample::select(vec![
        View::Contiguous,
        View::Transposed,
        View::Stepped,
        View::Reversed,
    ])
}

pub fn spec_of(
    dtype: impl Strategy<Value = DType>,
    shape: impl Strategy<Value = Vec<usize>>,
) -> impl Strategy<Value = ArraySpec> {
    (dtype, shape, view(), any::<u64>()).prop_map(|(dtype, shape, view, seed)| ArraySpec {
        dtype,
        shape,
        view,
        seed,
    })
}

pub fn array_spec() -> impl Strategy<Value = ArraySpec> {
    spec_of(dtype(), shape())
}

/// A float spec `(..., k, k)` with k in 0..=4 and at most one batch axis.
pub fn square_spec() -> impl Strategy<Value = ArraySpec> {
    let float = prop::sample::select(vec![
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ]);
    let shape = (0usize..=4, prop::option::of(0usize..=2)).prop_map(|(k, batch)| match batch {
        Some(b) => vec![b, k, k],
        None => vec![k, k],
    });
    spec_of(float, shape)
}

/// `b` is often `a`'s shape (or a trailing part of it) so binary calls get
/// past broadcasting, and sometimes any shape so they must refuse it.
pub fn args() -> impl Strategy<Value = Args> {
    (
        array_spec(),
        dtype(),
        0u8..4,
        any::<u64>(),
        view(),
        square_spec(),
    )
        .prop_flat_map(|(a, b_dtype, b_kind, b_seed, b_view, m)| {
            let b_shape: BoxedStrategy<Vec<usize>> = match b_kind {
                0 | 1 => Just(a.shape.clone()).boxed(),
                2 => {
                    let tail = a.shape.len().min(1);
                    Just(a.shape[a.shape.len() - tail..].to_vec()).boxed()
                }
                _ => shape().boxed(),
            };
            let b = b_shape.prop_map(move |shape| ArraySpec {
                dtype: b_dtype,
                shape,
                view: b_view,
                seed: b_seed,
            });
            (
                Just(a),
                b,
                Just(m),
                -7isize..7,
                prop::collection::vec(-6isize..6, 0..=3),
                -3i64..10,
                scalar(),
                any::<bool>(),
            )
        })
        .prop_map(|(a, b, m, axis, axes, n, scalar, flag)| Args {
            a,
            b,
            m,
            axis,
            axes,
            n,
            scalar,
            flag,
        })
}

impl Args {
    pub fn build(&self, device: Device) -> cuprite::Result<Built> {
        Ok(Built {
            a: self.a.build(device)?,
            b: self.b.build(device)?,
            m: self.m.build(device)?,
            axis: self.axis,
            axes: self.axes.clone(),
            n: self.n,
            scalar: self.scalar,
            flag: self.flag,
        })
    }
}

/// Pseudo-random picks from a seed (a 64-bit LCG; quality does not matter).
struct Picks(u64);

impl Picks {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn float(&mut self) -> f64 {
        FLOATS[self.next() as usize % FLOATS.len()]
    }
    fn int(&mut self, min: i64, max: i64) -> i64 {
        match self.next() % 8 {
            0 => min,
            1 => max,
            2 => 0,
            3 => -1,
            _ => (self.next() % 7) as i64 - 3,
        }
    }
    fn uint(&mut self, max: u64) -> u64 {
        match self.next() % 6 {
            0 => max,
            1 => 0,
            _ => self.next() % 9,
        }
    }
}

fn typed<T: Element>(shape: &[usize], n: usize, f: impl FnMut() -> T) -> cuprite::Result<Array> {
    let data: Vec<T> = std::iter::repeat_with(f).take(n).collect();
    cuprite::from_shape_vec(shape.to_vec(), data, Order::C)
}

impl ArraySpec {
    /// The base array's shape before the view is taken.
    fn base_shape(&self) -> Vec<usize> {
        match self.view {
            View::Contiguous | View::Reversed => self.shape.clone(),
            View::Transposed => self.shape.iter().rev().copied().collect(),
            View::Stepped => self.shape.iter().map(|&d| d * 2).collect(),
        }
    }

    pub fn build(&self, device: Device) -> cuprite::Result<Array> {
        let shape = self.base_shape();
        let n: usize = shape.iter().product();
        let mut p = Picks(self.seed);
        let base = match self.dtype {
            DType::Bool => typed(&shape, n, || p.next() % 2 == 1)?,
            DType::Int8 => typed(&shape, n, || p.int(i8::MIN as i64, i8::MAX as i64) as i8)?,
            DType::Int16 => typed(&shape, n, || p.int(i16::MIN as i64, i16::MAX as i64) as i16)?,
            DType::Int32 => typed(&shape, n, || p.int(i32::MIN as i64, i32::MAX as i64) as i32)?,
            DType::Int64 => typed(&shape, n, || p.int(i64::MIN, i64::MAX))?,
            DType::UInt8 => typed(&shape, n, || p.uint(u8::MAX as u64) as u8)?,
            DType::UInt16 => typed(&shape, n, || p.uint(u16::MAX as u64) as u16)?,
            DType::UInt32 => typed(&shape, n, || p.uint(u32::MAX as u64) as u32)?,
            DType::UInt64 => typed(&shape, n, || p.uint(u64::MAX))?,
            DType::Float16 => typed(&shape, n, || f16::from_f64(p.float()))?,
            DType::BFloat16 => typed(&shape, n, || bf16::from_f64(p.float()))?,
            DType::Float32 => typed(&shape, n, || p.float() as f32)?,
            DType::Float64 => typed(&shape, n, || p.float())?,
            DType::Complex64 => typed(&shape, n, || {
                Complex32::new(p.float() as f32, p.float() as f32)
            })?,
            DType::Complex128 => typed(&shape, n, || Complex64::new(p.float(), p.float()))?,
        };
        let base = base.to_device(&device)?;
        let whole = |step: isize| SliceElem::Slice {
            start: None,
            end: None,
            inclusive: false,
            step,
        };
        match self.view {
            View::Contiguous => Ok(base),
            View::Transposed => Ok(base.transpose()),
            View::Stepped => base.slice(vec![whole(2); shape.len()]),
            View::Reversed => base.slice(vec![whole(-1); shape.len()]),
        }
    }
}

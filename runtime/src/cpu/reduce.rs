//! Reductions, scans and arg-reductions on the CPU: the element
//! arithmetic (`Num` and the accumulators), the reduction engine (a
//! `Reducer` per op, walked by one planner over every loop shape) and the
//! typed bodies of each op.

use std::cmp::Ordering;
use std::marker::PhantomData;

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

use super::CpuBackend;
use crate::core::element::Element;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::ops::reduce::{ArgReduce, Body, CpuBody, Reduce, ReduceOp, Scan};

// ---------------------------------------------------------------------------
// Element arithmetic
// ---------------------------------------------------------------------------

/// Accumulator arithmetic: wrapping for integers, IEEE for floats.
pub(crate) trait Acc: Copy + Send + Sync + 'static {
    /// The additive identity.
    const ZERO: Self;
    /// The multiplicative identity.
    const ONE: Self;
    /// Whether rounding makes the order of additions matter.
    const INEXACT: bool;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}

/// Float accumulators (real or complex), for mean and variance.
pub(crate) trait FloatAcc: Acc {
    /// The real type of `|x|^2`.
    type Real: RealAcc;
    fn sub(self, o: Self) -> Self;
    /// `self / n`, with `n` converted to the accumulator's precision.
    fn div_count(self, n: f64) -> Self;
    /// `|self|^2`, computed as `re^2 + im^2` for complex values.
    fn abs2(self) -> Self::Real;
}

/// Real float accumulators.
pub(crate) trait RealAcc: FloatAcc<Real = Self> + Element {
    fn sqrt(self) -> Self;
}

macro_rules! int_acc {
    ($($t:ty),*) => {$(
        impl Acc for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const INEXACT: bool = false;
            #[inline(always)]
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
        }
    )*};
}
int_acc!(i64, u64);

macro_rules! float_acc {
    ($($t:ty),*) => {$(
        impl Acc for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const INEXACT: bool = true;
            #[inline(always)]
            fn add(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self * o }
        }
        impl FloatAcc for $t {
            type Real = $t;
            #[inline(always)]
            fn sub(self, o: Self) -> Self { self - o }
            #[inline(always)]
            fn div_count(self, n: f64) -> Self { self / n as $t }
            #[inline(always)]
            fn abs2(self) -> Self { self * self }
        }
        impl RealAcc for $t {
            fn sqrt(self) -> Self { <$t>::sqrt(self) }
        }
    )*};
}
float_acc!(f32, f64);

macro_rules! complex_acc {
    ($($c:ty => $r:ty),*) => {$(
        impl Acc for $c {
            const ZERO: Self = <$c>::new(0.0, 0.0);
            const ONE: Self = <$c>::new(1.0, 0.0);
            const INEXACT: bool = true;
            #[inline(always)]
            fn add(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self * o }
        }
        impl FloatAcc for $c {
            type Real = $r;
            #[inline(always)]
            fn sub(self, o: Self) -> Self { self - o }
            #[inline(always)]
            fn div_count(self, n: f64) -> Self { self / n as $r }
            #[inline(always)]
            fn abs2(self) -> $r { self.re * self.re + self.im * self.im }
        }
    )*};
}
complex_acc!(Complex32 => f32, Complex64 => f64);

/// What reductions, scans and sorts need of an element type.
pub(crate) trait Num: Element {
    /// Accumulator of `sum`, `prod` and the scans.
    type Sum: Acc;
    /// Result element of `sum`, `prod` and the scans.
    type SumOut: Element;
    /// Accumulator of `mean` and `var`.
    type Mean: FloatAcc;
    /// Result element of `mean`.
    type MeanOut: Element;
    /// Result element of `var` and `std`.
    type VarOut: Element;
    /// The identity of `min` (the largest value).
    const MIN_ID: Self;
    /// The identity of `max` (the smallest value).
    const MAX_ID: Self;
    fn to_sum(self) -> Self::Sum;
    fn sum_out(a: Self::Sum) -> Self::SumOut;
    fn to_mean(self) -> Self::Mean;
    fn mean_out(a: Self::Mean) -> Self::MeanOut;
    fn var_out(a: <Self::Mean as FloatAcc>::Real) -> Self::VarOut;
    /// True for NaN (complex: either part NaN).
    fn is_nan(self) -> bool;
    /// Non-zero (NaN counts as true).
    fn truthy(self) -> bool;
    /// NumPy's `<` (lexicographic for complex); false when NaN is involved.
    fn lt(self, o: Self) -> bool;
    /// NumPy's `>` (lexicographic for complex); false when NaN is involved.
    fn gt(self, o: Self) -> bool;
    /// NumPy's sort order: a total order with NaNs last.
    fn sort_cmp(self, o: Self) -> Ordering;

    /// The maximum (`MAX`) or minimum of `init` and a contiguous run; the
    /// first NaN wins. Floats override this with a loop that vectorizes.
    #[inline]
    fn extreme_run<const MAX: bool>(xs: &[Self], init: Self) -> Self {
        let mut a = init;
        for &x in xs {
            let better = if MAX { x.gt(a) } else { x.lt(a) };
            if !a.is_nan() && (better || x.is_nan()) {
                a = x;
            }
        }
        a
    }
}

/// Orders two real floats with NaNs last (NaNs equal to each other).
#[inline]
fn nan_last_cmp<F: PartialOrd>(a: F, b: F, a_nan: bool, b_nan: bool) -> Ordering {
    match (a_nan, b_nan) {
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

macro_rules! num_int {
    ($($t:ty => $sum:ty),*) => {$(
        impl Num for $t {
            type Sum = $sum;
            type SumOut = $sum;
            type Mean = f64;
            type MeanOut = f64;
            type VarOut = f64;
            const MIN_ID: Self = <$t>::MAX;
            const MAX_ID: Self = <$t>::MIN;
            #[inline(always)]
            fn to_sum(self) -> $sum { self as $sum }
            #[inline(always)]
            fn sum_out(a: $sum) -> $sum { a }
            #[inline(always)]
            fn to_mean(self) -> f64 { self as f64 }
            #[inline(always)]
            fn mean_out(a: f64) -> f64 { a }
            #[inline(always)]
            fn var_out(a: f64) -> f64 { a }
            #[inline(always)]
            fn is_nan(self) -> bool { false }
            #[inline(always)]
            fn truthy(self) -> bool { self != 0 }
            #[inline(always)]
            fn lt(self, o: Self) -> bool { self < o }
            #[inline(always)]
            fn gt(self, o: Self) -> bool { self > o }
            #[inline(always)]
            fn sort_cmp(self, o: Self) -> Ordering { self.cmp(&o) }
        }
    )*};
}
num_int!(i8 => i64, i16 => i64, i32 => i64, i64 => i64,
    u8 => u64, u16 => u64, u32 => u64, u64 => u64);

impl Num for bool {
    type Sum = i64;
    type SumOut = i64;
    type Mean = f64;
    type MeanOut = f64;
    type VarOut = f64;
    const MIN_ID: Self = true;
    const MAX_ID: Self = false;
    #[inline(always)]
    fn to_sum(self) -> i64 {
        self as i64
    }
    #[inline(always)]
    fn sum_out(a: i64) -> i64 {
        a
    }
    #[inline(always)]
    fn to_mean(self) -> f64 {
        self as u8 as f64
    }
    #[inline(always)]
    fn mean_out(a: f64) -> f64 {
        a
    }
    #[inline(always)]
    fn var_out(a: f64) -> f64 {
        a
    }
    #[inline(always)]
    fn is_nan(self) -> bool {
        false
    }
    #[inline(always)]
    fn truthy(self) -> bool {
        self
    }
    #[inline(always)]
    fn lt(self, o: Self) -> bool {
        !self & o
    }
    #[inline(always)]
    fn gt(self, o: Self) -> bool {
        self & !o
    }
    #[inline(always)]
    fn sort_cmp(self, o: Self) -> Ordering {
        self.cmp(&o)
    }
}

macro_rules! num_float {
    ($($t:ident => $acc:ident),*) => {$(
        impl Num for $t {
            type Sum = $acc;
            type SumOut = $t;
            type Mean = $acc;
            type MeanOut = $t;
            type VarOut = $t;
            const MIN_ID: Self = <$t>::INFINITY;
            const MAX_ID: Self = <$t>::NEG_INFINITY;
            #[inline(always)]
            fn to_sum(self) -> $acc { num_float!(@widen $t, $acc, self) }
            #[inline(always)]
            fn sum_out(a: $acc) -> $t { num_float!(@narrow $t, $acc, a) }
            #[inline(always)]
            fn to_mean(self) -> $acc { num_float!(@widen $t, $acc, self) }
            #[inline(always)]
            fn mean_out(a: $acc) -> $t { num_float!(@narrow $t, $acc, a) }
            #[inline(always)]
            fn var_out(a: $acc) -> $t { num_float!(@narrow $t, $acc, a) }
            #[inline(always)]
            fn is_nan(self) -> bool { self.is_nan() }
            #[inline(always)]
            fn truthy(self) -> bool { self != <$t>::ZERO_VALUE }
            #[inline(always)]
            fn lt(self, o: Self) -> bool { self < o }
            #[inline(always)]
            fn gt(self, o: Self) -> bool { self > o }
            #[inline(always)]
            fn sort_cmp(self, o: Self) -> Ordering {
                nan_last_cmp(self, o, self.is_nan(), o.is_nan())
            }
            /// Eight branch-free lanes (NaN noted on the side), then one
            /// more pass to return the first NaN when there is one.
            fn extreme_run<const MAX: bool>(xs: &[Self], init: Self) -> Self {
                let mut acc = [init; 8];
                let mut nan = [false; 8];
                let mut chunks = xs.chunks_exact(8);
                for c in &mut chunks {
                    for k in 0..8 {
                        let x = c[k];
                        let better = if MAX { x > acc[k] } else { x < acc[k] };
                        acc[k] = if better { x } else { acc[k] };
                        nan[k] |= x != x;
                    }
                }
                let mut a = init;
                let mut any_nan = nan.iter().any(|&n| n);
                for &x in acc.iter().chain(chunks.remainder()) {
                    if if MAX { x > a } else { x < a } {
                        a = x;
                    }
                    any_nan |= x != x;
                }
                if any_nan {
                    if let Some(&first) = xs.iter().find(|x| x.is_nan()) {
                        return first;
                    }
                }
                a
            }
        }
    )*};
    (@widen f16, f32, $x:expr) => { $x.to_f32() };
    (@widen bf16, f32, $x:expr) => { $x.to_f32() };
    (@widen $t:ident, $acc:ident, $x:expr) => { $x };
    (@narrow f16, f32, $x:expr) => { f16::from_f32($x) };
    (@narrow bf16, f32, $x:expr) => { bf16::from_f32($x) };
    (@narrow $t:ident, $acc:ident, $x:expr) => { $x };
}

/// Zero of each float type, for truthiness tests.
trait ZeroValue {
    const ZERO_VALUE: Self;
}
impl ZeroValue for f16 {
    const ZERO_VALUE: Self = f16::ZERO;
}
impl ZeroValue for bf16 {
    const ZERO_VALUE: Self = bf16::ZERO;
}
impl ZeroValue for f32 {
    const ZERO_VALUE: Self = 0.0;
}
impl ZeroValue for f64 {
    const ZERO_VALUE: Self = 0.0;
}

num_float!(f16 => f32, bf16 => f32, f32 => f32, f64 => f64);

macro_rules! num_complex {
    ($($c:ty => $r:ty),*) => {$(
        impl Num for $c {
            type Sum = $c;
            type SumOut = $c;
            type Mean = $c;
            type MeanOut = $c;
            type VarOut = $r;
            const MIN_ID: Self = <$c>::new(<$r>::INFINITY, <$r>::INFINITY);
            const MAX_ID: Self = <$c>::new(<$r>::NEG_INFINITY, <$r>::NEG_INFINITY);
            #[inline(always)]
            fn to_sum(self) -> $c { self }
            #[inline(always)]
            fn sum_out(a: $c) -> $c { a }
            #[inline(always)]
            fn to_mean(self) -> $c { self }
            #[inline(always)]
            fn mean_out(a: $c) -> $c { a }
            #[inline(always)]
            fn var_out(a: $r) -> $r { a }
            #[inline(always)]
            fn is_nan(self) -> bool { self.re.is_nan() || self.im.is_nan() }
            #[inline(always)]
            fn truthy(self) -> bool { self.re != 0.0 || self.im != 0.0 }
            #[inline(always)]
            fn lt(self, o: Self) -> bool {
                self.re < o.re || (self.re == o.re && self.im < o.im)
            }
            #[inline(always)]
            fn gt(self, o: Self) -> bool {
                self.re > o.re || (self.re == o.re && self.im > o.im)
            }
            /// NumPy's complex order: non-NaN values lexicographically,
            /// then `R+nanj`, then `nan+Rj`, then `nan+nanj`.
            fn sort_cmp(self, o: Self) -> Ordering {
                let an = (self.re.is_nan(), self.im.is_nan());
                let bn = (o.re.is_nan(), o.im.is_nan());
                an.cmp(&bn)
                    .then_with(|| nan_last_cmp(self.re, o.re, an.0, bn.0))
                    .then_with(|| nan_last_cmp(self.im, o.im, an.1, bn.1))
            }
        }
    )*};
}
num_complex!(Complex32 => f32, Complex64 => f64);

// ---------------------------------------------------------------------------
// The reduction engine
// ---------------------------------------------------------------------------

/// One reduction's element step, written once for every loop shape.
///
/// `Aux` is a per-output value the step may use (the mean, for `var`).
trait Reducer {
    type In: Copy;
    type Aux: Copy;
    type Acc: Copy;
    /// Whether to sum pairwise (for accuracy of inexact accumulators).
    const PAIRWISE: bool;
    fn identity(&self) -> Self::Acc;
    fn step(&self, acc: Self::Acc, x: Self::In, aux: Self::Aux) -> Self::Acc;
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// Folds a contiguous run (reducers with a faster loop override it).
    fn fold_run(&self, xs: &[Self::In], aux: Self::Aux) -> Self::Acc
    where
        Self: Sized,
    {
        fold_slice(self, xs, aux)
    }
}

/// Up to this many elements a contiguous run is folded in one block.
const BLOCK: usize = 128;
/// Up to this many rows are accumulated linearly in the row-wise loop.
const ROW_BLOCK: usize = 8;

/// Folds a contiguous run: eight interleaved accumulators per block of
/// `BLOCK` elements, blocks combined pairwise (NumPy's pairwise summation).
fn fold_slice<R: Reducer>(r: &R, xs: &[R::In], aux: R::Aux) -> R::Acc {
    if R::PAIRWISE && xs.len() > BLOCK {
        let mid = (xs.len() / 2) & !7;
        return r.combine(
            fold_slice(r, &xs[..mid], aux),
            fold_slice(r, &xs[mid..], aux),
        );
    }
    if xs.len() < 8 {
        return xs.iter().fold(r.identity(), |a, &x| r.step(a, x, aux));
    }
    let mut a = [r.identity(); 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for k in 0..8 {
            a[k] = r.step(a[k], c[k], aux);
        }
    }
    let mut acc = r.combine(
        r.combine(r.combine(a[0], a[1]), r.combine(a[2], a[3])),
        r.combine(r.combine(a[4], a[5]), r.combine(a[6], a[7])),
    );
    for &x in chunks.remainder() {
        acc = r.step(acc, x, aux);
    }
    acc
}

/// Folds `n` elements at `base, base + stride, ...` (pairwise when inexact).
fn fold_strided<R: Reducer>(
    r: &R,
    data: &[R::In],
    base: isize,
    n: usize,
    stride: isize,
    aux: R::Aux,
) -> R::Acc {
    if stride == 1 {
        let b = base as usize;
        return r.fold_run(&data[b..b + n], aux);
    }
    if R::PAIRWISE && n > BLOCK {
        let mid = (n / 2) & !7;
        return r.combine(
            fold_strided(r, data, base, mid, stride, aux),
            fold_strided(r, data, base + mid as isize * stride, n - mid, stride, aux),
        );
    }
    let mut acc = r.identity();
    let mut p = base;
    for _ in 0..n {
        acc = r.step(acc, data[p as usize], aux);
        p += stride;
    }
    acc
}

/// Combines `leaf(lo..hi)` as a balanced tree (needs `lo < hi`).
fn tree<R: Reducer>(r: &R, lo: usize, hi: usize, leaf: &impl Fn(usize) -> R::Acc) -> R::Acc {
    if hi - lo == 1 {
        return leaf(lo);
    }
    let mid = lo + (hi - lo) / 2;
    r.combine(tree(r, lo, mid, leaf), tree(r, mid, hi, leaf))
}

/// Folds every element of an n-d block (shape and strides of the reduced
/// axes, every extent > 0), innermost axis first.
fn fold_nd<R: Reducer>(
    r: &R,
    data: &[R::In],
    shape: &[usize],
    strides: &[isize],
    base: isize,
    aux: R::Aux,
) -> R::Acc {
    match shape.len() {
        0 => r.step(r.identity(), data[base as usize], aux),
        1 => fold_strided(r, data, base, shape[0], strides[0], aux),
        _ => {
            let leaf = |i: usize| {
                fold_nd(
                    r,
                    data,
                    &shape[1..],
                    &strides[1..],
                    base + i as isize * strides[0],
                    aux,
                )
            };
            if R::PAIRWISE {
                tree(r, 0, shape[0], &leaf)
            } else {
                (0..shape[0]).fold(r.identity(), |a, i| r.combine(a, leaf(i)))
            }
        }
    }
}

/// Calls `f` with the offset of every index of `shape` (C order), from `base`.
pub(crate) fn for_each_offset(
    shape: &[usize],
    strides: &[isize],
    base: isize,
    mut f: impl FnMut(isize),
) {
    if shape.contains(&0) {
        return;
    }
    let Some((&last, outer)) = shape.split_last() else {
        f(base);
        return;
    };
    let last_stride = strides[shape.len() - 1];
    let mut index = vec![0usize; outer.len()];
    let mut p = base;
    loop {
        let mut q = p;
        for _ in 0..last {
            f(q);
            q += last_stride;
        }
        // Advance the odometer over the outer axes.
        let mut ax = outer.len();
        loop {
            if ax == 0 {
                return;
            }
            ax -= 1;
            index[ax] += 1;
            p += strides[ax];
            if index[ax] < outer[ax] {
                break;
            }
            p -= strides[ax] * outer[ax] as isize;
            index[ax] = 0;
        }
    }
}

/// The offset of C-order index `k` of `shape` with `strides`.
fn offset_of(mut k: usize, shape: &[usize], strides: &[isize]) -> isize {
    let mut off = 0isize;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        off += (k % d) as isize * s;
        k /= d;
    }
    off
}

/// Drops extent-1 axes and merges axes that are contiguous together.
fn merge(shape: &[usize], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    let mut out_shape: Vec<usize> = Vec::with_capacity(shape.len());
    let mut out_strides: Vec<isize> = Vec::with_capacity(shape.len());
    for (&d, &s) in shape.iter().zip(strides) {
        if d == 1 {
            continue;
        }
        match (out_shape.last_mut(), out_strides.last_mut()) {
            (Some(pd), Some(ps)) if *ps == s * d as isize => {
                *pd *= d;
                *ps = s;
            }
            _ => {
                out_shape.push(d);
                out_strides.push(s);
            }
        }
    }
    (out_shape, out_strides)
}

/// How a reduction walks the input: kept axes (in the output's C order)
/// and reduced axes (in any order, here the memory order).
#[derive(Debug)]
struct Plan {
    /// Kept axes, merged where contiguous, with input strides.
    outer_shape: Vec<usize>,
    outer_strides: Vec<isize>,
    /// Reduced axes, made positive-strided, sorted by stride and merged.
    inner_shape: Vec<usize>,
    inner_strides: Vec<isize>,
    /// Input position of the first element of the walk.
    base: isize,
    /// Number of outputs.
    n_out: usize,
    /// Number of elements reduced into each output.
    n_in: usize,
}

impl Plan {
    /// Plans the reduction of `x` over the axes set in `mask`.
    fn new(x: View<'_>, mask: &[bool]) -> Plan {
        let (shape, strides) = (x.shape(), x.strides());
        let mut base = x.offset() as isize;
        let mut outer: Vec<(usize, isize)> = Vec::new();
        let mut inner: Vec<(usize, isize)> = Vec::new();
        for ax in 0..shape.len() {
            let (d, s) = (shape[ax], strides[ax]);
            if mask[ax] {
                // The order of the reduced elements does not matter: walk
                // them forwards in memory.
                if s < 0 && d > 0 {
                    base += (d as isize - 1) * s;
                    inner.push((d, -s));
                } else {
                    inner.push((d, s));
                }
            } else {
                outer.push((d, s));
            }
        }
        let n_out = outer.iter().map(|a| a.0).product();
        let n_in = inner.iter().map(|a| a.0).product();
        // Largest stride outermost; broadcast (stride 0) axes outside all.
        inner.sort_by_key(|&(_, s)| std::cmp::Reverse(if s == 0 { isize::MAX } else { s }));
        let (os, ot): (Vec<usize>, Vec<isize>) = outer.into_iter().unzip();
        let (is, it): (Vec<usize>, Vec<isize>) = inner.into_iter().unzip();
        let (outer_shape, outer_strides) = merge(&os, &ot);
        let (inner_shape, inner_strides) = merge(&is, &it);
        Plan {
            outer_shape,
            outer_strides,
            inner_shape,
            inner_strides,
            base,
            n_out,
            n_in,
        }
    }
}

/// Runs `r` over the plan: one accumulator per output, in C order.
/// `aux` has one entry per output.
fn run<R: Reducer>(r: &R, data: &[R::In], p: &Plan, aux: &[R::Aux]) -> Vec<R::Acc> {
    let mut out = vec![r.identity(); p.n_out];
    if p.n_out == 0 || p.n_in == 0 {
        return out;
    }
    let inner_contiguous = p.inner_strides.last() == Some(&1);
    let rows_contiguous =
        p.outer_strides.last() == Some(&1) && p.outer_shape.last().is_some_and(|&m| m >= 8);
    if !inner_contiguous && rows_contiguous && !p.inner_shape.is_empty() {
        run_rows(r, data, p, aux, &mut out);
    } else {
        let mut o = 0;
        for_each_offset(&p.outer_shape, &p.outer_strides, p.base, |pos| {
            out[o] = fold_nd(r, data, &p.inner_shape, &p.inner_strides, pos, aux[o]);
            o += 1;
        });
    }
    out
}

/// The row-wise loop, for reductions over outer axes of contiguous rows
/// (`x.sum_axis(0)` of a C-ordered matrix): each reduced index adds a whole
/// contiguous row of inputs into a row of accumulators. Inexact
/// accumulators combine blocks of rows pairwise.
fn run_rows<R: Reducer>(r: &R, data: &[R::In], p: &Plan, aux: &[R::Aux], out: &mut [R::Acc]) {
    let k = p.outer_shape.len();
    let m = p.outer_shape[k - 1];
    let mut row_bases = Vec::with_capacity(p.n_out / m);
    for_each_offset(&p.outer_shape[..k - 1], &p.outer_strides[..k - 1], 0, |o| {
        row_bases.push(o)
    });
    let accumulate = |ki: usize, acc: &mut [R::Acc]| {
        let ib = p.base + offset_of(ki, &p.inner_shape, &p.inner_strides);
        for (ri, &rb) in row_bases.iter().enumerate() {
            let start = (ib + rb) as usize;
            let xs = &data[start..start + m];
            let a = &mut acc[ri * m..(ri + 1) * m];
            let au = &aux[ri * m..(ri + 1) * m];
            for ((a, &x), &au) in a.iter_mut().zip(xs).zip(au) {
                *a = r.step(*a, x, au);
            }
        }
    };
    // Depth of the pairwise tree: the right halves are the longer ones.
    let mut depth = 0;
    if R::PAIRWISE {
        let mut n = p.n_in;
        while n > ROW_BLOCK {
            n -= n / 2;
            depth += 1;
        }
    }
    let mut spare: Vec<Vec<R::Acc>> = (0..depth).map(|_| vec![r.identity(); p.n_out]).collect();
    rows_tree(r, &accumulate, 0, p.n_in, out, &mut spare);
}

/// Accumulates reduced indices `lo..hi` into `acc` (pairwise over blocks).
fn rows_tree<R: Reducer>(
    r: &R,
    accumulate: &impl Fn(usize, &mut [R::Acc]),
    lo: usize,
    hi: usize,
    acc: &mut [R::Acc],
    spare: &mut [Vec<R::Acc>],
) {
    if !R::PAIRWISE || hi - lo <= ROW_BLOCK || spare.is_empty() {
        acc.fill(r.identity());
        for ki in lo..hi {
            accumulate(ki, acc);
        }
        return;
    }
    let mid = lo + (hi - lo) / 2;
    rows_tree(r, accumulate, lo, mid, acc, spare);
    let (tmp, rest) = spare.split_first_mut().expect("spare is not empty");
    rows_tree(r, accumulate, mid, hi, tmp, rest);
    for (a, &t) in acc.iter_mut().zip(tmp.iter()) {
        *a = r.combine(*a, t);
    }
}

// ---------------------------------------------------------------------------
// Reducers
// ---------------------------------------------------------------------------

struct SumR<T>(PhantomData<T>);
impl<T: Num> Reducer for SumR<T> {
    type In = T;
    type Aux = ();
    type Acc = T::Sum;
    const PAIRWISE: bool = T::Sum::INEXACT;
    fn identity(&self) -> T::Sum {
        T::Sum::ZERO
    }
    #[inline(always)]
    fn step(&self, a: T::Sum, x: T, _: ()) -> T::Sum {
        a.add(x.to_sum())
    }
    #[inline(always)]
    fn combine(&self, a: T::Sum, b: T::Sum) -> T::Sum {
        a.add(b)
    }
}

struct ProdR<T>(PhantomData<T>);
impl<T: Num> Reducer for ProdR<T> {
    type In = T;
    type Aux = ();
    type Acc = T::Sum;
    const PAIRWISE: bool = T::Sum::INEXACT;
    fn identity(&self) -> T::Sum {
        T::Sum::ONE
    }
    #[inline(always)]
    fn step(&self, a: T::Sum, x: T, _: ()) -> T::Sum {
        a.mul(x.to_sum())
    }
    #[inline(always)]
    fn combine(&self, a: T::Sum, b: T::Sum) -> T::Sum {
        a.mul(b)
    }
}

struct MeanR<T>(PhantomData<T>);
impl<T: Num> Reducer for MeanR<T> {
    type In = T;
    type Aux = ();
    type Acc = T::Mean;
    const PAIRWISE: bool = true;
    fn identity(&self) -> T::Mean {
        T::Mean::ZERO
    }
    #[inline(always)]
    fn step(&self, a: T::Mean, x: T, _: ()) -> T::Mean {
        a.add(x.to_mean())
    }
    #[inline(always)]
    fn combine(&self, a: T::Mean, b: T::Mean) -> T::Mean {
        a.add(b)
    }
}

/// Sum of `|x - mean|^2`, the mean of each output given as `aux`.
struct SqDevR<T>(PhantomData<T>);
type RealOf<T> = <<T as Num>::Mean as FloatAcc>::Real;
impl<T: Num> Reducer for SqDevR<T> {
    type In = T;
    type Aux = T::Mean;
    type Acc = RealOf<T>;
    const PAIRWISE: bool = true;
    fn identity(&self) -> RealOf<T> {
        <RealOf<T> as Acc>::ZERO
    }
    #[inline(always)]
    fn step(&self, a: RealOf<T>, x: T, mean: T::Mean) -> RealOf<T> {
        a.add(x.to_mean().sub(mean).abs2())
    }
    #[inline(always)]
    fn combine(&self, a: RealOf<T>, b: RealOf<T>) -> RealOf<T> {
        a.add(b)
    }
}

/// `min` (`MAX == false`) or `max` (`MAX == true`), NaN propagating.
struct ExtremeR<T, const MAX: bool>(PhantomData<T>);
impl<T: Num, const MAX: bool> Reducer for ExtremeR<T, MAX> {
    type In = T;
    type Aux = ();
    type Acc = T;
    const PAIRWISE: bool = false;
    fn identity(&self) -> T {
        if MAX {
            T::MAX_ID
        } else {
            T::MIN_ID
        }
    }
    #[inline(always)]
    fn step(&self, a: T, x: T, _: ()) -> T {
        let better = if MAX { x.gt(a) } else { x.lt(a) };
        // The first NaN wins and stays (a complex NaN may still compare
        // by its other part, so test the accumulator explicitly).
        if !a.is_nan() && (better || x.is_nan()) {
            x
        } else {
            a
        }
    }
    #[inline(always)]
    fn combine(&self, a: T, b: T) -> T {
        self.step(a, b, ())
    }
    fn fold_run(&self, xs: &[T], _: ()) -> T {
        T::extreme_run::<MAX>(xs, self.identity())
    }
}

/// `nansum` (`PROD == false`) or `nanprod`: NaNs are skipped (the identity).
struct NanSumR<T, const PROD: bool>(PhantomData<T>);
impl<T: Num, const PROD: bool> Reducer for NanSumR<T, PROD> {
    type In = T;
    type Aux = ();
    type Acc = T::Sum;
    const PAIRWISE: bool = T::Sum::INEXACT;
    fn identity(&self) -> T::Sum {
        if PROD {
            T::Sum::ONE
        } else {
            T::Sum::ZERO
        }
    }
    #[inline(always)]
    fn step(&self, a: T::Sum, x: T, _: ()) -> T::Sum {
        if x.is_nan() {
            a
        } else if PROD {
            a.mul(x.to_sum())
        } else {
            a.add(x.to_sum())
        }
    }
    #[inline(always)]
    fn combine(&self, a: T::Sum, b: T::Sum) -> T::Sum {
        if PROD {
            a.mul(b)
        } else {
            a.add(b)
        }
    }
}

/// `nanmin` (`MAX == false`) or `nanmax`: the extreme of the non-NaN
/// elements, with whether one was seen. Until one is, the accumulator
/// keeps a NaN it met, so an all-NaN run gives NaN (NumPy's result, its
/// RuntimeWarning dropped).
struct NanExtremeR<T, const MAX: bool>(PhantomData<T>);
impl<T: Num, const MAX: bool> Reducer for NanExtremeR<T, MAX> {
    type In = T;
    type Aux = ();
    type Acc = (T, bool);
    const PAIRWISE: bool = false;
    fn identity(&self) -> (T, bool) {
        (if MAX { T::MAX_ID } else { T::MIN_ID }, false)
    }
    #[inline(always)]
    fn step(&self, a: (T, bool), x: T, _: ()) -> (T, bool) {
        if x.is_nan() {
            if a.1 {
                a
            } else {
                (x, false)
            }
        } else if !a.1 || (if MAX { x.gt(a.0) } else { x.lt(a.0) }) {
            (x, true)
        } else {
            a
        }
    }
    #[inline(always)]
    fn combine(&self, a: (T, bool), b: (T, bool)) -> (T, bool) {
        match (a.1, b.1) {
            (true, true) => {
                if if MAX { b.0.gt(a.0) } else { b.0.lt(a.0) } {
                    b
                } else {
                    a
                }
            }
            (true, false) => a,
            (false, true) => b,
            (false, false) => {
                if a.0.is_nan() {
                    a
                } else {
                    b
                }
            }
        }
    }
}

/// `all` (`ANY == false`) or `any` (`ANY == true`).
struct TruthR<T, const ANY: bool>(PhantomData<T>);
impl<T: Num, const ANY: bool> Reducer for TruthR<T, ANY> {
    type In = T;
    type Aux = ();
    type Acc = bool;
    const PAIRWISE: bool = false;
    fn identity(&self) -> bool {
        !ANY
    }
    #[inline(always)]
    fn step(&self, a: bool, x: T, _: ()) -> bool {
        if ANY {
            a | x.truthy()
        } else {
            a & x.truthy()
        }
    }
    #[inline(always)]
    fn combine(&self, a: bool, b: bool) -> bool {
        if ANY {
            a | b
        } else {
            a & b
        }
    }
}

// ---------------------------------------------------------------------------
// Typed bodies
// ---------------------------------------------------------------------------

/// Runs `f` on the host buffer of `x` (typed as `T`).
fn read<T: Element, R>(x: View<'_>, f: impl FnOnce(&[T]) -> R) -> R {
    match x.storage {
        Storage::Cpu(s) => f(T::slice(&s.read()).expect("the buffer holds the view's dtype")),
        Storage::Cuda(_) => unreachable!("the CPU backend runs on host buffers"),
    }
}

/// Runs `f` with a [`Sink`] over the elements of `out`, a C-contiguous host
/// view of `T` that the caller fills in order.
fn write<T: Element, R>(out: View<'_>, f: impl FnOnce(&mut Sink<'_, T>) -> R) -> R {
    debug_assert!(out.is_c_contiguous());
    match out.storage {
        Storage::Cpu(s) => {
            let mut guard = s.write();
            let data = T::slice_mut(&mut guard).expect("the buffer holds the view's dtype");
            let start = out.offset();
            let mut sink = Sink {
                dst: &mut data[start..start + out.size()],
                at: 0,
            };
            let r = f(&mut sink);
            debug_assert_eq!(sink.at, out.size(), "every output element is written");
            r
        }
        Storage::Cuda(_) => unreachable!("the CPU backend runs on host buffers"),
    }
}

/// The output elements, written in C order.
struct Sink<'a, T> {
    dst: &'a mut [T],
    at: usize,
}

impl<T: Copy> Sink<'_, T> {
    #[inline(always)]
    fn push(&mut self, v: T) {
        self.dst[self.at] = v;
        self.at += 1;
    }
    fn extend_from_slice(&mut self, vs: &[T]) {
        self.dst[self.at..self.at + vs.len()].copy_from_slice(vs);
        self.at += vs.len();
    }
    fn extend(&mut self, vs: impl IntoIterator<Item = T>) {
        for v in vs {
            self.push(v);
        }
    }
}

/// One `()` per output, for reducers without a per-output value.
fn no_aux(n: usize) -> Vec<()> {
    vec![(); n]
}

fn sum_cpu<T: Num>(x: View<'_>, p: &Plan, prod: bool, out: View<'_>) {
    let acc = read::<T, _>(x, |data| {
        if prod {
            run(&ProdR::<T>(PhantomData), data, p, &no_aux(p.n_out))
        } else {
            run(&SumR::<T>(PhantomData), data, p, &no_aux(p.n_out))
        }
    });
    write(out, |o| o.extend(acc.into_iter().map(T::sum_out)));
}

/// The means of each output, in the accumulator type.
fn means<T: Num>(data: &[T], p: &Plan) -> Vec<T::Mean> {
    let mut m = run(&MeanR::<T>(PhantomData), data, p, &no_aux(p.n_out));
    let n = p.n_in as f64;
    for v in &mut m {
        *v = v.div_count(n);
    }
    m
}

fn mean_cpu<T: Num>(x: View<'_>, p: &Plan, out: View<'_>) {
    let m = read::<T, _>(x, |data| means(data, p));
    write(out, |o| o.extend(m.into_iter().map(T::mean_out)));
}

fn var_cpu<T: Num>(x: View<'_>, p: &Plan, ddof: usize, sqrt: bool, out: View<'_>) {
    let ss = read::<T, _>(x, |data| {
        let m = means(data, p);
        run(&SqDevR::<T>(PhantomData), data, p, &m)
    });
    // NumPy divides by max(n - ddof, 0): inf or NaN when that is 0.
    let div = p.n_in.saturating_sub(ddof) as f64;
    write(out, |o| {
        o.extend(ss.into_iter().map(|s| {
            let v = s.div_count(div);
            T::var_out(if sqrt { v.sqrt() } else { v })
        }))
    });
}

fn extreme_cpu<T: Num, const MAX: bool>(x: View<'_>, p: &Plan, out: View<'_>) {
    let acc = read::<T, _>(x, |data| {
        run(&ExtremeR::<T, MAX>(PhantomData), data, p, &no_aux(p.n_out))
    });
    write(out, |o| o.extend_from_slice(&acc));
}

fn nan_sum_cpu<T: Num, const PROD: bool>(x: View<'_>, p: &Plan, out: View<'_>) {
    let acc = read::<T, _>(x, |data| {
        run(&NanSumR::<T, PROD>(PhantomData), data, p, &no_aux(p.n_out))
    });
    write(out, |o| o.extend(acc.into_iter().map(T::sum_out)));
}

fn nan_extreme_cpu<T: Num, const MAX: bool>(x: View<'_>, p: &Plan, out: View<'_>) {
    let acc = read::<T, _>(x, |data| {
        run(
            &NanExtremeR::<T, MAX>(PhantomData),
            data,
            p,
            &no_aux(p.n_out),
        )
    });
    write(out, |o| o.extend(acc.into_iter().map(|a| a.0)));
}

fn truth_cpu<T: Num, const ANY: bool>(x: View<'_>, p: &Plan, out: View<'_>) {
    let acc = read::<T, _>(x, |data| {
        run(&TruthR::<T, ANY>(PhantomData), data, p, &no_aux(p.n_out))
    });
    write(out, |o| o.extend_from_slice(&acc));
}

impl Reduce for CpuBackend {
    fn reduce(&self, op: ReduceOp, x: View<'_>, axes: &[usize], out: View<'_>) -> Result<()> {
        let mut mask = vec![false; x.ndim()];
        for &a in axes {
            mask[a] = true;
        }
        let plan = Plan::new(x, &mask);
        let body = match op.body() {
            Body::Pass { cpu, .. } => cpu,
            Body::Difference(..) => return Err(crate::ops::reduce::composite(op)),
        };
        // One loop per CPU body of the reduction table (`ops/reduce.rs`).
        crate::with_dtype!(x.dtype(), T => match body {
            CpuBody::Sum { prod } => sum_cpu::<T>(x, &plan, prod, out),
            CpuBody::Mean => mean_cpu::<T>(x, &plan, out),
            CpuBody::Var { sqrt } => var_cpu::<T>(x, &plan, op.ddof(), sqrt, out),
            CpuBody::Extreme { max: false } => extreme_cpu::<T, false>(x, &plan, out),
            CpuBody::Extreme { max: true } => extreme_cpu::<T, true>(x, &plan, out),
            CpuBody::Truth { any: false } => truth_cpu::<T, false>(x, &plan, out),
            CpuBody::Truth { any: true } => truth_cpu::<T, true>(x, &plan, out),
            CpuBody::NanSum { prod: false } => nan_sum_cpu::<T, false>(x, &plan, out),
            CpuBody::NanSum { prod: true } => nan_sum_cpu::<T, true>(x, &plan, out),
            CpuBody::NanExtreme { max: false } => nan_extreme_cpu::<T, false>(x, &plan, out),
            CpuBody::NanExtreme { max: true } => nan_extreme_cpu::<T, true>(x, &plan, out),
        });
        Ok(())
    }
}

/// Index of the first maximum (`MAX`) or minimum; a NaN counts as the
/// extreme, so the first NaN's index is returned. `xs` is not empty.
fn arg_scan<T: Num, const MAX: bool>(mut xs: impl Iterator<Item = T>) -> usize {
    let mut best = match xs.next() {
        Some(b) => b,
        None => return 0,
    };
    if best.is_nan() {
        return 0;
    }
    let mut at = 0;
    for (i, x) in xs.enumerate() {
        if x.is_nan() {
            return i + 1;
        }
        if if MAX { x.gt(best) } else { x.lt(best) } {
            best = x;
            at = i + 1;
        }
    }
    at
}

/// As [`arg_scan`] for a contiguous run: finds the extreme with the
/// vectorized loop, then its first position.
fn arg_run<T: Num, const MAX: bool>(xs: &[T]) -> usize {
    let init = if MAX { T::MAX_ID } else { T::MIN_ID };
    let m = T::extreme_run::<MAX>(xs, init);
    let at = if m.is_nan() {
        first_where(xs, |x| x.is_nan())
    } else {
        first_where(xs, |x| x == m)
    };
    at.unwrap_or(0)
}

/// The first index where `pred` holds, testing blocks without branches.
fn first_where<T: Copy>(xs: &[T], pred: impl Fn(T) -> bool) -> Option<usize> {
    let mut start = 0;
    for block in xs.chunks(64) {
        if block.iter().fold(false, |hit, &x| hit | pred(x)) {
            return block.iter().position(|&x| pred(x)).map(|i| start + i);
        }
        start += block.len();
    }
    None
}

fn arg_flat_cpu<T: Num, const MAX: bool>(x: View<'_>) -> usize {
    let layout = x.layout;
    read::<T, _>(x, |data| {
        if layout.is_c_contiguous() {
            let start = layout.offset();
            arg_run::<T, MAX>(&data[start..start + layout.size()])
        } else {
            arg_scan::<T, MAX>(layout.positions().map(|i| data[i]))
        }
    })
}

fn arg_axis_cpu<T: Num, const MAX: bool>(x: View<'_>, axis: usize, out: &mut Sink<'_, i64>) {
    let (shape, strides) = (x.shape(), x.strides());
    let (n, s) = (shape[axis], strides[axis]);
    let mut os = shape.to_vec();
    let mut ot = strides.to_vec();
    os.remove(axis);
    ot.remove(axis);
    let (inner_shape, inner_strides) = merge(&shape[axis + 1..], &strides[axis + 1..]);
    let offset = x.offset() as isize;
    read::<T, _>(x, |data| {
        if s != 1 && inner_strides == [1] && inner_shape[0] >= 8 {
            // Row-wise: each index along `axis` updates a contiguous row of
            // running extremes and their indices.
            let m = inner_shape[0];
            let mut best: Vec<T> = vec![T::default(); m];
            let mut at: Vec<i64> = vec![0; m];
            for_each_offset(&shape[..axis], &strides[..axis], offset, |base| {
                let b = base as usize;
                best.copy_from_slice(&data[b..b + m]);
                at.fill(0);
                for k in 1..n {
                    let row = (base + k as isize * s) as usize;
                    let xs = &data[row..row + m];
                    for ((a, i), &x) in best.iter_mut().zip(at.iter_mut()).zip(xs) {
                        let better = if MAX { x.gt(*a) } else { x.lt(*a) };
                        if !a.is_nan() && (better || x.is_nan()) {
                            *a = x;
                            *i = k as i64;
                        }
                    }
                }
                out.extend_from_slice(&at);
            });
            return;
        }
        for_each_offset(&os, &ot, offset, |base| {
            let i = if s == 1 {
                let b = base as usize;
                arg_run::<T, MAX>(&data[b..b + n])
            } else {
                arg_scan::<T, MAX>((0..n).map(|i| data[(base + i as isize * s) as usize]))
            };
            out.push(i as i64);
        });
    });
}

impl ArgReduce for CpuBackend {
    fn arg_reduce(&self, max: bool, x: View<'_>, axis: Option<usize>, out: View<'_>) -> Result<()> {
        write::<i64, _>(out, |o| match axis {
            None => {
                let i = crate::with_dtype!(x.dtype(), T => if max {
                    arg_flat_cpu::<T, true>(x)
                } else {
                    arg_flat_cpu::<T, false>(x)
                });
                o.push(i as i64);
            }
            Some(axis) => crate::with_dtype!(x.dtype(), T => if max {
                arg_axis_cpu::<T, true>(x, axis, o)
            } else {
                arg_axis_cpu::<T, false>(x, axis, o)
            }),
        });
        Ok(())
    }
}

/// Running sums (`PROD == false`) or products along `axis` of `x`, or over
/// the flattened array when `axis` is `None`.
fn scan_cpu<T: Num, const PROD: bool>(
    x: View<'_>,
    axis: Option<usize>,
    out: &mut Sink<'_, T::SumOut>,
) {
    let step = |a: T::Sum, v: T| {
        if PROD {
            a.mul(v.to_sum())
        } else {
            a.add(v.to_sum())
        }
    };
    let id = if PROD { T::Sum::ONE } else { T::Sum::ZERO };
    if x.size() == 0 {
        return;
    }
    let layout = x.layout;
    read::<T, _>(x, |data| {
        let Some(axis) = axis else {
            let mut acc = id;
            for p in layout.positions() {
                acc = step(acc, data[p]);
                out.push(T::sum_out(acc));
            }
            return;
        };
        let (shape, strides) = (layout.shape(), layout.strides());
        let (n, s) = (shape[axis], strides[axis]);
        let (inner_shape, inner_strides) = merge(&shape[axis + 1..], &strides[axis + 1..]);
        let m: usize = inner_shape.iter().product();
        let mut accs = vec![id; m];
        let base = layout.offset() as isize;
        for_each_offset(&shape[..axis], &strides[..axis], base, |lane| {
            if inner_shape.is_empty() {
                // Scanning the last (non-trivial) axis: one lane at a time.
                let mut acc = id;
                for i in 0..n {
                    acc = step(acc, data[(lane + i as isize * s) as usize]);
                    out.push(T::sum_out(acc));
                }
                return;
            }
            accs.fill(id);
            for i in 0..n {
                let row = lane + i as isize * s;
                if inner_strides == [1] {
                    let xs = &data[row as usize..row as usize + m];
                    for (a, &v) in accs.iter_mut().zip(xs) {
                        *a = step(*a, v);
                        out.push(T::sum_out(*a));
                    }
                } else {
                    let mut j = 0;
                    for_each_offset(&inner_shape, &inner_strides, row, |q| {
                        accs[j] = step(accs[j], data[q as usize]);
                        out.push(T::sum_out(accs[j]));
                        j += 1;
                    });
                }
            }
        });
    });
}

impl Scan for CpuBackend {
    fn scan(&self, prod: bool, x: View<'_>, axis: Option<usize>, out: View<'_>) -> Result<()> {
        crate::with_dtype!(x.dtype(), T => write::<<T as Num>::SumOut, _>(out, |o| if prod {
            scan_cpu::<T, true>(x, axis, o)
        } else {
            scan_cpu::<T, false>(x, axis, o)
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::reductions::tests::reversed;

    #[test]
    fn plan_walks_reduced_axes_in_memory_order() {
        // A transposed C array reduced over every axis is one contiguous run.
        let a = crate::zeros([4, 6], crate::DType::Float32).unwrap();
        let p = Plan::new(a.t().view(), &[true, true]);
        assert_eq!((p.inner_shape, p.inner_strides), (vec![24], vec![1]));
        // A reversed axis is walked forwards from its lowest address.
        let r = reversed();
        let p = Plan::new(r.view(), &[false, true, true]);
        // r[0] covers positions 11, 9, ..., 1: one run of 6 with stride 2 from 1.
        assert_eq!(p.base, 1);
        assert_eq!((p.inner_shape, p.inner_strides), (vec![6], vec![2]));
        assert_eq!(p.outer_shape, vec![2]);
    }

    #[test]
    fn merge_joins_contiguous_axes() {
        assert_eq!(merge(&[2, 3, 4], &[12, 4, 1]), (vec![24], vec![1]));
        assert_eq!(merge(&[2, 1, 4], &[8, 99, 1]), (vec![2, 4], vec![8, 1]));
        assert_eq!(merge(&[3, 4], &[0, 0]), (vec![12], vec![0]));
    }

    #[test]
    fn offsets_walk_c_order() {
        let mut v = Vec::new();
        for_each_offset(&[2, 3], &[1, 2], 10, |p| v.push(p));
        assert_eq!(v, vec![10, 12, 14, 11, 13, 15]);
        let mut v = Vec::new();
        for_each_offset(&[], &[], 5, |p| v.push(p));
        assert_eq!(v, vec![5]);
        assert_eq!(offset_of(5, &[2, 3], &[1, 2]), 1 + 2 * 2);
    }

    #[test]
    fn pairwise_sum_of_many_small_values_is_accurate() {
        // 2^24 + 1 would be lost by a naive float32 loop; pairwise keeps it close.
        let xs = vec![0.1f32; 1 << 20];
        let s = fold_slice(&SumR::<f32>(PhantomData), &xs, ());
        assert!((s as f64 - 104857.6).abs() < 0.05, "{s}");
    }

    #[test]
    fn vectorized_extremes_and_their_first_positions() {
        // NumPy 2.4: x = np.array([(i * 7) % 13 - 6 for i in range(20)], np.float32)
        // x.max() -> 6.0, x.argmax() -> 11; x.min() -> -6.0, x.argmin() -> 0
        let x: Vec<f32> = (0..20).map(|i| ((i * 7) % 13 - 6) as f32).collect();
        assert_eq!(f32::extreme_run::<true>(&x, f32::MAX_ID), 6.0);
        assert_eq!(f32::extreme_run::<false>(&x, f32::MIN_ID), -6.0);
        assert_eq!(arg_run::<f32, true>(&x), 11);
        assert_eq!(arg_run::<f32, false>(&x), 0);
        // y = x.copy(); y[11] = y[17] = np.nan: y.max() -> nan, y.argmax() -> 11, y.argmin() -> 11
        let mut y = x.clone();
        y[11] = f32::NAN;
        y[17] = f32::NAN;
        assert!(f32::extreme_run::<true>(&y, f32::MAX_ID).is_nan());
        assert!(f32::extreme_run::<false>(&y[12..], f32::MIN_ID).is_nan()); // NaN in the tail
        assert_eq!(arg_run::<f32, true>(&y), 11);
        assert_eq!(arg_run::<f32, false>(&y), 11);
        // z = np.array([0.0, -0.0] * 6): z.argmax() -> 0, z.argmin() -> 0 (equal values)
        let z: Vec<f64> = (0..12)
            .map(|i| if i % 2 == 0 { 0.0 } else { -0.0 })
            .collect();
        assert_eq!(arg_run::<f64, true>(&z), 0);
        assert_eq!(arg_run::<f64, false>(&z), 0);
        // Integers use the generic loop: np.argmax(np.array([3, 9, 9, -1], np.int16)) -> 1
        assert_eq!(arg_run::<i16, true>(&[3, 9, 9, -1]), 1);
        assert_eq!(i16::extreme_run::<false>(&[3, 9, 9, -1], i16::MIN_ID), -1);
    }

    #[test]
    fn complex_sort_order_matches_numpy() {
        // NumPy 2.4: np.sort([1+nanj, nan+0j, 2+3j, nan+nanj, 0+nanj, 3-1j])
        // -> [2+3j, 3-1j, 0+nanj, 1+nanj, nan+0j, nan+nanj]
        let n = f32::NAN;
        let mut v = [
            Complex32::new(1.0, n),
            Complex32::new(n, 0.0),
            Complex32::new(2.0, 3.0),
            Complex32::new(n, n),
            Complex32::new(0.0, n),
            Complex32::new(3.0, -1.0),
        ];
        v.sort_by(|a, b| a.sort_cmp(*b));
        let got: Vec<(f32, f32)> = v.iter().map(|c| (c.re, c.im)).collect();
        let want = [
            (2.0, 3.0),
            (3.0, -1.0),
            (0.0, n),
            (1.0, n),
            (n, 0.0),
            (n, n),
        ];
        for (g, w) in got.iter().zip(want) {
            assert!(g.0.total_cmp(&w.0).is_eq() || (g.0.is_nan() && w.0.is_nan()));
            assert!(g.1.total_cmp(&w.1).is_eq() || (g.1.is_nan() && w.1.is_nan()));
        }
    }
}

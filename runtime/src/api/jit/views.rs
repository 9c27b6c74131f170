//! Typed n-d views for kernels: `View2<f32>` / `View2Mut<f32>` (and the 1-
//! and 3-d ones) as parameters of `#[cp::jit::kernel]`. On a GPU a view is
//! the array's pointer, shape and strides (in elements), so a transposed or
//! sliced array is read and written in place; on the CPU it is a checked
//! handle over the array's values in C order, whose index errors name the
//! index and the shape.

use super::grid::{fault_position, Fault};
use super::memory::{JitElem, JitIndex, Slice};

/// The indices of one element of an `N`-d view: `(i, j)` for a 2-d view,
/// `(i, j, k)` for a 3-d one, `i` for a 1-d one.
pub trait ViewIndex<const N: usize>: Copy {
    /// The indices, widened.
    fn indices(self) -> [i128; N];
}

impl<A: JitIndex> ViewIndex<1> for A {
    fn indices(self) -> [i128; 1] {
        [self.index()]
    }
}

impl<A: JitIndex> ViewIndex<1> for (A,) {
    fn indices(self) -> [i128; 1] {
        [self.0.index()]
    }
}

impl<A: JitIndex, B: JitIndex> ViewIndex<2> for (A, B) {
    fn indices(self) -> [i128; 2] {
        [self.0.index(), self.1.index()]
    }
}

impl<A: JitIndex, B: JitIndex, C: JitIndex> ViewIndex<3> for (A, B, C) {
    fn indices(self) -> [i128; 3] {
        [self.0.index(), self.1.index(), self.2.index()]
    }
}

/// A kernel's `N`-d view of an array argument on the CPU (the GPU form is
/// pointer, shape and strides): `x[(i, j)]`, `x.shape()[0]`, `x.len()`.
#[derive(Clone, Copy)]
pub struct View<T, const N: usize> {
    data: Slice<T>,
    shape: [usize; N],
    name: &'static str,
}

/// A read-only 2-d view parameter (`x: View2<f32>`): `x[(i, j)]`,
/// `x.rows()`, `x.cols()`, `x.shape()[0]`, `x.len()`.
pub type View2<T> = View<T, 2>;
/// A writable 2-d view parameter (`out: View2Mut<f32>`).
pub type View2Mut<T> = View<T, 2>;
/// A read-only 3-d view parameter (`x: View3<f32>`, `x[(i, j, k)]`).
pub type View3<T> = View<T, 3>;
/// A writable 3-d view parameter.
pub type View3Mut<T> = View<T, 3>;
/// A read-only 1-d view parameter: a strided `&[T]` (`x: View1<f32>`).
pub type View1<T> = View<T, 1>;
/// A writable 1-d view parameter.
pub type View1Mut<T> = View<T, 1>;

impl<T: JitElem, const N: usize> View<T, N> {
    /// A view of `shape` over `data` (C order; `data.len()` is the product).
    pub(crate) fn new(data: Slice<T>, shape: [usize; N], name: &'static str) -> View<T, N> {
        View { data, shape, name }
    }

    /// The extent along each axis.
    pub fn shape(&self) -> [usize; N] {
        self.shape
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn flat(&self, at: impl ViewIndex<N>) -> Result<usize, Fault> {
        let idx = at.indices();
        let mut flat = 0usize;
        for (k, (&i, &n)) in idx.iter().zip(&self.shape).enumerate() {
            if i < 0 || i >= n as i128 {
                return Err(Fault::OutOfBoundsNd {
                    array: self.name,
                    index: idx.to_vec(),
                    shape: self.shape.to_vec(),
                    axis: k,
                    at: fault_position(),
                });
            }
            flat = flat * n + i as usize;
        }
        Ok(flat)
    }

    /// The element at `(i, j, ...)`.
    pub fn at(&self, at: impl ViewIndex<N>) -> Result<T, Fault> {
        self.data.at(self.flat(at)?)
    }

    /// Sets the element at `(i, j, ...)`.
    pub fn set(&self, at: impl ViewIndex<N>, v: T) -> Result<(), Fault> {
        self.data.set(self.flat(at)?, v)
    }
}

impl<T: JitElem> View<T, 2> {
    /// The extent of axis 0.
    pub fn rows(&self) -> usize {
        self.shape[0]
    }

    /// The extent of axis 1.
    pub fn cols(&self) -> usize {
        self.shape[1]
    }
}

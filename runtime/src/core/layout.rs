//! Shapes and strides: how an array's indices map to buffer positions.
//!
//! Strides are counted in elements and may be negative or zero (broadcast).

use crate::core::error::{fmt_shape, Error, Result};

/// Memory order for reshapes and new arrays, as NumPy's `order=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Order {
    /// Row-major: the last index varies fastest.
    #[default]
    C,
    /// Column-major: the first index varies fastest.
    F,
}

/// Shape, strides (in elements) and the offset of element `[0, 0, ...]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
}

/// The product of `shape`, or an `Overflow` error naming `op`. Every axis
/// must also fit in `isize` (as in NumPy), even where another axis is 0:
/// strides, slices and offsets along an axis are signed.
pub fn checked_size(op: &'static str, shape: &[usize]) -> Result<usize> {
    if let Some(d) = shape.iter().find(|&&d| d > isize::MAX as usize) {
        return Err(Error::Overflow {
            op,
            detail: format!("the axis of extent {d} in shape {}", fmt_shape(shape)),
        });
    }
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| Error::Overflow {
            op,
            detail: format!("the element count of shape {}", fmt_shape(shape)),
        })
}

/// Checks that the host can hold `n` elements of `itemsize` bytes before a
/// CPU result is allocated, so an impossible request (a typo in a shape, a
/// broadcast of two long vectors) is an `OutOfMemory` error rather than an
/// aborted process.
pub fn check_host_room(op: &'static str, n: usize, itemsize: usize) -> Result<()> {
    let bytes = n.checked_mul(itemsize).ok_or_else(|| Error::Overflow {
        op,
        detail: format!("{n} elements of {itemsize} bytes"),
    })?;
    // Small requests cannot fail in a useful way; skip the probe.
    if bytes < (64 << 20) {
        return Ok(());
    }
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(bytes)
        .map_err(|_| Error::OutOfMemory {
            op,
            device: "cpu".into(),
            requested: bytes,
            detail: "the host cannot allocate that much memory".into(),
        })
}

/// Normalizes a possibly negative axis against `ndim`.
pub fn normalize_axis(op: &'static str, axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::Axis { op, axis, ndim });
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// Normalizes a list of axes, rejecting out-of-range and repeated axes.
pub fn normalize_axes(op: &'static str, axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let ax = normalize_axis(op, a, ndim)?;
        if out.contains(&ax) {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("axis {a} is repeated in {axes:?}"),
            });
        }
        out.push(ax);
    }
    Ok(out)
}

/// The broadcast shape of several shapes (NumPy's rules: align on the right,
/// sizes must match or be 1).
pub fn broadcast_shapes(op: &'static str, shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let ndim = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; ndim];
    for s in shapes {
        let pad = ndim - s.len();
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[pad + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return Err(Error::Broadcast {
                    op,
                    shapes: shapes.iter().map(|s| s.to_vec()).collect(),
                });
            }
        }
    }
    Ok(out)
}

/// C-order (row-major) strides of a shape.
pub fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc = acc.saturating_mul(shape[i].max(1) as isize);
    }
    strides
}

/// F-order (column-major) strides of a shape.
pub fn f_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for i in 0..shape.len() {
        strides[i] = acc;
        acc = acc.saturating_mul(shape[i].max(1) as isize);
    }
    strides
}

impl Layout {
    /// A C-contiguous layout of `shape` starting at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: c_strides(shape),
            offset: 0,
        }
    }

    /// A contiguous layout in the given order.
    pub fn with_order(shape: &[usize], order: Order) -> Layout {
        match order {
            Order::C => Layout::contiguous(shape),
            Order::F => Layout {
                shape: shape.to_vec(),
                strides: f_strides(shape),
                offset: 0,
            },
        }
    }

    /// A layout from its parts, checked against a buffer of `buffer_len`
    /// elements: every reachable position must lie inside the buffer.
    pub fn new(
        shape: Vec<usize>,
        strides: Vec<isize>,
        offset: usize,
        buffer_len: usize,
    ) -> Result<Layout> {
        if shape.len() != strides.len() {
            return Err(Error::Shape {
                op: "Layout::new",
                detail: format!(
                    "shape {} has {} axes but {} strides were given",
                    fmt_shape(&shape),
                    shape.len(),
                    strides.len()
                ),
            });
        }
        checked_size("Layout::new", &shape)?;
        let layout = Layout {
            shape,
            strides,
            offset,
        };
        if layout.size() > 0 {
            let (lo, hi) = layout.offset_range();
            if lo < 0 || hi >= buffer_len as isize {
                return Err(Error::Shape {
                    op: "Layout::new",
                    detail: format!(
                        "positions {lo}..={hi} reach outside a buffer of {buffer_len} elements"
                    ),
                });
            }
        }
        Ok(layout)
    }

    /// Builds a layout without checks; callers guarantee it stays in bounds.
    pub(crate) fn from_parts(shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Layout {
        debug_assert_eq!(shape.len(), strides.len());
        Layout {
            shape,
            strides,
            offset,
        }
    }

    /// The extent of each axis.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Steps in elements between neighbours along each axis.
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    /// Buffer position of the first element.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements.
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }

    /// Smallest and largest buffer positions reached (for a non-empty layout).
    pub fn offset_range(&self) -> (isize, isize) {
        let mut lo = self.offset as isize;
        let mut hi = self.offset as isize;
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            if d == 0 {
                return (self.offset as isize, self.offset as isize - 1);
            }
            let span = (d as isize - 1) * s;
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
        }
        (lo, hi)
    }

    /// True when elements are laid out in C order with no gaps. Axes of
    /// extent 1 may have any stride, as in NumPy.
    pub fn is_c_contiguous(&self) -> bool {
        contiguous_with(&self.shape, &self.strides, (0..self.ndim()).rev())
    }

    /// True when elements are laid out in F order with no gaps.
    pub fn is_f_contiguous(&self) -> bool {
        contiguous_with(&self.shape, &self.strides, 0..self.ndim())
    }

    /// This layout broadcast to `shape` (new axes and extent-1 axes get stride 0).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        let err = || Error::Broadcast {
            op: "broadcast_to",
            shapes: vec![self.shape.clone(), shape.to_vec()],
        };
        if shape.len() < self.ndim() {
            return Err(err());
        }
        let pad = shape.len() - self.ndim();
        let mut strides = vec![0isize; shape.len()];
        for i in 0..self.ndim() {
            let (have, want) = (self.shape[i], shape[pad + i]);
            strides[pad + i] = if have == want {
                self.strides[i]
            } else if have == 1 {
                0
            } else {
                return Err(err());
            };
        }
        Ok(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// The axes reordered: axis `i` of the result is axis `perm[i]` of this layout.
    pub fn permuted(&self, perm: &[usize]) -> Layout {
        Layout {
            shape: perm.iter().map(|&p| self.shape[p]).collect(),
            strides: perm.iter().map(|&p| self.strides[p]).collect(),
            offset: self.offset,
        }
    }

    /// A view of this layout with `new_shape`, when one exists without
    /// copying (NumPy's no-copy reshape). `None` when a copy is needed.
    pub fn reshaped(&self, new_shape: &[usize], order: Order) -> Option<Layout> {
        if self.size() != new_shape.iter().product::<usize>() {
            return None;
        }
        if self.size() == 0 || self.size() == 1 {
            let base = Layout::with_order(new_shape, order);
            return Some(Layout {
                offset: self.offset,
                ..base
            });
        }
        match order {
            Order::C => reshape_c(&self.shape, &self.strides, new_shape).map(|strides| Layout {
                shape: new_shape.to_vec(),
                strides,
                offset: self.offset,
            }),
            Order::F => {
                // F-order reshape is a C-order reshape of the reversed axes.
                let rs: Vec<usize> = self.shape.iter().rev().copied().collect();
                let rt: Vec<isize> = self.strides.iter().rev().copied().collect();
                let rn: Vec<usize> = new_shape.iter().rev().copied().collect();
                reshape_c(&rs, &rt, &rn).map(|mut strides| {
                    strides.reverse();
                    Layout {
                        shape: new_shape.to_vec(),
                        strides,
                        offset: self.offset,
                    }
                })
            }
        }
    }

    /// Buffer position of a multi-index (no bounds check beyond debug).
    pub fn position(&self, index: &[usize]) -> usize {
        debug_assert_eq!(index.len(), self.ndim());
        let mut p = self.offset as isize;
        for (&i, &s) in index.iter().zip(&self.strides) {
            p += i as isize * s;
        }
        p as usize
    }

    /// The axes after dropping extent-1 axes and merging neighbours that are
    /// contiguous together in every layout given, all of the same shape.
    /// Returns the merged shape and one stride list per layout. Iterating the
    /// merged form in C order visits elements in the same order as the
    /// original shape.
    pub fn merge_axes(layouts: &[&Layout]) -> (Vec<usize>, Vec<Vec<isize>>) {
        let Some(first) = layouts.first() else {
            return (Vec::new(), Vec::new());
        };
        let shape = first.shape();
        let keep: Vec<usize> = (0..shape.len()).filter(|&i| shape[i] != 1).collect();
        let mut out_shape: Vec<usize> = Vec::with_capacity(keep.len());
        let mut out_strides: Vec<Vec<isize>> = vec![Vec::with_capacity(keep.len()); layouts.len()];
        for &ax in &keep {
            let d = shape[ax];
            let can_merge = !out_shape.is_empty()
                && layouts.iter().enumerate().all(|(k, l)| {
                    // Every stride list grows with `out_shape`, which is not empty.
                    out_strides[k].last() == Some(&(l.strides[ax] * d as isize))
                });
            if can_merge {
                if let Some(last) = out_shape.last_mut() {
                    *last *= d;
                }
                for (k, l) in layouts.iter().enumerate() {
                    if let Some(last) = out_strides[k].last_mut() {
                        *last = l.strides[ax];
                    }
                }
            } else {
                out_shape.push(d);
                for (k, l) in layouts.iter().enumerate() {
                    out_strides[k].push(l.strides[ax]);
                }
            }
        }
        (out_shape, out_strides)
    }

    /// Buffer positions of every element in C order of the index.
    pub fn positions(&self) -> Positions {
        Positions::new(self)
    }
}

fn contiguous_with(
    shape: &[usize],
    strides: &[isize],
    axes_fastest_first: impl Iterator<Item = usize>,
) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expected = 1isize;
    for ax in axes_fastest_first {
        if shape[ax] == 1 {
            continue;
        }
        if strides[ax] != expected {
            return false;
        }
        expected *= shape[ax] as isize;
    }
    true
}

/// Strides for viewing (shape, strides) as `new_shape` in C order, if
/// possible without a copy. Groups old and new axes into runs with equal
/// products; each old run must be contiguous in itself.
fn reshape_c(shape: &[usize], strides: &[isize], new_shape: &[usize]) -> Option<Vec<isize>> {
    // Drop extent-1 axes of the source; their strides never matter.
    let (os, ot): (Vec<usize>, Vec<isize>) = shape
        .iter()
        .zip(strides)
        .filter(|&(&d, _)| d != 1)
        .map(|(&d, &s)| (d, s))
        .unzip();
    let mut new_strides = vec![0isize; new_shape.len()];
    let (mut oi, mut ni) = (0usize, 0usize);
    while ni < new_shape.len() {
        if new_shape[ni] == 1 {
            // Any stride works for an extent-1 axis; pick a C-like one.
            new_strides[ni] = 0;
            ni += 1;
            continue;
        }
        if oi >= os.len() {
            return None;
        }
        // Grow the old run and the new run until their products match.
        let (o_start, n_start) = (oi, ni);
        let mut op = os[oi];
        let mut np = new_shape[ni];
        oi += 1;
        ni += 1;
        while op != np {
            if op < np {
                if oi >= os.len() {
                    return None;
                }
                op *= os[oi];
                oi += 1;
            } else {
                if ni >= new_shape.len() {
                    return None;
                }
                np *= new_shape[ni];
                ni += 1;
            }
        }
        // The old run must be contiguous within itself.
        for k in o_start..oi - 1 {
            if ot[k] != ot[k + 1] * os[k + 1] as isize {
                return None;
            }
        }
        // New strides: the innermost stride of the old run, scaled outward.
        let mut acc = ot[oi - 1];
        for k in (n_start..ni).rev() {
            new_strides[k] = acc;
            acc *= new_shape[k] as isize;
        }
    }
    if oi != os.len() {
        return None;
    }
    Some(new_strides)
}

/// Iterator over the buffer positions of a layout in C order of the index.
pub struct Positions {
    shape: Vec<usize>,
    strides: Vec<isize>,
    index: Vec<usize>,
    current: isize,
    remaining: usize,
}

impl Positions {
    fn new(layout: &Layout) -> Positions {
        let (shape, strides) = Layout::merge_axes(&[layout]);
        let strides = strides.into_iter().next().unwrap_or_default();
        Positions {
            index: vec![0; shape.len()],
            remaining: layout.size(),
            shape,
            strides,
            current: layout.offset as isize,
        }
    }
}

impl Iterator for Positions {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let out = self.current as usize;
        // Advance the odometer from the last axis.
        let mut ax = self.shape.len();
        while ax > 0 {
            ax -= 1;
            self.index[ax] += 1;
            self.current += self.strides[ax];
            if self.index[ax] < self.shape[ax] {
                break;
            }
            self.current -= self.strides[ax] * self.shape[ax] as isize;
            self.index[ax] = 0;
        }
        Some(out)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Positions {}

/// Shapes accepted by creation functions: `[2, 3]`, `vec![2, 3]`, `&[2, 3]`, `5`.
pub trait IntoShape {
    /// The shape as a vector of extents.
    fn into_shape(self) -> Vec<usize>;
}
impl<const N: usize> IntoShape for [usize; N] {
    fn into_shape(self) -> Vec<usize> {
        self.to_vec()
    }
}
impl IntoShape for &[usize] {
    fn into_shape(self) -> Vec<usize> {
        self.to_vec()
    }
}
impl IntoShape for Vec<usize> {
    fn into_shape(self) -> Vec<usize> {
        self
    }
}
impl IntoShape for &Vec<usize> {
    fn into_shape(self) -> Vec<usize> {
        self.clone()
    }
}
impl IntoShape for usize {
    fn into_shape(self) -> Vec<usize> {
        vec![self]
    }
}
impl IntoShape for () {
    fn into_shape(self) -> Vec<usize> {
        Vec::new()
    }
}

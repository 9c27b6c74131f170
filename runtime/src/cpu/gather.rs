//! Gather and scatter on the CPU.

use super::CpuBackend;
use crate::core::dtype::DType;
use crate::core::element::Element;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::{CpuStorage, Storage};
use crate::core::view::{OwnedView, View};
use crate::ops::index::{GatherScatter, IndexMode, Indices, Put, Take, Where, WhereInput};
use crate::ops::ufunc::{no_loop, Map2};

impl GatherScatter for CpuBackend {
    fn check_indices(&self, op: &'static str, ix: Indices<'_>) -> Result<()> {
        resolve_indices(op, &index_values(ix.idx), ix.axis, ix.n, ix.mode).map(|_| ())
    }

    fn take(&self, op: &'static str, t: Take<'_>) -> Result<()> {
        let Take {
            src,
            axis,
            idx,
            mode,
            out,
        } = t;
        let resolved = resolve_indices(op, &index_values(idx), axis, src.shape()[axis], mode)?;
        crate::with_dtype!(src.dtype(), T => take_cpu::<T>(src, axis, &resolved, out));
        Ok(())
    }

    fn put(&self, op: &'static str, p: Put<'_>) -> Result<()> {
        let (a, vals) = (p.a, p.vals);
        let resolved = resolve_indices(op, &index_values(p.idx), 0, a.size(), p.mode)?;
        let Some(combine) = p.combine else {
            crate::with_dtype!(a.dtype(), T => put_cpu::<T>(a, &resolved, &vals.gather::<T>()));
            return Ok(());
        };
        let fold = FoldPut {
            a,
            idx: &resolved,
            vals,
        };
        let dt = a.dtype();
        combine.cpu(dt, fold).ok_or_else(|| no_loop(op, dt))
    }

    fn mask(&self, op: &'static str, x: View<'_>, m: View<'_>) -> Result<(Storage, usize)> {
        let (mvals, count) = mask_values(m);
        let mut shape = vec![count];
        shape.extend_from_slice(&x.shape()[m.ndim()..]);
        crate::core::layout::checked_size(op, &shape)?;
        let data =
            crate::with_dtype!(x.dtype(), T => T::into_data(mask_cpu::<T>(x, &mvals, m.ndim())));
        Ok((Storage::Cpu(CpuStorage::new(data)), count))
    }

    fn mask_assign(
        &self,
        _op: &'static str,
        x: View<'_>,
        m: View<'_>,
        value: &mut dyn FnMut(usize) -> Result<OwnedView>,
    ) -> Result<()> {
        let (mvals, count) = mask_values(m);
        let v = value(count)?;
        crate::with_dtype!(x.dtype(), T => {
            let values = v.view().gather_as::<T>();
            mask_assign_cpu::<T>(x, &mvals, m.ndim(), &values);
        });
        Ok(())
    }

    fn nonzero(&self, _op: &'static str, a: View<'_>) -> Result<(Vec<Storage>, usize)> {
        let coords = crate::with_dtype!(a.dtype(), T => nonzero_cpu::<T>(a));
        let count = coords.first().map_or(0, |c| c.len());
        let outs = coords
            .into_iter()
            .map(|c| Storage::Cpu(CpuStorage::new(i64::into_data(c))))
            .collect();
        Ok((outs, count))
    }

    fn where_(&self, op: &'static str, w: Where<'_>) -> Result<()> {
        let Where { cond, x, y, out } = w;
        let shape = out.shape();
        let broadcast = |v: View<'_>| -> Result<Layout> {
            v.layout.broadcast_to(shape).map_err(|_| Error::Broadcast {
                op,
                shapes: vec![v.shape().to_vec(), shape.to_vec()],
            })
        };
        let cl = broadcast(cond)?;
        let c = View::new(cond.storage, &cl, cond.dtype()).gather_as::<bool>();
        crate::with_dtype!(out.dtype(), T => {
            let values = |i: WhereInput<'_>| -> Result<Vec<T>> {
                Ok(match i {
                    WhereInput::View(v) => {
                        let l = broadcast(v)?;
                        View::new(v.storage, &l, v.dtype()).gather_as::<T>()
                    }
                    WhereInput::Scalar(s) => vec![T::from_scalar(s); c.len()],
                })
            };
            let (xv, yv) = (values(x)?, values(y)?);
            out.scatter::<T>(&where_cpu::<T>(&c, &xv, &yv));
        });
        Ok(())
    }
}

/// The values of an integer (or bool) index array in C order, as i64;
/// uint64 values beyond `i64::MAX` saturate (they are out of range anyway).
fn index_values(idx: View<'_>) -> Vec<i64> {
    if idx.dtype() == DType::UInt64 {
        return idx
            .gather::<u64>()
            .into_iter()
            .map(|u| i64::try_from(u).unwrap_or(i64::MAX))
            .collect();
    }
    idx.gather_as::<i64>()
}

/// Resolves index values against an axis of extent `n` under `mode`.
fn resolve_indices(
    op: &'static str,
    values: &[i64],
    axis: usize,
    n: usize,
    mode: IndexMode,
) -> Result<Vec<usize>> {
    if n == 0 && !values.is_empty() {
        return Err(Error::IndexOutOfBounds {
            op,
            index: values[0],
            axis,
            size: 0,
        });
    }
    let ni = n as i64;
    values
        .iter()
        .map(|&i| match mode {
            IndexMode::Raise => {
                let j = if i < 0 { i.saturating_add(ni) } else { i };
                if j < 0 || j >= ni {
                    Err(Error::IndexOutOfBounds {
                        op,
                        index: i,
                        axis,
                        size: n,
                    })
                } else {
                    Ok(j as usize)
                }
            }
            IndexMode::Wrap => Ok(i.rem_euclid(ni) as usize),
            IndexMode::Clip => Ok(i.clamp(0, ni - 1) as usize),
        })
        .collect()
}

/// The mask's values (C order) and how many are true.
fn mask_values(m: View<'_>) -> (Vec<bool>, usize) {
    let vals = m.gather::<bool>();
    let count = vals.iter().filter(|&&b| b).count();
    (vals, count)
}

/// Buffer offsets, relative to the first element, of every element of
/// (`shape`, `strides`) in C order.
fn rel_offsets(shape: &[usize], strides: &[isize]) -> Vec<isize> {
    let mut out = vec![0isize];
    for (&d, &s) in shape.iter().zip(strides) {
        let mut next = Vec::with_capacity(out.len() * d);
        for &o in &out {
            for i in 0..d {
                next.push(o + i as isize * s);
            }
        }
        out = next;
    }
    out
}

/// Buffer position of the `k`-th element (C order) of `layout`.
fn flat_position(layout: &Layout, mut k: usize) -> usize {
    let mut p = layout.offset() as isize;
    for (&d, &s) in layout.shape().iter().zip(layout.strides()).rev() {
        p += (k % d) as isize * s;
        k /= d;
    }
    p as usize
}

// ---------------------------------------------------------------------------
// Element loops (CPU); the CUDA kernels are in cuda/gather.rs
// ---------------------------------------------------------------------------

/// Buffer positions of the first element of every block of `a` split after
/// its leading `lead` axes (C order), produced lazily.
fn outer_positions(a: View<'_>, lead: usize) -> crate::core::layout::Positions {
    let l = a.layout;
    Layout::from_parts(
        l.shape()[..lead].to_vec(),
        l.strides()[..lead].to_vec(),
        l.offset(),
    )
    .positions()
}

/// `out[o, k, i] = a[o, idx[k], i]` over outer × indices × inner.
/// `out` is C-contiguous.
fn take_cpu<T: Element>(a: View<'_>, axis: usize, idx: &[usize], out: View<'_>) {
    let (shape, strides) = (a.shape(), a.strides());
    let inner = rel_offsets(&shape[axis + 1..], &strides[axis + 1..]);
    let step = strides[axis];
    a.read_cpu::<T, _>(|data, _| {
        out.write_cpu::<T, _>(|dst, layout| {
            let mut q = layout.offset();
            for o in outer_positions(a, axis) {
                for &k in idx {
                    let p = o as isize + k as isize * step;
                    for &i in &inner {
                        dst[q] = data[(p + i) as usize];
                        q += 1;
                    }
                }
            }
        })
    });
}

/// The elements of `a` under the mask `m` of its leading `lead` axes (C order).
fn mask_cpu<T: Element>(a: View<'_>, m: &[bool], lead: usize) -> Vec<T> {
    let (shape, strides) = (a.shape(), a.strides());
    let inner = rel_offsets(&shape[lead..], &strides[lead..]);
    let count = m.iter().filter(|&&b| b).count();
    let mut out = Vec::with_capacity(count * inner.len());
    a.read_cpu::<T, _>(|data, _| {
        for (o, _) in outer_positions(a, lead).zip(m).filter(|&(_, &keep)| keep) {
            out.extend(inner.iter().map(|&i| data[(o as isize + i) as usize]));
        }
    });
    out
}

/// Writes `values` (C order over the selection) into the masked elements of `a`.
fn mask_assign_cpu<T: Element>(a: View<'_>, m: &[bool], lead: usize, values: &[T]) {
    let (shape, strides) = (a.shape(), a.strides());
    let inner = rel_offsets(&shape[lead..], &strides[lead..]);
    a.write_cpu::<T, _>(|data, _| {
        let mut v = values.iter();
        for (o, _) in outer_positions(a, lead).zip(m).filter(|&(_, &keep)| keep) {
            for (&i, &x) in inner.iter().zip(&mut v) {
                data[(o as isize + i) as usize] = x;
            }
        }
    });
}

/// Multi-indices of the non-zero elements of `a`, one vector per axis.
fn nonzero_cpu<T: Element>(a: View<'_>) -> Vec<Vec<i64>> {
    let values = a.gather::<T>();
    let shape = a.shape();
    let zero = T::default();
    let mut out = vec![Vec::new(); shape.len()];
    let mut index = vec![0usize; shape.len()];
    for v in values {
        if v != zero {
            for (o, &i) in out.iter_mut().zip(&index) {
                o.push(i as i64);
            }
        }
        for ax in (0..shape.len()).rev() {
            index[ax] += 1;
            if index[ax] < shape[ax] {
                break;
            }
            index[ax] = 0;
        }
    }
    out
}

/// `cond ? x : y` elementwise over C-order values of equal length.
fn where_cpu<T: Element>(cond: &[bool], x: &[T], y: &[T]) -> Vec<T> {
    cond.iter()
        .zip(x.iter().zip(y))
        .map(|(&c, (&a, &b))| if c { a } else { b })
        .collect()
}

/// `a.flat[idx[k]] = values[k % len]` for every k.
/// `ufunc.at`'s loop: each index folds its value into its target, in order.
struct FoldPut<'a> {
    a: View<'a>,
    idx: &'a [usize],
    vals: View<'a>,
}

impl Map2 for FoldPut<'_> {
    type Out = ();
    fn map<T: Element, O: Element, F: Fn(T, T) -> O>(self, f: F) {
        let values = self.vals.gather::<T>();
        self.a.write_cpu::<T, _>(|data, layout| {
            for (&k, &v) in self.idx.iter().zip(values.iter().cycle()) {
                let p = flat_position(layout, k);
                // The front end checked that the op's result dtype is T's.
                data[p] = T::from_scalar(f(data[p], v).to_scalar());
            }
        });
    }
}

fn put_cpu<T: Element>(a: View<'_>, idx: &[usize], values: &[T]) {
    a.write_cpu::<T, _>(|data, layout| {
        let contiguous = layout.is_c_contiguous();
        for (&k, &v) in idx.iter().zip(values.iter().cycle()) {
            let p = if contiguous {
                layout.offset() + k
            } else {
                flat_position(layout, k)
            };
            data[p] = v;
        }
    });
}

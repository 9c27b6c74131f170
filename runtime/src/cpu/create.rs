//! Allocation, fills, copies and casts on the CPU.

use super::CpuBackend;
use crate::dtype::DType;
use crate::element::{Element, Scalar};
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::create::Create;
use crate::storage::{CpuData, CpuStorage, Storage};
use crate::view::View;

/// The host buffer of a view (the CPU backend only sees host buffers).
fn host(v: View<'_>) -> &CpuStorage {
    match v.storage {
        Storage::Cpu(s) => s,
        Storage::Cuda(_) => unreachable!("the CPU backend runs on host buffers only"),
    }
}

/// The elements of `v` in C order (element type `T`, its dtype).
fn gather<T: Element>(v: View<'_>) -> Vec<T> {
    debug_assert_eq!(T::DTYPE, v.dtype);
    let guard = host(v).read();
    let data = T::slice(&guard).expect("the buffer holds the view's dtype");
    let l = v.layout;
    if l.is_c_contiguous() {
        data[l.offset()..l.offset() + l.size()].to_vec()
    } else {
        l.positions().map(|p| data[p]).collect()
    }
}

/// The elements of `v` in C order converted to `U` (NumPy's unsafe cast).
fn gather_as<U: Element>(v: View<'_>) -> Vec<U> {
    if v.dtype == U::DTYPE {
        return gather::<U>(v);
    }
    crate::with_dtype!(v.dtype, T => {
        let guard = host(v).read();
        let data = T::slice(&guard).expect("the buffer holds the view's dtype");
        v.layout
            .positions()
            .map(|p| U::from_scalar(data[p].to_scalar()))
            .collect()
    })
}

/// The elements of `v` in C order as a new buffer of `dtype`.
pub(super) fn cast_data(v: View<'_>, dtype: DType) -> CpuData {
    crate::with_dtype!(dtype, U => U::into_data(gather_as::<U>(v)))
}

/// Writes `values` (C order, one per element, `v`'s element type) into `v`.
fn scatter<T: Element>(v: View<'_>, values: &[T]) {
    debug_assert_eq!(T::DTYPE, v.dtype);
    debug_assert_eq!(values.len(), v.size());
    let mut guard = host(v).write();
    let data = T::slice_mut(&mut guard).expect("the buffer holds the view's dtype");
    let l = v.layout;
    if l.is_c_contiguous() {
        data[l.offset()..l.offset() + values.len()].copy_from_slice(values);
    } else {
        for (p, &x) in l.positions().zip(values) {
            data[p] = x;
        }
    }
}

/// Writes `data` (C order, one element per element of `out`) into `out`,
/// converted to its dtype.
pub(super) fn store(data: CpuData, out: View<'_>) {
    if data.dtype() == out.dtype {
        crate::with_dtype!(out.dtype, T => scatter::<T>(out, T::slice(&data).expect("dtype checked")));
        return;
    }
    let dt = data.dtype();
    let storage = Storage::Cpu(CpuStorage::new(data));
    let layout = Layout::contiguous(out.shape());
    let src = View::new(&storage, &layout, dt);
    crate::with_dtype!(out.dtype, T => scatter::<T>(out, &gather_as::<T>(src)));
}

impl Create for CpuBackend {
    fn empty(&self, op: &'static str, dtype: DType, len: usize) -> Result<Storage> {
        crate::layout::check_host_room(op, len, dtype.itemsize())?;
        Ok(Storage::Cpu(CpuStorage::new(CpuData::zeros(dtype, len))))
    }

    fn full(&self, op: &'static str, dtype: DType, len: usize, value: Scalar) -> Result<Storage> {
        crate::layout::check_host_room(op, len, dtype.itemsize())?;
        let data = crate::with_dtype!(dtype, T => T::into_data(vec![T::from_scalar(value); len]));
        Ok(Storage::Cpu(CpuStorage::new(data)))
    }

    fn copy_cast(&self, _op: &'static str, src: View<'_>, dst: View<'_>) -> Result<()> {
        let layout;
        let src = if src.shape() == dst.shape() {
            src
        } else {
            layout = src.layout.broadcast_to(dst.shape())?;
            View::new(src.storage, &layout, src.dtype)
        };
        // Read everything before writing: `src` may be `dst` itself.
        crate::with_dtype!(dst.dtype, T => scatter::<T>(dst, &gather_as::<T>(src)));
        Ok(())
    }

    fn fill(&self, _op: &'static str, dst: View<'_>, value: Scalar) -> Result<()> {
        crate::with_dtype!(dst.dtype, T => {
            let v = T::from_scalar(value);
            let mut guard = host(dst).write();
            let data = T::slice_mut(&mut guard).expect("the buffer holds the view's dtype");
            let l = dst.layout;
            if l.is_c_contiguous() {
                data[l.offset()..l.offset() + l.size()].fill(v);
            } else {
                for p in l.positions() {
                    data[p] = v;
                }
            }
        });
        Ok(())
    }
}

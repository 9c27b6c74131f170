//! Allocation, fills, copies and casts on the CPU.

use super::CpuBackend;
use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};
use crate::core::error::Result;
use crate::core::layout::Layout;
use crate::core::storage::{CpuData, CpuStorage, Storage};
use crate::core::view::View;
use crate::ops::create::Create;

/// The host buffer of a view (the CPU backend only sees host buffers).
fn host(v: View<'_>) -> &CpuStorage {
    match v.storage {
        Storage::Cpu(s) => s,
        Storage::Cuda(_) => unreachable!("the CPU backend runs on host buffers only"),
    }
}

/// Writes the elements of `v` in C order, converted to `U`, into `out`
/// (one per element; `out` is not in `v`'s buffer).
fn convert_into<U: Element>(v: View<'_>, out: &mut [U]) {
    crate::with_dtype!(v.dtype, T => {
        let guard = host(v).read();
        let l = v.layout;
        if let Some(same) = U::slice(&guard) {
            if l.is_c_contiguous() {
                out.copy_from_slice(&same[l.offset()..l.offset() + out.len()]);
            } else {
                for (o, p) in out.iter_mut().zip(l.positions()) {
                    *o = same[p];
                }
            }
        } else {
            let data = T::slice(&guard).expect("the buffer holds the view's dtype");
            for (o, p) in out.iter_mut().zip(l.positions()) {
                *o = U::from_scalar(data[p].to_scalar());
            }
        }
    })
}

/// The elements of `v` in C order as a new buffer of `dtype`.
pub(super) fn cast_data(v: View<'_>, dtype: DType) -> CpuData {
    crate::with_dtype!(dtype, U => U::into_data(v.gather_as::<U>()))
}

/// A host buffer holding `v` (its elements in C order).
pub(super) fn host_buffer<T: Element>(v: Vec<T>) -> Storage {
    Storage::Cpu(CpuStorage::new(T::into_data(v)))
}

/// A host buffer of `dtype` holding `v` converted element by element, as
/// `astype` does (NumPy's unsafe cast).
pub(super) fn host_buffer_as<T: Element>(v: Vec<T>, dtype: DType) -> Storage {
    if dtype == T::DTYPE {
        return host_buffer(v);
    }
    let data = crate::with_dtype!(dtype, U => U::into_data(
        v.iter().map(|x| U::from_scalar(x.to_scalar())).collect::<Vec<U>>()
    ));
    Storage::Cpu(CpuStorage::new(data))
}

/// Writes `data` (C order, one element per element of `out`) into `out`,
/// converted to its dtype.
pub(super) fn store(data: CpuData, out: View<'_>) {
    if data.dtype() == out.dtype {
        crate::with_dtype!(out.dtype, T => out.scatter::<T>(T::slice(&data).expect("dtype checked")));
        return;
    }
    let dt = data.dtype();
    let storage = Storage::Cpu(CpuStorage::new(data));
    let layout = Layout::contiguous(out.shape());
    let src = View::new(&storage, &layout, dt);
    crate::with_dtype!(out.dtype, T => out.scatter::<T>(&src.gather_as::<T>()));
}

impl Create for CpuBackend {
    fn empty(&self, op: &'static str, dtype: DType, len: usize) -> Result<Storage> {
        crate::core::layout::check_host_room(op, len, dtype.itemsize())?;
        Ok(Storage::Cpu(CpuStorage::new(CpuData::zeros(dtype, len))))
    }

    fn full(&self, op: &'static str, dtype: DType, len: usize, value: Scalar) -> Result<Storage> {
        crate::core::layout::check_host_room(op, len, dtype.itemsize())?;
        let data = crate::with_dtype!(dtype, T => T::into_data(vec![T::from_scalar(value); len]));
        Ok(Storage::Cpu(CpuStorage::new(data)))
    }

    fn arange(
        &self,
        op: &'static str,
        dtype: DType,
        len: usize,
        start: Scalar,
        step: Scalar,
    ) -> Result<Storage> {
        crate::core::layout::check_host_room(op, len, 8)?;
        let data = if dtype == DType::Float64 {
            let (a, delta) = (start.as_f64(), step.as_f64());
            f64::into_data((0..len).map(|i| a + i as f64 * delta).collect())
        } else {
            let (a, s) = (start.as_i64(), step.as_i64());
            i64::into_data(
                (0..len as i64)
                    .map(|i| a.wrapping_add(i.wrapping_mul(s)))
                    .collect(),
            )
        };
        Ok(Storage::Cpu(CpuStorage::new(data)))
    }

    fn copy_cast(&self, _op: &'static str, src: View<'_>, dst: View<'_>) -> Result<()> {
        // An empty view's offset may lie past the end of its (empty) buffer.
        if dst.size() == 0 {
            return Ok(());
        }
        let layout;
        let src = if src.shape() == dst.shape() {
            src
        } else {
            layout = src.layout.broadcast_to(dst.shape())?;
            View::new(src.storage, &layout, src.dtype)
        };
        if dst.is_c_contiguous() && !src.shares_memory(&dst) {
            // Straight into the destination, without a staging vector.
            crate::with_dtype!(dst.dtype, U => {
                let mut guard = host(dst).write();
                let data = U::slice_mut(&mut guard).expect("the buffer holds the view's dtype");
                convert_into::<U>(src, &mut data[dst.offset()..dst.offset() + dst.size()]);
            });
            return Ok(());
        }
        // Read everything before writing: `src` may be `dst` itself.
        crate::with_dtype!(dst.dtype, T => dst.scatter::<T>(&src.gather_as::<T>()));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::array::Array;

    fn arr<T: Element>(v: Vec<T>, shape: &[usize]) -> Array {
        Array::from_cpu_data(T::into_data(v), shape)
    }

    #[test]
    fn copy_cast_broadcasts_converts_and_may_read_its_destination() {
        // A (3,) int8 row broadcast into a transposed (2, 3) float32 view.
        let src = arr(vec![1i8, -2, 3], &[3]);
        let dst = arr(vec![0f32; 6], &[3, 2]).t();
        CpuBackend.copy_cast("t", src.view(), dst.view()).unwrap();
        assert_eq!(
            dst.to_vec::<f32>().unwrap(),
            vec![1.0, -2.0, 3.0, 1.0, -2.0, 3.0]
        );
        // Source and destination the same view: unchanged.
        CpuBackend.copy_cast("t", dst.view(), dst.view()).unwrap();
        assert_eq!(
            dst.to_vec::<f32>().unwrap(),
            vec![1.0, -2.0, 3.0, 1.0, -2.0, 3.0]
        );
    }

    #[test]
    fn fill_and_full_write_every_element_of_the_view() {
        let a = arr(vec![0i16; 6], &[2, 3]);
        let col = a.t();
        CpuBackend
            .fill("t", col.view(), Scalar::Float(2.7))
            .unwrap();
        assert_eq!(a.to_vec::<i16>().unwrap(), vec![2; 6]);
        let s = CpuBackend
            .full("t", DType::Bool, 3, Scalar::Int(5))
            .unwrap();
        let l = Layout::contiguous(&[3]);
        assert_eq!(
            View::new(&s, &l, DType::Bool).gather::<bool>(),
            vec![true; 3]
        );
    }
}

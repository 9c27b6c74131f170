//! The `Array` methods that reach a device's memory: host reads and writes
//! of any array, uploads and downloads, `astype`, `to_device`, `assign`
//! and `fill`. The device is matched here; the CUDA side is in `cuda/`.

use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{can_cast, Casting, DType};
use crate::core::element::{Element, Scalar};
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::{Layout, Order};
use crate::core::storage::{CpuData, Storage};
use crate::cuda;

impl Array {
    /// A new C-contiguous array holding `v` on the current device (where
    /// CuPy puts the results of operations).
    pub(crate) fn from_vec_shape<T: Element>(v: Vec<T>, shape: &[usize]) -> Result<Array> {
        Array::from_host(T::into_data(v), shape, super::probe::current_device())
    }

    /// Runs `f` on the CPU buffer (typed) and this array's layout.
    pub(crate) fn read_cpu<T: Element, R>(&self, f: impl FnOnce(&[T], &Layout) -> R) -> Result<R> {
        match self.storage() {
            Storage::Cpu(s) => {
                let guard = s.read();
                let data = T::slice(&guard).expect("dtype of the buffer matches the array's dtype");
                Ok(f(data, self.layout()))
            }
            // Operations without a GPU kernel read a host copy.
            Storage::Cuda(c) => {
                let host = cuda::runtime::transfer::download_all::<T>(c)?;
                Ok(f(&host, self.layout()))
            }
        }
    }

    /// The elements in C order, copied to the host. `T` must match the dtype
    /// (`f32` for float32, `half::f16`, `num_complex::Complex32`, ...).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.check_element::<T>("to_vec")?;
        if let Storage::Cuda(c) = self.storage() {
            // One copy of exactly the elements, made contiguous on the GPU first.
            if self.is_c_contiguous() {
                return cuda::runtime::transfer::download_range::<T>(
                    c,
                    self.layout().offset(),
                    self.size(),
                );
            }
            return self.copy()?.to_vec::<T>();
        }
        self.gather::<T>()
    }

    /// Copies the elements in C order into `out`, an existing host buffer
    /// of exactly [`Array::size`] elements of the array's element type
    /// (`cp.asnumpy(a, out=host)`). Nothing is allocated: a buffer reused
    /// between copies also skips the page faults fresh memory costs.
    ///
    /// ```
    /// use cuprite as cp;
    /// let a = cp::arange(6)?.reshape([2, 3])?;
    /// let mut host = vec![0i64; 6];
    /// a.t().copy_to_slice(&mut host)?;
    /// assert_eq!(host, [0, 3, 1, 4, 2, 5]);
    /// assert!(a.copy_to_slice(&mut [0i64; 5]).is_err());
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn copy_to_slice<T: Element>(&self, out: &mut [T]) -> Result<()> {
        let op = "copy_to_slice";
        self.check_element::<T>(op)?;
        if out.len() != self.size() {
            let (have, shape) = (out.len(), fmt_shape(self.shape()));
            let detail = format!(
                "the output holds {have} elements but shape {shape} has {}",
                self.size()
            );
            return Err(Error::shape(op, detail));
        }
        match self.storage() {
            Storage::Cuda(c) if self.is_c_contiguous() => {
                cuda::runtime::transfer::download_into(c, self.layout().offset(), out)
            }
            // One copy of exactly the elements, made contiguous on the GPU first.
            Storage::Cuda(_) => self.copy()?.copy_to_slice(out),
            Storage::Cpu(_) => self.read_cpu::<T, _>(|data, layout| {
                if layout.is_c_contiguous() {
                    out.copy_from_slice(&data[layout.offset()..][..out.len()]);
                } else {
                    out.iter_mut()
                        .zip(layout.positions())
                        .for_each(|(o, p)| *o = data[p]);
                }
            }),
        }
    }

    /// A new C-contiguous array holding a copy of `data` on `device`.
    pub(crate) fn from_host_slice<T: Element>(
        data: &[T],
        shape: &[usize],
        device: Device,
    ) -> Result<Array> {
        crate::core::interrupt::check("creating an array")?;
        match device {
            Device::Cpu => Ok(Array::from_vec_cpu(data.to_vec(), shape)),
            Device::Cuda(n) => {
                device.check_available("creating an array")?;
                let storage = cuda::runtime::transfer::upload_new("creating an array", n, data)?;
                Ok(Array::from_parts(
                    Storage::Cuda(storage),
                    Layout::contiguous(shape),
                    T::DTYPE,
                ))
            }
        }
    }

    /// A new C-contiguous array of `dtype` holding these values, converted
    /// with NumPy's unsafe casting (`x.astype(cp::f32)`).
    pub fn astype(&self, dtype: DType) -> Result<Array> {
        self.astype_with(dtype, Casting::Unsafe)
    }

    /// As [`Array::astype`], refusing casts that `casting` forbids.
    pub fn astype_with(&self, dtype: DType, casting: Casting) -> Result<Array> {
        crate::core::interrupt::check("astype")?;
        if !can_cast(self.dtype(), dtype, casting) {
            return Err(Error::Cast {
                op: "astype",
                from: self.dtype(),
                to: dtype,
                casting: casting.name(),
            });
        }
        let b = super::on("astype", self.device())?;
        let n = crate::core::layout::checked_size("astype", self.shape())?;
        let out = Array::from_parts(
            b.empty("astype", dtype, n)?,
            Layout::contiguous(self.shape()),
            dtype,
        );
        b.copy_cast("astype", self.view(), out.view())?;
        Ok(out)
    }

    /// A new C-contiguous array holding `data` on `device`.
    pub(crate) fn from_host(data: CpuData, shape: &[usize], device: Device) -> Result<Array> {
        crate::core::interrupt::check("creating an array")?;
        match device {
            Device::Cpu => Ok(Array::from_cpu_data(data, shape)),
            Device::Cuda(n) => {
                device.check_available("creating an array")?;
                let storage = cuda::runtime::transfer::upload_data("creating an array", n, &data)?;
                Ok(Array::from_parts(
                    Storage::Cuda(storage),
                    Layout::contiguous(shape),
                    data.dtype(),
                ))
            }
        }
    }

    /// The array on `device` (itself when already there). Between two GPUs
    /// the data moves directly (peer-to-peer where the GPUs allow it, else
    /// the driver stages it), in stream order on both devices; C- and
    /// F-contiguous arrays keep their memory order, other views arrive
    /// C-contiguous. Copies to or from the CPU go through host memory.
    pub fn to_device(&self, device: &Device) -> Result<Array> {
        if *device == self.device() {
            return Ok(self.clone());
        }
        device.check_available("to_device")?;
        if let (Device::Cuda(_), Device::Cuda(dst)) = (self.device(), *device) {
            return copy_between_gpus(self, dst, None);
        }
        let data = crate::with_dtype!(self.dtype(), T => T::into_data(self.gather::<T>()?));
        Array::from_host(data, self.shape(), *device)
    }

    /// Copies `src` into this array's elements, broadcasting `src` and
    /// casting under the `same_kind` rule (`np.copyto(self, src)`).
    pub fn assign(&mut self, src: &Array) -> Result<()> {
        self.assign_with(src, Casting::SameKind)
    }

    /// As [`Array::assign`] with an explicit casting rule.
    pub fn assign_with(&mut self, src: &Array, casting: Casting) -> Result<()> {
        if !can_cast(src.dtype(), self.dtype(), casting) {
            return Err(Error::Cast {
                op: "assign",
                from: src.dtype(),
                to: self.dtype(),
                casting: casting.name(),
            });
        }
        let layout = src
            .layout()
            .broadcast_to(self.shape())
            .map_err(|_| Error::Broadcast {
                op: "assign",
                shapes: vec![src.shape().to_vec(), self.shape().to_vec()],
            })?;
        let src = src.with_layout(layout).to_device(&self.device())?;
        super::on("assign", self.device())?.copy_cast("assign", src.view(), self.view())
    }

    /// Sets every element to `value` (cast with NumPy's unsafe rule).
    pub fn fill(&mut self, value: impl Into<Scalar>) -> Result<()> {
        super::on("fill", self.device())?.fill("fill", self.view(), value.into())
    }
}

/// A copy of the GPU array `src` on another GPU, `cuda:dst`, moved by the
/// copy engines (no host staging). C- and F-contiguous arrays keep their
/// order; other views are made C-contiguous on their own device first.
/// `force_peer_api` as in [`cuda::runtime::peer::copy_between`].
fn copy_between_gpus(src: &Array, dst: usize, force_peer_api: Option<bool>) -> Result<Array> {
    let (src, order) = if src.is_c_contiguous() {
        (src.clone(), Order::C)
    } else if src.is_f_contiguous() {
        (src.clone(), Order::F)
    } else {
        let from = cuda::kernel_gen::helpers::ordinal("to_device", src.view())?;
        (
            cuda::runtime::peer::on_source_stream(from, || src.copy())?,
            Order::C,
        )
    };
    let storage = cuda::runtime::peer::copy_between(src.view(), dst, force_peer_api)?;
    let layout = Layout::with_order(src.shape(), order);
    Ok(Array::from_parts(storage, layout, src.dtype()))
}

/// For tests of both copy paths: `peer_api` true forces `cuMemcpyPeerAsync`,
/// false the plain device-to-device copy (an error unless the source's pool
/// is open to the destination).
#[doc(hidden)]
pub fn copy_between_gpus_for_tests(src: &Array, dst: usize, peer_api: bool) -> Result<Array> {
    copy_between_gpus(src, dst, Some(peer_api))
}

/// Arrays a counted host fallback returns move back to the device of its inputs.
impl Array {
    /// The elements in C order as `Vec<T>`; `T` must be this array's element type.
    pub(crate) fn gather<T: Element>(&self) -> Result<Vec<T>> {
        debug_assert_eq!(T::DTYPE, self.dtype());
        self.read_cpu::<T, _>(crate::core::view::gathered::<T>)
    }

    /// The array copied to the host as an `ndarray::ArrayD` of the same shape.
    pub fn to_ndarray<T: Element>(&self) -> Result<ndarray::ArrayD<T>> {
        let v = self.to_vec::<T>()?;
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(self.shape()), v).map_err(|e| Error::Shape {
            op: "to_ndarray",
            detail: e.to_string(),
        })
    }

    /// The only element of a one-element array, as `T` (which must match the dtype).
    pub fn item<T: Element>(&self) -> Result<T> {
        self.check_element::<T>("item")?;
        Ok(T::from_scalar(self.scalar()?))
    }

    /// The only element of a one-element array, as a dynamically typed scalar.
    pub fn scalar(&self) -> Result<Scalar> {
        if self.size() != 1 {
            return Err(Error::Shape {
                op: "item",
                detail: format!(
                    "only an array of one element converts to a scalar; this one has shape {} ({} elements)",
                    fmt_shape(self.shape()),
                    self.size()
                ),
            });
        }
        crate::with_dtype!(self.dtype(), T => self.read_cpu::<T, _>(|d, l| d[l.offset()].to_scalar()))
    }

    /// A C-contiguous copy with its own buffer.
    pub fn copy(&self) -> Result<Array> {
        self.astype(self.dtype())
    }

    /// A copy in the given memory order.
    pub fn copy_order(&self, order: Order) -> Result<Array> {
        match order {
            Order::C => self.copy(),
            Order::F => {
                // Gather in the order of the reversed axes, then view as F order.
                let rev: Vec<usize> = (0..self.ndim()).rev().collect();
                let t = self.with_layout(self.layout().permuted(&rev)).copy()?;
                Ok(t.with_layout(t.layout().permuted(&rev)))
            }
        }
    }

    /// This array when already C-contiguous (a view), else a C-contiguous copy.
    pub fn ascontiguousarray(&self) -> Result<Array> {
        if self.is_c_contiguous() {
            Ok(self.clone())
        } else {
            self.copy()
        }
    }

    /// This array when already F-contiguous (a view), else an F-contiguous copy.
    pub fn asfortranarray(&self) -> Result<Array> {
        if self.is_f_contiguous() {
            Ok(self.clone())
        } else {
            self.copy_order(Order::F)
        }
    }
}

impl crate::backend::fallback::Place for Array {
    fn place(self, device: Device) -> Result<Self> {
        self.to_device(&device)
    }
}

/// Host staging chunk of [`Array::from_byte_chunks`] on the CPU: reads of
/// this size keep a pending interrupt responsive.
const HOST_CHUNK: usize = 64 << 20;

impl Array {
    /// A new array of `dtype` and `shape` on `device`, its elements laid out
    /// in `order`, whose bytes (native byte order) `fill` writes by chunks:
    /// consecutive ranges holding whole elements. On a GPU the chunks are
    /// pinned staging blocks copied to the device while `fill` writes the
    /// next, so no full-size host copy is made. Bool bytes other than 0 and
    /// 1 are read as true.
    pub(crate) fn from_byte_chunks(
        op: &'static str,
        dtype: DType,
        shape: &[usize],
        order: Order,
        device: Device,
        fill: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<Array> {
        let n = crate::core::layout::checked_size(op, shape)?;
        let layout = Layout::with_order(shape, order);
        let normalize_bools = |bytes: &mut [u8]| {
            if dtype == DType::Bool {
                bytes.iter_mut().for_each(|b| *b = (*b != 0) as u8);
            }
        };
        match device {
            Device::Cpu => {
                crate::core::layout::check_host_room(op, n, dtype.itemsize())?;
                let mut data = if dtype == DType::Bool {
                    CpuData::UInt8(vec![0u8; n])
                } else {
                    CpuData::zeros(dtype, n)
                };
                crate::with_dtype!(data.dtype(), T => {
                    let v = T::slice_mut(&mut data).expect("dtype matches");
                    let bytes = bytes_of_mut(v);
                    for piece in bytes.chunks_mut(HOST_CHUNK) {
                        crate::core::interrupt::check(op)?;
                        fill(piece)?;
                    }
                });
                let data = match data {
                    CpuData::UInt8(mut bytes) if dtype == DType::Bool => {
                        normalize_bools(&mut bytes);
                        CpuData::Bool(bytes_into_bools(bytes))
                    }
                    other => other,
                };
                Ok(Array::from_parts(
                    Storage::Cpu(crate::core::storage::CpuStorage::new(data)),
                    layout,
                    dtype,
                ))
            }
            Device::Cuda(ordinal) => {
                device.check_available(op)?;
                let storage = cuda::runtime::transfer::alloc(op, ordinal, dtype, n)?;
                cuda::runtime::transfer::upload_with(
                    &storage,
                    n * dtype.itemsize(),
                    &mut |piece| {
                        fill(piece)?;
                        normalize_bools(piece);
                        Ok(())
                    },
                )?;
                Ok(Array::from_parts(Storage::Cuda(storage), layout, dtype))
            }
        }
    }

    /// Hands the bytes of this C- or F-contiguous array to `sink` in memory
    /// order, by chunks (staged through pinned memory from a GPU, so no
    /// full-size host copy is made).
    pub(crate) fn write_byte_chunks(
        &self,
        op: &'static str,
        sink: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<()> {
        debug_assert!(self.is_c_contiguous() || self.is_f_contiguous());
        // The lowest address of a contiguous array with positive strides.
        let start = self.layout().offset_range().0.max(0) as usize;
        let n = self.size();
        match self.storage() {
            Storage::Cpu(s) => {
                let guard = s.read();
                crate::with_dtype!(self.dtype(), T => {
                    let v = T::slice(&guard).expect("dtype of the buffer matches the array's dtype");
                    for piece in cuda::runtime::transfer::as_bytes(&v[start..start + n]).chunks(HOST_CHUNK) {
                        crate::core::interrupt::check(op)?;
                        sink(piece)?;
                    }
                });
                Ok(())
            }
            Storage::Cuda(c) => {
                cuda::runtime::transfer::download_with(c, start, n, self.itemsize(), sink)
            }
        }
    }
}

/// The bytes of a typed slice, writable (every element type but `bool`
/// accepts any bit pattern).
fn bytes_of_mut<T: Element>(v: &mut [T]) -> &mut [u8] {
    assert_ne!(T::DTYPE, DType::Bool, "bool bytes are read as u8 first");
    // SAFETY: not bool (checked above): integers, floats and complex numbers
    // of them have no padding and every bit pattern is a valid value.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, std::mem::size_of_val(v)) }
}

/// Bytes that are all 0 or 1 as bools, reusing the allocation.
fn bytes_into_bools(bytes: Vec<u8>) -> Vec<bool> {
    debug_assert!(bytes.iter().all(|&b| b <= 1));
    let mut bytes = std::mem::ManuallyDrop::new(bytes);
    // SAFETY: bool has the size and alignment of u8 and every byte is 0 or
    // 1 (normalised by the caller), so the buffer is a valid Vec<bool> with
    // the same length and capacity.
    unsafe {
        Vec::from_raw_parts(
            bytes.as_mut_ptr() as *mut bool,
            bytes.len(),
            bytes.capacity(),
        )
    }
}

//! Interop: ndarray views both ways, cudarc slices, the CUDA array
//! interface, DLPack, and pinned host buffers with asynchronous copies.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::{s, Array, DType, Device, Error};

/// `np.arange(12).reshape(3, 4)` as float32 on the current device.
fn a34() -> Array {
    cp::arange(12)
        .and_then(|a| a.reshape([3, 4])?.astype(cp::f32))
        .unwrap()
}

/// [`a34`] on the CPU whatever the default device (ndarray views are of
/// host memory; on the GPU machine the default device is the GPU).
fn a34_cpu() -> Array {
    cp::with_device(Device::Cpu, a34)
}

#[test]
fn ndarray_views_match_every_layout() {
    let a = a34_cpu();
    // Contiguous, transposed, sliced with negative steps, broadcast, empty.
    let layouts = [
        a.clone(),
        a.t(),
        a.slice(s![..;-1, 1..;2]).unwrap(),
        a.slice(s![1.., ..;-3]).unwrap().t(),
        a.slice(s![0]).unwrap().broadcast_to(&[2, 4]).unwrap(),
        a.slice(s![2..2]).unwrap(),
        a.slice(s![1, 2]).unwrap(),
    ];
    for x in &layouts {
        let guard = x.as_ndarray_view::<f32>().unwrap();
        let view = guard.view();
        assert_eq!(view.shape(), x.shape());
        // The view walks the same elements in C order as the array.
        let walked: Vec<f32> = view.iter().copied().collect();
        assert_eq!(walked, x.to_vec::<f32>().unwrap(), "{:?}", x.strides());
        if !x.is_empty() {
            // (ndarray gives empty arrays zero strides.)
            assert_eq!(view.strides(), x.strides(), "strides in elements");
        }
    }
}

#[test]
fn ndarray_mutable_view_writes_through() {
    let a = a34_cpu();
    let flipped = a.slice(s![.., ..;-1]).unwrap();
    {
        let mut guard = flipped.as_ndarray_view_mut::<f32>().unwrap();
        let mut view = guard.view_mut();
        view[[0, 0]] = -1.0; // a[0, 3]
        view.index_axis_mut(ndarray::Axis(1), 3).fill(9.0); // a[:, 0]
    }
    // NumPy: a = np.arange(12.).reshape(3, 4); f = a[:, ::-1]; f[0, 0] = -1; f[:, 3] = 9
    assert_eq!(
        a.to_vec::<f32>().unwrap(),
        vec![9.0, 1.0, 2.0, -1.0, 9.0, 5.0, 6.0, 7.0, 9.0, 9.0, 10.0, 11.0]
    );
}

#[test]
fn ndarray_views_refuse_bad_requests() {
    let a = a34_cpu();
    let e = a.as_ndarray_view::<f64>().unwrap_err();
    assert_error!(e, DType, "as_ndarray_view");
    let b = a.slice(s![0]).unwrap().broadcast_to(&[2, 4]).unwrap();
    let e = b.as_ndarray_view_mut::<f32>().unwrap_err();
    assert_error!(e, InvalidArgument, "as_ndarray_view_mut");
    if let Some(dev) = gpu_or_skip() {
        let g = a.to_device(&dev).unwrap();
        let e = g.as_ndarray_view::<f32>().unwrap_err();
        assert_error!(e, InvalidArgument, "as_ndarray_view");
    }
}

#[test]
fn from_ndarray_moves_the_buffer_in() {
    let owned =
        ndarray::Array::from_shape_vec((3, 4), (0..12).map(|v| v as f64).collect()).unwrap();
    let ptr = owned.as_ptr();
    let x = cp::from_ndarray(owned.clone());
    assert_eq!(x.shape(), &[3, 4]);
    assert_eq!(
        x.to_vec::<f64>().unwrap(),
        owned.iter().copied().collect::<Vec<_>>()
    );
    // No copy: the array's view starts where the moved Vec did.
    let moved = cp::from_ndarray(owned);
    assert_eq!(moved.as_ndarray_view::<f64>().unwrap().view().as_ptr(), ptr);
    // Any layout ndarray has: reversed axes, negative strides, a sliced owner.
    let base = ndarray::Array::from_shape_vec((3, 4), (0..12).collect::<Vec<i32>>()).unwrap();
    let sliced = base.clone().slice_move(ndarray::s![1.., ..;-2]);
    let expected: Vec<i32> = sliced.iter().copied().collect();
    let x = cp::from_ndarray(sliced);
    assert_eq!(x.shape(), &[2, 2]);
    assert_eq!(x.to_vec::<i32>().unwrap(), expected);
    let x = cp::from_ndarray(base.reversed_axes());
    assert_eq!(
        x.to_vec::<i32>().unwrap(),
        vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    );
    let empty = cp::from_ndarray(ndarray::Array2::<bool>::default((0, 3)));
    assert_eq!(
        (empty.shape(), empty.dtype()),
        (&[0usize, 3][..], DType::Bool)
    );
    let _ = Device::Cpu;
}

/// One small array of every dtype, transposed (non-contiguous), on the
/// current device: `np.arange(6).reshape(2, 3).astype(d).T`.
fn every_dtype() -> Vec<Array> {
    DType::ALL
        .iter()
        .map(|&d| {
            cp::arange(6)
                .unwrap()
                .reshape([2, 3])
                .unwrap()
                .astype(d)
                .unwrap()
                .t()
        })
        .collect()
}

on_every_device!(dlpack_round_trips_every_dtype, |dev| {
    cp::cuda::reset_host_fallbacks();
    for x in every_dtype() {
        let t = x.to_dlpack()?;
        let raw = t.as_raw();
        assert_eq!(raw.version.major, 1);
        let (kind, id) = match dev {
            Device::Cpu => (cp::dlpack::KDL_CPU, 0),
            Device::Cuda(n) => (cp::dlpack::KDL_CUDA, n as i32),
        };
        assert_eq!(
            (
                raw.dl_tensor.device.device_type,
                raw.dl_tensor.device.device_id
            ),
            (kind, id)
        );
        assert_eq!(raw.dl_tensor.dtype, cp::dlpack::dlpack_dtype(x.dtype()));
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(
            t.strides(),
            Some(&[1i64, 3][..]),
            "non-contiguous strides in elements"
        );
        let y = cp::from_dlpack(t)?;
        assert_eq!(
            (y.dtype(), y.shape(), y.device()),
            (x.dtype(), x.shape(), dev)
        );
        assert_eq!(values_f64_any(&y), values_f64_any(&x), "{}", x.dtype());
        if !dev.is_cpu() {
            // Device memory is shared, not copied: both see one address.
            let (a, b) = (x.cuda_array_interface()?, y.cuda_array_interface()?);
            assert_eq!(a.data.0, b.data.0);
            assert_eq!(a.strides, b.strides);
        }
    }
    // A negative-stride view keeps its layout through DLPack.
    let x = cp::arange(12)?.reshape([3, 4])?.slice(s![..;-1, 1..;2])?;
    let y = cp::from_dlpack(x.to_dlpack()?)?;
    assert_eq!(y.to_vec::<i64>()?, x.to_vec::<i64>()?);
    // The bool dtype is kDLBool (6) with 8 bits; bfloat16 kDLBfloat (4).
    let b = cp::dlpack::dlpack_dtype(DType::Bool);
    assert_eq!((b.code, b.bits, b.lanes), (6, 8, 1));
    let b = cp::dlpack::dlpack_dtype(DType::BFloat16);
    assert_eq!((b.code, b.bits, b.lanes), (4, 16, 1));
    let c = cp::dlpack::dlpack_dtype(DType::Complex64);
    assert_eq!((c.code, c.bits), (5, 64));
    assert_no_host_fallback("DLPack round trips");
});

/// Values of any dtype as (real, imaginary) pairs, in C order.
fn values_f64_any(a: &Array) -> Vec<(f64, f64)> {
    let c = a.astype(DType::Complex128).unwrap();
    c.to_vec::<cp::num_complex::Complex64>()
        .unwrap()
        .into_iter()
        .map(|z| (z.re, z.im))
        .collect()
}

mod foreign_tensor {
    //! A DLPack tensor made by "another library": a boxed Vec and a deleter
    //! that counts its calls.
    use cuprite::dlpack::*;
    use std::cell::Cell;
    use std::ffi::c_void;
    use std::ptr::NonNull;

    thread_local! {
        // Per thread: other tests make and drop these tensors at the same
        // time, and every deletion here happens on the dropping thread.
        static DELETED: Cell<usize> = const { Cell::new(0) };
    }

    /// How many of this thread's tensors were deleted so far.
    pub fn deleted() -> usize {
        DELETED.with(Cell::get)
    }

    #[repr(C)]
    struct Owned {
        tensor: DLManagedTensorVersioned,
        data: Vec<f32>,
        shape: [i64; 2],
        strides: [i64; 2],
    }

    unsafe extern "C" fn delete(t: *mut DLManagedTensorVersioned) {
        DELETED.with(|n| n.set(n.get() + 1));
        drop(unsafe { Box::from_raw(t as *mut Owned) });
    }

    /// `np.arange(6, dtype=np.float32).reshape(2, 3).T` as a host tensor
    /// with explicit strides (1, 3).
    pub fn transposed() -> ManagedTensor {
        let mut owned = Box::new(Owned {
            tensor: DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 0 },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete),
                flags: 0,
                dl_tensor: DLTensor {
                    data: std::ptr::null_mut(),
                    device: DLDevice {
                        device_type: KDL_CPU,
                        device_id: 0,
                    },
                    ndim: 2,
                    dtype: dlpack_dtype(cuprite::DType::Float32),
                    shape: std::ptr::null_mut(),
                    strides: std::ptr::null_mut(),
                    byte_offset: 0,
                },
            },
            data: (0..6).map(|v| v as f32).collect(),
            shape: [3, 2],
            strides: [1, 3],
        });
        owned.tensor.dl_tensor.data = owned.data.as_mut_ptr() as *mut c_void;
        owned.tensor.dl_tensor.shape = owned.shape.as_mut_ptr();
        owned.tensor.dl_tensor.strides = owned.strides.as_mut_ptr();
        let raw = NonNull::from(Box::leak(owned)).cast();
        // SAFETY: a valid tensor, deleted once by its new owner.
        unsafe { ManagedTensor::from_raw(raw) }
    }
}

#[test]
fn dlpack_deleter_runs_exactly_once() {
    let before = foreign_tensor::deleted();
    // Imported (a host tensor is copied): deleted once, at import.
    let x = cp::from_dlpack(foreign_tensor::transposed()).unwrap();
    assert_eq!(foreign_tensor::deleted(), before + 1);
    assert_eq!(
        x.to_vec::<f32>().unwrap(),
        vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    );
    drop(x);
    assert_eq!(foreign_tensor::deleted(), before + 1);
    // Dropped unused: deleted once; given away with into_raw: not at all.
    drop(foreign_tensor::transposed());
    assert_eq!(foreign_tensor::deleted(), before + 2);
    let raw = foreign_tensor::transposed().into_raw();
    assert_eq!(foreign_tensor::deleted(), before + 2);
    // SAFETY: the pointer just given away, taken back once.
    drop(unsafe { cp::ManagedTensor::from_raw(raw) });
    assert_eq!(foreign_tensor::deleted(), before + 3);
}

#[test]
fn dlpack_refuses_what_cuprite_lacks() {
    let e = cp::from_dlpack(edited(|t| t.dl_tensor.dtype.lanes = 4)).unwrap_err();
    assert_error!(e, DType, "from_dlpack");
    // kDLMetal (8)
    let e = cp::from_dlpack(edited(|t| t.dl_tensor.device.device_type = 8)).unwrap_err();
    assert_error!(e, InvalidArgument, "from_dlpack");
    assert!(cp::from_dlpack(edited(|t| t.version.major = 2)).is_err());
}

/// The test tensor with one field changed.
fn edited(edit: impl FnOnce(&mut cp::dlpack::DLManagedTensorVersioned)) -> cp::ManagedTensor {
    let raw = foreign_tensor::transposed().into_raw();
    // SAFETY: the tensor just given away, edited while nothing else sees it
    // and taken back once.
    unsafe {
        edit(&mut *raw.as_ptr());
        cp::ManagedTensor::from_raw(raw)
    }
}

on_every_device!(cuda_array_interface_describes_the_memory, |dev| {
    let x = a34();
    if dev.is_cpu() {
        let e = x.cuda_array_interface().unwrap_err();
        assert_error!(e, InvalidArgument, "cuda_array_interface");
        return Ok(());
    }
    let i = x.cuda_array_interface()?;
    assert_eq!(
        (i.shape.clone(), i.strides.clone(), i.version),
        (vec![3, 4], None, 3)
    );
    assert_eq!(i.typestr, "<f4");
    assert!(i.data.0 != 0 && !i.data.1);
    // x[1:, ::-2]: NumPy gives strides (16, -8) and the address of x[1, 3].
    let v = x.slice(s![1.., ..;-2])?;
    let iv = v.cuda_array_interface()?;
    assert_eq!(iv.strides, Some(vec![16, -8]));
    assert_eq!(iv.data.0, i.data.0 + 7 * 4);
    let json = iv.to_json();
    assert!(
        json.contains("\"strides\": [16, -8]") && json.contains("\"version\": 3"),
        "{json}"
    );
    // Type strings of every dtype, as NumPy writes them.
    let expected = [
        "|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<V2", "<f4", "<f8",
        "<c8", "<c16",
    ];
    for (d, t) in DType::ALL.iter().zip(expected) {
        let a = cp::zeros([2], *d)?;
        assert_eq!(a.cuda_array_interface()?.typestr, t, "{d}");
    }
    // Memory described by an interface becomes an array without a copy.
    let keep = x.clone();
    // SAFETY: `keep` owns the memory and goes into keep_alive.
    let y = unsafe { cp::from_array_interface(&iv, Box::new(keep))? };
    assert_eq!(y.to_vec::<f32>()?, v.to_vec::<f32>()?);
    let mut y = y;
    y.fill(0.5f32)?;
    assert_eq!(
        v.to_vec::<f32>()?,
        vec![0.5; 4],
        "writes reach the shared memory"
    );
    let mut readonly = iv.clone();
    readonly.data.1 = true;
    // SAFETY: refused before the memory is used.
    let e = unsafe { cp::from_array_interface(&readonly, Box::new(())) }.unwrap_err();
    assert_error!(e, InvalidArgument, "from_array_interface");
});

on_every_device!(cudarc_views_and_slices, |dev| {
    let x = a34();
    if dev.is_cpu() {
        let e = x.as_cuda_view::<f32>().unwrap_err();
        assert_error!(e, InvalidArgument, "as_cuda_view");
        return Ok(());
    }
    cp::cuda::reset_host_fallbacks();
    let guard = x.as_cuda_view::<f32>()?;
    let view = guard.view();
    assert_eq!(view.len(), 12);
    let host = guard.stream().clone_dtoh(&view).unwrap();
    assert_eq!(host, x.to_vec::<f32>()?);
    drop(guard);
    // A sliced but contiguous view starts at its own first element.
    let row = x.slice(s![1])?;
    let guard = row.as_cuda_view::<f32>()?;
    assert_eq!(
        guard.stream().clone_dtoh(&guard.view()).unwrap(),
        vec![4.0, 5.0, 6.0, 7.0]
    );
    drop(guard);
    let e = x.t().as_cuda_view::<f32>().unwrap_err();
    assert_error!(e, InvalidArgument, "as_cuda_view");
    let e = x.as_cuda_view::<f64>().unwrap_err();
    assert_error!(e, DType, "as_cuda_view");
    // A cudarc slice taken over: same address, no copy.
    let ctx = cudarc::driver::CudaContext::new(0).unwrap();
    let slice = ctx
        .default_stream()
        .clone_htod(&[1i32, 2, 3, 4, 5, 6])
        .unwrap();
    let y = cp::from_cuda_slice(slice, [2, 3])?;
    assert_eq!(y.to_vec::<i32>()?, vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(y.sum()?.item::<i64>()?, 21);
    let slice = ctx.default_stream().clone_htod(&[1i32, 2, 3]).unwrap();
    let e = cp::from_cuda_slice(slice, [2, 2]).unwrap_err();
    assert_error!(e, Shape, "from_cuda_slice");
    assert_no_host_fallback("cudarc interop");
});

on_every_device!(pinned_async_copies, |dev| {
    if dev.is_cpu() {
        let e = cp::cuda::PinnedBuffer::<f32>::new(4).unwrap_err();
        assert!(matches!(e, Error::NeedsCuda { .. }), "{e}");
        return Ok(());
    }
    cp::cuda::reset_host_fallbacks();
    let stream = cp::cuda::Stream::new()?;
    let values: Vec<f64> = (0..100_000).map(|v| (v as f64).sin()).collect();
    let src = cp::cuda::PinnedBuffer::from_slice(&values)?;
    let (x, pending) = cp::cuda::copy_to_device_async(&src, [1000, 100], &stream)?;
    pending.wait()?;
    assert_eq!(x.to_vec::<f64>()?, values);
    // GPU work on the default stream, then an asynchronous copy back on ours.
    let doubled = cp::multiply(&x, 2.0)?;
    let mut dst = cp::cuda::PinnedBuffer::<f64>::new(values.len())?;
    let pending = doubled.copy_to_host_async(&mut dst, &stream)?;
    while !pending.is_done()? {
        std::thread::yield_now();
    }
    drop(pending);
    let expected: Vec<f64> = values.iter().map(|v| v * 2.0).collect();
    assert_eq!(dst.as_slice()?, &expected[..]);
    // A forgotten handle still leaves the buffer safe: it waits itself.
    std::mem::forget(x.copy_to_host_async(&mut dst, &stream)?);
    assert_eq!(dst.as_slice()?, &values[..]);
    // Bad requests.
    let e = x.t().copy_to_host_async(&mut dst, &stream).unwrap_err();
    assert_error!(e, InvalidArgument, "copy_to_host_async");
    let mut short = cp::cuda::PinnedBuffer::<f64>::new(3)?;
    let e = x.copy_to_host_async(&mut short, &stream).unwrap_err();
    assert_error!(e, Shape, "copy_to_host_async");
    let e = cp::cuda::copy_to_device_async(&short, [2, 2], &stream).unwrap_err();
    assert_error!(e, Shape, "copy_to_device_async");
    assert_no_host_fallback("pinned async copies");
});

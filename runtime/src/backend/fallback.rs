//! The one way a GPU array goes through the host.
//!
//! An operation that has no GPU kernel for some input runs its CPU
//! implementation through [`on_host`] (front-end code over arrays; [`fetch`]
//! when it only reads) or [`on_views`] (a backend over views, handed the CPU
//! backend and host copies; [`write_back`] returns a result): every form
//! ends in [`on_host`], which counts the trip per operation
//! name in the process-wide CUDA state (so every evcxr cell copy of the
//! crate adds to the same counts), `%gpu` shows the counts
//! ([`crate::cuda::cuda_report`]) and [`host_fallbacks`] returns them; the GPU
//! tests assert that built-in operations never take this path. Nothing else
//! in the runtime should copy a GPU array to the host to compute on it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::thread::ThreadId;

use crate::backend::probe::with_device;

use crate::core::device::Device;
use crate::core::element::{Element, Scalar};
use crate::core::error::Result;
use crate::core::layout::Layout;
use crate::core::storage::{CpuStorage, Storage};
use crate::core::view::View;
use crate::cpu::CpuBackend;
use crate::cuda::runtime::transfer::{download_all, upload_range};

/// Host trips per operation name (kept in `session::CudaProcess`), for the
/// whole process and per calling thread: a test asserting that its own ops
/// stayed on the GPU reads its thread's counts, which threads running other
/// tests beside it do not change.
#[derive(Default)]
pub(crate) struct FallbackCounts {
    process: Mutex<BTreeMap<String, u64>>,
    per_thread: Mutex<HashMap<ThreadId, BTreeMap<String, u64>>>,
}

impl FallbackCounts {
    fn add(&self, op: &str) {
        let mut m = self.process.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry(op.to_string()).or_insert(0) += 1;
        let mut t = self.per_thread.lock().unwrap_or_else(|e| e.into_inner());
        let here = t.entry(std::thread::current().id()).or_default();
        *here.entry(op.to_string()).or_insert(0) += 1;
    }

    fn snapshot(&self) -> Vec<(String, u64)> {
        let m = self.process.lock().unwrap_or_else(|e| e.into_inner());
        m.iter().map(|(k, &v)| (k.clone(), v)).collect()
    }

    fn snapshot_this_thread(&self) -> Vec<(String, u64)> {
        let t = self.per_thread.lock().unwrap_or_else(|e| e.into_inner());
        t.get(&std::thread::current().id())
            .map(|m| m.iter().map(|(k, &v)| (k.clone(), v)).collect())
            .unwrap_or_default()
    }

    fn clear(&self) {
        self.process
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        // Other threads' counts stay: a reset here must not hide a trip
        // another thread's test is about to check.
        self.per_thread
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&std::thread::current().id());
    }
}

/// What a host computation returns, moved back to the device of its inputs
/// (arrays move; plain host values such as counts stay as they are).
pub(crate) trait Place: Sized {
    /// `self` with every array on `device`.
    fn place(self, device: Device) -> Result<Self>;
}

impl<T: Place> Place for Vec<T> {
    fn place(self, device: Device) -> Result<Self> {
        self.into_iter().map(|x| x.place(device)).collect()
    }
}

impl<T: Place> Place for Option<T> {
    fn place(self, device: Device) -> Result<Self> {
        self.map(|x| x.place(device)).transpose()
    }
}

impl<A: Place, B: Place> Place for (A, B) {
    fn place(self, device: Device) -> Result<Self> {
        Ok((self.0.place(device)?, self.1.place(device)?))
    }
}

impl<A: Place, B: Place, C: Place> Place for (A, B, C) {
    fn place(self, device: Device) -> Result<Self> {
        Ok((
            self.0.place(device)?,
            self.1.place(device)?,
            self.2.place(device)?,
        ))
    }
}

macro_rules! stays_on_host {
    ($($t:ty),*) => {$(
        impl Place for $t {
            fn place(self, _: Device) -> Result<Self> { Ok(self) }
        }
    )*};
}
stays_on_host!((), bool, i32, i64, usize, f64, Scalar);

/// Host values (a `Vec`, a host-side structure) that stay on the host: what
/// a host fallback returns when its caller builds the device result itself.
pub(crate) struct Host<T>(pub T);

impl<T> Place for Host<T> {
    fn place(self, _: Device) -> Result<Self> {
        Ok(self)
    }
}

/// The host copy of data on `device` that `fetch` reads, counted as a host
/// fallback of `op` when `device` is a GPU (for CPU code that reads GPU
/// data and builds the device result itself).
pub(crate) fn fetch<T>(op: &str, device: Device, fetch: impl FnOnce() -> Result<T>) -> Result<T> {
    Ok(on_host(op, device, || fetch().map(Host))?.0)
}

/// Runs `f`, the host part of operation `op` on data of `device`, and moves
/// its result to `device`. When `device` is a GPU the trip is counted under
/// `op` and `f` runs with the CPU as the current device (arrays it creates
/// are host arrays); `f` fetches what it needs itself. On the CPU `f`
/// simply runs.
pub(crate) fn on_host<R: Place>(
    op: &str,
    device: Device,
    f: impl FnOnce() -> Result<R>,
) -> Result<R> {
    if !device.is_cuda() {
        return f();
    }
    crate::cuda::runtime::session::process()
        .host_fallbacks
        .add(op);
    let r = with_device(Device::Cpu, f)?;
    r.place(device)
}

/// Runs `f`, the CPU backend's form of `op`, on host copies of `inputs`
/// (same layouts), counted under `op` when one of them is on a GPU: the
/// round trip of a backend that has no kernel for some input. Results come
/// back as host buffers; [`write_back`] or an upload moves them.
pub(crate) fn on_views<R>(
    op: &'static str,
    inputs: &[View<'_>],
    f: impl FnOnce(&'static CpuBackend, &[View<'_>]) -> Result<R>,
) -> Result<R> {
    let device = inputs
        .iter()
        .map(|v| v.device())
        .find(Device::is_cuda)
        .unwrap_or(Device::Cpu);
    fetch(op, device, || {
        let host = inputs
            .iter()
            .map(|v| host_copy(*v))
            .collect::<Result<Vec<_>>>()?;
        let views: Vec<View<'_>> = inputs
            .iter()
            .zip(&host)
            .map(|(v, s)| View::new(s, v.layout, v.dtype))
            .collect();
        f(&CpuBackend, &views)
    })
}

/// A host copy of the whole buffer `v` views (the same layout reads it).
fn host_copy(v: View<'_>) -> Result<Storage> {
    match v.storage {
        Storage::Cuda(c) => crate::with_dtype!(v.dtype, T => Ok(Storage::Cpu(
            CpuStorage::new(T::into_data(download_all::<T>(c)?)),
        ))),
        Storage::Cpu(_) => Ok(v.storage.clone()),
    }
}

/// The elements of the host buffer `host` (C order, `dst`'s dtype) written
/// over the device buffer of `dst` from `dst`'s offset on; nothing for a
/// host `dst`, which the CPU backend wrote itself.
pub(crate) fn write_back(dst: View<'_>, host: &Storage) -> Result<()> {
    if let (Storage::Cuda(c), Storage::Cpu(h)) = (dst.storage, host) {
        let data = h.read();
        crate::with_dtype!(dst.dtype, T => upload_range::<T>(
            c,
            dst.offset(),
            T::slice(&data).expect("a host result holds the dtype of its view"),
        )?);
    }
    Ok(())
}

/// Runs `f` on host copies of `x` and of a host buffer as large as `out`'s
/// (same layouts), then writes that buffer over `out`'s: the round trip of
/// an op that writes into an output view (a reduction with no kernel).
pub(crate) fn into_view(
    op: &'static str,
    x: View<'_>,
    out: View<'_>,
    f: impl FnOnce(&'static CpuBackend, View<'_>, View<'_>) -> Result<()>,
) -> Result<()> {
    use crate::ops::create::Create;
    let whole = match out.storage {
        Storage::Cuda(c) => c.len,
        Storage::Cpu(_) => return f(&CpuBackend, x, out),
    };
    let host_out = on_views(op, &[x], |cpu, h| {
        let host_out = cpu.empty(op, out.dtype, whole)?;
        f(cpu, h[0], View::new(&host_out, out.layout, out.dtype))?;
        Ok(host_out)
    })?;
    let all = Layout::contiguous(&[whole]);
    write_back(View::new(out.storage, &all, out.dtype), &host_out)
}

/// How many times each operation took a GPU array through the host since
/// the process started (or since [`reset_host_fallbacks`]), sorted by name.
/// Built-in operations are expected never to appear here.
pub fn host_fallbacks() -> Vec<(String, u64)> {
    crate::cuda::runtime::session::process()
        .host_fallbacks
        .snapshot()
}

/// [`host_fallbacks`] counting only the operations this thread called: what
/// a test (or a user's worker thread) checks about its own work while other
/// threads run beside it.
pub fn host_fallbacks_on_this_thread() -> Vec<(String, u64)> {
    crate::cuda::runtime::session::process()
        .host_fallbacks
        .snapshot_this_thread()
}

/// Sets the process's host-fallback counts back to zero, and this
/// thread's (other threads keep theirs).
pub fn reset_host_fallbacks() {
    crate::cuda::runtime::session::process()
        .host_fallbacks
        .clear();
}

/// One line for `%gpu`: the counts, or that there were none.
pub(crate) fn report() -> String {
    let counts = host_fallbacks();
    if counts.is_empty() {
        return "  host fallbacks: none (every GPU operation ran on the GPU)".into();
    }
    let list: Vec<String> = counts.iter().map(|(op, n)| format!("{op} {n}")).collect();
    format!(
        "  host fallbacks (GPU arrays computed on the host): {}",
        list.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_per_name_and_sort_by_name() {
        let c = FallbackCounts::default();
        c.add("sort");
        c.add("clip");
        c.add("sort");
        assert_eq!(
            c.snapshot(),
            vec![("clip".to_string(), 1), ("sort".to_string(), 2)]
        );
        c.clear();
        assert!(c.snapshot().is_empty());
    }

    #[test]
    fn host_arrays_run_without_being_counted() {
        // Only GPU data is counted: a CPU call is the CPU backend itself.
        let before = host_fallbacks();
        let r = on_host("fallback-selftest", Device::Cpu, || {
            Ok((Host(vec![3.0f64, 1.0, 2.0]), 7usize))
        })
        .unwrap();
        assert_eq!(r.1, 7);
        assert_eq!(r.0 .0, vec![3.0, 1.0, 2.0]);
        assert!(host_fallbacks()
            .iter()
            .all(|(op, _)| op != "fallback-selftest"));
        assert_eq!(host_fallbacks().len(), before.len());
    }

    #[test]
    fn the_process_wide_counter_counts_gpu_trips() {
        // The test hook: what `on_host` does for a GPU device, without one.
        let counts = &crate::cuda::runtime::session::process().host_fallbacks;
        counts.add("fallback-selftest-gpu");
        counts.add("fallback-selftest-gpu");
        let got = host_fallbacks();
        assert!(got.contains(&("fallback-selftest-gpu".to_string(), 2)));
        assert!(got.windows(2).all(|w| w[0].0 < w[1].0), "sorted by name");
        assert!(report().contains("fallback-selftest-gpu 2"));
    }
}

//! Small pieces shared by the generated kernels of the data-moving
//! operations (arg-reductions, scans, sorts, gathers): device pointers,
//! geometry passed by value, index arithmetic in generated code, scratch
//! words and read-backs.

use std::fmt::Write;
use std::hash::{Hash, Hasher};

use crate::core::element::Element;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::runtime::compile::Function;
use crate::cuda::runtime::launch::LaunchConfig;
use crate::cuda::runtime::session::{session, DeviceSession};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::DriverResultExt;

/// The CUDA device number of an array (or view) on a GPU.
pub(crate) fn ordinal<'a>(op: &'static str, a: impl Into<View<'a>>) -> Result<usize> {
    match a.into().device() {
        crate::Device::Cuda(n) => Ok(n),
        crate::Device::Cpu => Err(Error::DeviceMismatch {
            op,
            a: "cuda".into(),
            b: "cpu".into(),
        }),
    }
}

/// The session of the device holding `a`.
pub(crate) fn session_of<'a>(
    op: &'static str,
    a: impl Into<View<'a>>,
) -> Result<&'static DeviceSession> {
    session(ordinal(op, a)?)
}

/// Device address of element 0 of the view `a` (an array or a view).
pub(crate) fn ptr<'a>(op: &'static str, a: impl Into<View<'a>>) -> Result<u64> {
    let a = a.into();
    match a.storage {
        Storage::Cuda(c) => Ok(c.buffer.ptr + (a.offset() * a.dtype().itemsize()) as u64),
        Storage::Cpu(_) => Err(Error::DeviceMismatch {
            op,
            a: "cuda".into(),
            b: "cpu".into(),
        }),
    }
}

/// A compact in-process key of everything that determines a generated source.
pub(crate) fn key(parts: impl Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    parts.hash(&mut h);
    h.finish()
}

/// The kernel `fname` of the source identified by `key` (built on first use).
pub(crate) fn kernel(
    s: &DeviceSession,
    key: u64,
    name: &str,
    fname: &str,
    source: impl FnOnce() -> String,
) -> Result<Function> {
    s.kernels.specialized(s, key, name, fname, source)
}

/// Shape and strides with extent-1 axes dropped and axes that are
/// contiguous together merged, preserving the C order of the index.
pub(crate) fn merged(shape: &[usize], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    if shape.contains(&0) {
        return (vec![0], vec![0]);
    }
    let l = Layout::from_parts(shape.to_vec(), strides.to_vec(), 0);
    let (s, st) = Layout::merge_axes(&[&l]);
    (s, st.into_iter().next().unwrap_or_default())
}

/// Integers passed to a kernel by value in one struct (`Geo g`), read in
/// generated code as `g.v[i]`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Geo {
    vals: Vec<i64>,
}

impl Geo {
    pub fn new() -> Geo {
        Geo::default()
    }

    /// Appends values, returning the index of the first.
    pub fn add(&mut self, xs: impl IntoIterator<Item = i64>) -> usize {
        let at = self.vals.len();
        self.vals.extend(xs);
        at
    }

    /// Appends a group of dimensions (shapes, then strides), returning where
    /// the shapes and the strides start.
    pub fn dims(&mut self, shape: &[usize], strides: &[isize]) -> Dims {
        let s = self.add(shape.iter().map(|&d| d as i64));
        let t = self.add(strides.iter().map(|&d| d as i64));
        Dims {
            nd: shape.len(),
            shape_at: s,
            stride_at: t,
        }
    }

    /// Number of values (at least one, so the struct is never empty).
    pub fn len(&self) -> usize {
        self.vals.len().max(1)
    }

    /// The C declaration of the struct.
    pub fn decl(len: usize) -> String {
        format!("struct Geo {{ long long v[{}]; }};\n", len.max(1))
    }

    /// The bytes of the struct, for `KernelArgs::push_bytes`.
    pub fn bytes(&self) -> Vec<u8> {
        let mut v = self.vals.clone();
        if v.is_empty() {
            v.push(0);
        }
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }
}

/// Where a group of dimensions sits in a [`Geo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Dims {
    pub nd: usize,
    pub shape_at: usize,
    pub stride_at: usize,
}

/// C statements adding to `off` the offset of C-order index `idx` over the
/// dimensions `d` (shapes and strides read from `g.v`). `idx` is not changed.
pub(crate) fn unravel(idx: &str, off: &str, d: Dims) -> String {
    match d.nd {
        0 => String::new(),
        1 => format!("{off} += ({idx}) * g.v[{}];\n", d.stride_at),
        nd => {
            let mut s = String::new();
            let _ = writeln!(s, "{{ long long r_ = ({idx}), q_;");
            for ax in (1..nd).rev() {
                let _ = writeln!(
                    s,
                    "  q_ = r_ / g.v[{sh}]; {off} += (r_ - q_ * g.v[{sh}]) * g.v[{st}]; r_ = q_;",
                    sh = d.shape_at + ax,
                    st = d.stride_at + ax
                );
            }
            let _ = writeln!(s, "  {off} += r_ * g.v[{}]; }}", d.stride_at);
            s
        }
    }
}

/// Sets `bytes` bytes at `dptr` to `byte` on the current stream.
pub(crate) fn memset(s: &DeviceSession, op: &str, dptr: u64, byte: u8, bytes: usize) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    s.bind()?;
    // SAFETY: the caller passes a range inside one of its device buffers.
    unsafe { cudarc::driver::sys::cuMemsetD8Async(dptr, byte, bytes, current_stream().raw()) }
        .result()
        .op(op)
}

/// One element (`at`, in C order of a contiguous array) read back to the host.
pub(crate) fn read_one<'a, T: Element>(a: impl Into<View<'a>>, at: usize) -> Result<T> {
    let a = a.into();
    debug_assert_eq!(T::DTYPE, a.dtype());
    match a.storage {
        Storage::Cuda(c) => {
            let v = crate::cuda::runtime::transfer::download_range::<T>(c, a.offset() + at, 1)?;
            Ok(v[0])
        }
        Storage::Cpu(_) => Ok(a.gather::<T>()[at]),
    }
}

/// Blocks of `threads` threads for a grid-stride loop over `n` items, capped
/// so the grid fills the device a few times over.
pub(crate) fn grid_1d(s: &DeviceSession, n: usize, threads: usize) -> u32 {
    let needed = n.div_ceil(threads).max(1);
    let cap = s.info.sm_count.max(1) * 32;
    needed.min(cap) as u32
}

/// A grid-stride launch over `n` items: [`grid_1d`] blocks of `threads`,
/// no dynamic shared memory.
pub(crate) fn config_1d(s: &DeviceSession, n: usize, threads: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (grid_1d(s, n, threads), 1, 1),
        block: (threads as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Compiles a generated source of a unit test with NVRTC when it can be
/// loaded (no GPU needed; see `compile::check_compiles`), failing the test
/// on a compile error, and writes it to `$CUPRITE_DUMP_KERNELS/<name>.cu`
/// when that variable is set.
#[cfg(test)]
pub(crate) fn dump_source(name: &str, src: &str) {
    if let Some(dir) = std::env::var_os("CUPRITE_DUMP_KERNELS") {
        let dir = std::path::PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(format!("{name}.cu")), src);
    }
    if let Err(log) = crate::cuda::runtime::compile::check_compiles(name, src) {
        panic!("generated kernel `{name}` does not compile:\n{log}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unravel_walks_c_order() {
        let mut g = Geo::new();
        let d = g.dims(&[2, 3, 4], &[12, 4, 1]);
        let code = unravel("j", "off", d);
        // The last axis is peeled first; the first needs no division.
        assert!(code.contains("q_ = r_ / g.v[2]; off += (r_ - q_ * g.v[2]) * g.v[5]; r_ = q_;"));
        assert!(code.contains("q_ = r_ / g.v[1]; off += (r_ - q_ * g.v[1]) * g.v[4]; r_ = q_;"));
        assert!(code.contains("off += r_ * g.v[3]; }"));
        let one = g.dims(&[7], &[-2]);
        assert_eq!(unravel("k", "o", one), "o += (k) * g.v[7];\n");
        assert_eq!(unravel("k", "o", g.dims(&[], &[])), "");
        assert_eq!(g.bytes().len(), 8 * 8);
        assert_eq!(Geo::decl(0), "struct Geo { long long v[1]; };\n");
    }

    #[test]
    fn merging_keeps_the_index_order() {
        assert_eq!(merged(&[2, 3, 4], &[12, 4, 1]), (vec![24], vec![1]));
        // A transposed matrix does not merge (that would change the order).
        assert_eq!(merged(&[4, 3], &[1, 4]), (vec![4, 3], vec![1, 4]));
        assert_eq!(merged(&[1, 5, 1], &[9, -1, 3]), (vec![5], vec![-1]));
        assert_eq!(merged(&[], &[]), (vec![], vec![]));
        assert_eq!(merged(&[3, 0], &[1, 1]), (vec![0], vec![0]));
    }
}

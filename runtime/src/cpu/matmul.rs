//! Matrix products on the CPU: faer for floating and complex dtypes (half
//! floats accumulate in float32), exact loops for integers (wrapping) and
//! bools (`any(a & b)`), as NumPy.

use num_complex::{Complex32, Complex64};

use super::CpuBackend;
use crate::core::dtype::DType;
use crate::core::element::Element;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::{CpuStorage, Storage};
use crate::core::view::View;
use crate::ops::create::Create;
use crate::ops::matmul::{Matmul, MatmulPrecision};

impl Matmul for CpuBackend {
    fn matmul(&self, a: View<'_>, b: View<'_>, out: View<'_>, _: MatmulPrecision) -> Result<()> {
        let op = "matmul";
        let nd = out.ndim();
        let (m, n) = (out.shape()[nd - 2], out.shape()[nd - 1]);
        let k = a.shape()[a.ndim() - 1];
        let batch = &out.shape()[..nd - 2];
        let al = a.layout.broadcast_to(&[batch, &[m, k]].concat())?;
        let bl = b.layout.broadcast_to(&[batch, &[k, n]].concat())?;
        let (a, b) = (
            View::new(a.storage, &al, a.dtype),
            View::new(b.storage, &bl, b.dtype),
        );
        let dims = (m, k, n);
        match out.dtype() {
            DType::Float16 | DType::BFloat16 => {
                // Accumulate in float32 (as cuBLAS does), round once at the end.
                let f32_copy = |v: View<'_>, l: &Layout| -> Result<Storage> {
                    let s = self.empty(op, DType::Float32, v.size())?;
                    self.copy_cast(op, v, View::new(&s, l, DType::Float32))?;
                    Ok(s)
                };
                let (ac, bc, oc) = (
                    Layout::contiguous(al.shape()),
                    Layout::contiguous(bl.shape()),
                    Layout::contiguous(out.shape()),
                );
                let (a32, b32) = (f32_copy(a, &ac)?, f32_copy(b, &bc)?);
                let o32 = self.empty(op, DType::Float32, out.size())?;
                let o = View::new(&o32, &oc, DType::Float32);
                self.matmul(
                    View::new(&a32, &ac, DType::Float32),
                    View::new(&b32, &bc, DType::Float32),
                    o,
                    MatmulPrecision::Highest,
                )?;
                self.copy_cast(op, o, out)
            }
            DType::Float32 => product(a, b, out, |x, y, d| faer_matmul::<f32>(x, y, dims, d)),
            DType::Float64 => product(a, b, out, |x, y, d| faer_matmul::<f64>(x, y, dims, d)),
            DType::Complex64 => {
                product(a, b, out, |x, y, d| faer_matmul::<Complex32>(x, y, dims, d))
            }
            DType::Complex128 => {
                product(a, b, out, |x, y, d| faer_matmul::<Complex64>(x, y, dims, d))
            }
            DType::Bool => product(a, b, out, |x, y, d| {
                loop_matmul::<bool>(x, y, dims, d, |acc, p, q| acc || (p && q))
            }),
            dt => {
                macro_rules! ints {
                    ($($d:ident => $t:ty),*) => {
                        match dt {
                            $(DType::$d => product(a, b, out, |x, y, o| {
                                loop_matmul::<$t>(x, y, dims, o, |acc, p, q| {
                                    acc.wrapping_add(p.wrapping_mul(q))
                                })
                            }),)*
                            _ => unreachable!("every other dtype is matched above"),
                        }
                    };
                }
                ints!(Int8 => i8, Int16 => i16, Int32 => i32, Int64 => i64,
                      UInt8 => u8, UInt16 => u16, UInt32 => u32, UInt64 => u64)
            }
        }
    }

    fn gram_schmidt_pass(
        &self,
        v: View<'_>,
        w: View<'_>,
        w_out: View<'_>,
        coeffs: View<'_>,
    ) -> Result<()> {
        match w.dtype() {
            DType::Float32 => gram_schmidt::<f32>(v, w, w_out, coeffs),
            DType::Float64 => gram_schmidt::<f64>(v, w, w_out, coeffs),
            dt => Err(Error::DType {
                op: "gram_schmidt_pass",
                detail: format!("a fused Gram-Schmidt pass takes float32 or float64, not {dt}"),
            }),
        }
    }
}

/// The real dtypes of the fused Gram-Schmidt pass, which sums in f64.
trait GsReal: Element {
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
}
impl GsReal for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}
impl GsReal for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// `Matmul::gram_schmidt_pass` on the host: plain loops in f64, each
/// element of `w_out` subtracting the rows in order, as the GPU does.
/// `w` is copied out first and `w_out` written last, so `w_out` may be `w`
/// and may share a buffer with `v` (a basis writing its next row).
fn gram_schmidt<T: GsReal>(
    v: View<'_>,
    w: View<'_>,
    w_out: View<'_>,
    coeffs: View<'_>,
) -> Result<()> {
    let x: Vec<f64> = w.gather::<T>().into_iter().map(T::to_f64).collect();
    let (len, n) = (v.shape()[0], x.len());
    let mut h = vec![0.0f64; len];
    let mut y = x.clone();
    v.read_cpu::<T, _>(|data, layout| {
        let (s0, s1) = (layout.strides()[0], layout.strides()[1]);
        let at = |r: usize, i: usize| {
            (layout.offset() as isize + r as isize * s0 + i as isize * s1) as usize
        };
        for (r, hr) in h.iter_mut().enumerate() {
            *hr = (0..n).map(|i| data[at(r, i)].to_f64() * x[i]).sum();
        }
        for (i, yi) in y.iter_mut().enumerate() {
            for (r, hr) in h.iter().enumerate() {
                *yi -= data[at(r, i)].to_f64() * hr;
            }
        }
    });
    let out: Vec<T> = y.into_iter().map(T::from_f64).collect();
    let before: f64 = x.iter().map(|a| a * a).sum();
    let after: f64 = out.iter().map(|&a| a.to_f64() * a.to_f64()).sum();
    w_out.scatter::<T>(&out);
    h.extend([before, after]);
    coeffs.scatter::<f64>(&h);
    Ok(())
}

/// A matrix operand: its host elements and its (batch..., r, c) layout.
type Operand<'a, T> = (&'a [T], &'a Layout);

fn host<'a>(v: &View<'a>) -> &'a CpuStorage {
    match v.storage {
        Storage::Cpu(s) => s,
        Storage::Cuda(_) => unreachable!("the CPU backend is given host buffers only"),
    }
}

/// Runs `f` with the elements of `a` and `b` and the C-contiguous elements
/// of `out` (a buffer of its own), locking each buffer once.
fn product<T: Element>(
    a: View<'_>,
    b: View<'_>,
    out: View<'_>,
    f: impl FnOnce(Operand<'_, T>, Operand<'_, T>, &mut [T]),
) -> Result<()> {
    let mut og = host(&out).write();
    let dst = T::slice_mut(&mut og).expect("the buffer holds the dtype");
    let dst = &mut dst[out.offset()..out.offset() + out.size()];
    if dst.is_empty() {
        return Ok(());
    }
    let ag = host(&a).read();
    let ad = T::slice(&ag).expect("the buffer holds the dtype");
    if a.shares_memory(&b) {
        // One read lock: two of one buffer could wait on a writer between them.
        f((ad, a.layout), (ad, b.layout), dst);
    } else {
        let bg = host(&b).read();
        f(
            (ad, a.layout),
            (T::slice(&bg).expect("the buffer holds the dtype"), b.layout),
            dst,
        );
    }
    Ok(())
}

/// The four dtypes faer and cuSOLVER compute with.
pub(crate) trait Field: Element + faer::traits::ComplexField {
    /// A value of the real type as f64.
    fn real_f64(r: &<Self as faer::traits::ComplexField>::Real) -> f64;
}
impl Field for f32 {
    fn real_f64(r: &f32) -> f64 {
        *r as f64
    }
}
impl Field for f64 {
    fn real_f64(r: &f64) -> f64 {
        *r
    }
}
impl Field for Complex32 {
    fn real_f64(r: &f32) -> f64 {
        *r as f64
    }
}
impl Field for Complex64 {
    fn real_f64(r: &f64) -> f64 {
        *r
    }
}

/// Runs `$body` with `$T` bound to the faer element type of a float32,
/// float64, complex64 or (any other dtype) complex128 computation.
macro_rules! with_field {
    ($dtype:expr, $T:ident => $body:expr) => {{
        match $dtype {
            $crate::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::DType::Float64 => {
                type $T = f64;
                $body
            }
            $crate::DType::Complex64 => {
                type $T = num_complex::Complex32;
                $body
            }
            _ => {
                type $T = num_complex::Complex64;
                $body
            }
        }
    }};
}
pub(crate) use with_field;

/// Buffer offsets of every batch matrix of a (batch..., r, c) layout.
pub(super) fn batch_offsets(l: &Layout) -> Vec<usize> {
    let nb = l.ndim() - 2;
    Layout::from_parts(
        l.shape()[..nb].to_vec(),
        l.strides()[..nb].to_vec(),
        l.offset(),
    )
    .positions()
    .collect()
}

/// The (row, column) strides of the matrices of a layout.
fn mat_strides(l: &Layout) -> (isize, isize) {
    let nd = l.ndim();
    (l.strides()[nd - 2], l.strides()[nd - 1])
}

/// faer's product over strided views of the operands' buffers (no copies).
fn faer_matmul<T: Field>(
    (ad, al): Operand<'_, T>,
    (bd, bl): Operand<'_, T>,
    (m, k, n): (usize, usize, usize),
    out: &mut [T],
) {
    if k == 0 {
        out.fill(T::default()); // zero for every Field type
        return;
    }
    let par = if m * n * k >= 1 << 18 {
        faer::Par::rayon(0)
    } else {
        faer::Par::Seq
    };
    let (ars, acs) = mat_strides(al);
    let (brs, bcs) = mat_strides(bl);
    let aoffs = batch_offsets(al);
    let boffs = batch_offsets(bl);
    for ((ao, bo), dst) in aoffs.iter().zip(&boffs).zip(out.chunks_mut(m * n)) {
        // SAFETY: the layouts were checked against their buffers, so
        // every element of each matrix view lies inside `ad` / `bd`.
        let lhs = unsafe { faer::MatRef::from_raw_parts(ad.as_ptr().add(*ao), m, k, ars, acs) };
        let rhs = unsafe { faer::MatRef::from_raw_parts(bd.as_ptr().add(*bo), k, n, brs, bcs) };
        let dst = faer::MatMut::from_row_major_slice_mut(dst, m, n);
        faer::linalg::matmul::matmul(dst, faer::Accum::Replace, lhs, rhs, T::one_impl(), par);
    }
}

/// Exact products by a plain loop: `acc = step(acc, a[i, p], b[p, j])` from
/// the default value (integers wrap; bools give `any(a & b)`).
fn loop_matmul<T: Element + Default>(
    (ad, al): Operand<'_, T>,
    (bd, bl): Operand<'_, T>,
    (m, k, n): (usize, usize, usize),
    out: &mut [T],
    step: impl Fn(T, T, T) -> T,
) {
    let (ars, acs) = mat_strides(al);
    let (brs, bcs) = mat_strides(bl);
    let aoffs = batch_offsets(al);
    let boffs = batch_offsets(bl);
    for ((&ao, &bo), dst) in aoffs.iter().zip(&boffs).zip(out.chunks_mut(m * n)) {
        for i in 0..m {
            for j in 0..n {
                dst[i * n + j] = (0..k).fold(T::default(), |acc, p| {
                    let x = ad[(ao as isize + i as isize * ars + p as isize * acs) as usize];
                    let y = bd[(bo as isize + p as isize * brs + j as isize * bcs) as usize];
                    step(acc, x, y)
                });
            }
        }
    }
}

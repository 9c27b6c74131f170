//! Matrix products on the CPU.

use super::CpuBackend;
use crate::ops::matmul::Matmul;

impl Matmul for CpuBackend {}

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

/// Buffer offsets of every batch matrix of a (batch..., r, c) layout.
fn batch_offsets(l: &Layout) -> Vec<usize> {
    let nb = l.ndim() - 2;
    Layout::from_parts(
        l.shape()[..nb].to_vec(),
        l.strides()[..nb].to_vec(),
        l.offset(),
    )
    .positions()
    .collect()
}

fn cpu_matmul(
    a: &Array,
    b: &Array,
    batch: &[usize],
    (m, k, n): (usize, usize, usize),
) -> Result<Array> {
    let dtype = a.dtype();
    let mut shape = batch.to_vec();
    shape.extend([m, n]);
    Ok(match dtype {
        DType::Float32 => Array::from_vec_cpu(faer_matmul::<f32>(a, b, (m, k, n)), &shape),
        DType::Float64 => Array::from_vec_cpu(faer_matmul::<f64>(a, b, (m, k, n)), &shape),
        DType::Complex64 => Array::from_vec_cpu(faer_matmul::<Complex32>(a, b, (m, k, n)), &shape),
        DType::Complex128 => Array::from_vec_cpu(faer_matmul::<Complex64>(a, b, (m, k, n)), &shape),
        DType::Float16 | DType::BFloat16 => {
            // Accumulate in float32 (as cuBLAS does), round once at the end.
            let r = cpu_matmul(
                &a.astype(DType::Float32)?,
                &b.astype(DType::Float32)?,
                batch,
                (m, k, n),
            )?;
            r.astype(dtype)?
        }
        DType::Bool => Array::from_vec_cpu(bool_matmul(a, b, (m, k, n)), &shape),
        DType::Int8 => Array::from_vec_cpu(int_matmul::<i8>(a, b, (m, k, n)), &shape),
        DType::Int16 => Array::from_vec_cpu(int_matmul::<i16>(a, b, (m, k, n)), &shape),
        DType::Int32 => Array::from_vec_cpu(int_matmul::<i32>(a, b, (m, k, n)), &shape),
        DType::Int64 => Array::from_vec_cpu(int_matmul::<i64>(a, b, (m, k, n)), &shape),
        DType::UInt8 => Array::from_vec_cpu(int_matmul::<u8>(a, b, (m, k, n)), &shape),
        DType::UInt16 => Array::from_vec_cpu(int_matmul::<u16>(a, b, (m, k, n)), &shape),
        DType::UInt32 => Array::from_vec_cpu(int_matmul::<u32>(a, b, (m, k, n)), &shape),
        DType::UInt64 => Array::from_vec_cpu(int_matmul::<u64>(a, b, (m, k, n)), &shape),
    })
}

/// faer's product over strided views of the operands' buffers (no copies).
fn faer_matmul<T: Field>(a: &Array, b: &Array, (m, k, n): (usize, usize, usize)) -> Vec<T> {
    let count: usize = a.shape()[..a.ndim() - 2].iter().product();
    let mut out = vec![T::default(); count * m * n];
    if out.is_empty() || k == 0 {
        // `T::default()` is zero for every Field type.
        return out;
    }
    let par = if m * n * k >= 1 << 18 {
        faer::Par::rayon(0)
    } else {
        faer::Par::Seq
    };
    let (ars, acs) = (a.strides()[a.ndim() - 2], a.strides()[a.ndim() - 1]);
    let (brs, bcs) = (b.strides()[b.ndim() - 2], b.strides()[b.ndim() - 1]);
    let aoffs = batch_offsets(a.layout());
    let boffs = batch_offsets(b.layout());
    a.read_cpu::<T, _>(|ad, _| {
        b.read_cpu::<T, _>(|bd, _| {
            for ((ao, bo), dst) in aoffs.iter().zip(&boffs).zip(out.chunks_mut(m * n)) {
                // SAFETY: the layouts were checked against their buffers, so
                // every element of each matrix view lies inside `ad` / `bd`.
                let lhs =
                    unsafe { faer::MatRef::from_raw_parts(ad.as_ptr().add(*ao), m, k, ars, acs) };
                let rhs =
                    unsafe { faer::MatRef::from_raw_parts(bd.as_ptr().add(*bo), k, n, brs, bcs) };
                let dst = faer::MatMut::from_row_major_slice_mut(dst, m, n);
                faer::linalg::matmul::matmul(
                    dst,
                    faer::Accum::Replace,
                    lhs,
                    rhs,
                    T::one_impl(),
                    par,
                );
            }
        })
    });
    out
}

/// Integer products that wrap on overflow, as NumPy's integer matmul.
fn int_matmul<T>(a: &Array, b: &Array, (m, k, n): (usize, usize, usize)) -> Vec<T>
where
    T: Element + num_traits::WrappingAdd + num_traits::WrappingMul + num_traits::Zero,
{
    let count: usize = a.shape()[..a.ndim() - 2].iter().product();
    let mut out = vec![T::zero(); count * m * n];
    if out.is_empty() {
        return out;
    }
    let (ars, acs) = (a.strides()[a.ndim() - 2], a.strides()[a.ndim() - 1]);
    let (brs, bcs) = (b.strides()[b.ndim() - 2], b.strides()[b.ndim() - 1]);
    let aoffs = batch_offsets(a.layout());
    let boffs = batch_offsets(b.layout());
    a.read_cpu::<T, _>(|ad, _| {
        b.read_cpu::<T, _>(|bd, _| {
            for ((&ao, &bo), dst) in aoffs.iter().zip(&boffs).zip(out.chunks_mut(m * n)) {
                for i in 0..m {
                    for j in 0..n {
                        let mut acc = T::zero();
                        for p in 0..k {
                            let x =
                                ad[(ao as isize + i as isize * ars + p as isize * acs) as usize];
                            let y =
                                bd[(bo as isize + p as isize * brs + j as isize * bcs) as usize];
                            acc = acc.wrapping_add(&x.wrapping_mul(&y));
                        }
                        dst[i * n + j] = acc;
                    }
                }
            }
        })
    });
    out
}

/// Bool products: `any(a[i, :] & b[:, j])`, as NumPy's bool matmul.
fn bool_matmul(a: &Array, b: &Array, (m, k, n): (usize, usize, usize)) -> Vec<bool> {
    let count: usize = a.shape()[..a.ndim() - 2].iter().product();
    let mut out = vec![false; count * m * n];
    if out.is_empty() {
        return out;
    }
    let (ars, acs) = (a.strides()[a.ndim() - 2], a.strides()[a.ndim() - 1]);
    let (brs, bcs) = (b.strides()[b.ndim() - 2], b.strides()[b.ndim() - 1]);
    let aoffs = batch_offsets(a.layout());
    let boffs = batch_offsets(b.layout());
    a.read_cpu::<bool, _>(|ad, _| {
        b.read_cpu::<bool, _>(|bd, _| {
            for ((&ao, &bo), dst) in aoffs.iter().zip(&boffs).zip(out.chunks_mut(m * n)) {
                for i in 0..m {
                    for j in 0..n {
                        dst[i * n + j] = (0..k).any(|p| {
                            ad[(ao as isize + i as isize * ars + p as isize * acs) as usize]
                                && bd[(bo as isize + p as isize * brs + j as isize * bcs) as usize]
                        });
                    }
                }
            }
        })
    });
    out
}

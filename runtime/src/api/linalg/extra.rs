//! Linear-algebra functions built from the others: `kron`, `matrix_power`,
//! `multi_dot`, `cond`. Each is a composition of ufuncs, matmul, inv, svd
//! and norms, so it runs wherever those run (on a GPU without a host trip).

use super::{check_square, inv, norm, svd, NormOrd};
use crate::core::array::Array;
use crate::core::error::{fmt_shape, Error, Result};

/// The Kronecker product (`np.kron(a, b)`): block `(i, j)` of the result is
/// `a[i, j] * b`. Arrays of different rank get leading axes of extent 1;
/// the result's dtype is that of `a * b`.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![vec![1i64, 2], vec![3, 4]])?;
/// let b = cp::asarray(vec![vec![0i64, 1], vec![1, 0]])?;
/// let k = cp::linalg::kron(&a, &b)?;
/// assert_eq!(k.shape(), &[4, 4]);
/// assert_eq!(k.to_vec::<i64>()?[..4], [0, 1, 0, 2]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn kron(a: &Array, b: &Array) -> Result<Array> {
    let nd = a.ndim().max(b.ndim());
    let pad = |x: &Array| -> Vec<usize> {
        let mut s = vec![1; nd - x.ndim()];
        s.extend_from_slice(x.shape());
        s
    };
    let (sa, sb) = (pad(a), pad(b));
    // a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...): every product
    // a[i] b[j] lands at (i0, j0, i1, j1, ...), which reshapes to the blocks.
    let interleaved_a: Vec<usize> = sa.iter().flat_map(|&d| [d, 1]).collect();
    let interleaved_b: Vec<usize> = sb.iter().flat_map(|&d| [1, d]).collect();
    let product = crate::multiply(
        &a.reshape(interleaved_a.as_slice())?,
        &b.reshape(interleaved_b.as_slice())?,
    )?;
    let shape: Vec<usize> = sa.iter().zip(&sb).map(|(x, y)| x * y).collect();
    product.reshape(shape.as_slice())
}

/// `a` raised to the integer power `n` by repeated squaring
/// (`np.linalg.matrix_power(a, n)`), over the last two (square) axes:
/// `n = 0` gives identities of `a`'s dtype, a negative `n` powers the inverse
/// (floating and complex arrays only, as NumPy).
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![vec![1.0f64, 1.0], vec![1.0, 0.0]])?;
/// let f = cp::linalg::matrix_power(&a, 10)?; // Fibonacci numbers
/// assert_eq!(f.to_vec::<f64>()?, [89.0, 55.0, 55.0, 34.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn matrix_power(a: &Array, n: i64) -> Result<Array> {
    let op = "matrix_power";
    let m = check_square(op, a)?;
    if n == 0 {
        let eye = crate::with_device(a.device(), || crate::eye(m, None, 0, a.dtype()))?;
        return eye.broadcast_to(a.shape())?.copy();
    }
    let base = if n < 0 {
        if !a.dtype().is_inexact() {
            return Err(Error::DType {
                op,
                detail: format!(
                    "a negative power needs the inverse, which {} matrices do not have; convert to a floating dtype first",
                    a.dtype()
                ),
            });
        }
        inv(a)?
    } else {
        a.clone()
    };
    // Binary exponentiation: log2(|n|) squarings and at most as many products.
    let mut e = n.unsigned_abs();
    let mut square = base;
    let mut result: Option<Array> = None;
    loop {
        if e & 1 == 1 {
            result = Some(match result {
                None => square.clone(),
                Some(r) => crate::api::linalg::matmul::matmul(&r, &square)?,
            });
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        square = crate::api::linalg::matmul::matmul(&square, &square)?;
    }
    let r = result.expect("n != 0 sets at least one bit");
    // A power of one is a new array, as NumPy returns.
    if n.unsigned_abs() == 1 && n > 0 {
        r.copy()
    } else {
        Ok(r)
    }
}

/// The product of a chain of matrices (`np.linalg.multi_dot`), multiplied in
/// the order that needs the fewest scalar products. The first array may be
/// 1-D (a row vector) and the last 1-D (a column vector); the others are
/// 2-D. The result drops the axes the vectors stood for.
///
/// ```
/// use cuprite as cp;
/// let a = cp::ones([100, 2], cp::f64)?;
/// let b = cp::ones([2, 100], cp::f64)?;
/// let v = cp::ones([100], cp::f64)?;
/// // (a @ (b @ v)) costs 400 products instead of 20200 for ((a @ b) @ v).
/// let r = cp::linalg::multi_dot(&[&a, &b, &v])?;
/// assert_eq!(r.shape(), &[100]);
/// assert_eq!(r.to_vec::<f64>()?[0], 200.0);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn multi_dot(arrays: &[&Array]) -> Result<Array> {
    let op = "multi_dot";
    let n = arrays.len();
    if n < 2 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("needs at least two arrays, got {n}"),
        });
    }
    let first_vec = arrays[0].ndim() == 1;
    let last_vec = arrays[n - 1].ndim() == 1;
    let mut mats: Vec<Array> = Vec::with_capacity(n);
    for (i, a) in arrays.iter().enumerate() {
        let m = match (i, a.ndim()) {
            (0, 1) => a.reshape([1, a.shape()[0]].as_slice())?,
            (i, 1) if i == n - 1 => a.reshape([a.shape()[0], 1].as_slice())?,
            (_, 2) => (*a).clone(),
            (_, d) => {
                return Err(Error::Shape {
                    op,
                    detail: format!(
                        "array {i} has shape {} ({d}-D); the first and last may be 1-D, every array must be 2-D otherwise",
                        fmt_shape(a.shape())
                    ),
                })
            }
        };
        mats.push(m);
    }
    // dims[i] x dims[i + 1] is matrix i; a mismatch is matmul's error below,
    // but say which pair here.
    for i in 0..n - 1 {
        if mats[i].shape()[1] != mats[i + 1].shape()[0] {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "arrays {i} and {} do not chain: {} then {}",
                    i + 1,
                    fmt_shape(arrays[i].shape()),
                    fmt_shape(arrays[i + 1].shape())
                ),
            });
        }
    }
    let mut dims: Vec<usize> = mats.iter().map(|m| m.shape()[0]).collect();
    dims.push(mats[n - 1].shape()[1]);
    let split = chain_order(&dims);
    let mut r = multiply_range(&mats, &split, 0, n - 1)?;
    match (first_vec, last_vec) {
        (true, true) => r = r.reshape(Vec::<usize>::new().as_slice())?,
        (true, false) => r = r.reshape([r.shape()[1]].as_slice())?,
        (false, true) => r = r.reshape([r.shape()[0]].as_slice())?,
        (false, false) => {}
    }
    Ok(r)
}

/// The classic matrix-chain dynamic programme: `split[i][j]` is where the
/// cheapest product of matrices `i..=j` splits (costs in f64: the counts can
/// pass u64 for long chains of large matrices).
fn chain_order(dims: &[usize]) -> Vec<Vec<usize>> {
    let n = dims.len() - 1;
    let mut cost = vec![vec![0f64; n]; n];
    let mut split = vec![vec![0usize; n]; n];
    for len in 1..n {
        for i in 0..n - len {
            let j = i + len;
            cost[i][j] = f64::INFINITY;
            for k in i..j {
                let c = cost[i][k]
                    + cost[k + 1][j]
                    + dims[i] as f64 * dims[k + 1] as f64 * dims[j + 1] as f64;
                if c < cost[i][j] {
                    cost[i][j] = c;
                    split[i][j] = k;
                }
            }
        }
    }
    split
}

fn multiply_range(mats: &[Array], split: &[Vec<usize>], i: usize, j: usize) -> Result<Array> {
    if i == j {
        return Ok(mats[i].clone());
    }
    let k = split[i][j];
    crate::api::linalg::matmul::matmul(
        &multiply_range(mats, split, i, k)?,
        &multiply_range(mats, split, k + 1, j)?,
    )
}

/// The condition number of each matrix over the last two axes
/// (`np.linalg.cond(x, p)`): with [`NormOrd::Default`] (or `P(2.0)`) the
/// ratio of the largest to the smallest singular value (`P(-2.0)`: its
/// inverse), which may be rectangular; other orders (`Fro`, `Nuc`, `Inf`,
/// `NegInf`, `P(±1)`) compute `norm(x) * norm(inv(x))` of square matrices.
/// A singular matrix gives `inf` (or a huge number from rounding), as NumPy;
/// for the orders that invert, a stack holding a singular matrix is an error.
///
/// ```
/// use cuprite as cp;
/// use cp::linalg::NormOrd;
/// let a = cp::asarray(vec![vec![1.0f64, 0.0], vec![0.0, 0.25]])?;
/// assert_eq!(cp::linalg::cond(&a, NormOrd::Default)?.to_vec::<f64>()?, [4.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn cond(x: &Array, p: NormOrd) -> Result<Array> {
    let op = "cond";
    super::check_2d(op, x)?;
    match p {
        NormOrd::Default | NormOrd::P(2.0) | NormOrd::P(-2.0) => {
            let s = svd(x, false, false)?.s;
            let (largest, smallest) = (s.max_axis(-1)?, s.min_axis(-1)?);
            if p == NormOrd::P(-2.0) {
                crate::divide(&smallest, &largest)
            } else {
                crate::divide(&largest, &smallest)
            }
        }
        _ => {
            check_square(op, x)?;
            let axes: &[isize] = &[-2, -1];
            let a = norm(x, p, Some(axes), false)?;
            let inverse = match inv(x) {
                Ok(i) => i,
                // NumPy's inf for a singular matrix (one matrix; in a stack,
                // which matrix failed is not known, so the error stands).
                Err(Error::LinAlg { .. }) if x.ndim() == 2 => {
                    return crate::full_like(&a, f64::INFINITY);
                }
                Err(e) => return Err(e),
            };
            let b = norm(&inverse, p, Some(axes), false)?;
            crate::multiply(&a, &b)
        }
    }
}

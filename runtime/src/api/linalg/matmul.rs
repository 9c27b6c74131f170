//! Matrix products: `matmul`, `dot`, `vdot`, `inner`, `outer`, `tensordot`
//! and `einsum`, on the CPU (faer) and on CUDA (cuBLAS).
//!
//! Floating and complex dtypes run on cuBLAS (`cublasGemmEx` /
//! `cublasGemmStridedBatchedEx`, float16 and bfloat16 accumulating in
//! float32) or faer. Integer and bool products are computed exactly as NumPy
//! does (integers wrap, bools give `any(a & b)`) by a plain loop on the CPU;
//! CUDA arrays of those dtypes take a round trip through the host.

use std::sync::atomic::{AtomicU8, Ordering};

use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{promote_types, DType};
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::{broadcast_shapes, Layout};

pub use crate::ops::MatmulPrecision;

/// The precision setting, one per process: each notebook cell links its own
/// copy of this crate, so a plain static would reset in the next cell.
fn precision() -> &'static AtomicU8 {
    static THIS_COPY: std::sync::OnceLock<&'static AtomicU8> = std::sync::OnceLock::new();
    THIS_COPY.get_or_init(|| {
        crate::core::global::process_global("matmul_precision", || AtomicU8::new(0))
    })
}

/// Sets the process-wide precision of float32/complex64 GPU matrix products.
pub fn set_matmul_precision(p: MatmulPrecision) {
    let v = match p {
        MatmulPrecision::Highest => 0,
        MatmulPrecision::TF32 => 1,
        MatmulPrecision::FP16 => 2,
    };
    precision().store(v, Ordering::Relaxed);
}

/// The process-wide precision of float32/complex64 GPU matrix products.
pub fn matmul_precision() -> MatmulPrecision {
    match precision().load(Ordering::Relaxed) {
        1 => MatmulPrecision::TF32,
        2 => MatmulPrecision::FP16,
        _ => MatmulPrecision::Highest,
    }
}

/// The one device of two arrays, or `DeviceMismatch`.
pub(crate) fn same_device(op: &'static str, a: &Array, b: &Array) -> Result<Device> {
    crate::core::interrupt::check(op)?;
    if a.device() != b.device() {
        return Err(Error::DeviceMismatch {
            op,
            a: a.device().to_string(),
            b: b.device().to_string(),
        });
    }
    Ok(a.device())
}

/// `a` as `dtype` (itself when it already has it).
pub(crate) fn as_dtype(a: &Array, dtype: DType) -> Result<Array> {
    if a.dtype() == dtype {
        Ok(a.clone())
    } else {
        a.astype(dtype)
    }
}

/// The complex conjugate (a copy; real arrays are returned as they are).
pub(crate) fn conj(a: &Array) -> Result<Array> {
    if !a.dtype().is_complex() {
        return Ok(a.clone());
    }
    crate::conj(a)
}

/// The matrix product with NumPy's `matmul` rules (`a @ b`): 1-D operands
/// are promoted to a row (left) or column (right) and the added axis
/// removed; leading axes are batch axes that broadcast.
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    let op = "matmul";
    for (i, x) in [a, b].iter().enumerate() {
        if x.ndim() == 0 {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "operand {i} is 0-d; matmul needs arrays of at least one dimension (use multiply for scalars)"
                ),
            });
        }
    }
    let device = same_device(op, a, b)?;
    let dtype = promote_types(a.dtype(), b.dtype());
    let a2 = if a.ndim() == 1 {
        a.expand_dims(0)?
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.expand_dims(1)?
    } else {
        b.clone()
    };
    let (m, k) = (a2.shape()[a2.ndim() - 2], a2.shape()[a2.ndim() - 1]);
    let (k2, n) = (b2.shape()[b2.ndim() - 2], b2.shape()[b2.ndim() - 1]);
    if k != k2 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "the last axis of the first operand (shape {}, extent {k}) must match the {} axis of the second (shape {}, extent {k2})",
                fmt_shape(a.shape()),
                if b.ndim() == 1 { "only" } else { "second-to-last" },
                fmt_shape(b.shape())
            ),
        });
    }
    let batch = broadcast_shapes(
        op,
        &[&a2.shape()[..a2.ndim() - 2], &b2.shape()[..b2.ndim() - 2]],
    )
    .map_err(|_| Error::Broadcast {
        op,
        shapes: vec![a.shape().to_vec(), b.shape().to_vec()],
    })?;
    let mut out_shape = batch.clone();
    if a.ndim() > 1 {
        out_shape.push(m);
    }
    if b.ndim() > 1 {
        out_shape.push(n);
    }
    let full = matmul_batched(&a2, &b2, &batch, (m, n), dtype, device)?;
    full.reshape(out_shape.as_slice())
}

/// `a` (..., m, k) times `b` (..., k, n) with batch axes broadcasting to
/// `batch`, as a new C-contiguous (batch..., m, n) array of `dtype`.
fn matmul_batched(
    a: &Array,
    b: &Array,
    batch: &[usize],
    (m, n): (usize, usize),
    dtype: DType,
    device: Device,
) -> Result<Array> {
    let op = "matmul";
    let mut out_shape = batch.to_vec();
    out_shape.extend([m, n]);
    let a = as_dtype(a, dtype)?;
    let b = as_dtype(b, dtype)?;
    let be = crate::backend::on(op, device)?;
    let len = crate::core::layout::checked_size(op, &out_shape)?;
    let out = Array::from_parts(
        be.empty(op, dtype, len)?,
        Layout::contiguous(&out_shape),
        dtype,
    );
    if len > 0 {
        be.matmul(a.view(), b.view(), out.view(), matmul_precision())?;
    }
    Ok(out)
}

/// NumPy's `dot`: scalars multiply, 1-D·1-D is the inner product, 2-D·2-D
/// the matrix product, and N-D·M-D sums over the last axis of `a` and the
/// second-to-last (or only) axis of `b`.
pub fn dot(a: &Array, b: &Array) -> Result<Array> {
    let op = "dot";
    if a.ndim() == 0 || b.ndim() == 0 {
        same_device(op, a, b)?;
        return crate::multiply(a, b);
    }
    if a.ndim() <= 2 && b.ndim() <= 2 {
        let ka = a.shape()[a.ndim() - 1];
        let kb = b.shape()[0];
        if ka != kb {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "shapes {} and {} are not aligned: {ka} (last axis of the first) != {kb} (first axis of the second)",
                    fmt_shape(a.shape()),
                    fmt_shape(b.shape())
                ),
            });
        }
        return matmul(a, b);
    }
    let bax = if b.ndim() == 1 {
        0
    } else {
        b.ndim() as isize - 2
    };
    tensordot_axes(op, a, b, &[a.ndim() as isize - 1], &[bax])
}

/// The inner product of the flattened arrays, conjugating the first
/// (`np.vdot`); sizes must match. Returns a 0-d array.
pub fn vdot(a: &Array, b: &Array) -> Result<Array> {
    let op = "vdot";
    same_device(op, a, b)?;
    if a.size() != b.size() {
        return Err(Error::Shape {
            op,
            detail: format!(
                "the arrays must have the same number of elements; shapes {} ({} elements) and {} ({} elements)",
                fmt_shape(a.shape()),
                a.size(),
                fmt_shape(b.shape()),
                b.size()
            ),
        });
    }
    let dtype = promote_types(a.dtype(), b.dtype());
    let a = conj(&as_dtype(&a.ravel()?, dtype)?)?;
    let b = b.ravel()?;
    matmul(&a, &b)
}

/// Sum-product over the last axes of `a` and `b` (`np.inner`); scalars multiply.
pub fn inner(a: &Array, b: &Array) -> Result<Array> {
    let op = "inner";
    if a.ndim() == 0 || b.ndim() == 0 {
        same_device(op, a, b)?;
        return crate::multiply(a, b);
    }
    tensordot_axes(op, a, b, &[a.ndim() as isize - 1], &[b.ndim() as isize - 1])
}

/// The outer product of the flattened arrays (`np.outer`): shape (a.size, b.size).
pub fn outer(a: &Array, b: &Array) -> Result<Array> {
    same_device("outer", a, b)?;
    let a = a.ravel()?;
    let b = b.ravel()?;
    crate::multiply(&a.expand_dims(1)?, &b.expand_dims(0)?)
}

/// Which axes `tensordot` sums over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TensordotAxes {
    /// The last `n` axes of `a` with the first `n` of `b` (NumPy's `axes=n`).
    Count(usize),
    /// Axis lists of equal length for `a` and `b` (negative counts from the end).
    Pairs(Vec<isize>, Vec<isize>),
}

impl From<usize> for TensordotAxes {
    fn from(n: usize) -> Self {
        TensordotAxes::Count(n)
    }
}
impl From<(Vec<isize>, Vec<isize>)> for TensordotAxes {
    fn from((a, b): (Vec<isize>, Vec<isize>)) -> Self {
        TensordotAxes::Pairs(a, b)
    }
}
impl<const N: usize> From<([isize; N], [isize; N])> for TensordotAxes {
    fn from((a, b): ([isize; N], [isize; N])) -> Self {
        TensordotAxes::Pairs(a.to_vec(), b.to_vec())
    }
}

/// Sum of products over the given axes (`np.tensordot`): the result has the
/// remaining axes of `a` followed by those of `b`.
pub fn tensordot(a: &Array, b: &Array, axes: impl Into<TensordotAxes>) -> Result<Array> {
    let op = "tensordot";
    match axes.into() {
        TensordotAxes::Count(n) => {
            if n > a.ndim() || n > b.ndim() {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!(
                        "axes={n} is more than the dimensions of the operands (shapes {} and {})",
                        fmt_shape(a.shape()),
                        fmt_shape(b.shape())
                    ),
                });
            }
            let aa: Vec<isize> = (a.ndim() - n..a.ndim()).map(|i| i as isize).collect();
            let bb: Vec<isize> = (0..n).map(|i| i as isize).collect();
            tensordot_axes(op, a, b, &aa, &bb)
        }
        TensordotAxes::Pairs(aa, bb) => tensordot_axes(op, a, b, &aa, &bb),
    }
}

fn tensordot_axes(
    op: &'static str,
    a: &Array,
    b: &Array,
    aa: &[isize],
    bb: &[isize],
) -> Result<Array> {
    let device = same_device(op, a, b)?;
    if aa.len() != bb.len() {
        return Err(Error::invalid(
            op,
            format!("the axis lists {aa:?} and {bb:?} must have the same length"),
        ));
    }
    let aa = crate::core::layout::normalize_axes(op, aa, a.ndim())?;
    let bb = crate::core::layout::normalize_axes(op, bb, b.ndim())?;
    for (&x, &y) in aa.iter().zip(&bb) {
        if a.shape()[x] != b.shape()[y] {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "shape mismatch for sum: axis {x} of {} has extent {} but axis {y} of {} has {}",
                    fmt_shape(a.shape()),
                    a.shape()[x],
                    fmt_shape(b.shape()),
                    b.shape()[y]
                ),
            });
        }
    }
    let free_a: Vec<usize> = (0..a.ndim()).filter(|i| !aa.contains(i)).collect();
    let free_b: Vec<usize> = (0..b.ndim()).filter(|i| !bb.contains(i)).collect();
    let perm_a: Vec<isize> = free_a.iter().chain(&aa).map(|&i| i as isize).collect();
    let perm_b: Vec<isize> = bb.iter().chain(&free_b).map(|&i| i as isize).collect();
    let m: usize = free_a.iter().map(|&i| a.shape()[i]).product();
    let n: usize = free_b.iter().map(|&i| b.shape()[i]).product();
    let k: usize = aa.iter().map(|&i| a.shape()[i]).product();
    let a2 = a.permute_axes(&perm_a)?.reshape(&[m, k][..])?;
    let b2 = b.permute_axes(&perm_b)?.reshape(&[k, n][..])?;
    let dtype = promote_types(a.dtype(), b.dtype());
    let r = matmul_batched(&a2, &b2, &[], (m, n), dtype, device)?;
    let shape: Vec<usize> = free_a
        .iter()
        .map(|&i| a.shape()[i])
        .chain(free_b.iter().map(|&i| b.shape()[i]))
        .collect();
    r.reshape(shape.as_slice())
}

// ---------------------------------------------------------------------------
// einsum
// ---------------------------------------------------------------------------

/// A parsed einsum subscript string: labels per operand and of the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EinsumSpec {
    pub inputs: Vec<Vec<char>>,
    pub output: Vec<char>,
}

pub(crate) fn parse_einsum(spec: &str, n_operands: usize) -> Result<EinsumSpec> {
    let op = "einsum";
    let bad = |detail: String| Error::InvalidArgument { op, detail };
    let s: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
    if s.contains('.') {
        return Err(bad(format!(
            "'{spec}': ellipsis ('...') is not supported; write the axes out"
        )));
    }
    let (lhs, rhs) = match s.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (s.clone(), None),
    };
    let inputs: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    if inputs.len() != n_operands {
        return Err(bad(format!(
            "'{spec}' names {} operand(s) but {n_operands} were given",
            inputs.len()
        )));
    }
    for c in inputs.iter().flatten() {
        if !c.is_ascii_alphabetic() {
            return Err(bad(format!("'{spec}': subscript '{c}' is not a letter")));
        }
    }
    let output: Vec<char> = match rhs {
        Some(r) => {
            let out: Vec<char> = r.chars().collect();
            for (i, c) in out.iter().enumerate() {
                if !c.is_ascii_alphabetic() {
                    return Err(bad(format!(
                        "'{spec}': output subscript '{c}' is not a letter"
                    )));
                }
                if out[..i].contains(c) {
                    return Err(bad(format!(
                        "'{spec}': output subscript '{c}' appears more than once"
                    )));
                }
                if !inputs.iter().flatten().any(|x| x == c) {
                    return Err(bad(format!(
                        "'{spec}': output subscript '{c}' does not appear in the inputs"
                    )));
                }
            }
            out
        }
        None => {
            // Implicit mode: labels that appear once, in alphabetical order.
            let mut once: Vec<char> = inputs
                .iter()
                .flatten()
                .copied()
                .filter(|c| inputs.iter().flatten().filter(|x| *x == c).count() == 1)
                .collect();
            once.sort_unstable();
            once
        }
    };
    Ok(EinsumSpec { inputs, output })
}

/// Einstein summation over one or more operands (`np.einsum` without
/// ellipsis): `"ij,jk->ik"`, `"bij,bjk->bik"`, `"i,i->"`, `"ij->ji"`,
/// `"ii->i"`, `"i,j->ij"`, implicit output (`"ij,jk"`). Two-operand
/// contractions become one (batched) matrix product; more operands are
/// contracted left to right.
pub fn einsum(spec: &str, operands: &[&Array]) -> Result<Array> {
    let op = "einsum";
    if operands.is_empty() {
        return Err(Error::invalid(op, "at least one operand is needed"));
    }
    let parsed = parse_einsum(spec, operands.len())?;
    for w in operands.windows(2) {
        same_device(op, w[0], w[1])?;
    }
    let mut sizes: Vec<(char, usize)> = Vec::new();
    for (x, labels) in operands.iter().zip(&parsed.inputs) {
        if labels.len() != x.ndim() {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "'{spec}': operand with shape {} has {} axes but its subscripts '{}' name {}",
                    fmt_shape(x.shape()),
                    x.ndim(),
                    labels.iter().collect::<String>(),
                    labels.len()
                ),
            });
        }
        for (&c, &d) in labels.iter().zip(x.shape()) {
            match sizes.iter().find(|(l, _)| *l == c) {
                Some(&(_, e)) if e != d => {
                    return Err(Error::shape(
                        op,
                        format!("'{spec}': subscript '{c}' has extents {e} and {d}"),
                    ))
                }
                Some(_) => {}
                None => sizes.push((c, d)),
            }
        }
    }
    // Each operand with repeated labels reduced to its diagonal first.
    let mut terms: Vec<(Array, Vec<char>)> = operands
        .iter()
        .zip(&parsed.inputs)
        .map(|(x, l)| diagonalize(x, l))
        .collect::<Result<_>>()?;
    while terms.len() > 1 {
        let (b, lb) = terms.remove(1);
        let (a, la) = terms.remove(0);
        // Labels still needed: by the output or by a later operand.
        let needed: Vec<char> = la
            .iter()
            .chain(&lb)
            .copied()
            .filter(|c| parsed.output.contains(c) || terms.iter().any(|(_, l)| l.contains(c)))
            .fold(Vec::new(), |mut v, c| {
                if !v.contains(&c) {
                    v.push(c);
                }
                v
            });
        let out_labels: Vec<char> = if terms.is_empty() {
            parsed.output.clone()
        } else {
            needed
        };
        let r = contract_pair(&a, &la, &b, &lb, &out_labels)?;
        terms.insert(0, (r, out_labels));
    }
    let (x, labels) = terms
        .pop()
        .expect("the loop above stops with one term left, and the parser gives at least one");
    single_to_output(&x, &labels, &parsed.output)
}

/// The operand with each repeated label replaced by its diagonal (a view).
fn diagonalize(x: &Array, labels: &[char]) -> Result<(Array, Vec<char>)> {
    let mut shape = Vec::new();
    let mut strides = Vec::new();
    let mut out = Vec::new();
    for (i, &c) in labels.iter().enumerate() {
        if let Some(j) = out.iter().position(|&l| l == c) {
            strides[j] += x.strides()[i];
        } else {
            out.push(c);
            shape.push(x.shape()[i]);
            strides.push(x.strides()[i]);
        }
    }
    Ok((
        x.with_layout(Layout::from_parts(shape, strides, x.layout().offset())),
        out,
    ))
}

/// One operand (distinct labels) summed over labels not in `output` and
/// transposed to `output`'s order.
fn single_to_output(x: &Array, labels: &[char], output: &[char]) -> Result<Array> {
    let summed: Vec<isize> = (0..labels.len())
        .filter(|&i| !output.contains(&labels[i]))
        .map(|i| i as isize)
        .collect();
    let (x, kept): (Array, Vec<char>) = if summed.is_empty() {
        (x.clone(), labels.to_vec())
    } else {
        let kept = labels
            .iter()
            .copied()
            .filter(|c| output.contains(c))
            .collect();
        (crate::sum(x, summed, false)?, kept)
    };
    let perm: Vec<isize> = output
        .iter()
        .map(|c| {
            kept.iter()
                .position(|k| k == c)
                .expect("the parser checked that every output label is an input label")
                as isize
        })
        .collect();
    x.permute_axes(&perm)
}

/// Two operands (each with distinct labels) contracted to `out` labels.
fn contract_pair(a: &Array, la: &[char], b: &Array, lb: &[char], out: &[char]) -> Result<Array> {
    // Labels only in one operand and not kept are summed out first.
    let (a, la) = {
        let keep: Vec<char> = la
            .iter()
            .copied()
            .filter(|c| out.contains(c) || lb.contains(c))
            .collect();
        (single_to_output(a, la, &keep)?, keep)
    };
    let (b, lb) = {
        let keep: Vec<char> = lb
            .iter()
            .copied()
            .filter(|c| out.contains(c) || la.contains(c))
            .collect();
        (single_to_output(b, lb, &keep)?, keep)
    };
    let batch: Vec<char> = la
        .iter()
        .copied()
        .filter(|c| lb.contains(c) && out.contains(c))
        .collect();
    let contracted: Vec<char> = la
        .iter()
        .copied()
        .filter(|c| lb.contains(c) && !out.contains(c))
        .collect();
    let free_a: Vec<char> = la.iter().copied().filter(|c| !lb.contains(c)).collect();
    let free_b: Vec<char> = lb.iter().copied().filter(|c| !la.contains(c)).collect();
    let ext = |x: &Array, l: &[char], c: char| {
        x.shape()[l
            .iter()
            .position(|&y| y == c)
            .expect("every label asked for was taken from this operand's labels")]
    };
    if contracted.is_empty() {
        // A broadcast product: line both operands up with the output's axes.
        let align = |x: &Array, l: &[char]| -> Result<Array> {
            let present: Vec<char> = out.iter().copied().filter(|c| l.contains(c)).collect();
            let perm: Vec<isize> = present
                .iter()
                .map(|c| {
                    l.iter()
                        .position(|y| y == c)
                        .expect("every label asked for was taken from this operand's labels")
                        as isize
                })
                .collect();
            let mut v = x.permute_axes(&perm)?;
            for (i, c) in out.iter().enumerate() {
                if !l.contains(c) {
                    v = v.expand_dims(i as isize)?;
                }
            }
            Ok(v)
        };
        return crate::multiply(&align(&a, &la)?, &align(&b, &lb)?);
    }
    let pos = |l: &[char], c: &char| {
        l.iter()
            .position(|y| y == c)
            .expect("every label asked for was taken from this operand's labels") as isize
    };
    let perm_a: Vec<isize> = batch
        .iter()
        .chain(&free_a)
        .chain(&contracted)
        .map(|c| pos(&la, c))
        .collect();
    let perm_b: Vec<isize> = batch
        .iter()
        .chain(&contracted)
        .chain(&free_b)
        .map(|c| pos(&lb, c))
        .collect();
    let nb: usize = batch.iter().map(|&c| ext(&a, &la, c)).product();
    let m: usize = free_a.iter().map(|&c| ext(&a, &la, c)).product();
    let k: usize = contracted.iter().map(|&c| ext(&a, &la, c)).product();
    let n: usize = free_b.iter().map(|&c| ext(&b, &lb, c)).product();
    let a3 = a.permute_axes(&perm_a)?.reshape(&[nb, m, k][..])?;
    let b3 = b.permute_axes(&perm_b)?.reshape(&[nb, k, n][..])?;
    let r = matmul(&a3, &b3)?;
    let mut shape: Vec<usize> = batch.iter().map(|&c| ext(&a, &la, c)).collect();
    shape.extend(free_a.iter().map(|&c| ext(&a, &la, c)));
    shape.extend(free_b.iter().map(|&c| ext(&b, &lb, c)));
    let r = r.reshape(shape.as_slice())?;
    let labels: Vec<char> = batch
        .iter()
        .chain(&free_a)
        .chain(&free_b)
        .copied()
        .collect();
    single_to_output(&r, &labels, out)
}

impl Array {
    /// NumPy's `a.dot(b)`; see [`dot`].
    pub fn dot(&self, other: &Array) -> Result<Array> {
        dot(self, other)
    }

    /// The matrix product `self @ other`; see [`matmul`].
    pub fn matmul(&self, other: &Array) -> Result<Array> {
        matmul(self, other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn einsum_parses_explicit_and_implicit() {
        let p = parse_einsum("ij,jk->ik", 2).unwrap();
        assert_eq!(p.inputs, vec![vec!['i', 'j'], vec!['j', 'k']]);
        assert_eq!(p.output, vec!['i', 'k']);
        let p = parse_einsum("ij,jk", 2).unwrap();
        assert_eq!(p.output, vec!['i', 'k']);
        let p = parse_einsum("ba", 1).unwrap();
        assert_eq!(p.output, vec!['a', 'b']);
        let p = parse_einsum("i,i", 2).unwrap();
        assert!(p.output.is_empty());
        assert!(parse_einsum("ij->i", 2).is_err());
        assert!(parse_einsum("ij->k", 1).is_err());
        assert!(parse_einsum("...ij->ij", 1).is_err());
        assert!(parse_einsum("ij->ii", 1).is_err());
    }
}

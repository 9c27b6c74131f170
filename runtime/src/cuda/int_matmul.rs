//! Integer and bool matrix products on the GPU (cuBLAS multiplies floats
//! only): one thread per output element walks its row of `a` and column of
//! `b` through their strides, so views and broadcast batch axes need no
//! copy. Integers wrap as on the CPU (the products and the sum are taken
//! modulo 2^bits in an unsigned accumulator); bool is OR of ANDs.

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{config_1d, kernel, key, ptr, session_of};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs};
use crate::cuda::runtime::stream::current_stream;
use crate::ops::c_types::ctype;

const THREADS: usize = 256;
/// Batch axes a product may have (the struct passed by value below).
const MAX_BATCH: usize = 8;

const SOURCE: &str = include_str!("kernels/int_matmul.cu");

/// The kernel's source for `dt`: the accumulator is unsigned (wrapping is
/// defined there) and at least 32 bits (so 8- and 16-bit products are not
/// promoted to a signed `int` that could overflow).
fn source(dt: DType) -> String {
    let (acc, step) = match dt {
        DType::Bool => ("bool", "acc || (x && y)"),
        DType::Int64 | DType::UInt64 => ("unsigned long long", "acc + x * y"),
        _ => ("unsigned int", "acc + x * y"),
    };
    let k = render(
        SOURCE,
        &[("T", ctype(dt)), ("ACC", acc), ("STEP", step)],
        &[],
    );
    format!("{PRELUDE}{k}")
}

/// `out = a @ b` for an integer or bool dtype (all three views of it), the
/// batch axes of `out` broadcast from `a`'s and `b`'s; `out` C-contiguous.
pub(crate) fn matmul(op: &'static str, a: View<'_>, b: View<'_>, out: View<'_>) -> Result<()> {
    let dt = out.dtype();
    if dt.is_inexact() || a.dtype() != dt || b.dtype() != dt || !out.is_c_contiguous() {
        return Err(Error::DType {
            op,
            detail: format!(
                "integer product of {} and {} into {} (contiguous: {})",
                a.dtype(),
                b.dtype(),
                dt,
                out.is_c_contiguous()
            ),
        });
    }
    let total = out.size();
    if total == 0 {
        return Ok(());
    }
    let nd = out.ndim();
    let (m, n) = (out.shape()[nd - 2], out.shape()[nd - 1]);
    let k = a.shape()[a.ndim() - 1];
    let batch = &out.shape()[..nd - 2];
    if batch.len() > MAX_BATCH {
        return Err(Error::Shape {
            op,
            detail: format!(
                "{} batch axes; integer products on the GPU take at most {MAX_BATCH}",
                batch.len()
            ),
        });
    }
    let al = a.layout.broadcast_to(&[batch, &[m, k]].concat())?;
    let bl = b.layout.broadcast_to(&[batch, &[k, n]].concat())?;
    let pad = |v: &[isize]| -> [i64; MAX_BATCH] {
        let mut o = [0i64; MAX_BATCH];
        for (o, &x) in o.iter_mut().zip(v) {
            *o = x as i64;
        }
        o
    };
    let sizes: Vec<isize> = batch.iter().map(|&x| x as isize).collect();
    let nb = batch.len();
    let (ast, bst) = (al.strides(), bl.strides());
    let s = session_of(op, out)?;
    let f = kernel(s, key(("int_matmul", dt)), op, "cuprite_int_matmul", || {
        source(dt)
    })?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, View::new(a.storage, &al, dt))?)
        .push(ptr(op, View::new(b.storage, &bl, dt))?)
        .push(ptr(op, out)?);
    args.push(m as i64).push(n as i64).push(k as i64);
    args.push(ast[nb] as i64).push(ast[nb + 1] as i64);
    args.push(bst[nb] as i64).push(bst[nb + 1] as i64);
    args.push(nb as i32);
    args.push(pad(&sizes))
        .push(pad(&ast[..nb]))
        .push(pad(&bst[..nb]));
    args.push(total as i64);
    launch(
        s,
        op,
        f,
        config_1d(s, total, THREADS),
        &current_stream(),
        &mut args,
    )
}

#[cfg(test)]
mod tests {
    use crate::core::dtype::DType;

    #[test]
    fn kernels_compile() {
        for dt in [
            DType::Bool,
            DType::Int8,
            DType::UInt16,
            DType::Int32,
            DType::Int64,
            DType::UInt64,
        ] {
            let src = super::source(dt);
            assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
            crate::cuda::kernel_gen::helpers::dump_source(&format!("int_matmul_{dt}"), &src);
        }
    }
}

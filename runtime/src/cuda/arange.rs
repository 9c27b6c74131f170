//! `arange` filled on the device (`start + i * step`), element for element
//! what the CPU backend computes, so a range never crosses from the host.

use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::cuda::kernel_gen::helpers::{config_1d, kernel, key};
use crate::cuda::runtime::launch::{launch, KernelArgs};
use crate::cuda::runtime::session::session;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::transfer::alloc;

const THREADS: usize = 256;

// Integers wrap (computed unsigned, as the host's wrapping_add/wrapping_mul);
// floats round the product, then the sum, like the host's `a + i * delta`
// (no fused multiply-add, which would round once and differ in the last bit).
const SOURCE: &str = include_str!("kernels/arange.cu");

/// `len` values `start + i * step` of `dtype` (int64: wrapping; float64:
/// `step` is the already-computed delta) on device `ordinal`.
pub(crate) fn arange(
    op: &'static str,
    ordinal: usize,
    dtype: DType,
    len: usize,
    start: Scalar,
    step: Scalar,
) -> Result<Storage> {
    let out = alloc(op, ordinal, dtype, len)?;
    if len == 0 {
        return Ok(Storage::Cuda(out));
    }
    let s = session(ordinal)?;
    let mut args = KernelArgs::new();
    args.push(out.buffer.ptr);
    let fname = match dtype {
        DType::Int64 => {
            args.push(start.as_i64()).push(step.as_i64());
            "cuprite_arange_i64"
        }
        DType::Float64 => {
            args.push(start.as_f64()).push(step.as_f64());
            "cuprite_arange_f64"
        }
        other => {
            return Err(Error::DType {
                op,
                detail: format!("a range of {other}; int64 or float64 expected"),
            })
        }
    };
    args.push(len as i64);
    let f = kernel(s, key("arange"), op, fname, || SOURCE.to_string())?;
    launch(
        s,
        op,
        f,
        config_1d(s, len, THREADS),
        &current_stream(),
        &mut args,
    )?;
    Ok(Storage::Cuda(out))
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernels_compile() {
        crate::cuda::kernel_gen::helpers::dump_source("arange", super::SOURCE);
    }
}

//! Polyphase `upfirdn` on the GPU (`Signal::upfirdn`, behind `upfirdn`,
//! `resample_poly` and the FIR `decimate`): one thread per output sample
//! runs only its phase's taps against the input (`kernels/upfirdn.cu`), so
//! a resampling reads the input once (through cache) and writes the output
//! once, with no zero-stuffed signal, per-phase slices or trimming copy.

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::cuda::kernel_gen::helpers::{config_1d, kernel, key, ptr};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, Buffer};
use crate::ops::c_types::ctype;
use crate::ops::signal::Upfirdn;

const THREADS: usize = 256;
const UPFIRDN: &str = include_str!("kernels/upfirdn.cu");
/// Indices below this take the 32-bit kernel (a grid-stride step past the
/// last index still fits 32 bits).
const NARROW: usize = 1 << 31;

/// The kernel for `dt` data with 32-bit (`narrow`) or 64-bit indices.
pub(crate) fn upfirdn_source(dt: DType, narrow: bool) -> String {
    let idx = if narrow {
        "unsigned int"
    } else {
        "unsigned long long"
    };
    render(
        UPFIRDN,
        &[("PRELUDE", PRELUDE), ("T", ctype(dt)), ("IDX", idx)],
        &[],
    )
}

pub(crate) fn upfirdn(ordinal: usize, op: &'static str, u: &Upfirdn<'_>) -> Result<Storage> {
    let dt = u.x.dtype();
    let ok = matches!(dt, DType::Float32 | DType::Float64)
        && u.x.ndim() == 2
        && u.x.is_c_contiguous()
        && u.taps.dtype() == DType::Float64
        && u.taps.ndim() == 1
        && u.taps.is_c_contiguous()
        && u.up >= 1
        && u.down >= 1;
    if !ok {
        return Err(Error::invalid(
            op,
            "internal: upfirdn takes C-contiguous float rows and float64 taps",
        ));
    }
    let (lanes, n) = (u.x.shape()[0], u.x.shape()[1]);
    let y = Buffer::new(op, ordinal, dt, &[lanes, u.len])?;
    let total = lanes * u.len;
    if total == 0 {
        return Ok(y.storage);
    }
    let s = session_of(op, u.x)?;
    // The largest index the kernel forms: the last output's `t`, an offset
    // into the input, an output index or a tap index (plus `up`, rounding).
    let t_max = u.t0.saturating_add((u.len - 1).saturating_mul(u.down));
    let biggest = [t_max, lanes * n, total, u.taps.size().saturating_add(u.up)]
        .into_iter()
        .max()
        .unwrap_or(0);
    let narrow = biggest < NARROW;
    let f = kernel(
        s,
        key(("upfirdn", dt, narrow)),
        op,
        "cuprite_upfirdn",
        || upfirdn_source(dt, narrow),
    )?;
    let mut a = KernelArgs::new();
    let ints = [n, u.taps.size(), u.up, u.down, u.t0, u.len, total];
    a.push(ptr(op, u.x)?);
    let push = |a: &mut KernelArgs, v: usize| {
        if narrow {
            a.push(v as u32);
        } else {
            a.push(v as u64);
        }
    };
    push(&mut a, ints[0]);
    a.push(ptr(op, u.taps)?);
    for &v in &ints[1..] {
        push(&mut a, v);
    }
    a.push(y.ptr(op)?);
    launch(
        s,
        "upfirdn",
        f,
        config_1d(s, total, THREADS),
        &current_stream(),
        &mut a,
    )?;
    Ok(y.storage)
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernels_compile() {
        for dt in [crate::DType::Float32, crate::DType::Float64] {
            for narrow in [true, false] {
                let src = super::upfirdn_source(dt, narrow);
                assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
                crate::cuda::kernel_gen::helpers::dump_source(
                    &format!("upfirdn_{dt}_{narrow}"),
                    &src,
                );
            }
        }
    }
}

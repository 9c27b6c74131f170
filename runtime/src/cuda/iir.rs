//! IIR filtering on the GPU (`sosfilt`, real `lfilter`, and the two passes
//! of `filtfilt` / `sosfiltfilt`): a cascade of sections, each a linear
//! recurrence on a K-vector state (direct form II transposed,
//! `z[t+1] = A z[t] + B x[t]`, `y[t] = z0[t] + b0 x[t]`), computed as a
//! blocked parallel scan rather than one thread per channel.
//!
//! Each row of `n` samples is cut into `nb` blocks of `L`. For one section:
//!
//! 1. every (row, block) thread filters its block from the zero state,
//!    writing the zero-state outputs and its end state (the block's carry);
//! 2. the true incoming state of each block follows from the recurrence
//!    `s[b+1] = A^L s[b] + carry[b]`, an affine scan whose matrix is the same
//!    for every block. It runs in two levels of `G` blocks: each group's
//!    carry from zero (threads per group), one thread per row across the
//!    groups with `A^(L G)` starting from `zi`, then each group's blocks again;
//! 3. the outputs are corrected by the zero-input response of the incoming
//!    state, which is linear in it, so it is added in the same pass that
//!    runs the next section (and by a last pass after the last section).
//!
//! The result is exact up to rounding: the decomposition into zero-state
//! and zero-input responses is an identity of linear systems, and states
//! are kept in double for every data dtype. `A^L` and `A^(L G)` are computed
//! on the host in f64 by repeated squaring; for a stable filter they decay,
//! so long blocks are harmless. The final state of a section (`zf`) is the
//! zero-input response at the end of the last block plus its carry, which
//! the last block's thread has both of.

use crate::backend::fallback::on_views;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key};
use crate::cuda::kernel_gen::template::render_owned;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, upload, Buffer};
use crate::ops::c_types::ctype;
use crate::ops::create::Create;
use crate::ops::signal::Cascade;

/// Highest filter order run on the GPU (states live in registers); higher
/// orders (long FIR numerators through `lfilter`) take the host.
pub(crate) const MAX_GPU_ORDER: usize = 16;
const THREADS: usize = 256;
/// Threads the blocked pass aims for: enough to fill an H100 several times.
const TARGET_THREADS: usize = 1 << 18;
/// Shortest block: below it the carries cost more than the filtering.
const MIN_BLOCK: usize = 32;

const IIR: &str = include_str!("kernels/iir.cu");

/// The CUDA source of the cascade kernels for `dt` data and order `k`.
pub(crate) fn iir_source(dt: DType, k: usize) -> String {
    let values = [
        ("PRELUDE", PRELUDE.to_string()),
        ("DT", dt.to_string()),
        ("T", ctype(dt).to_string()),
        ("K", k.to_string()),
    ];
    render_owned(IIR, &values, &[])
}

/// Block length `L`, blocks per row `nb`, group length `G` and groups per row `ng`.
pub(crate) fn plan(lanes: usize, n: usize) -> (usize, usize, usize, usize) {
    let per_row = (TARGET_THREADS / lanes.max(1)).max(1);
    let l = n.div_ceil(per_row).max(MIN_BLOCK).min(n.max(1));
    let nb = n.div_ceil(l).max(1);
    let g = (nb as f64).sqrt().ceil().max(1.0) as usize;
    (l, nb, g, nb.div_ceil(g))
}

/// `x` times `y` for row-major `k x k` matrices.
fn matmul(x: &[f64], y: &[f64], k: usize) -> Vec<f64> {
    let mut out = vec![0.0; k * k];
    for i in 0..k {
        for l in 0..k {
            let xil = x[i * k + l];
            for j in 0..k {
                out[i * k + j] += xil * y[l * k + j];
            }
        }
    }
    out
}

/// `m^e` by repeated squaring.
fn matpow(m: &[f64], k: usize, mut e: usize) -> Vec<f64> {
    let mut result: Vec<f64> = (0..k * k)
        .map(|i| if i / k == i % k { 1.0 } else { 0.0 })
        .collect();
    let mut base = m.to_vec();
    while e > 0 {
        if e & 1 == 1 {
            result = matmul(&result, &base, k);
        }
        base = matmul(&base, &base, k);
        e >>= 1;
    }
    result
}

/// The coefficient table of the kernels: per section `b`, `a`, `A^L`, `A^(L G)`.
pub(crate) fn coefficient_table(coefs: &[f64], k: usize, l: usize, g: usize) -> Vec<f64> {
    let mut out = Vec::new();
    for c in coefs.chunks_exact(2 * (k + 1)) {
        out.extend_from_slice(c);
        // Zero-input transition: z'_j = z_{j+1} - a_{j+1} z_0.
        let mut a = vec![0.0; k * k];
        for j in 0..k {
            a[j * k] = -c[k + 1 + j + 1];
            if j + 1 < k {
                a[j * k + j + 1] = 1.0;
            }
        }
        let m = matpow(&a, k, l);
        let p = matpow(&m, k, g);
        out.extend_from_slice(&m);
        out.extend_from_slice(&p);
    }
    out
}

fn config(s: &DeviceSession, work: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (grid_1d(s, work, THREADS), 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The `Signal::cascade` of the CUDA backend.
pub(crate) fn cascade(
    ordinal: usize,
    op: &'static str,
    f: &Cascade<'_>,
) -> Result<(Storage, Storage)> {
    let k = f.order;
    let gpu = matches!(f.dt, DType::Float32 | DType::Float64)
        && (1..=MAX_GPU_ORDER).contains(&k)
        && f.x.dtype() == f.dt
        && f.x.is_c_contiguous()
        && f.zi
            .is_none_or(|z| z.dtype() == f.dt && z.is_c_contiguous());
    if !gpu {
        let mut inputs = vec![f.x];
        inputs.extend(f.zi);
        let (y, zf) = on_views(op, &inputs, |cpu, h| {
            let zi = h.get(1).copied();
            crate::ops::signal::Signal::cascade(cpu, op, &Cascade { x: h[0], zi, ..*f })
        })?;
        return Ok((
            upload(op, ordinal, &y, f.dt)?,
            upload(op, ordinal, &zf, f.dt)?,
        ));
    }
    let s = session_of(op, f.x)?;
    let (lanes, n) = (f.x.shape()[0], f.x.shape()[1]);
    let sections = f.sections();
    let y = Buffer::new(op, ordinal, f.dt, &[lanes, n])?;
    let zf = Buffer::new(op, ordinal, f.dt, &[sections, lanes, k])?;
    if lanes == 0 {
        return Ok((y.storage, zf.storage));
    }
    let be = super::backend(ordinal).ok_or_else(|| Error::Cuda {
        op: op.into(),
        detail: "no backend for a device in use".into(),
    })?;
    if n == 0 {
        // Nothing to filter: the final states are the initial ones.
        match f.zi {
            Some(z) => be.copy_cast(op, z, zf.view())?,
            None => be.fill(op, zf.view(), crate::Scalar::Int(0))?,
        }
        return Ok((y.storage, zf.storage));
    }
    let (l, nb, g, ng) = plan(lanes, n);
    let table = Buffer::from_host(op, ordinal, &coefficient_table(f.coefs, k, l, g))?;
    let carry = Buffer::new(op, ordinal, DType::Float64, &[lanes * nb * k])?;
    let s_in = Buffer::new(op, ordinal, DType::Float64, &[lanes * nb * k])?;
    let gcarry = Buffer::new(op, ordinal, DType::Float64, &[lanes * ng * k])?;
    let gin = Buffer::new(op, ordinal, DType::Float64, &[lanes * ng * k])?;
    // One module holds the four kernels; each function has its own key.
    let func = |name: &str| {
        kernel(s, key(("iir", f.dt, k, name)), "iir", name, || {
            iir_source(f.dt, k)
        })
    };
    let (blocks, group_carry, group_scan, block_scan) = (
        func("cuprite_iir_blocks")?,
        func("cuprite_iir_group_carry")?,
        func("cuprite_iir_group_scan")?,
        func("cuprite_iir_block_scan")?,
    );
    let stream = current_stream();
    let (xp, yp, zfp) = (
        crate::cuda::kernel_gen::helpers::ptr(op, f.x)?,
        y.ptr(op)?,
        zf.ptr(op)?,
    );
    let zip = match f.zi {
        Some(z) => crate::cuda::kernel_gen::helpers::ptr(op, z)?,
        None => 0,
    };
    let (cp, sp, tp) = (carry.ptr(op)?, s_in.ptr(op)?, table.ptr(op)?);
    let (gcp, gip) = (gcarry.ptr(op)?, gin.ptr(op)?);
    let (lanes_i, n_i, l_i, nb_i, g_i, ng_i) = (
        lanes as i64,
        n as i64,
        l as i64,
        nb as i64,
        g as i64,
        ng as i64,
    );
    let run_blocks = |sec: i32, prev: i32, filter: i32, src: u64| -> Result<()> {
        let mut a = KernelArgs::new();
        a.push(src).push(yp).push(cp).push(sp).push(tp).push(zfp);
        a.push(sec).push(prev).push(filter);
        a.push(lanes_i).push(n_i).push(l_i).push(nb_i);
        launch(
            s,
            "iir_blocks",
            blocks,
            config(s, lanes * nb),
            &stream,
            &mut a,
        )
    };
    for sec in 0..sections as i32 {
        let src = if sec == 0 { xp } else { yp };
        run_blocks(sec, sec - 1, 1, src)?;
        let mut a = KernelArgs::new();
        a.push(cp).push(gcp).push(tp).push(sec);
        a.push(lanes_i).push(nb_i).push(g_i).push(ng_i);
        launch(
            s,
            "iir_group_carry",
            group_carry,
            config(s, lanes * ng),
            &stream,
            &mut a,
        )?;
        let mut a = KernelArgs::new();
        a.push(gcp).push(gip).push(zip).push(tp).push(sec);
        a.push(lanes_i).push(ng_i);
        launch(
            s,
            "iir_group_scan",
            group_scan,
            config(s, lanes),
            &stream,
            &mut a,
        )?;
        let mut a = KernelArgs::new();
        a.push(cp).push(sp).push(gip).push(tp).push(sec);
        a.push(lanes_i).push(nb_i).push(g_i).push(ng_i);
        launch(
            s,
            "iir_block_scan",
            block_scan,
            config(s, lanes * ng),
            &stream,
            &mut a,
        )?;
    }
    // The last section's correction, and its final state.
    run_blocks(sections as i32 - 1, sections as i32 - 1, 0, yp)?;
    Ok((y.storage, zf.storage))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocked scan of `cascade`, run on the host with the same table
    /// and plan, against a plain sequential filter.
    fn blocked_on_host(
        coefs: &[f64],
        k: usize,
        x: &[f64],
        l: usize,
        g: usize,
    ) -> (Vec<f64>, Vec<f64>) {
        let n = x.len();
        let nb = n.div_ceil(l);
        let ng = nb.div_ceil(g);
        let stride = 2 * (k + 1) + 2 * k * k;
        let table = coefficient_table(coefs, k, l, g);
        let sections = table.len() / stride;
        let mut y = x.to_vec();
        let mut zf = vec![0.0; sections * k];
        let mut s_in = vec![0.0; nb * k];
        let mut carry = vec![0.0; nb * k];
        let affine = |m: &[f64], s: &mut Vec<f64>, c: &[f64]| {
            let r: Vec<f64> = (0..k)
                .map(|i| c[i] + (0..k).map(|j| m[i * k + j] * s[j]).sum::<f64>())
                .collect();
            *s = r;
        };
        for sec in 0..=sections {
            let filter = sec < sections;
            let prev = sec.checked_sub(1);
            let cur = sec.min(sections - 1);
            let (b, a) = table[cur * stride..].split_at(k + 1);
            for blk in 0..nb {
                let mut z = vec![0.0; k];
                let mut c: Vec<f64> = match prev {
                    Some(_) => s_in[blk * k..(blk + 1) * k].to_vec(),
                    None => vec![0.0; k],
                };
                let ap = &table[prev.unwrap_or(0) * stride + k + 1..];
                for v in &mut y[blk * l..((blk + 1) * l).min(n)] {
                    let mut val = *v;
                    if prev.is_some() {
                        let yc = c[0];
                        val += yc;
                        for j in 0..k {
                            c[j] = if j + 1 < k { c[j + 1] } else { 0.0 } - ap[j + 1] * yc;
                        }
                    }
                    if filter {
                        let out = b[0] * val + z[0];
                        for j in 0..k {
                            z[j] = if j + 1 < k { z[j + 1] } else { 0.0 } + b[j + 1] * val
                                - a[j + 1] * out;
                        }
                        val = out;
                    }
                    *v = val;
                }
                if let (Some(p), true) = (prev, blk == nb - 1) {
                    for j in 0..k {
                        zf[p * k + j] = c[j] + carry[blk * k + j];
                    }
                }
                if filter {
                    carry[blk * k..(blk + 1) * k].copy_from_slice(&z);
                }
            }
            if !filter {
                break;
            }
            let m = &table[cur * stride + 2 * (k + 1)..][..k * k];
            let p = &table[cur * stride + 2 * (k + 1) + k * k..][..k * k];
            let mut gc = vec![vec![0.0; k]; ng];
            for (gi, gcv) in gc.iter_mut().enumerate() {
                for blk in gi * g..((gi + 1) * g).min(nb) {
                    affine(m, gcv, &carry[blk * k..(blk + 1) * k]);
                }
            }
            let mut t = vec![0.0; k];
            for (gi, gcv) in gc.iter().enumerate() {
                let mut sv = t.clone();
                for blk in gi * g..((gi + 1) * g).min(nb) {
                    s_in[blk * k..(blk + 1) * k].copy_from_slice(&sv);
                    affine(m, &mut sv, &carry[blk * k..(blk + 1) * k]);
                }
                affine(p, &mut t, gcv);
            }
        }
        (y, zf)
    }

    /// Each section in turn over the whole signal: outputs and final states.
    fn sequential(coefs: &[f64], k: usize, x: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let mut y = x.to_vec();
        let mut zf = Vec::new();
        for c in coefs.chunks_exact(2 * (k + 1)) {
            let (b, a) = c.split_at(k + 1);
            let mut z = vec![0.0; k];
            for v in y.iter_mut() {
                let out = b[0] * *v + z[0];
                for j in 0..k {
                    z[j] = if j + 1 < k { z[j + 1] } else { 0.0 } + b[j + 1] * *v - a[j + 1] * out;
                }
                *v = out;
            }
            zf.extend(z);
        }
        (y, zf)
    }

    #[test]
    fn blocked_scan_matches_the_sequential_filter() {
        // Two sections of a 4th-order Butterworth bandpass (0.1, 0.3) and a
        // third-order lfilter, over odd lengths and block sizes.
        let sos = [
            [
                0.0048243433,
                0.0096486866,
                0.0048243433,
                1.0,
                -1.0485995764,
                0.2961403576,
            ],
            [1.0, 2.0, 1.0, 1.0, -1.3209134308, 0.6327387929],
        ];
        let coefs: Vec<f64> = sos.iter().flatten().copied().collect();
        let third = [0.2, 0.1, -0.05, 0.3, 1.0, -0.5, 0.25, -0.1];
        for (c, k) in [(&coefs[..], 2usize), (&third[..], 3)] {
            for (n, l, g) in [
                (1000usize, 37usize, 5usize),
                (997, 64, 3),
                (5, 2, 2),
                (64, 64, 1),
            ] {
                let x: Vec<f64> = (0..n)
                    .map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0)
                    .collect();
                let (want, z) = sequential(c, k, &x);
                let (got, zf) = blocked_on_host(c, k, &x, l, g);
                for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (a - b).abs() < 1e-10,
                        "n {n} l {l} g {g} k {k}: y[{i}] {a} vs {b}"
                    );
                }
                for (a, b) in zf.iter().zip(&z) {
                    assert!(
                        (a - b).abs() < 1e-10,
                        "n {n} l {l} g {g} k {k}: zf {a} vs {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn plan_covers_every_sample() {
        for (lanes, n) in [
            (1usize, 1usize),
            (1, 16_000_000),
            (64, 1_000_003),
            (100_000, 7),
            (3, 0),
        ] {
            let (l, nb, g, ng) = plan(lanes, n);
            assert!(
                l >= 1 && nb * l >= n && (nb - 1) * l < n.max(1),
                "{lanes} {n}"
            );
            assert!(ng * g >= nb && (ng - 1) * g < nb);
        }
    }

    #[test]
    fn kernels_compile() {
        for dt in [DType::Float32, DType::Float64] {
            for k in [1usize, 2, 3, MAX_GPU_ORDER] {
                let src = iir_source(dt, k);
                assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
                crate::cuda::kernel_gen::helpers::dump_source(&format!("iir_{dt}_k{k}"), &src);
            }
        }
    }
}

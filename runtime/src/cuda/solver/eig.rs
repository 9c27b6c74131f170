//! The general eigendecomposition (`eig`, `eigvals`) with cuSOLVER's
//! `Xgeev` (CUDA 12.6 and newer), and the kernel that turns the packed real
//! eigenvectors of a real matrix into complex columns on the GPU.

use std::ffi::c_void;
use std::sync::OnceLock;

use cudarc::cusolver::sys as cs;

use super::{check, check_info, data_type, f_copy, with_solver, Work};
use crate::backend::fallback::on_views;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key};
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{ptr, session_of, upload, Buffer};
use crate::ops::c_types::ctype;
use crate::ops::linalg::{Linalg, Owned};

/// The functions `geev` calls beyond those every solver routine needs.
const GEEV_SYMBOLS: &[&str] = &["cusolverDnXgeev_bufferSize", "cusolverDnXgeev"];

/// Whether the loaded cuSOLVER has `Xgeev` (CUDA 12.6 and newer), probed
/// once: an older library would make cudarc panic at the first call.
fn has_geev() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        let lib = crate::cuda::runtime::libs::load("cusolver");
        crate::cuda::runtime::libs::missing_symbols(&lib, GEEV_SYMBOLS).is_empty()
    })
}

/// Eigenvalues and, when `vectors`, right eigenvectors of one square matrix
/// on the GPU, both complex. A cuSOLVER without `Xgeev` runs it on the CPU
/// through the counted host fallback (shown by `%gpu`).
pub(super) fn eig(a: View<'_>, vectors: bool) -> Result<(Owned, Option<Owned>)> {
    let op = if vectors { "eig" } else { "eigvals" };
    // A missing cuSOLVER is an error; only a missing Xgeev falls back.
    super::require(op)?;
    let s = session_of(op, a)?;
    if has_geev() {
        let (w, v) = geev(op, a, vectors)?;
        return Ok((w.into_owned(), v.map(Buffer::into_owned)));
    }
    let (w, v) = on_views(op, &[a], |cpu, h| cpu.eig(h[0], vectors))?;
    let cdtype = a.dtype().complex_dtype();
    let place = |(storage, layout): Owned| -> Result<Owned> {
        Ok((upload(op, s.info.ordinal, &storage, cdtype)?, layout))
    };
    Ok((place(w)?, v.map(place).transpose()?))
}

/// `Xgeev` of the square `a` (n > 0): the eigenvalues (complex, n) and,
/// when `vectors`, the right eigenvectors as columns of a complex (n, n).
fn geev(op: &'static str, a: View<'_>, vectors: bool) -> Result<(Buffer, Option<Buffer>)> {
    let s = session_of(op, a)?;
    let ord = s.info.ordinal;
    let n = a.shape()[0];
    let dtype = a.dtype();
    let cdtype = dtype.complex_dtype();
    let dt = data_type(op, dtype)?;
    let wdt = data_type(op, cdtype)?;
    // geev reads A column-major; its eigenvalues are complex even for a
    // real A (W of the complex type), its vectors of A's type.
    let x = f_copy(op, a)?;
    let w = Buffer::new(op, ord, cdtype, &[n])?;
    let vr = if vectors {
        Some(Buffer::new(op, ord, dtype, &[n, n])?)
    } else {
        None
    };
    let info = Buffer::new(op, ord, DType::Int32, &[1])?;
    let mode = |on: bool| {
        if on {
            cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
        } else {
            cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
        }
    };
    let (jobvl, jobvr) = (mode(false), mode(vectors));
    let ni = n as i64;
    let px = x.ptr(op)? as *mut c_void;
    let pw = w.ptr(op)? as *mut c_void;
    let pvr = match &vr {
        Some(v) => v.ptr(op)? as *mut c_void,
        None => std::ptr::null_mut(),
    };
    let no_vl = std::ptr::null_mut::<c_void>();
    let _work = with_solver(op, s, |h, p| {
        let (mut db, mut hb) = (0usize, 0usize);
        // SAFETY: valid handle/params; out pointers valid.
        check(op, "cusolverDnXgeev_bufferSize", unsafe {
            cs::cusolverDnXgeev_bufferSize(
                h, p, jobvl, jobvr, ni, dt, px, ni, wdt, pw, dt, no_vl, ni, dt, pvr, ni, dt,
                &mut db, &mut hb,
            )
        })?;
        let mut work = Work::new(op, ord, db, hb)?;
        let (pdw, phw) = (work.dptr(), work.host.as_mut_ptr().cast());
        let pinfo = info.ptr(op)? as *mut i32;
        // SAFETY: x holds n×n (lda = n), w n complex values, VR n×n
        // (ldvr = n) when asked for; VL is not computed; workspaces as sized.
        check(op, "cusolverDnXgeev", unsafe {
            cs::cusolverDnXgeev(
                h, p, jobvl, jobvr, ni, dt, px, ni, wdt, pw, dt, no_vl, ni, dt, pvr, ni, dt, pdw,
                db, phw, hb, pinfo,
            )
        })?;
        Ok(work)
    })?;
    check_info(op, "geev", &info, |i| {
        format!("eigenvalues did not converge (geev info = {i}: the QR algorithm failed)")
    })?;
    let v = match vr {
        None => None,
        // Column-major VR read in C order is its transpose.
        Some(vr) if dtype.is_complex() => Some(vr.t()),
        Some(vr) => {
            let v = Buffer::new(op, ord, cdtype, &[n, n])?;
            unpack_pairs(op, &vr, &w, &v)?;
            Some(v)
        }
    };
    Ok((w, v))
}

/// Writes into the complex C-order (n, n) `v` the eigenvectors that
/// geev packed into the real column-major `vr`, using the eigenvalues `w`
/// to tell conjugate pairs from real eigenvalues.
fn unpack_pairs(op: &'static str, vr: &Buffer, w: &Buffer, v: &Buffer) -> Result<()> {
    let s = session_of(op, v.view())?;
    let n = w.layout.shape()[0];
    let total = n * n;
    let src = || unpack_source(vr.dtype);
    let f = kernel(
        s,
        key(("eig_unpack", vr.dtype)),
        op,
        "cuprite_eig_unpack",
        src,
    )?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, vr.view())?);
    args.push(ptr(op, w.view())?);
    args.push(ptr(op, v.view())?);
    args.push(n as i64);
    let cfg = LaunchConfig {
        grid: (grid_1d(s, total, 256), 1, 1),
        block: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, op, f, cfg, &current_stream(), &mut args)
}

/// The unpacking kernel's source for a real (float32 or float64) `dtype`.
fn unpack_source(dtype: DType) -> String {
    crate::cuda::kernel_gen::template::render(
        include_str!("../kernels/solver_eig_unpack.cu"),
        &[
            ("PRELUDE", crate::cuda::runtime::compile::PRELUDE),
            ("R", ctype(dtype)),
            ("C", ctype(dtype.complex_dtype())),
        ],
        &[],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpack_kernel_compiles_for_both_precisions() {
        for dtype in [DType::Float32, DType::Float64] {
            let src = unpack_source(dtype);
            assert!(!src.contains('@'), "a hole left unfilled");
            assert!(src.contains(&format!("const {}* vr", ctype(dtype))));
            crate::cuda::kernel_gen::helpers::dump_source(&format!("eig_unpack_{dtype}"), &src);
        }
    }
}

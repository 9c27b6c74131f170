//! Interpolation on the GPU: piecewise polynomials and regular grids by
//! NVRTC kernels (`kernels/interp_ppoly.cu`, `kernels/interp_grid.cu`), one
//! thread per point that searches its interval and writes its values once,
//! so evaluation reads the points and writes the results once (plus the
//! cached reads of the breakpoints and coefficients); tridiagonal systems
//! by cuSPARSE's `gtsv2` (pivoting, every right-hand side in one call).

use std::ffi::c_void;

use cudarc::cusparse::sys as cs;

use super::CudaBackend;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::view::View;
use crate::cuda::cusparse::{check, handle, work_buffer};
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key, ptr};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::Function;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::{session, DeviceSession};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::Buffer;
use crate::ops::c_types::ctype;
use crate::ops::interpolate::{
    Collocation, GridEval, GridMethod, Interpolate, PPolyEval, Tridiagonal,
};

const PPOLY: &str = include_str!("kernels/interp_ppoly.cu");
const GRID: &str = include_str!("kernels/interp_grid.cu");
const GRID_SPLINE: &str = include_str!("kernels/interp_grid_spline.cu");
const COLLOC: &str = include_str!("kernels/interp_colloc.cu");
const THREADS: usize = 256;
/// The most grid axes a kernel holds in registers.
pub(crate) const MAX_GRID_DIMS: usize = 16;
/// The cuSPARSE symbols `solve_tridiagonal` calls.
const GTSV_SYMBOLS: &[&str] = &[
    "cusparseSgtsv2",
    "cusparseDgtsv2",
    "cusparseSgtsv2_bufferSizeExt",
    "cusparseDgtsv2_bufferSizeExt",
];

fn ppoly_source(dt: DType) -> String {
    let body = render(PPOLY, &[("T", ctype(dt))], &[]);
    format!("{PRELUDE}{body}")
}

/// The grid kernel for values `v`, points `x` and output `o` dtypes.
fn grid_source(v: DType, x: DType, o: DType, d: usize, method: GridMethod) -> String {
    let (template, on, k): (&str, &[&str], usize) = match method {
        GridMethod::Linear => (GRID, &["LINEAR"], 0),
        GridMethod::Nearest => (GRID, &[], 0),
        GridMethod::Spline(k) => (GRID_SPLINE, &["SPLINE"], k),
        GridMethod::Pchip => (GRID_SPLINE, &[], 3),
    };
    let values = [
        ("V", ctype(v)),
        ("X", ctype(x)),
        ("O", ctype(o)),
        ("D", &d.to_string()),
        ("K", &k.to_string()),
    ];
    let body = render(template, &values, on);
    format!("{PRELUDE}{body}")
}

/// The collocation kernels for right-hand sides of `dt` and degree `k`.
/// The collocation kernel `cuprite_colloc_{part}` (factor, solve, rows) of
/// degree `k` for right-hand sides of `dt`; all three come from one source.
fn colloc_kernel(
    s: &DeviceSession,
    op: &'static str,
    part: &'static str,
    dt: DType,
    k: usize,
) -> Result<Function> {
    let name = format!("cuprite_colloc_{part}");
    kernel(s, key(("interp_colloc", part, dt, k)), op, &name, || {
        colloc_source(dt, k)
    })
}

/// The arguments the factor and rows kernels start with: knots, sites,
/// their count, the system's size and the derivative order.
fn colloc_args(op: &'static str, c: &Collocation<'_>, nt: usize) -> Result<KernelArgs> {
    let mut args = KernelArgs::new();
    args.push(ptr(op, c.t)?).push(ptr(op, c.x)?);
    args.push(c.x.size() as i64)
        .push(nt as i64)
        .push(c.order as i32);
    Ok(args)
}

fn colloc_source(dt: DType, k: usize) -> String {
    let body = render(COLLOC, &[("T", ctype(dt)), ("K", &k.to_string())], &[]);
    format!("{PRELUDE}{body}")
}

fn config(s: &crate::cuda::runtime::session::DeviceSession, n: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (grid_1d(s, n, THREADS), 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `v` as a C `int`, or an error naming the operation.
fn c_int(op: &'static str, what: &str, v: usize) -> Result<i32> {
    i32::try_from(v)
        .map_err(|_| Error::invalid(op, format!("{what} {v} exceeds cuSPARSE's int range")))
}

impl Interpolate for CudaBackend {
    fn ppoly_eval(&self, op: &'static str, e: PPolyEval<'_>) -> Result<()> {
        let s = session(self.ordinal)?;
        let points = e.xi.size();
        if points == 0 || e.out.size() == 0 {
            return Ok(());
        }
        let dt = e.out.dtype();
        let f = kernel(
            s,
            key(("interp_ppoly", dt)),
            op,
            "cuprite_ppoly_eval",
            || ppoly_source(dt),
        )?;
        let shape = e.coefs.shape();
        let (k, n, m) = (shape[0] - 1, shape[1], shape[2]);
        let mut args = KernelArgs::new();
        args.push(ptr(op, e.breaks)?).push(ptr(op, e.coefs)?);
        args.push(ptr(op, e.xi)?);
        args.push(points as i64).push(n as i64).push(m as i64);
        args.push(k as i32)
            .push(e.nu as i32)
            .push(i32::from(e.extrapolate));
        args.push(ptr(op, e.out)?);
        launch(s, op, f, config(s, points), &current_stream(), &mut args)
    }

    fn solve_tridiagonal(&self, op: &'static str, t: Tridiagonal<'_>) -> Result<()> {
        let (m, n) = (t.rhs.shape()[0], t.rhs.shape()[1]);
        if m == 0 {
            return Ok(());
        }
        crate::cuda::runtime::libs::require("cusparse", GTSV_SYMBOLS, op)?;
        let h = handle(op, self.ordinal)?;
        let (nn, mm) = (
            c_int(op, "system size", n)?,
            c_int(op, "right-hand sides", m)?,
        );
        let (dl, d, du, b) = (
            ptr(op, t.lower)?,
            ptr(op, t.diag)?,
            ptr(op, t.upper)?,
            ptr(op, t.rhs)?,
        );
        let mut bytes = 0usize;
        // SAFETY: device pointers to n (diagonals) and n * m (rhs) elements of
        // the dtype named by the call, on the handle's stream; `bytes` is a
        // valid out-pointer.
        let st = unsafe {
            match t.rhs.dtype() {
                DType::Float32 => cs::cusparseSgtsv2_bufferSizeExt(
                    h, nn, mm, dl as _, d as _, du as _, b as _, nn, &mut bytes,
                ),
                _ => cs::cusparseDgtsv2_bufferSizeExt(
                    h, nn, mm, dl as _, d as _, du as _, b as _, nn, &mut bytes,
                ),
            }
        };
        check(op, "gtsv2_bufferSizeExt", st)?;
        let work = work_buffer(op, self.ordinal, bytes)?;
        let wp = work.ptr(op)? as *mut c_void;
        // SAFETY: as above, with a work buffer of the size cuSPARSE asked for.
        let st = unsafe {
            match t.rhs.dtype() {
                DType::Float32 => {
                    cs::cusparseSgtsv2(h, nn, mm, dl as _, d as _, du as _, b as _, nn, wp)
                }
                _ => cs::cusparseDgtsv2(h, nn, mm, dl as _, d as _, du as _, b as _, nn, wp),
            }
        };
        check(op, "gtsv2", st)
    }

    fn grid_eval(&self, op: &'static str, g: GridEval<'_>) -> Result<()> {
        let s = session(self.ordinal)?;
        let d = g.lengths.len();
        let points = g.out.shape()[0];
        let m = g.out.shape()[1];
        if points == 0 || m == 0 {
            return Ok(());
        }
        if d == 0 || d > MAX_GRID_DIMS {
            return Err(Error::invalid(
                op,
                format!("a grid of {d} dimensions (the GPU kernel takes 1 to {MAX_GRID_DIMS})"),
            ));
        }
        let (v, x, o) = (g.values.dtype(), g.xi.dtype(), g.out.dtype());
        let name = match g.method {
            GridMethod::Linear | GridMethod::Nearest => "cuprite_grid_eval",
            GridMethod::Spline(_) | GridMethod::Pchip => "cuprite_grid_spline_eval",
        };
        let f = kernel(
            s,
            key(("interp_grid", v, x, o, d, g.method)),
            op,
            name,
            || grid_source(v, x, o, d, g.method),
        )?;
        // GridShape: axis starts, lengths, element strides of `values` (a
        // spline's values are its coefficients, k + 1 fewer than its knots).
        let less = match g.method {
            GridMethod::Spline(k) => k + 1,
            _ => 0,
        };
        let mut shape = vec![0i64; 3 * d];
        let mut start = 0;
        let mut stride = m;
        for a in (0..d).rev() {
            shape[2 * d + a] = stride as i64;
            stride *= g.lengths[a] - less;
        }
        for (a, &len) in g.lengths.iter().enumerate() {
            shape[a] = start as i64;
            shape[d + a] = len as i64;
            start += len;
        }
        let bytes: Vec<u8> = shape.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let mut args = KernelArgs::new();
        args.push(ptr(op, g.axes)?);
        args.push_bytes(&bytes, 8);
        args.push(ptr(op, g.values)?).push(ptr(op, g.xi)?);
        args.push(points as i64).push(m as i64);
        args.push(i32::from(g.fill.is_some()))
            .push(g.fill.unwrap_or(0.0));
        args.push(ptr(op, g.out)?);
        launch(s, op, f, config(s, points), &current_stream(), &mut args)
    }

    fn solve_collocation(&self, op: &'static str, c: Collocation<'_>) -> Result<()> {
        let s = session(self.ordinal)?;
        let (nt, m) = (c.rhs.shape()[0], c.rhs.shape()[1]);
        if nt == 0 || m == 0 {
            return Ok(());
        }
        let dt = c.rhs.dtype();
        let stream = current_stream();
        // The factored band and its interchanges, one pool buffer each.
        let band = Buffer::new(op, self.ordinal, DType::Float64, &[nt * (3 * c.k + 1)])?;
        let piv = Buffer::new(op, self.ordinal, DType::Int32, &[nt])?;
        let factor = colloc_kernel(s, op, "factor", dt, c.k)?;
        let mut args = colloc_args(op, &c, nt)?;
        args.push(band.ptr(op)?).push(piv.ptr(op)?);
        let one = LaunchConfig {
            grid: (1, 1, 1),
            block: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        launch(s, op, factor, one, &stream, &mut args)?;
        let solve = colloc_kernel(s, op, "solve", dt, c.k)?;
        let mut args = KernelArgs::new();
        args.push(band.ptr(op)?).push(piv.ptr(op)?);
        args.push(nt as i64).push(m as i64);
        args.push(ptr(op, c.rhs)?);
        launch(s, op, solve, config(s, m), &stream, &mut args)
    }

    fn collocation_band(&self, op: &'static str, c: Collocation<'_>, band: View<'_>) -> Result<()> {
        let s = session(self.ordinal)?;
        let nt = band.shape()[0];
        if nt == 0 {
            return Ok(());
        }
        let dt = c.rhs.dtype();
        let f = colloc_kernel(s, op, "rows", dt, c.k)?;
        let mut args = colloc_args(op, &c, nt)?;
        args.push(ptr(op, band)?);
        launch(s, op, f, config(s, nt), &current_stream(), &mut args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::kernel_gen::helpers::dump_source;
    use crate::cuda::kernel_gen::template::unfilled;

    #[test]
    fn ppoly_sources_compile() {
        for dt in [DType::Float32, DType::Float64] {
            let src = ppoly_source(dt);
            assert_eq!(unfilled(&src), None);
            dump_source(&format!("interp_ppoly_{}", dt.name()), &src);
        }
    }

    #[test]
    fn grid_sources_compile() {
        for (v, x, d, method) in [
            (DType::Float32, DType::Float64, 3, GridMethod::Linear),
            (DType::Float32, DType::Float32, 3, GridMethod::Nearest),
            (DType::Float64, DType::Float64, 1, GridMethod::Nearest),
            (DType::Float64, DType::Float32, 2, GridMethod::Linear),
            (DType::Float64, DType::Float64, 3, GridMethod::Spline(3)),
            (DType::Float32, DType::Float64, 2, GridMethod::Spline(5)),
            (DType::Float64, DType::Float64, 3, GridMethod::Pchip),
            (DType::Float32, DType::Float32, 1, GridMethod::Pchip),
        ] {
            let o = crate::core::dtype::promote_types(v, x);
            let src = grid_source(v, x, o, d, method);
            assert_eq!(unfilled(&src), None);
            assert_eq!(
                src.contains("#define LINEAR 1"),
                method == GridMethod::Linear
            );
            dump_source(
                &format!("interp_grid_{}_{}_{d}_{method:?}", v.name(), x.name()),
                &src,
            );
        }
    }

    #[test]
    fn colloc_sources_compile() {
        for (dt, k) in [
            (DType::Float64, 3),
            (DType::Float64, 5),
            (DType::Float32, 4),
        ] {
            let src = colloc_source(dt, k);
            assert_eq!(unfilled(&src), None);
            dump_source(&format!("interp_colloc_{}_{k}", dt.name()), &src);
        }
    }
}

//! Direct 2-D convolution and median filters on the GPU (NVRTC kernels
//! specialised on the filter size).
//!
//! Convolution: every output `out[i, j] = sum_{p,q} A(i + off_r - p, j +
//! off_c - q) * K[p, q]` where `A` extends the image past its edges by the
//! boundary rule (fill value, wrap, symmetric reflection). With the flipped
//! filter `F` this is a correlation over a window whose top-left corner is
//! at `(i + r0, j + c0)`. A block computes a tile of `TH x TW` outputs:
//!
//! - it loads the input tile plus its halo (`(TH + KH - 1) x (TW + KW - 1)`,
//!   padded to whole vectors) into shared memory, applying the boundary
//!   rule to every position outside the image (so no global read is ever
//!   out of bounds), and the filter into shared memory;
//! - each thread owns `RY x RX` outputs in registers; it walks the input
//!   rows of its window once, loading each row segment into registers with
//!   16-byte shared loads, and for every output row `y` whose filter row
//!   `t - y` is in range adds the segment times that filter row (read with
//!   broadcast vector loads). The loops over filter columns and outputs are
//!   fully unrolled because `KW` is a compile-time constant.
//!
//! Filters larger than one chunk (32 x 32 for float32, 16 x 16 for float64)
//! are split into chunks whose partial results accumulate into the output.

use std::fmt::Write;

use super::compile::PRELUDE;
use super::elementwise::ctype;
use super::helpers::{grid_1d, kernel, key};
use super::launch::{launch, KernelArgs, LaunchConfig};
use super::stream::current_stream;
use super::vendor::{on_host, ordinal, session_of, upload, Buffer};
use crate::cpu::CpuBackend;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::create::Create;
use crate::ops::signal::{Boundary as Bound, Conv, Lfilter, Signal};
use crate::storage::Storage;
use crate::view::View;

/// Thread-block geometry of a convolution kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Geometry {
    /// Threads along x and y.
    pub bx: usize,
    pub by: usize,
    /// Outputs per thread along x and y.
    pub rx: usize,
    pub ry: usize,
    /// Elements per 16-byte vector (4 for float, 2 for double).
    pub vw: usize,
    /// Largest filter chunk.
    pub max_kh: usize,
    pub max_kw: usize,
}

impl Geometry {
    /// The geometry for `dt` (float32 or float64) and a chunk of `kh` filter rows.
    pub fn for_dtype(dt: DType, kh: usize) -> Geometry {
        match (dt, kh) {
            // One filter row (1-D signals, row filters): wide tiles of one row.
            (DType::Float32, 1) => Geometry {
                bx: 64,
                by: 2,
                rx: 8,
                ry: 1,
                vw: 4,
                max_kh: 1,
                max_kw: 32,
            },
            (DType::Float32, _) => Geometry {
                bx: 16,
                by: 8,
                rx: 8,
                ry: 4,
                vw: 4,
                max_kh: 32,
                max_kw: 32,
            },
            (_, 1) => Geometry {
                bx: 64,
                by: 2,
                rx: 4,
                ry: 1,
                vw: 2,
                max_kh: 1,
                max_kw: 16,
            },
            _ => Geometry {
                bx: 16,
                by: 8,
                rx: 4,
                ry: 4,
                vw: 2,
                max_kh: 16,
                max_kw: 16,
            },
        }
    }
    pub fn tile_h(&self) -> usize {
        self.by * self.ry
    }
    pub fn tile_w(&self) -> usize {
        self.bx * self.rx
    }
}

/// What determines a convolution kernel's source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ConvSpec {
    pub dt: DType,
    pub kh: usize,
    pub kw: usize,
    pub geo: Geometry,
    pub bound: Bound,
    pub accumulate: bool,
}

impl ConvSpec {
    /// Vectors per row segment (a thread's `RX + KW - 1` inputs).
    pub fn seg_vectors(&self) -> usize {
        (self.geo.rx + self.kw - 1).div_ceil(self.geo.vw)
    }
    /// Filter row length in shared memory (whole vectors).
    pub fn kw_padded(&self) -> usize {
        self.kw.div_ceil(self.geo.vw) * self.geo.vw
    }
    /// Shared tile rows.
    pub fn sh(&self) -> usize {
        self.geo.tile_h() + self.kh - 1
    }
    /// Shared tile row length: the halo, and the last thread's vector reads, in whole vectors.
    pub fn sw(&self) -> usize {
        let g = &self.geo;
        let need = (g.tile_w() + self.kw - 1).max((g.bx - 1) * g.rx + self.seg_vectors() * g.vw);
        need.div_ceil(g.vw) * g.vw
    }
    /// Static shared memory of the kernel in bytes.
    pub fn shared_bytes(&self) -> usize {
        (self.sh() * self.sw() + self.kh * self.kw_padded()) * self.dt.itemsize()
    }
}

/// The CUDA source of a convolution kernel (`cuprite_conv2d`).
pub(crate) fn conv_source(s: &ConvSpec) -> String {
    let g = &s.geo;
    let t = ctype(s.dt);
    let (vt, comps): (&str, &[&str]) = if g.vw == 4 {
        ("float4", &["x", "y", "z", "w"])
    } else {
        ("double2", &["x", "y"])
    };
    let mut src = String::from(PRELUDE);
    let _ = writeln!(src, "// Cuprite direct 2-D convolution: {s:?}");
    let defs = [
        ("BX", g.bx),
        ("BY", g.by),
        ("RX", g.rx),
        ("RY", g.ry),
        ("NT", g.bx * g.by),
        ("TH", g.tile_h()),
        ("TW", g.tile_w()),
        ("KH", s.kh),
        ("KW", s.kw),
        ("KWP", s.kw_padded()),
        ("SH", s.sh()),
        ("SW", s.sw()),
        ("SEGV", s.seg_vectors()),
        ("VW", g.vw),
    ];
    let _ = writeln!(src, "typedef {t} T;\ntypedef {vt} VT;");
    for (n, v) in defs {
        let _ = writeln!(src, "#define {n} {v}");
    }
    let remap = match s.bound {
        Bound::Fill => "",
        Bound::Wrap => {
            "__device__ __forceinline__ long long remap(long long x, long long n) {\n  long long m = x % n;\n  return m < 0 ? m + n : m;\n}\n"
        }
        Bound::Symm => {
            "__device__ __forceinline__ long long remap(long long x, long long n) {\n  long long n2 = 2 * n;\n  long long m = x % n2;\n  if (m < 0) m += n2;\n  return m < n ? m : n2 - 1 - m;\n}\n"
        }
    };
    src.push_str(remap);
    let outside = match s.bound {
        Bound::Fill => "v = fill;".to_string(),
        _ => "v = in[remap(gr, H) * W + remap(gc, W)];".to_string(),
    };
    let store = if s.accumulate {
        "out[o] = out[o] + acc[y][x];"
    } else {
        "out[o] = acc[y][x];"
    };
    // Unrolled body: for each output row y whose filter row p = t - y is in
    // range, multiply the segment by filter row p.
    let mut body = String::new();
    for y in 0..g.ry {
        let _ = writeln!(body, "      {{ const int p = t - {y};");
        let _ = writeln!(body, "        if (p >= 0 && p < KH) {{");
        let _ = writeln!(
            body,
            "          const VT* fr = reinterpret_cast<const VT*>(fs + p * KWP);"
        );
        for qv in 0..s.kw_padded() / g.vw {
            let _ = writeln!(body, "          {{ const VT c = fr[{qv}];");
            for (e, comp) in comps.iter().enumerate() {
                let q = qv * g.vw + e;
                if q >= s.kw {
                    break;
                }
                for x in 0..g.rx {
                    let _ = writeln!(
                        body,
                        "            acc[{y}][{x}] = seg[{}] * c.{comp} + acc[{y}][{x}];",
                        x + q
                    );
                }
            }
            let _ = writeln!(body, "          }}");
        }
        let _ = writeln!(body, "        }}\n      }}");
    }
    let mut loads = String::new();
    for v in 0..s.seg_vectors() {
        let _ = write!(loads, "      {{ const VT q = srow[{v}];");
        for (e, comp) in comps.iter().enumerate() {
            let _ = write!(loads, " seg[{}] = q.{comp};", v * g.vw + e);
        }
        loads.push_str(" }\n");
    }
    let _ = write!(
        src,
        r#"
extern "C" __global__ void __launch_bounds__(NT) cuprite_conv2d(
    const T* __restrict__ in, T* __restrict__ out, const T* __restrict__ filt,
    long long H, long long W, long long OH, long long OW,
    long long r0, long long c0, long long fstride, T fill)
{{
  __shared__ __align__(16) T tile[SH * SW];
  __shared__ __align__(16) T fs[KH * KWP];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const long long tr0 = (long long)blockIdx.y * TH, tc0 = (long long)blockIdx.x * TW;
  for (int i = tid; i < KH * KWP; i += NT) {{
    const int p = i / KWP, q = i - p * KWP;
    fs[i] = q < KW ? filt[p * fstride + q] : (T)0;
  }}
  for (int i = tid; i < SH * SW; i += NT) {{
    const int r = i / SW, c = i - r * SW;
    const long long gr = tr0 + r + r0, gc = tc0 + c + c0;
    T v;
    if (gr >= 0 && gr < H && gc >= 0 && gc < W) v = in[gr * W + gc];
    else {{ {outside} }}
    tile[i] = v;
  }}
  __syncthreads();
  T acc[RY][RX];
#pragma unroll
  for (int y = 0; y < RY; ++y)
#pragma unroll
    for (int x = 0; x < RX; ++x) acc[y][x] = (T)0;
  T seg[SEGV * VW];
#pragma unroll 1
  for (int t = 0; t < RY + KH - 1; ++t) {{
    const VT* srow = reinterpret_cast<const VT*>(tile + (ty * RY + t) * SW + tx * RX);
{loads}{body}  }}
#pragma unroll
  for (int y = 0; y < RY; ++y) {{
    const long long orow = tr0 + ty * RY + y;
    if (orow >= OH) continue;
#pragma unroll
    for (int x = 0; x < RX; ++x) {{
      const long long ocol = tc0 + tx * RX + x;
      if (ocol < OW) {{
        const long long o = orow * OW + ocol;
        {store}
      }}
    }}
  }}
}}
"#
    );
    src
}

/// `l` as a 2-D layout: a 1-D one becomes a single row.
fn as_2d(l: &Layout) -> Layout {
    match l.ndim() {
        1 => Layout::from_parts(vec![1, l.shape()[0]], vec![0, l.strides()[0]], l.offset()),
        _ => l.clone(),
    }
}

/// `v` (2-D) as a C-contiguous buffer of `dt`, reversed along both axes
/// when `flip`: the one copy that casts, flips and makes contiguous, or `v`
/// itself (shared) when it already is that.
fn prepared(op: &'static str, v: View<'_>, dt: DType, flip: bool) -> Result<Buffer> {
    // Already in the form the kernels read: shared, not copied.
    if !flip && v.dtype == dt && v.is_c_contiguous() {
        return Ok(Buffer {
            storage: v.storage.clone(),
            layout: v.layout.clone(),
            dtype: dt,
        });
    }
    let n = ordinal(op, v)?;
    let (h, w) = (v.shape()[0], v.shape()[1]);
    let l = if flip {
        let st = v.strides();
        let off =
            v.offset() as isize + (h as isize - 1).max(0) * st[0] + (w as isize - 1).max(0) * st[1];
        Layout::from_parts(vec![h, w], vec![-st[0], -st[1]], off.max(0) as usize)
    } else {
        v.layout.clone()
    };
    let c = Buffer::new(op, n, dt, &[h, w])?;
    super::backend(n)
        .expect("a device in use has a backend")
        .copy_cast(op, View::new(v.storage, &l, v.dtype), c.view())?;
    Ok(c)
}

/// `out[i, j] = sum_{p,q} A(i + off.0 - p, j + off.1 - q) K[p, q]` on the
/// GPU for 2-D `a` and `k` of one dtype (float32 or float64), output of
/// `out_shape`, positions outside `a` given by `bound` (`fill` for `Fill`).
fn conv2d(
    op: &'static str,
    a: View<'_>,
    k: View<'_>,
    out_shape: (usize, usize),
    off: (isize, isize),
    bound: Bound,
    fill: f64,
) -> Result<Buffer> {
    let s = session_of(op, a)?;
    let dt = a.dtype();
    if !matches!(dt, DType::Float32 | DType::Float64)
        || k.dtype() != dt
        || a.ndim() != 2
        || k.ndim() != 2
    {
        return Err(Error::InvalidArgument {
            op,
            detail:
                "internal: the GPU convolution takes 2-D float32 or float64 operands of one dtype"
                    .into(),
        });
    }
    let out = Buffer::new(op, s.info.ordinal, dt, &[out_shape.0, out_shape.1])?;
    let (h, w) = (a.shape()[0], a.shape()[1]);
    let (kh_all, kw_all) = (k.shape()[0], k.shape()[1]);
    if out.layout.size() == 0 {
        return Ok(out);
    }
    let be = super::backend(s.info.ordinal).expect("a device in use has a backend");
    if h == 0 || w == 0 || kh_all == 0 || kw_all == 0 {
        be.fill(op, out.view(), crate::Scalar::Int(0))?;
        return Ok(out);
    }
    let a = prepared(op, a, dt, false)?;
    let f = prepared(op, k, dt, true)?;
    let base = Geometry::for_dtype(dt, kh_all);
    let mut first = true;
    let mut p0 = 0;
    while p0 < kh_all {
        let kh = base.max_kh.min(kh_all - p0);
        let geo = Geometry::for_dtype(dt, kh);
        let mut q0 = 0;
        while q0 < kw_all {
            let kw = geo.max_kw.min(kw_all - q0);
            let spec = ConvSpec {
                dt,
                kh,
                kw,
                geo,
                bound,
                accumulate: !first,
            };
            if spec.shared_bytes() > 48 * 1024 {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!(
                        "internal: convolution tile of {} bytes exceeds static shared memory",
                        spec.shared_bytes()
                    ),
                });
            }
            let gx = out_shape.1.div_ceil(geo.tile_w());
            let gy = out_shape.0.div_ceil(geo.tile_h());
            if gy > 65535 || gx > i32::MAX as usize {
                return Err(Error::Shape {
                    op,
                    detail: format!(
                        "an output of shape ({}, {}) is too large for the GPU convolution",
                        out_shape.0, out_shape.1
                    ),
                });
            }
            let func = kernel(
                s,
                key(("conv2d", &spec)),
                "conv2d",
                "cuprite_conv2d",
                || conv_source(&spec),
            )?;
            let r0 = off.0 - (kh_all as i64 as isize - 1) + p0 as isize;
            let c0 = off.1 - (kw_all as isize - 1) + q0 as isize;
            let fptr = f.ptr(op)? + ((p0 * kw_all + q0) * dt.itemsize()) as u64;
            let mut args = KernelArgs::new();
            args.push(a.ptr(op)?)
                .push(out.ptr(op)?)
                .push(fptr)
                .push(h as i64)
                .push(w as i64)
                .push(out_shape.0 as i64)
                .push(out_shape.1 as i64)
                .push(r0 as i64)
                .push(c0 as i64)
                .push(kw_all as i64);
            if dt == DType::Float32 {
                args.push(fill as f32);
            } else {
                args.push(fill);
            }
            let cfg = LaunchConfig {
                grid: (gx as u32, gy as u32, 1),
                block: (geo.bx as u32, geo.by as u32, 1),
                shared_mem_bytes: 0,
            };
            launch(s, "conv2d", func, cfg, &current_stream(), &mut args)?;
            first = false;
            q0 += kw;
        }
        p0 += kh;
    }
    Ok(out)
}

/// Largest median window handled on the GPU (elements).
pub(crate) const MAX_MEDIAN_WINDOW: usize = 49;

/// The CUDA source of a median filter over `kh x kw` windows (zero padded)
/// of a C-contiguous 2-D array of `dt` (`cuprite_medfilt`).
pub(crate) fn medfilt_source(dt: DType, kh: usize, kw: usize) -> String {
    let t = ctype(dt);
    let n = kh * kw;
    let mut net = String::new();
    // Odd-even transposition sort: n rounds of compare-exchange.
    for round in 0..n {
        let mut j = round % 2;
        while j + 1 < n {
            let _ = writeln!(
                net,
                "    {{ T a = v[{j}], b = v[{}]; bool s = b < a; v[{j}] = s ? b : a; v[{}] = s ? a : b; }}",
                j + 1,
                j + 1
            );
            j += 2;
        }
    }
    format!(
        r#"{PRELUDE}
// Cuprite median filter {kh}x{kw} of {dt}
typedef {t} T;
extern "C" __global__ void cuprite_medfilt(const T* __restrict__ in, T* __restrict__ out, long long H, long long W)
{{
  const long long n = H * W;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {{
    const long long r = i / W, c = i - r * W;
    T v[{n}];
#pragma unroll
    for (int p = 0; p < {kh}; ++p) {{
      const long long rr = r + p - {hh};
#pragma unroll
      for (int q = 0; q < {kw}; ++q) {{
        const long long cc = c + q - {hw};
        v[p * {kw} + q] = (rr >= 0 && rr < H && cc >= 0 && cc < W) ? in[rr * W + cc] : (T)0;
      }}
    }}
{net}    out[i] = v[{mid}];
  }}
}}
"#,
        hh = kh / 2,
        hw = kw / 2,
        mid = n / 2
    )
}

/// Median of each `kh x kw` window (odd sizes, zero padding) of the 2-D
/// real array `a` on the GPU.
fn medfilt2d(op: &'static str, a: View<'_>, kh: usize, kw: usize) -> Result<Buffer> {
    let s = session_of(op, a)?;
    let dt = a.dtype();
    let (h, w) = (a.shape()[0], a.shape()[1]);
    let out = Buffer::new(op, s.info.ordinal, dt, &[h, w])?;
    if out.layout.size() == 0 {
        return Ok(out);
    }
    let a = prepared(op, a, dt, false)?;
    let func = kernel(
        s,
        key(("medfilt", dt, kh, kw)),
        "medfilt",
        "cuprite_medfilt",
        || medfilt_source(dt, kh, kw),
    )?;
    let threads = 256;
    let mut args = KernelArgs::new();
    args.push(a.ptr(op)?)
        .push(out.ptr(op)?)
        .push(h as i64)
        .push(w as i64);
    let cfg = LaunchConfig {
        grid: (grid_1d(s, h * w, threads), 1, 1),
        block: (threads as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, "medfilt", func, cfg, &current_stream(), &mut args)?;
    Ok(out)
}

// The Signal family of the backend interface (`ops::backend`). What has
// no kernel here (N-D, complex or integer convolutions, large median
// windows, lfilter) runs on the CPU backend, counted as a host fallback.
impl Signal for super::CudaBackend {
    fn convolve(
        &self,
        op: &'static str,
        a: View<'_>,
        k: View<'_>,
        c: &Conv<'_>,
    ) -> Result<Storage> {
        let gpu = matches!(c.out_dt, DType::Float32 | DType::Float64)
            && (1..=2).contains(&a.ndim())
            && k.ndim() == a.ndim()
            && k.device() == a.device()
            && c.fill.as_c64().im == 0.0;
        if !gpu {
            let r = on_host(op, &[a, k], |h| CpuBackend.convolve(op, h[0], h[1], c))?;
            return upload(op, self.ordinal, &r, c.out_dt);
        }
        let (oshape, o) = match (c.osh, c.off) {
            ([w], [dw]) => ((1, *w), (0, *dw)),
            (osh, off) => ((osh[0], osh[1]), (off[0], off[1])),
        };
        let (al, kl) = (as_2d(a.layout), as_2d(k.layout));
        let a2 = View::new(a.storage, &al, a.dtype);
        let k2 = View::new(k.storage, &kl, k.dtype);
        Ok(conv2d(op, a2, k2, oshape, o, c.bound, c.fill.as_c64().re)?.storage)
    }

    fn medfilt(&self, op: &'static str, v: View<'_>, ks: &[usize]) -> Result<Storage> {
        let nd = v.ndim();
        if (1..=2).contains(&nd)
            && !matches!(v.dtype(), DType::Float16 | DType::BFloat16)
            && ks.iter().product::<usize>() <= MAX_MEDIAN_WINDOW
        {
            let (kh, kw) = if nd == 1 { (1, ks[0]) } else { (ks[0], ks[1]) };
            let l = as_2d(v.layout);
            return Ok(medfilt2d(op, View::new(v.storage, &l, v.dtype), kh, kw)?.storage);
        }
        let r = on_host(op, &[v], |h| CpuBackend.medfilt(op, h[0], ks))?;
        upload(op, self.ordinal, &r, v.dtype())
    }

    fn lfilter(&self, f: &Lfilter<'_>) -> Result<(Storage, Option<Storage>)> {
        let op = "lfilter";
        let mut inputs = vec![f.b, f.a, f.x];
        inputs.extend(f.zi);
        let (y, zf) = on_host(op, &inputs, |h| {
            let (b, a, x, zi) = (h[0], h[1], h[2], h.get(3).copied());
            CpuBackend.lfilter(&Lfilter { b, a, x, zi, ..*f })
        })?;
        let dt = f.dt;
        let zf = zf.map(|z| upload(op, self.ordinal, &z, dt)).transpose()?;
        Ok((upload(op, self.ordinal, &y, dt)?, zf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> Vec<ConvSpec> {
        let mut v = Vec::new();
        for dt in [DType::Float32, DType::Float64] {
            for kh in [1usize, 2, 3, 16, 31, 32] {
                let geo = Geometry::for_dtype(dt, kh);
                let kh = kh.min(geo.max_kh);
                for kw in [1usize, 2, 5, 16, 31, 32] {
                    let kw = kw.min(geo.max_kw);
                    for bound in [Bound::Fill, Bound::Wrap, Bound::Symm] {
                        v.push(ConvSpec {
                            dt,
                            kh,
                            kw,
                            geo,
                            bound,
                            accumulate: kw % 2 == 0,
                        });
                    }
                }
            }
        }
        v
    }

    #[test]
    fn tiles_fit_static_shared_memory_and_vector_reads_stay_inside() {
        for s in specs() {
            assert!(
                s.shared_bytes() <= 48 * 1024,
                "{s:?}: {} bytes",
                s.shared_bytes()
            );
            let g = s.geo;
            // The last thread's last vector read ends inside its tile row.
            assert!(
                (g.bx - 1) * g.rx + s.seg_vectors() * g.vw <= s.sw(),
                "{s:?}"
            );
            // Each thread's window (RX + KW - 1 inputs) is covered by its vectors.
            assert!(s.seg_vectors() * g.vw >= g.rx + s.kw - 1);
            // Rows read: ty * RY + t for t < RY + KH - 1 stay inside the tile.
            assert!((g.by - 1) * g.ry + g.ry + s.kh - 1 <= s.sh());
            // Vector alignment of every row start and thread offset.
            assert_eq!(s.sw() % g.vw, 0);
            assert_eq!(g.rx % g.vw, 0);
            assert_eq!(s.kw_padded() % g.vw, 0);
            assert!(g.bx * g.by <= 1024);
        }
    }

    #[test]
    fn conv_source_is_specialised() {
        let geo = Geometry::for_dtype(DType::Float32, 31);
        let s = ConvSpec {
            dt: DType::Float32,
            kh: 31,
            kw: 31,
            geo,
            bound: Bound::Wrap,
            accumulate: false,
        };
        let src = conv_source(&s);
        assert!(src.contains("#define KW 31"));
        assert!(src.contains("typedef float T;"));
        assert!(src.contains("remap(gr, H) * W + remap(gc, W)"));
        assert!(src.contains("out[o] = acc[y][x];"));
        // Every (output row, filter column, output column) product is spelled out once.
        let fmas = src.matches("] * c.").count();
        assert_eq!(fmas, geo.ry * 31 * geo.rx);
        // The segment loads cover RX + KW - 1 = 38 values.
        assert!(src.contains("seg[39] = q.w;"));
        super::super::helpers::dump_source("conv2d_f32_31x31_wrap", &src);
        let d = ConvSpec {
            dt: DType::Float64,
            kh: 3,
            kw: 4,
            geo: Geometry::for_dtype(DType::Float64, 3),
            bound: Bound::Symm,
            accumulate: true,
        };
        let src = conv_source(&d);
        assert!(src.contains("typedef double T;\ntypedef double2 VT;"));
        assert!(src.contains("return m < n ? m : n2 - 1 - m;"));
        assert!(src.contains("out[o] = out[o] + acc[y][x];"));
        super::super::helpers::dump_source("conv2d_f64_3x4_symm", &src);
        let f = ConvSpec {
            bound: Bound::Fill,
            ..d
        };
        assert!(conv_source(&f).contains("else { v = fill; }"));
        assert!(!conv_source(&f).contains("remap"));
    }

    #[test]
    fn median_network_sorts() {
        // Run the generated compare-exchange network on the host.
        for n in [1usize, 3, 5, 9, 25] {
            let src = medfilt_source(DType::Float32, 1, n);
            super::super::helpers::dump_source(&format!("medfilt_1x{n}"), &src);
            let pairs: Vec<(usize, usize)> = src
                .lines()
                .filter_map(|l| {
                    let l = l.trim();
                    let rest = l.strip_prefix("{ T a = v[")?;
                    let (i, rest) = rest.split_once("], b = v[")?;
                    let (j, _) = rest.split_once(']')?;
                    Some((i.parse().ok()?, j.parse().ok()?))
                })
                .collect();
            let mut seed = 12345u64;
            for _ in 0..200 {
                let mut v: Vec<i64> = (0..n)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        ((seed >> 33) % 7) as i64
                    })
                    .collect();
                let mut sorted = v.clone();
                sorted.sort();
                for &(i, j) in &pairs {
                    if v[j] < v[i] {
                        v.swap(i, j);
                    }
                }
                assert_eq!(v, sorted, "n = {n}");
            }
        }
    }
}

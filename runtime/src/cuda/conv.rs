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

use crate::backend::fallback::on_views;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key};
use crate::cuda::kernel_gen::template::render_owned;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{ordinal, session_of, upload, Buffer};
use crate::ops::c_types::ctype;
use crate::ops::create::Create;
use crate::ops::signal::{
    Boundary as Bound, Cascade, Conv, Lfilter, LocalPeaks, PeakScan, PeakSet, Signal, Upfirdn,
};

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

const CONV: &str = include_str!("kernels/conv2d.cu");
const MEDFILT: &str = include_str!("kernels/medfilt.cu");

/// The CUDA source of a convolution kernel (`cuprite_conv2d`).
pub(crate) fn conv_source(s: &ConvSpec) -> String {
    let g = &s.geo;
    let (vt, comps): (&str, &[&str]) = if g.vw == 4 {
        ("float4", &["x", "y", "z", "w"])
    } else {
        ("double2", &["x", "y"])
    };
    // Unrolled body: for each output row y whose filter row p = t - y is in
    // range, multiply the segment by filter row p.
    let mut body = String::new();
    for y in 0..g.ry {
        body += &format!("      {{ const int p = t - {y};\n        if (p >= 0 && p < KH) {{\n");
        body += "          const VT* fr = reinterpret_cast<const VT*>(fs + p * KWP);\n";
        for qv in 0..s.kw_padded() / g.vw {
            body += &format!("          {{ const VT c = fr[{qv}];\n");
            for (e, comp) in comps.iter().enumerate() {
                let q = qv * g.vw + e;
                if q >= s.kw {
                    break;
                }
                for x in 0..g.rx {
                    body += &format!(
                        "            acc[{y}][{x}] = seg[{}] * c.{comp} + acc[{y}][{x}];\n",
                        x + q
                    );
                }
            }
            body += "          }\n";
        }
        body += "        }\n      }\n";
    }
    let loads: Vec<String> = (0..s.seg_vectors())
        .map(|v| {
            let parts: String = comps
                .iter()
                .enumerate()
                .map(|(e, comp)| format!(" seg[{}] = q.{comp};", v * g.vw + e))
                .collect();
            format!("      {{ const VT q = srow[{v}];{parts} }}")
        })
        .collect();
    let n = |v: usize| v.to_string();
    let values = [
        ("PRELUDE", PRELUDE.to_string()),
        ("SPEC", format!("{s:?}")),
        ("T", ctype(s.dt).to_string()),
        ("VT", vt.to_string()),
        ("BX", n(g.bx)),
        ("BY", n(g.by)),
        ("RX", n(g.rx)),
        ("RY", n(g.ry)),
        ("NT", n(g.bx * g.by)),
        ("TH", n(g.tile_h())),
        ("TW", n(g.tile_w())),
        ("KH", n(s.kh)),
        ("KW", n(s.kw)),
        ("KWP", n(s.kw_padded())),
        ("SH", n(s.sh())),
        ("SW", n(s.sw())),
        ("SEGV", n(s.seg_vectors())),
        ("VW", n(g.vw)),
        ("LOADS", loads.join("\n")),
        ("BODY", body.trim_end_matches('\n').to_string()),
    ];
    let mut on = vec![if s.accumulate { "ACCUMULATE" } else { "ASSIGN" }];
    on.extend(match s.bound {
        Bound::Fill => ["FILL"].as_slice(),
        Bound::Wrap => ["WRAP", "REMAP"].as_slice(),
        Bound::Symm => ["SYMM", "REMAP"].as_slice(),
    });
    render_owned(CONV, &values, &on)
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
    let n = kh * kw;
    // Odd-even transposition sort: n rounds of compare-exchange.
    let mut net = Vec::new();
    for round in 0..n {
        for j in (round % 2..n.saturating_sub(1)).step_by(2) {
            let k = j + 1;
            net.push(format!(
                "    {{ T a = v[{j}], b = v[{k}]; bool s = b < a; v[{j}] = s ? b : a; v[{k}] = s ? a : b; }}"
            ));
        }
    }
    let values = [
        ("PRELUDE", PRELUDE.to_string()),
        ("DT", dt.to_string()),
        ("T", ctype(dt).to_string()),
        ("KH", kh.to_string()),
        ("KW", kw.to_string()),
        ("HH", (kh / 2).to_string()),
        ("HW", (kw / 2).to_string()),
        ("N", n.to_string()),
        ("MID", (n / 2).to_string()),
        ("NET", net.join("\n")),
    ];
    let on: &[&str] = if net.is_empty() { &[] } else { &["NET"] };
    render_owned(MEDFILT, &values, on)
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
            let r = on_views(op, &[a, k], |cpu, h| cpu.convolve(op, h[0], h[1], c))?;
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
        let r = on_views(op, &[v], |cpu, h| cpu.medfilt(op, h[0], ks))?;
        upload(op, self.ordinal, &r, v.dtype())
    }

    fn lfilter(&self, f: &Lfilter<'_>) -> Result<(Storage, Option<Storage>)> {
        let op = "lfilter";
        let mut inputs = vec![f.b, f.a, f.x];
        inputs.extend(f.zi);
        let (y, zf) = on_views(op, &inputs, |cpu, h| {
            let (b, a, x, zi) = (h[0], h[1], h[2], h.get(3).copied());
            cpu.lfilter(&Lfilter { b, a, x, zi, ..*f })
        })?;
        let dt = f.dt;
        let zf = zf.map(|z| upload(op, self.ordinal, &z, dt)).transpose()?;
        Ok((upload(op, self.ordinal, &y, dt)?, zf))
    }

    fn cascade(&self, op: &'static str, f: &Cascade<'_>) -> Result<(Storage, Storage)> {
        super::iir::cascade(self.ordinal, op, f)
    }

    fn peak_prominences(
        &self,
        op: &'static str,
        p: &PeakScan<'_>,
        wlen: i64,
    ) -> Result<[Storage; 3]> {
        super::peaks::prominences(self.ordinal, op, p, wlen)
    }

    fn peak_widths(
        &self,
        op: &'static str,
        p: &PeakScan<'_>,
        rel_height: f64,
        bases: [View<'_>; 3],
    ) -> Result<[Storage; 4]> {
        super::peaks::widths(self.ordinal, op, p, rel_height, bases)
    }

    fn peaks_by_distance(
        &self,
        op: &'static str,
        peaks: View<'_>,
        priority: View<'_>,
        distance: i64,
    ) -> Result<Storage> {
        super::peaks::by_distance(self.ordinal, op, peaks, priority, distance)
    }

    fn upfirdn(&self, op: &'static str, u: &Upfirdn<'_>) -> Result<Storage> {
        super::upfirdn::upfirdn(self.ordinal, op, u)
    }

    fn local_peaks(&self, op: &'static str, p: &LocalPeaks<'_>) -> Result<Option<PeakSet>> {
        super::peaks::local_peaks(self.ordinal, op, p)
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
    fn every_variant_fills_its_template() {
        for s in specs() {
            let src = conv_source(&s);
            assert_eq!(
                crate::cuda::kernel_gen::template::unfilled(&src),
                None,
                "{s:?}"
            );
            assert_eq!(
                src.matches("remap(long long x").count(),
                (s.bound != Bound::Fill) as usize
            );
            assert_eq!(src.matches("out[o] = ").count(), 1);
        }
        for dt in [DType::Float32, DType::Float64] {
            for (kh, kw) in [(1, 1), (3, 3), (7, 5)] {
                let src = medfilt_source(dt, kh, kw);
                assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
                assert!(src.contains(&format!("T v[{}];", kh * kw)));
            }
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
        crate::cuda::kernel_gen::helpers::dump_source("conv2d_f32_31x31_wrap", &src);
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
        crate::cuda::kernel_gen::helpers::dump_source("conv2d_f64_3x4_symm", &src);
        let f = ConvSpec {
            bound: Bound::Fill,
            ..d
        };
        let src = conv_source(&f);
        assert!(src.contains("else { v = fill; }"));
        assert!(!src.contains("remap"));
        crate::cuda::kernel_gen::helpers::dump_source("conv2d_f64_3x4_fill", &src);
    }

    #[test]
    fn median_network_sorts() {
        // Run the generated compare-exchange network on the host.
        for n in [1usize, 3, 5, 9, 25] {
            let src = medfilt_source(DType::Float32, 1, n);
            crate::cuda::kernel_gen::helpers::dump_source(&format!("medfilt_1x{n}"), &src);
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

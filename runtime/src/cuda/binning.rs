//! Histograms, bincount and interp on the GPU.
//!
//! One counting kernel (`binning.cu`) serves histograms of any number of
//! axes and bincount: each sample's bin is computed (arithmetically for
//! uniform edges, corrected against the edges; by binary search for
//! explicit ones; the value itself for bincount) and counted. When a
//! block's copy of the bins fits in shared memory, each block counts
//! privately with shared-memory atomics and then adds its non-zero bins to
//! the result, so 64M samples into 256 bins cost a few global atomics per
//! bin and block; more bins add to the result with global atomics.

use super::CudaBackend;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key, memset, ptr};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::{session, DeviceSession};
use crate::cuda::runtime::stream::current_stream;
use crate::ops::binning::{BinAxis, Bincount, Binning, Histogram, Interp};
use crate::ops::c_types::{cast_expr, ctype};

const THREADS: usize = 256;

/// Kernel templates (`cuda/kernel_gen/template.rs`): counting and interp.
const BINNING: &str = include_str!("kernels/binning.cu");
const INTERP: &str = include_str!("kernels/binning_interp.cu");

/// The shared memory a block's private bins may take: the 48 KiB every
/// device grants without an opt-in.
const PRIVATE_BYTES: usize = 48 * 1024;

/// How a sample finds its bin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Mode {
    /// Along each axis by its edges.
    Histogram,
    /// The sample's integer value.
    Bincount,
}

/// What determines the source of a counting kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct BinningSpec {
    mode: Mode,
    axes: usize,
    values: DType,
    weights: Option<DType>,
    /// Per-block bins in shared memory.
    private: bool,
}

impl BinningSpec {
    /// Bytes of one private bin: a u32 count, or a float64 sum.
    fn acc_bytes(weighted: bool) -> usize {
        if weighted {
            8
        } else {
            4
        }
    }
}

fn binning_source(spec: &BinningSpec) -> String {
    let weighted = spec.weights.is_some();
    let (acc, out) = if weighted {
        ("double", "double")
    } else {
        ("unsigned int", "unsigned long long")
    };
    let w = spec.weights.unwrap_or(DType::Float64);
    let mut flags = vec![match spec.mode {
        Mode::Histogram => "HISTOGRAM",
        Mode::Bincount => "BINCOUNT",
    }];
    flags.push(if spec.private { "PRIVATE" } else { "GLOBAL" });
    if weighted {
        flags.push("WEIGHTED");
    }
    let kernel = render(
        BINNING,
        &[
            ("V", ctype(spec.values)),
            ("W", ctype(w)),
            ("ACC", acc),
            ("OUT", out),
            ("D", &spec.axes.to_string()),
            (
                "VALUE_AS_DOUBLE",
                &cast_expr(spec.values, DType::Float64, "(P)"),
            ),
            (
                "VALUE_AS_INDEX",
                &cast_expr(spec.values, DType::Int64, "(P)"),
            ),
            ("WEIGHT_AS_DOUBLE", &cast_expr(w, DType::Float64, "(P)")),
            (
                "INC",
                if weighted {
                    "WEIGHT_AS_DOUBLE(w[k * w_stride])"
                } else {
                    "1"
                },
            ),
        ],
        &flags,
    );
    format!("{PRELUDE}{kernel}")
}

/// The `Axes` struct of `binning.cu`: per axis the samples' address and
/// stride, the edges' address, the bin count and the uniform flag.
fn axes_bytes(op: &'static str, axes: &[AxisArgs]) -> Result<Vec<u8>> {
    let mut fields: [Vec<i64>; 5] = Default::default();
    for a in axes {
        fields[0].push(ptr(op, a.values)? as i64);
        fields[1].push(a.values.strides().first().copied().unwrap_or(0) as i64);
        fields[2].push(match a.edges {
            Some(e) => ptr(op, e)? as i64,
            None => 0,
        });
        fields[3].push(a.nbins as i64);
        fields[4].push(a.uniform as i64);
    }
    Ok(fields
        .iter()
        .flatten()
        .flat_map(|v| v.to_ne_bytes())
        .collect())
}

/// One axis as the counting kernel reads it (bincount: no edges).
struct AxisArgs<'a> {
    values: View<'a>,
    edges: Option<View<'a>>,
    nbins: usize,
    uniform: bool,
}

/// Zeroes `out` and counts the samples of `axes` (or sums `weights`) into
/// it, privately per block when the bins fit in shared memory.
fn count(
    op: &'static str,
    s: &DeviceSession,
    mode: Mode,
    axes: &[AxisArgs],
    weights: Option<View<'_>>,
    out: View<'_>,
) -> Result<()> {
    let total = out.size();
    memset(s, op, ptr(op, out)?, 0, total * out.dtype().itemsize())?;
    let n = axes.first().map_or(0, |a| a.values.size());
    if n == 0 || total == 0 {
        return Ok(());
    }
    let shared = total * BinningSpec::acc_bytes(weights.is_some());
    // Enough blocks to fill every SM; each block's u32 counts must not wrap.
    let private_grid = (n.div_ceil(THREADS)).min(s.info.sm_count.max(1) * (2048 / THREADS));
    let private = shared <= PRIVATE_BYTES && n / private_grid < u32::MAX as usize;
    let spec = BinningSpec {
        mode,
        axes: axes.len(),
        values: axes[0].values.dtype(),
        weights: weights.map(|w| w.dtype()),
        private,
    };
    let f = kernel(s, key(("binning", &spec)), op, "cuprite_binning", || {
        binning_source(&spec)
    })?;
    let mut args = KernelArgs::new();
    args.push_bytes(&axes_bytes(op, axes)?, 8);
    match weights {
        Some(w) => {
            args.push(ptr(op, w)?);
            args.push(w.strides().first().copied().unwrap_or(0) as i64);
        }
        None => {
            args.push(0u64);
            args.push(0i64);
        }
    }
    args.push(n as i64);
    args.push(total as i64);
    args.push(ptr(op, out)?);
    let cfg = LaunchConfig {
        grid: (
            if private {
                private_grid as u32
            } else {
                grid_1d(s, n, THREADS)
            },
            1,
            1,
        ),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: if private { shared as u32 } else { 0 },
    };
    launch(s, op, f, cfg, &current_stream(), &mut args)
}

fn interp_source(values: DType) -> String {
    let kernel = render(
        INTERP,
        &[
            ("V", ctype(values)),
            ("VALUE_AS_DOUBLE", &cast_expr(values, DType::Float64, "(P)")),
        ],
        &[],
    );
    format!("{PRELUDE}{kernel}")
}

// The Binning family of the backend interface (`ops::backend`).
impl Binning for CudaBackend {
    fn histogram(&self, op: &'static str, h: Histogram<'_>) -> Result<()> {
        let axes: Vec<AxisArgs> = h
            .axes
            .iter()
            .map(|a: &BinAxis| AxisArgs {
                values: a.values,
                edges: Some(a.edges),
                nbins: a.edges.size() - 1,
                uniform: a.uniform,
            })
            .collect();
        count(
            op,
            session(self.ordinal)?,
            Mode::Histogram,
            &axes,
            h.weights,
            h.out,
        )
    }

    fn bincount(&self, op: &'static str, b: Bincount<'_>) -> Result<()> {
        let axis = AxisArgs {
            values: b.x,
            edges: None,
            nbins: b.out.size(),
            uniform: false,
        };
        let s = session(self.ordinal)?;
        count(op, s, Mode::Bincount, &[axis], b.weights, b.out)
    }

    fn interp(&self, op: &'static str, i: Interp<'_>) -> Result<()> {
        let s = session(self.ordinal)?;
        let n = i.x.size();
        if n == 0 {
            return Ok(());
        }
        let dt = i.x.dtype();
        let f = kernel(s, key(("interp", dt)), op, "cuprite_interp", || {
            interp_source(dt)
        })?;
        let mut args = KernelArgs::new();
        args.push(ptr(op, i.x)?);
        args.push(i.x.strides().first().copied().unwrap_or(0) as i64);
        args.push(n as i64);
        args.push(ptr(op, i.xp)?);
        args.push(ptr(op, i.fp)?);
        args.push(i.xp.size() as i64);
        args.push(i.left);
        args.push(i.right);
        args.push(ptr(op, i.out)?);
        let cfg = LaunchConfig {
            grid: (grid_1d(s, n, THREADS), 1, 1),
            block: (THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        launch(s, op, f, cfg, &current_stream(), &mut args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::kernel_gen::helpers::dump_source;
    use crate::cuda::kernel_gen::template::unfilled;

    #[test]
    fn counting_sources_compile() {
        let cases = [
            (Mode::Histogram, 1, DType::Float32, None, true),
            (
                Mode::Histogram,
                1,
                DType::Float64,
                Some(DType::Float32),
                false,
            ),
            (Mode::Histogram, 3, DType::Float16, Some(DType::Int64), true),
            (Mode::Histogram, 2, DType::Int8, None, false),
            (Mode::Histogram, 1, DType::BFloat16, Some(DType::Bool), true),
            (Mode::Bincount, 1, DType::Int32, None, true),
            (Mode::Bincount, 1, DType::Bool, Some(DType::Float64), false),
            (Mode::Bincount, 1, DType::UInt64, Some(DType::UInt8), true),
        ];
        for (mode, axes, values, weights, private) in cases {
            let spec = BinningSpec {
                mode,
                axes,
                values,
                weights,
                private,
            };
            let src = binning_source(&spec);
            assert_eq!(unfilled(&src), None);
            assert!(src.contains(&format!("#define D {axes}")));
            if private {
                assert!(src.contains("if (c != 0) atomicAdd(&out[b], (out_t)c);"));
            } else {
                assert!(src.contains("atomicAdd(&out[at], (out_t)INC);"));
                assert!(!src.contains("extern __shared__"));
            }
            if mode == Mode::Bincount {
                assert!(!src.contains("bool inside"));
            }
            dump_source(
                &format!(
                    "binning_{mode:?}_{axes}_{}_{weights:?}_{private}",
                    values.name()
                ),
                &src,
            );
        }
    }

    #[test]
    fn interp_sources_compile() {
        for dt in [DType::Float64, DType::Float16, DType::Int32, DType::Bool] {
            let src = interp_source(dt);
            assert_eq!(unfilled(&src), None);
            assert!(src.contains("if (r != r && fp[j] == fp[j + 1]) r = fp[j];"));
            dump_source(&format!("interp_{}", dt.name()), &src);
        }
    }
}

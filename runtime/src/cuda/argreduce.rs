//! `argmax` / `argmin` on the GPU, with the CPU backend's semantics: the
//! index of the first extreme; a NaN counts as the extreme, so the first
//! NaN's index wins (complex: a NaN in either part; complex values compare
//! lexicographically).
//!
//! Each partial result is a (value, index) pair and two pairs combine by
//! "NaN first, then the larger (smaller) value, then the smaller index".
//! That combine is associative and commutative, so any split of the work
//! gives exactly the sequential answer. Rows of the reduction (one per
//! output) are reduced by a block each, split over several blocks when the
//! rows are few; a reduction along a leading axis of a C array uses one
//! thread per output instead, so neighbouring threads read neighbouring
//! elements. Split rows leave partial pairs that a second kernel combines.

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{
    grid_1d, kernel, key, merged, ptr, session_of, unravel, Dims, Geo,
};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::transfer::alloc;
use crate::ops::c_types::{cast_expr, ctype};

const THREADS: usize = 256;

/// How the rows are walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Strategy {
    /// A block per row (split over `gridDim.y` blocks).
    Rows,
    /// A thread per row, rows split over `gridDim.y`.
    Columns,
}

/// The type partial values are kept in (half floats widen to float).
fn val_dtype(dt: DType) -> DType {
    dt.compute_dtype()
}

/// `argmax` (`max`) or `argmin` of `x` along `axis` (`None`: the flattened
/// array, C order) into `out` (C-contiguous int64, one per index of the
/// other axes). The reduced extent must not be zero (checked by the caller).
pub(crate) fn arg_reduce(x: View<'_>, max: bool, axis: Option<usize>, out: View<'_>) -> Result<()> {
    let name: &'static str = if max { "argmax" } else { "argmin" };
    let s = session_of(name, x)?;
    let (kept, red) = match axis {
        None => ((vec![], vec![]), merged(x.shape(), x.strides())),
        Some(a) => {
            let mut sh = x.shape().to_vec();
            let mut st = x.strides().to_vec();
            let red = (vec![sh.remove(a)], vec![st.remove(a)]);
            (merged(&sh, &st), red)
        }
    };
    let rows: usize = kept.0.iter().product();
    let len: usize = red.0.iter().product();
    if rows == 0 {
        return Ok(());
    }
    if kept.0.len() > crate::cuda::kernel_gen::elementwise::MAX_DIMS
        || red.0.len() > crate::cuda::kernel_gen::elementwise::MAX_DIMS
    {
        return Err(Error::Shape {
            op: name,
            detail: format!(
                "too many dimensions for a GPU reduction (at most {})",
                crate::cuda::kernel_gen::elementwise::MAX_DIMS
            ),
        });
    }
    let red_contig = red.1.len() == 1 && red.1[0] == 1;
    let strategy = if kept.1.last() == Some(&1) && red.1.len() == 1 && red.1[0] != 1 && rows > 1 {
        Strategy::Columns
    } else {
        Strategy::Rows
    };
    let target = s.info.sm_count.max(1) * 8;
    let (grid, splits) = match strategy {
        Strategy::Rows => {
            let splits = if rows >= target {
                1
            } else {
                (target / rows).clamp(1, len.div_ceil(THREADS * 16).max(1))
            };
            (rows.min(1 << 30), splits.min(65535))
        }
        Strategy::Columns => {
            let blocks = rows.div_ceil(THREADS);
            let splits = target.div_ceil(blocks).clamp(1, len.div_ceil(64).max(1));
            (blocks, splits.min(65535))
        }
    };
    let mut geo = Geo::new();
    let kd = geo.dims(&kept.0, &kept.1);
    let rd = geo.dims(&red.0, &red.1);
    let spec = Spec {
        in_dt: x.dtype(),
        max,
        strategy,
        kd,
        rd,
        red_contig,
        geo_len: geo.len(),
    };
    let f = kernel(s, key(("argreduce", &spec)), name, spec.fname(), || {
        source(&spec)
    })?;
    let val_dt = val_dtype(x.dtype());
    let (pval, pidx) = if splits > 1 {
        (
            Some(alloc(name, s.info.ordinal, val_dt, rows * splits)?),
            Some(alloc(name, s.info.ordinal, DType::Int64, rows * splits)?),
        )
    } else {
        (None, None)
    };
    let mut args = KernelArgs::new();
    args.push(ptr(name, x)?);
    args.push(ptr(name, out)?);
    args.push(pval.as_ref().map_or(0, |p| p.buffer.ptr));
    args.push(pidx.as_ref().map_or(0, |p| p.buffer.ptr));
    args.push_bytes(&geo.bytes(), 8);
    args.push(rows as i64);
    args.push(len as i64);
    let cfg = LaunchConfig {
        grid: (grid as u32, splits as u32, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, name, f, cfg, &current_stream(), &mut args)?;
    if let (Some(pv), Some(pi)) = (&pval, &pidx) {
        let fin = Spec {
            strategy: Strategy::Rows,
            ..spec
        };
        let f = kernel(
            s,
            key(("argreduce-finish", &fin)),
            name,
            "cuprite_arg_finish",
            || source(&fin),
        )?;
        let mut args = KernelArgs::new();
        args.push(pv.buffer.ptr);
        args.push(pi.buffer.ptr);
        args.push(ptr(name, out)?);
        args.push(rows as i64);
        args.push(splits as i64);
        let cfg = LaunchConfig {
            grid: (grid_1d(s, rows, 1), 1, 1),
            block: (THREADS as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        launch(s, name, f, cfg, &current_stream(), &mut args)?;
    }
    Ok(())
}

/// What determines the generated source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Spec {
    in_dt: DType,
    max: bool,
    strategy: Strategy,
    kd: Dims,
    rd: Dims,
    red_contig: bool,
    geo_len: usize,
}

impl Spec {
    fn fname(&self) -> &'static str {
        match self.strategy {
            Strategy::Rows => "cuprite_arg_rows",
            Strategy::Columns => "cuprite_arg_cols",
        }
    }
}

/// Elements per 16-byte load on the contiguous row path (1: no vector path).
fn vector_width(spec: &Spec) -> usize {
    let size = spec.in_dt.itemsize();
    if spec.strategy == Strategy::Rows
        && spec.red_contig
        && !spec.in_dt.is_complex()
        && (size == 4 || size == 8)
    {
        16 / size
    } else {
        1
    }
}

/// The C test for NaN of a partial value of dtype `val`.
fn nan_test(val: DType, v: &str) -> String {
    if val.is_complex() {
        format!("({v}.re != {v}.re || {v}.im != {v}.im)")
    } else if val.is_float() {
        format!("({v} != {v})")
    } else {
        "false".into()
    }
}

const TEMPLATE: &str = include_str!("kernels/argreduce.cu");

/// The kernel source for `spec`: the reduction kernel of its strategy and
/// the finishing kernel, from the template `argreduce.cu`.
fn source(spec: &Spec) -> String {
    // The template spells out the shared-memory tree for this block size.
    const _: () = assert!(THREADS == 256);
    let val = val_dtype(spec.in_dt);
    let vec = vector_width(spec);
    let red_off = if spec.red_contig {
        "off += j;\n".to_string()
    } else {
        unravel("j", "off", spec.rd)
    };
    let (better, worse, extreme) = if spec.max {
        ("bv > av", "av > bv", "larger")
    } else {
        ("bv < av", "av < bv", "smaller")
    };
    // The row kernel loads by vectors (VEC) or one element at a time (SCALAR).
    let on: &[&str] = match spec.strategy {
        Strategy::Rows if vec > 1 => &["ROWS", "VEC"],
        Strategy::Rows => &["ROWS", "SCALAR"],
        Strategy::Columns => &["COLS"],
    };
    render(
        TEMPLATE,
        &[
            ("PRELUDE", PRELUDE),
            ("IN_T", ctype(spec.in_dt)),
            ("VAL_T", ctype(val)),
            ("GEO", &Geo::decl(spec.geo_len)),
            ("LOAD", &cast_expr(spec.in_dt, val, "raw")),
            ("NAN_TEST", &nan_test(val, "v")),
            ("EXTREME", extreme),
            ("BETTER", better),
            ("WORSE", worse),
            ("VEC", &vec.to_string()),
            ("THREADS", &THREADS.to_string()),
            ("ROW_BASE", &unravel("row", "base", spec.kd)),
            ("RED_OFF", &red_off),
            ("RED_STRIDE_AT", &spec.rd.stride_at.to_string()),
        ],
        on,
    )
}

// The ArgReduce family of the backend interface (`ops::backend`).
impl crate::ops::reduce::ArgReduce for super::CudaBackend {
    fn arg_reduce(&self, max: bool, x: View<'_>, axis: Option<usize>, out: View<'_>) -> Result<()> {
        arg_reduce(x, max, axis, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(in_dt: DType, max: bool, strategy: Strategy, kd: usize, rd: usize) -> Spec {
        let mut g = Geo::new();
        let k = g.dims(&vec![2; kd], &vec![1; kd]);
        let r = g.dims(&vec![3; rd], &vec![1; rd]);
        Spec {
            in_dt,
            max,
            strategy,
            kd: k,
            rd: r,
            red_contig: false,
            geo_len: g.len(),
        }
    }

    #[test]
    fn combine_puts_nan_first_then_the_extreme_then_the_first_index() {
        let src = source(&spec(DType::Float32, true, Strategy::Rows, 1, 2));
        assert!(src.contains("if (an || bn) pick = bn && (!an || bi < ai);"));
        assert!(src.contains("else pick = (bv > av) || (!(av > bv) && bi < ai);"));
        assert!(src.contains("return (v != v);"));
        assert!(src.contains("extern \"C\" __global__ void cuprite_arg_rows("));
        assert!(src.contains("extern \"C\" __global__ void cuprite_arg_finish("));
        let src = source(&spec(DType::Int16, false, Strategy::Columns, 2, 1));
        assert!(src.contains("else pick = (bv < av) || (!(av < bv) && bi < ai);"));
        assert!(src.contains("return false;"));
        assert!(src.contains("extern \"C\" __global__ void cuprite_arg_cols("));
        assert!(src.contains("load(x[base + j * st])"));
    }

    #[test]
    fn half_floats_compare_as_float_and_complex_nan_is_either_part() {
        let src = source(&spec(DType::Float16, true, Strategy::Rows, 0, 1));
        assert!(src.contains("typedef f16 in_t;"));
        assert!(src.contains("typedef float val_t;"));
        assert!(src.contains("return to_float(raw);"));
        let src = source(&spec(DType::Complex128, false, Strategy::Rows, 0, 1));
        assert!(src.contains("return (v.re != v.re || v.im != v.im);"));
        // Every tree step of 256 threads is spelled out.
        let src = source(&spec(DType::Bool, true, Strategy::Rows, 0, 1));
        for step in [128, 64, 32, 16, 8, 4, 2, 1] {
            assert!(src.contains(&format!("if (tid < {step}) fold(")), "{step}");
        }
    }

    #[test]
    fn contiguous_rows_of_4_and_8_byte_reals_use_16_byte_loads() {
        let sp = |dt| Spec {
            red_contig: true,
            ..spec(dt, true, Strategy::Rows, 0, 1)
        };
        assert_eq!(vector_width(&sp(DType::Float32)), 4);
        assert_eq!(vector_width(&sp(DType::Int64)), 2);
        assert_eq!(vector_width(&sp(DType::Float16)), 1);
        assert_eq!(vector_width(&sp(DType::Complex64)), 1);
        let strided = spec(DType::Float32, true, Strategy::Rows, 0, 1);
        assert_eq!(vector_width(&strided), 1);
        let src = source(&sp(DType::Float32));
        // Chunks are whole vectors; a thread folds its indices in order.
        assert!(src.contains("((len + splits - 1) / splits + 4 - 1) / 4 * 4"));
        assert!(src.contains("fold_next(av, ai, load(w.v[e]), j + e)"));
        assert!(src.contains("if (ai < 0 || (!is_nan(av) && (is_nan(bv) || bv > av)))"));
    }

    #[test]
    fn every_dtype_and_strategy_generates_a_source() {
        for dt in DType::ALL {
            for max in [false, true] {
                for (st, kd, rd) in [
                    (Strategy::Rows, 0, 1),
                    (Strategy::Rows, 2, 3),
                    (Strategy::Columns, 1, 1),
                ] {
                    for contig in [false, true] {
                        let sp = Spec {
                            red_contig: contig && rd == 1,
                            ..spec(dt, max, st, kd, rd)
                        };
                        let src = source(&sp);
                        assert_eq!(
                            crate::cuda::kernel_gen::template::unfilled(&src),
                            None,
                            "{src}"
                        );
                        assert!(src.contains("cuprite_arg_finish"));
                        assert_eq!(src.contains("vec_t"), vector_width(&sp) > 1);
                        crate::cuda::kernel_gen::helpers::dump_source(
                            &format!("arg_{}_{max}_{st:?}_{kd}{rd}_{contig}", dt.name()),
                            &src,
                        );
                    }
                }
            }
        }
    }
}

//! Connected components and reductions over labels on the GPU
//! (`kernels/ndimage_label.cu`).

use super::{config, shape_arg, source, strides_arg};
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{kernel, key, ptr, read_one};
use crate::cuda::runtime::compile::Function;
use crate::cuda::runtime::launch::{launch, KernelArgs};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, Buffer};
use crate::ops::ndimage::LabelReduce;

const LABEL: &str = include_str!("../kernels/ndimage_label.cu");

pub(crate) fn label_source() -> String {
    source(LABEL, &[])
}

fn func(s: &DeviceSession, name: &str) -> Result<Function> {
    kernel(s, key("nd_label"), "nd_label", name, label_source)
}

pub(super) fn label_roots(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    neighbors: &[i64],
) -> Result<Storage> {
    let s = session_of(op, x)?;
    let out = Buffer::new(op, ordinal, DType::Int64, x.shape())?;
    let total = x.layout.size();
    if total == 0 {
        return Ok(out.storage);
    }
    let nd = x.ndim();
    let taps = neighbors.len() / nd.max(1);
    let stream = current_stream();
    let (xp, pp) = (ptr(op, x)?, out.ptr(op)?);
    if nd > 0 && faces_only(neighbors, nd) {
        // Runs along the last axis linked in init (see the kernel's comment).
        let w = x.shape()[nd - 1] as i64;
        let pass = |name: &'static str, kernel: &str| -> Result<()> {
            let mut a = KernelArgs::new();
            a.push(xp).push(pp).push(total as i64).push(w);
            launch(s, name, func(s, kernel)?, config(s, total), &stream, &mut a)
        };
        pass("nd_label_faces_init", "cuprite_nd_label_faces_init")?;
        let mut a = KernelArgs::new();
        a.push(xp).push(pp).push(nd as i32);
        a.push(strides_arg(x.shape())).push(total as i64).push(w);
        launch(
            s,
            "nd_label_faces_merge",
            func(s, "cuprite_nd_label_faces_merge")?,
            config(s, total),
            &stream,
            &mut a,
        )?;
        pass(
            "nd_label_faces_flatten_starts",
            "cuprite_nd_label_faces_flatten_starts",
        )?;
        pass(
            "nd_label_faces_flatten_rest",
            "cuprite_nd_label_faces_flatten_rest",
        )?;
        return Ok(out.storage);
    }
    let mut a = KernelArgs::new();
    a.push(xp).push(pp).push(total as i64);
    launch(
        s,
        "nd_label_init",
        func(s, "cuprite_nd_label_init")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    if taps > 0 {
        let nb = Buffer::from_host(op, ordinal, neighbors)?;
        let mut a = KernelArgs::new();
        a.push(xp)
            .push(pp)
            .push(nb.ptr(op)?)
            .push(taps as i32)
            .push(nd as i32);
        a.push(shape_arg(x.shape().iter().map(|&d| d as i64)))
            .push(strides_arg(x.shape()));
        a.push(total as i64);
        launch(
            s,
            "nd_label_merge",
            func(s, "cuprite_nd_label_merge")?,
            config(s, total),
            &stream,
            &mut a,
        )?;
    }
    let mut a = KernelArgs::new();
    a.push(pp).push(total as i64);
    launch(
        s,
        "nd_label_flatten",
        func(s, "cuprite_nd_label_flatten")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    Ok(out.storage)
}

/// Whether the taps are the faces-only structure: one per axis, -1 along
/// it and 0 elsewhere (any order).
fn faces_only(neighbors: &[i64], nd: usize) -> bool {
    if neighbors.len() != nd * nd {
        return false;
    }
    let mut seen = vec![false; nd];
    for tap in neighbors.chunks(nd) {
        let mut axes = tap.iter().enumerate().filter(|&(_, &o)| o != 0);
        match (axes.next(), axes.next()) {
            (Some((d, &-1)), None) if !seen[d] => seen[d] = true,
            _ => return false,
        }
    }
    true
}

/// Numbers the roots in C order: a flag per element that is its own root,
/// their running count (the scan of `cumsum`), and each element given its
/// root's count, int32. Three passes over int64 roots instead of the eight
/// array operations (an `arange`, compares, casts, a gather) they replace.
pub(super) fn label_number(
    op: &'static str,
    ordinal: usize,
    roots: View<'_>,
) -> Result<(Storage, usize)> {
    let s = session_of(op, roots)?;
    let total = roots.layout.size();
    let out = Buffer::new(op, ordinal, DType::Int32, roots.shape())?;
    if total == 0 {
        return Ok((out.storage, 0));
    }
    let stream = current_stream();
    let rp = ptr(op, roots)?;
    let flags = Buffer::new(op, ordinal, DType::Bool, &[total])?;
    let mut a = KernelArgs::new();
    a.push(rp).push(flags.ptr(op)?).push(total as i64);
    launch(
        s,
        "nd_label_root_flags",
        func(s, "cuprite_nd_label_root_flags")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    let counts = Buffer::new(op, ordinal, DType::Int64, &[total])?;
    crate::cuda::scan::scan(flags.view(), false, None, counts.view())?;
    drop(flags);
    let mut a = KernelArgs::new();
    a.push(rp)
        .push(counts.ptr(op)?)
        .push(out.ptr(op)?)
        .push(total as i64);
    launch(
        s,
        "nd_label_number",
        func(s, "cuprite_nd_label_number")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    let n = read_one::<i64>(counts.view(), total - 1)?;
    Ok((out.storage, n as usize))
}

pub(super) fn label_reduce(
    op: &'static str,
    ordinal: usize,
    values: View<'_>,
    labels: View<'_>,
    bins: usize,
    how: LabelReduce,
) -> Result<Storage> {
    let s = session_of(op, values)?;
    let out = Buffer::new(op, ordinal, DType::Float64, &[bins])?;
    if bins == 0 {
        return Ok(out.storage);
    }
    let total = values.layout.size();
    let stream = current_stream();
    let (vp, lp, op_) = (ptr(op, values)?, ptr(op, labels)?, out.ptr(op)?);
    let fill = |p: u64, v: f64| -> Result<()> {
        let mut a = KernelArgs::new();
        a.push(p).push(v).push(bins as i64);
        launch(
            s,
            "nd_fill",
            func(s, "cuprite_nd_fill_f64")?,
            config(s, bins),
            &stream,
            &mut a,
        )
    };
    let reduce = |p: u64, code: i32| -> Result<()> {
        if total == 0 {
            return Ok(());
        }
        let mut a = KernelArgs::new();
        a.push(vp)
            .push(lp)
            .push(p)
            .push(bins as i64)
            .push(total as i64)
            .push(code);
        launch(
            s,
            "nd_label_reduce",
            func(s, "cuprite_nd_label_reduce")?,
            config(s, total),
            &stream,
            &mut a,
        )
    };
    match how {
        LabelReduce::Sum => {
            fill(op_, 0.0)?;
            reduce(op_, 0)?;
        }
        LabelReduce::Min => {
            fill(op_, f64::INFINITY)?;
            reduce(op_, 1)?;
        }
        LabelReduce::Max => {
            fill(op_, f64::NEG_INFINITY)?;
            reduce(op_, 2)?;
        }
        LabelReduce::ArgMin | LabelReduce::ArgMax => {
            let best = Buffer::new(op, ordinal, DType::Float64, &[bins])?;
            let bp = best.ptr(op)?;
            if how == LabelReduce::ArgMin {
                fill(bp, f64::INFINITY)?;
                reduce(bp, 1)?;
            } else {
                fill(bp, f64::NEG_INFINITY)?;
                reduce(bp, 2)?;
            }
            let at = Buffer::new(op, ordinal, DType::UInt64, &[bins])?;
            let atp = at.ptr(op)?;
            let mut a = KernelArgs::new();
            a.push(atp).push(u64::MAX).push(bins as i64);
            launch(
                s,
                "nd_fill",
                func(s, "cuprite_nd_fill_u64")?,
                config(s, bins),
                &stream,
                &mut a,
            )?;
            if total > 0 {
                let mut a = KernelArgs::new();
                a.push(vp)
                    .push(lp)
                    .push(bp)
                    .push(atp)
                    .push(bins as i64)
                    .push(total as i64);
                launch(
                    s,
                    "nd_label_argbest",
                    func(s, "cuprite_nd_label_argbest")?,
                    config(s, total),
                    &stream,
                    &mut a,
                )?;
            }
            let mut a = KernelArgs::new();
            a.push(atp).push(op_).push(bins as i64);
            launch(
                s,
                "nd_label_argfinish",
                func(s, "cuprite_nd_label_argfinish")?,
                config(s, bins),
                &stream,
                &mut a,
            )?;
        }
    }
    Ok(out.storage)
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernels_compile() {
        let src = super::label_source();
        assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
        crate::cuda::kernel_gen::helpers::dump_source("nd_label", &src);
    }

    #[test]
    fn faces_only_is_one_minus_one_per_axis() {
        use super::faces_only;
        assert!(faces_only(&[-1], 1));
        assert!(faces_only(&[-1, 0, 0, -1], 2));
        assert!(faces_only(&[0, -1, -1, 0], 2));
        assert!(faces_only(&[-1, 0, 0, 0, -1, 0, 0, 0, -1], 3));
        assert!(!faces_only(&[-1, 0, -1, 0], 2));
        assert!(!faces_only(&[-1, -1, -1, 0, 0, -1], 2));
        assert!(!faces_only(&[-1, 0, 0, 1], 2));
        assert!(!faces_only(&[-1, 0], 2));
        assert!(!faces_only(&[], 1));
    }
}

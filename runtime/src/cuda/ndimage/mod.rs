//! `cp::ndimage` on the GPU: the `Ndimage` family of the backend interface.
//! Every op runs in NVRTC-compiled kernels (`kernels/ndimage_*.cu`): line
//! and window filters, the spline prefilter and interpolation, union-find
//! connected components, atomic reductions over labels and per-axis
//! distance transforms. None goes through the host.

mod distance;
mod filters;
mod interp;
mod label;
mod rank_tile;

use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::grid_1d;
use crate::cuda::kernel_gen::template::render_owned;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::LaunchConfig;
use crate::cuda::runtime::session::DeviceSession;
use crate::ops::ndimage::{
    BinarySteps, Interp, LabelReduce, LineFilter, Mode, Ndimage, Window, MAX_NDIM,
};

const COMMON: &str = include_str!("../kernels/ndimage_common.cuh");
const THREADS: usize = 256;

/// `template` with the prelude, the shared ndimage pieces and `values` filled in.
fn source(template: &str, values: &[(&str, String)]) -> String {
    let mut all = vec![
        ("PRELUDE", PRELUDE.to_string()),
        ("COMMON", COMMON.to_string()),
    ];
    all.extend(values.iter().map(|(k, v)| (*k, v.clone())));
    render_owned(template, &all, &[])
}

/// A launch of one thread per item, grid-stride.
fn config(s: &DeviceSession, work: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (grid_1d(s, work, THREADS), 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Extents (or strides) padded to the kernels' fixed-size struct.
fn shape_arg(v: impl IntoIterator<Item = i64>) -> [i64; MAX_NDIM] {
    let mut out = [1i64; MAX_NDIM];
    for (o, x) in out.iter_mut().zip(v) {
        *o = x;
    }
    out
}

/// C-order strides (elements) of `shape`, padded.
fn strides_arg(shape: &[usize]) -> [i64; MAX_NDIM] {
    let mut s = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1] as i64;
    }
    shape_arg(s)
}

impl Ndimage for super::CudaBackend {
    fn line_filter(&self, op: &'static str, x: View<'_>, f: &LineFilter<'_>) -> Result<Storage> {
        filters::line_filter(op, self.ordinal, x, f)
    }

    fn correlate(
        &self,
        op: &'static str,
        x: View<'_>,
        w: &Window<'_>,
        weights: &[f64],
    ) -> Result<Storage> {
        filters::correlate(op, self.ordinal, x, w, weights)
    }

    fn rank_filter(
        &self,
        op: &'static str,
        x: View<'_>,
        w: &Window<'_>,
        rank: usize,
        add: Option<&[f64]>,
    ) -> Result<Storage> {
        filters::rank_filter(op, self.ordinal, x, w, rank, add)
    }

    fn binary_steps(&self, op: &'static str, x: View<'_>, f: &BinarySteps<'_>) -> Result<Storage> {
        filters::binary_steps(op, self.ordinal, x, f)
    }

    fn spline_filter1d(
        &self,
        op: &'static str,
        x: View<'_>,
        axis: usize,
        order: usize,
        mode: Mode,
    ) -> Result<Storage> {
        interp::spline_filter1d(op, self.ordinal, x, axis, order, mode)
    }

    fn interpolate(&self, op: &'static str, f: &Interp<'_>) -> Result<Storage> {
        interp::interpolate(op, self.ordinal, f)
    }

    fn label_roots(&self, op: &'static str, x: View<'_>, neighbors: &[i64]) -> Result<Storage> {
        label::label_roots(op, self.ordinal, x, neighbors)
    }

    fn label_number(&self, op: &'static str, roots: View<'_>) -> Result<(Storage, usize)> {
        label::label_number(op, self.ordinal, roots)
    }

    fn label_reduce(
        &self,
        op: &'static str,
        values: View<'_>,
        labels: View<'_>,
        bins: usize,
        how: LabelReduce,
    ) -> Result<Storage> {
        label::label_reduce(op, self.ordinal, values, labels, bins, how)
    }

    fn edt(
        &self,
        op: &'static str,
        x: View<'_>,
        sampling: &[f64],
        indices: bool,
    ) -> Result<(Storage, Option<Storage>)> {
        distance::edt(op, self.ordinal, x, sampling, indices)
    }

    fn cdt(&self, op: &'static str, x: View<'_>, chessboard: bool) -> Result<Storage> {
        distance::cdt(op, self.ordinal, x, chessboard)
    }
}

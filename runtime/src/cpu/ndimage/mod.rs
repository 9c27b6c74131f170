//! `cp::ndimage` on the CPU: the `Ndimage` family of the backend interface.

mod distance;
mod filters;
mod label;
pub(crate) mod spline;

use super::create::host_buffer_as;
use super::CpuBackend;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::ops::ndimage::{
    BinarySteps, Coords, Interp, LabelReduce, LineFilter, Mode, Ndimage, Window,
};
use filters::host;

impl Ndimage for CpuBackend {
    fn line_filter(&self, _op: &'static str, x: View<'_>, f: &LineFilter<'_>) -> Result<Storage> {
        let out = filters::line_filter(&host(x), x.shape(), f);
        Ok(host_buffer_as(out, x.dtype()))
    }

    fn correlate(
        &self,
        _op: &'static str,
        x: View<'_>,
        w: &Window<'_>,
        weights: &[f64],
    ) -> Result<Storage> {
        let out = filters::correlate(&host(x), x.shape(), w, weights);
        Ok(host_buffer_as(out, x.dtype()))
    }

    fn rank_filter(
        &self,
        _op: &'static str,
        x: View<'_>,
        w: &Window<'_>,
        rank: usize,
        add: Option<&[f64]>,
    ) -> Result<Storage> {
        let out = filters::rank_filter(&host(x), x.shape(), w, rank, add);
        Ok(host_buffer_as(out, x.dtype()))
    }

    fn binary_steps(&self, _op: &'static str, x: View<'_>, f: &BinarySteps<'_>) -> Result<Storage> {
        let mask = f.mask.map(host);
        let out = filters::binary_steps(&host(x), x.shape(), f, mask.as_deref());
        Ok(host_buffer_as(out, DType::UInt8))
    }

    fn spline_filter1d(
        &self,
        _op: &'static str,
        x: View<'_>,
        axis: usize,
        order: usize,
        mode: Mode,
    ) -> Result<Storage> {
        let out = spline::spline_filter1d(&host(x), x.shape(), axis, order, mode);
        Ok(host_buffer_as(out, DType::Float64))
    }

    fn interpolate(&self, op: &'static str, f: &Interp<'_>) -> Result<Storage> {
        // The result is allocated here rather than by `Create::empty`, so an
        // output shape the host cannot hold (a zoom of 1e300) is refused here.
        let n = crate::core::layout::checked_size(op, f.out_shape)?;
        crate::core::layout::check_host_room(op, n, 8)?;
        let coords = match f.coords {
            Coords::Array(c) => Some(host(c)),
            Coords::Affine { .. } => None,
        };
        let out = spline::interpolate(&host(f.coeffs), f.coeffs.shape(), coords.as_deref(), f);
        Ok(host_buffer_as(out, f.out_dt))
    }

    fn label_roots(&self, _op: &'static str, x: View<'_>, neighbors: &[i64]) -> Result<Storage> {
        let mask = x.gather_as::<u8>();
        Ok(host_buffer_as(
            label::label_roots(&mask, x.shape(), neighbors),
            DType::Int64,
        ))
    }

    fn label_number(&self, _op: &'static str, roots: View<'_>) -> Result<(Storage, usize)> {
        let (numbers, n) = label::number_roots(&roots.gather_as::<i64>());
        Ok((host_buffer_as(numbers, DType::Int32), n))
    }

    fn label_reduce(
        &self,
        _op: &'static str,
        values: View<'_>,
        labels: View<'_>,
        bins: usize,
        how: LabelReduce,
    ) -> Result<Storage> {
        let out = label::label_reduce(&host(values), &labels.gather_as::<i64>(), bins, how);
        Ok(host_buffer_as(out, DType::Float64))
    }

    fn edt(
        &self,
        _op: &'static str,
        x: View<'_>,
        sampling: &[f64],
        indices: bool,
    ) -> Result<(Storage, Option<Storage>)> {
        let (d, i) = distance::edt(&x.gather_as::<u8>(), x.shape(), sampling, indices);
        Ok((
            host_buffer_as(d, DType::Float64),
            i.map(|i| host_buffer_as(i, DType::Int64)),
        ))
    }

    fn cdt(&self, _op: &'static str, x: View<'_>, chessboard: bool) -> Result<Storage> {
        let d = distance::cdt(&x.gather_as::<u8>(), x.shape(), chessboard);
        Ok(host_buffer_as(d, DType::Int32))
    }
}

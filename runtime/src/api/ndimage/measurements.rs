//! Connected-component labelling and measurements over labels (sums,
//! means, variances, extremes and their positions, centres of mass,
//! histograms, bounding boxes). Each reduction is one pass of atomic
//! updates per label on the GPU.

use std::ops::Range;

use super::morphology::{generate_binary_structure, structure_values};
use super::{check_input, contiguous_as, wrap};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::ops::ndimage::LabelReduce;

/// Offsets of the structure's elements that come before its centre in C
/// order: each link of a component is made once, from its later element.
pub(crate) fn earlier_neighbors(
    op: &'static str,
    structure: Option<&Array>,
    nd: usize,
) -> Result<Vec<i64>> {
    let s = match structure {
        Some(s) => s.clone(),
        // Made on the host, where its values are read: no device round trip.
        None => crate::with_device(Device::Cpu, || generate_binary_structure(nd, 1))?,
    };
    let vals = structure_values(op, &s, nd)?;
    if s.shape().iter().any(|&e| e != 3) {
        return Err(Error::Shape {
            op,
            detail: format!("structure of shape {:?}; every extent must be 3", s.shape()),
        });
    }
    let n = vals.len();
    for i in 0..n {
        if (vals[i] != 0.0) != (vals[n - 1 - i] != 0.0) {
            return Err(Error::InvalidArgument {
                op,
                detail: "the structure is not symmetric about its centre".into(),
            });
        }
    }
    let mut out = Vec::new();
    for (flat, &v) in vals.iter().enumerate().take(n / 2) {
        if v != 0.0 {
            let mut r = flat;
            let mut off = vec![0i64; nd];
            for d in (0..nd).rev() {
                off[d] = (r % 3) as i64 - 1;
                r /= 3;
            }
            out.extend(off);
        }
    }
    Ok(out)
}

/// `0, 1, ..., n - 1` (int64) on `device`.
fn arange_on(n: usize, device: Device) -> Result<Array> {
    crate::with_device(device, || crate::arange(n as i64))
}

/// Labels the connected components of the non-zero elements of `input`
/// (connectivity from `structure`, a symmetric 3 x ... x 3 array of the
/// input's rank; default: faces only) with 1, 2, ... in the C order of
/// each component's first element, and returns them (int32) with their
/// number (`scipy.ndimage.label`).
pub fn label(input: &Array, structure: Option<&Array>) -> Result<(Array, usize)> {
    let op = "ndimage.label";
    check_input(op, input)?;
    let nd = input.ndim();
    let neighbors = earlier_neighbors(op, structure, nd.max(1))?;
    let shape = input.shape().to_vec();
    let total = input.size();
    if total == 0 {
        return Ok((
            crate::with_device(input.device(), || crate::zeros(shape.clone(), DType::Int32))?,
            0,
        ));
    }
    let mask = contiguous_as(&crate::not_equal(input, 0)?, DType::UInt8)?;
    let mask = if nd == 0 {
        mask.reshape([1usize])?
    } else {
        mask
    };
    let be = crate::backend::on(op, input.device())?;
    let roots = wrap(
        be.label_roots(op, mask.view(), &neighbors)?,
        &[total],
        DType::Int64,
    );
    let (numbers, n) = be.label_number(op, roots.view())?;
    if n > i32::MAX as usize {
        return Err(Error::invalid(
            op,
            format!("{n} components do not fit the int32 labels"),
        ));
    }
    Ok((wrap(numbers, &shape, DType::Int32), n))
}

/// Values and labels flattened, the number of bins and the bins to report.
struct Groups {
    values: Array,
    labels: Array,
    bins: usize,
    select: Array,
    scalar: bool,
}

fn groups(
    op: &'static str,
    input: &Array,
    labels: Option<&Array>,
    index: Option<&[i64]>,
) -> Result<Groups> {
    check_input(op, input)?;
    let dev = input.device();
    let values = contiguous_as(input, DType::Float64)?.reshape([input.size()])?;
    let (lab, bins, sel, scalar) = match (labels, index) {
        (None, _) => (
            crate::zeros_like(&values)?.astype(DType::Int64)?,
            1,
            vec![0],
            true,
        ),
        (Some(l), idx) => {
            if l.shape() != input.shape() {
                return Err(Error::Shape {
                    op,
                    detail: format!(
                        "labels of shape {:?} for an input of shape {:?}",
                        l.shape(),
                        input.shape()
                    ),
                });
            }
            if l.device() != dev {
                return Err(Error::DeviceMismatch {
                    op,
                    a: dev.to_string(),
                    b: l.device().to_string(),
                });
            }
            let l = contiguous_as(l, DType::Int64)?.reshape([input.size()])?;
            match idx {
                None => (
                    crate::greater(&l, 0)?.astype(DType::Int64)?,
                    2,
                    vec![1],
                    true,
                ),
                Some(ix) => {
                    // Negative indices read a last bin no label reaches.
                    let top = ix.iter().copied().max().unwrap_or(-1).max(-1);
                    let bins = (top + 2) as usize;
                    let sel = ix
                        .iter()
                        .map(|&i| if i < 0 { bins as i64 - 1 } else { i })
                        .collect();
                    let l = crate::where_(&crate::greater_equal(&l, bins as i64 - 1)?, -1, &l)?;
                    (l, bins, sel, false)
                }
            }
        }
    };
    Ok(Groups {
        values,
        labels: lab,
        bins,
        select: crate::asarray_on(sel, dev)?,
        scalar,
    })
}

impl Groups {
    /// The per-bin reduction of `values` (same length as the input).
    fn per_bin(&self, op: &'static str, values: &Array, how: LabelReduce) -> Result<Array> {
        let be = crate::backend::on(op, values.device())?;
        let v = contiguous_as(values, DType::Float64)?;
        let s = be.label_reduce(op, v.view(), self.labels.view(), self.bins, how)?;
        Ok(wrap(s, &[self.bins], DType::Float64))
    }

    /// The selected bins (a 0-d array when there is one group).
    fn pick(&self, per_bin: &Array) -> Result<Array> {
        let r = crate::take(per_bin, &self.select, None)?;
        if self.scalar {
            r.reshape(Vec::<usize>::new())
        } else {
            Ok(r)
        }
    }

    fn counts(&self, op: &'static str) -> Result<Array> {
        self.per_bin(op, &crate::ones_like(&self.values)?, LabelReduce::Sum)
    }

    /// Each element's bin's value (bins out of range read bin 0; they are never reduced).
    fn spread(&self, per_bin: &Array) -> Result<Array> {
        crate::take(per_bin, &crate::maximum(&self.labels, 0)?, None)
    }
}

fn reduce_labels(
    op: &'static str,
    input: &Array,
    labels: Option<&Array>,
    index: Option<&[i64]>,
    how: LabelReduce,
) -> Result<Array> {
    let g = groups(op, input, labels, index)?;
    g.pick(&g.per_bin(op, &g.values, how)?)
}

/// Sum of the input over each label in `index` (or over all labels > 0,
/// or everything without `labels`) (`scipy.ndimage.sum_labels`).
pub fn sum_labels(input: &Array, labels: Option<&Array>, index: Option<&[i64]>) -> Result<Array> {
    reduce_labels("ndimage.sum_labels", input, labels, index, LabelReduce::Sum)
}

/// Smallest value per label (`scipy.ndimage.minimum`).
pub fn minimum(input: &Array, labels: Option<&Array>, index: Option<&[i64]>) -> Result<Array> {
    reduce_labels("ndimage.minimum", input, labels, index, LabelReduce::Min)
}

/// Largest value per label (`scipy.ndimage.maximum`).
pub fn maximum(input: &Array, labels: Option<&Array>, index: Option<&[i64]>) -> Result<Array> {
    reduce_labels("ndimage.maximum", input, labels, index, LabelReduce::Max)
}

/// Mean per label (`scipy.ndimage.mean`).
pub fn mean(input: &Array, labels: Option<&Array>, index: Option<&[i64]>) -> Result<Array> {
    let op = "ndimage.mean";
    let g = groups(op, input, labels, index)?;
    let m = crate::divide(&g.per_bin(op, &g.values, LabelReduce::Sum)?, &g.counts(op)?)?;
    g.pick(&m)
}

/// Variance (population) per label (`scipy.ndimage.variance`).
pub fn variance(input: &Array, labels: Option<&Array>, index: Option<&[i64]>) -> Result<Array> {
    let op = "ndimage.variance";
    let g = groups(op, input, labels, index)?;
    let n = g.counts(op)?;
    let m = crate::divide(&g.per_bin(op, &g.values, LabelReduce::Sum)?, &n)?;
    let d = crate::subtract(&g.values, &g.spread(&m)?)?;
    let ss = g.per_bin(op, &crate::multiply(&d, &d)?, LabelReduce::Sum)?;
    g.pick(&crate::divide(&ss, &n)?)
}

/// Standard deviation (population) per label (`scipy.ndimage.standard_deviation`).
pub fn standard_deviation(
    input: &Array,
    labels: Option<&Array>,
    index: Option<&[i64]>,
) -> Result<Array> {
    crate::sqrt(&variance(input, labels, index)?)
}

/// Flat indices (float64, -1 for none) as coordinates: `(k, ndim)` int64
/// (or `(ndim,)` for a 0-d `flat`).
fn unravel(flat: &Array, shape: &[usize]) -> Result<Array> {
    let f = flat.astype(DType::Int64)?;
    let mut cols = Vec::new();
    let mut stride = 1i64;
    let mut strides = vec![0i64; shape.len()];
    for d in (0..shape.len()).rev() {
        strides[d] = stride;
        stride *= shape[d] as i64;
    }
    for d in 0..shape.len() {
        cols.push(crate::remainder(
            &crate::floor_divide(&f, strides[d])?,
            shape[d].max(1) as i64,
        )?);
    }
    let refs: Vec<&Array> = cols.iter().collect();
    crate::stack(&refs, -1)
}

fn position(
    op: &'static str,
    input: &Array,
    labels: Option<&Array>,
    index: Option<&[i64]>,
    how: LabelReduce,
) -> Result<Array> {
    let at = reduce_labels(op, input, labels, index, how)?;
    unravel(&at, input.shape())
}

/// Coordinates of the first minimum per label, `(k, ndim)` int64 (`scipy.ndimage.minimum_position`).
pub fn minimum_position(
    input: &Array,
    labels: Option<&Array>,
    index: Option<&[i64]>,
) -> Result<Array> {
    position(
        "ndimage.minimum_position",
        input,
        labels,
        index,
        LabelReduce::ArgMin,
    )
}

/// Coordinates of the first maximum per label (`scipy.ndimage.maximum_position`).
pub fn maximum_position(
    input: &Array,
    labels: Option<&Array>,
    index: Option<&[i64]>,
) -> Result<Array> {
    position(
        "ndimage.maximum_position",
        input,
        labels,
        index,
        LabelReduce::ArgMax,
    )
}

/// Minimum, maximum and their positions per label (`scipy.ndimage.extrema`).
pub fn extrema(
    input: &Array,
    labels: Option<&Array>,
    index: Option<&[i64]>,
) -> Result<(Array, Array, Array, Array)> {
    Ok((
        minimum(input, labels, index)?,
        maximum(input, labels, index)?,
        minimum_position(input, labels, index)?,
        maximum_position(input, labels, index)?,
    ))
}

/// The coordinate along `axis` of every element of `shape`, flat, float64.
pub(crate) fn coordinate(shape: &[usize], axis: usize, device: Device) -> Result<Array> {
    let total: usize = shape.iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let i = arange_on(total, device)?;
    crate::remainder(&crate::floor_divide(&i, inner as i64)?, shape[axis] as i64)?
        .astype(DType::Float64)
}

/// Centre of mass per label, `(k, ndim)` float64 (`(ndim,)` for one group) (`scipy.ndimage.center_of_mass`).
pub fn center_of_mass(
    input: &Array,
    labels: Option<&Array>,
    index: Option<&[i64]>,
) -> Result<Array> {
    let op = "ndimage.center_of_mass";
    let g = groups(op, input, labels, index)?;
    let mass = g.per_bin(op, &g.values, LabelReduce::Sum)?;
    let mut cols = Vec::new();
    for axis in 0..input.ndim() {
        let c = coordinate(input.shape(), axis, input.device())?;
        let s = g.per_bin(op, &crate::multiply(&g.values, &c)?, LabelReduce::Sum)?;
        cols.push(g.pick(&crate::divide(&s, &mass)?)?);
    }
    let refs: Vec<&Array> = cols.iter().collect();
    crate::stack(&refs, -1)
}

/// Histogram of `bins` equal bins over `[min, max]` per label, int64 `(k, bins)`
/// (`(bins,)` for one group) (`scipy.ndimage.histogram`).
pub fn histogram(
    input: &Array,
    min: f64,
    max: f64,
    bins: usize,
    labels: Option<&Array>,
    index: Option<&[i64]>,
) -> Result<Array> {
    let op = "ndimage.histogram";
    if bins == 0 || min.is_nan() || max.is_nan() || min >= max {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("{bins} bins over [{min}, {max}]; need at least one bin and min < max"),
        });
    }
    let g = groups(op, input, labels, index)?;
    // The bin of each value (the top edge belongs to the last bin); -1 outside.
    let scaled = crate::multiply(&crate::subtract(&g.values, min)?, bins as f64 / (max - min))?;
    let b = crate::minimum(&crate::floor(&scaled)?, (bins - 1) as f64)?.astype(DType::Int64)?;
    let inside = crate::logical_and(
        &crate::greater_equal(&g.values, min)?,
        &crate::less_equal(&g.values, max)?,
    )?;
    let inside = crate::logical_and(&inside, &crate::greater_equal(&g.labels, 0)?)?;
    let key = crate::add(&crate::multiply(&g.labels, bins as i64)?, &b)?;
    let key = crate::where_(&inside, &key, -1)?;
    let keyed = Groups {
        values: g.values.clone(),
        labels: key,
        bins: g.bins * bins,
        select: g.select.clone(),
        scalar: false,
    };
    let counts = keyed.counts(op)?.reshape([g.bins, bins])?;
    let picked = crate::take(&counts, &g.select, Some(0))?.astype(DType::Int64)?;
    if g.scalar {
        picked.reshape([bins])
    } else {
        Ok(picked)
    }
}

/// The bounding box of each label `1..=max_label` (every label present when
/// `max_label` is 0) as one range per axis, `None` for a label with no
/// element (`scipy.ndimage.find_objects`).
pub fn find_objects(input: &Array, max_label: usize) -> Result<Vec<Option<Vec<Range<usize>>>>> {
    let op = "ndimage.find_objects";
    check_input(op, input)?;
    if !(input.dtype().is_integer() || input.dtype() == DType::Bool) {
        return Err(Error::DType {
            op,
            detail: format!("labels must be integers, got {}", input.dtype()),
        });
    }
    let lab = contiguous_as(input, DType::Int64)?.reshape([input.size()])?;
    let top = if max_label > 0 {
        max_label
    } else if input.size() == 0 {
        0
    } else {
        lab.max()?.to_vec::<i64>()?[0].max(0) as usize
    };
    // One slot per label up to the largest (a label of i64::MAX aborted the
    // process allocating them): refuse what the host cannot hold.
    let bins = top.saturating_add(1);
    let bins = crate::core::layout::checked_size(op, &[bins])?;
    crate::core::layout::check_host_room(op, bins, 48)?;
    let be = crate::backend::on(op, input.device())?;
    let mut lo = Vec::new();
    let mut hi = Vec::new();
    for axis in 0..input.ndim() {
        let c = coordinate(input.shape(), axis, input.device())?;
        let a = wrap(
            be.label_reduce(op, c.view(), lab.view(), bins, LabelReduce::Min)?,
            &[bins],
            DType::Float64,
        );
        let b = wrap(
            be.label_reduce(op, c.view(), lab.view(), bins, LabelReduce::Max)?,
            &[bins],
            DType::Float64,
        );
        lo.push(a.to_vec::<f64>()?);
        hi.push(b.to_vec::<f64>()?);
    }
    Ok((1..bins)
        .map(|l| {
            if input.ndim() == 0 || !lo[0][l].is_finite() {
                return None;
            }
            Some(
                (0..input.ndim())
                    .map(|d| lo[d][l] as usize..hi[d][l] as usize + 1)
                    .collect(),
            )
        })
        .collect())
}

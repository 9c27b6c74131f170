//! Binary and grey-scale morphology, and the structuring elements they use.

use super::rank::{box_extremum, rank_impl};
use super::{
    backend_window, check_input, contiguous_as, host_values, wrap, FilterOptions, Footprint, Mode,
};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::ops::ndimage::{BinarySteps, LineOp, Window};

/// The structuring element of `rank` dimensions (3 x ... x 3, bool) whose
/// elements lie within `connectivity` steps of the centre (squared
/// distance at most `connectivity`) (`scipy.ndimage.generate_binary_structure`).
pub fn generate_binary_structure(rank: usize, connectivity: usize) -> Result<Array> {
    let op = "ndimage.generate_binary_structure";
    if rank > crate::ops::ndimage::MAX_NDIM {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "rank {rank}; at most {} is supported",
                crate::ops::ndimage::MAX_NDIM
            ),
        });
    }
    let n = 3usize.pow(rank as u32);
    // Steps from the centre: the number of coordinates that are not 1.
    let vals: Vec<bool> = (0..n)
        .map(|mut flat| {
            let mut dist = 0;
            for _ in 0..rank {
                dist += usize::from(flat % 3 != 1);
                flat /= 3;
            }
            dist <= connectivity
        })
        .collect();
    let shape = vec![3usize; rank];
    crate::asarray_on(vals, crate::current_device())?.reshape(shape)
}

/// `structure` dilated by itself `iterations - 1` times: the element
/// `iterations` successive dilations reach (`scipy.ndimage.iterate_structure`).
pub fn iterate_structure(structure: &Array, iterations: usize) -> Result<Array> {
    let op = "ndimage.iterate_structure";
    let nd = structure.ndim();
    let vals = structure_values(op, structure, nd)?;
    let shape = structure.shape().to_vec();
    if iterations < 2 {
        return structure.astype(DType::Bool);
    }
    let ni = iterations as i64;
    let grown = |s: usize| {
        (iterations - 1)
            .checked_mul(s.saturating_sub(1))?
            .checked_add(s)
    };
    let new_shape = shape
        .iter()
        .map(|&s| grown(s))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| Error::Overflow {
            op,
            detail: format!("{iterations} iterations of a structure of shape {shape:?}"),
        })?;
    let total = crate::core::layout::checked_size(op, &new_shape)?;
    crate::core::layout::check_host_room(op, total, 1)?;
    let mut out = vec![false; total];
    // Minkowski sum of the element's offsets, `iterations` times.
    let offs: Vec<Vec<i64>> = offsets_of(&shape, &vals);
    let mut reach: Vec<Vec<i64>> = vec![vec![0; nd]];
    for _ in 0..iterations {
        let mut next = std::collections::BTreeSet::new();
        for r in &reach {
            for o in &offs {
                next.insert(r.iter().zip(o).map(|(a, b)| a + b).collect::<Vec<i64>>());
            }
        }
        let next: Vec<Vec<i64>> = next.into_iter().collect();
        // A single-point (or empty) element stops growing at once: a huge
        // iteration count then ends instead of spinning.
        if next == reach {
            break;
        }
        reach = next;
    }
    for r in reach {
        let mut flat = 0usize;
        for d in 0..nd {
            let c = (shape[d] as i64 / 2) * ni + r[d];
            flat = flat * new_shape[d] + c as usize;
        }
        out[flat] = true;
    }
    crate::asarray_on(out, structure.device())?.reshape(new_shape)
}

/// Offsets from the centre of the non-zero elements of a window.
fn offsets_of(shape: &[usize], vals: &[f64]) -> Vec<Vec<i64>> {
    let nd = shape.len();
    let mut out = Vec::new();
    for (flat, &v) in vals.iter().enumerate() {
        if v == 0.0 {
            continue;
        }
        let mut r = flat;
        let mut o = vec![0i64; nd];
        for d in (0..nd).rev() {
            o[d] = (r % shape[d]) as i64 - (shape[d] / 2) as i64;
            r /= shape[d];
        }
        out.push(o);
    }
    out
}

/// A structure's values, checked to have rank `nd`.
pub(crate) fn structure_values(op: &'static str, s: &Array, nd: usize) -> Result<Vec<f64>> {
    if s.ndim() != nd {
        return Err(Error::Shape {
            op,
            detail: format!(
                "structure of shape {:?} for an input of rank {nd}; they need the same rank",
                s.shape()
            ),
        });
    }
    host_values(s)
}

/// Options of the binary morphology functions.
#[derive(Debug, Clone)]
pub struct BinaryOptions {
    /// The structuring element (default: faces only, `generate_binary_structure(ndim, 1)`).
    pub structure: Option<Array>,
    /// How many times to apply it; 0 repeats until nothing changes (default 1).
    pub iterations: usize,
    /// The value outside the input (default false).
    pub border_value: bool,
    /// Shift of the element's centre, one or per axis (default 0).
    pub origin: Vec<isize>,
    /// Where false, every step keeps the input's value (SciPy's `mask`,
    /// the input's shape; default none: every element is updated).
    pub mask: Option<Array>,
}

impl Default for BinaryOptions {
    fn default() -> Self {
        BinaryOptions {
            structure: None,
            iterations: 1,
            border_value: false,
            origin: vec![0],
            mask: None,
        }
    }
}

impl BinaryOptions {
    /// Sets the structuring element.
    pub fn structure(mut self, s: &Array) -> Self {
        self.structure = Some(s.clone());
        self
    }
    /// Sets the number of iterations (0: until nothing changes).
    pub fn iterations(mut self, n: usize) -> Self {
        self.iterations = n;
        self
    }
    /// Sets the value outside the input.
    pub fn border_value(mut self, v: bool) -> Self {
        self.border_value = v;
        self
    }
    /// Sets one origin for every axis.
    pub fn origin(mut self, o: isize) -> Self {
        self.origin = vec![o];
        self
    }
    /// Sets one origin per axis.
    pub fn origins(mut self, o: &[isize]) -> Self {
        self.origin = o.to_vec();
        self
    }
    /// Sets the mask: only its true elements are updated.
    pub fn mask(mut self, m: &Array) -> Self {
        self.mask = Some(m.clone());
        self
    }
}

/// The mask as booleans, checked against the input's shape and device.
fn mask_of(op: &'static str, input: &Array, mask: Option<&Array>) -> Result<Option<Array>> {
    let Some(m) = mask else {
        return Ok(None);
    };
    crate::api::shape::index::same_device(op, input, m)?;
    if m.shape() != input.shape() {
        return Err(Error::Shape {
            op,
            detail: format!(
                "mask of shape {:?} for an input of shape {:?}; they need the same shape",
                m.shape(),
                input.shape()
            ),
        });
    }
    if m.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("the mask must be real, got {}", m.dtype()),
        });
    }
    Ok(Some(crate::not_equal(m, 0)?))
}

fn binary_impl(op: &'static str, input: &Array, o: &BinaryOptions, dilate: bool) -> Result<Array> {
    check_input(op, input)?;
    let nd = input.ndim();
    let s = match &o.structure {
        Some(s) => s.clone(),
        None => generate_binary_structure(nd, 1)?,
    };
    let mut vals = structure_values(op, &s, nd)?;
    let mut origins = super::per_axis(op, "origin", &o.origin, nd)?;
    if dilate {
        // Dilation uses the reflected element (and moves an even extent's centre).
        vals.reverse();
        for (org, &e) in origins.iter_mut().zip(s.shape()) {
            *org = super::mirrored_origin(op, *org, e)?;
        }
    }
    let (offsets, kept) = super::window_offsets(op, s.shape(), &vals, &origins)?;
    let mask = mask_of(op, input, o.mask.as_ref())?;
    // Bool converts to 0/1 directly; other dtypes are compared with 0 first.
    let x = match input.dtype() {
        DType::Bool => contiguous_as(input, DType::UInt8)?,
        _ => contiguous_as(&crate::not_equal(input, 0)?, DType::UInt8)?,
    };
    if kept.is_empty() {
        // No taps: every element fits (erosion) and none meets (dilation),
        // as SciPy; masked-out elements keep the input.
        let all = if dilate {
            crate::zeros_like(&x)?
        } else {
            crate::ones_like(&x)?
        };
        return match &mask {
            Some(m) => crate::where_(m, &all, &x)?.astype(DType::Bool),
            None => all.astype(DType::Bool),
        };
    }
    // The backend runs every step (no array round trip between them).
    let (line, offsets) = backend_window(&x, offsets, kept.len())?;
    let mask = mask
        .map(|m| contiguous_as(&m, DType::UInt8)?.reshape(line.shape()))
        .transpose()?;
    let be = crate::backend::on(op, x.device())?;
    let steps = BinarySteps {
        window: Window {
            offsets: &offsets,
            mode: Mode::Constant,
            cval: if o.border_value { 1.0 } else { 0.0 },
        },
        dilate,
        mask: mask.as_ref().map(|m| m.view()),
        iterations: o.iterations,
    };
    let s = be.binary_steps(op, line.view(), &steps)?;
    wrap(s, x.shape(), DType::UInt8).astype(DType::Bool)
}

/// Binary erosion: true where the element, placed there, fits inside the
/// true elements (`scipy.ndimage.binary_erosion`).
pub fn binary_erosion(input: &Array, opts: &BinaryOptions) -> Result<Array> {
    binary_impl("ndimage.binary_erosion", input, opts, false)
}

/// Binary dilation: true where the reflected element meets a true element (`scipy.ndimage.binary_dilation`).
pub fn binary_dilation(input: &Array, opts: &BinaryOptions) -> Result<Array> {
    binary_impl("ndimage.binary_dilation", input, opts, true)
}

/// Erosion then dilation (`scipy.ndimage.binary_opening`).
pub fn binary_opening(input: &Array, opts: &BinaryOptions) -> Result<Array> {
    let e = binary_impl("ndimage.binary_opening", input, opts, false)?;
    binary_impl("ndimage.binary_opening", &e, opts, true)
}

/// Dilation then erosion (`scipy.ndimage.binary_closing`).
pub fn binary_closing(input: &Array, opts: &BinaryOptions) -> Result<Array> {
    let d = binary_impl("ndimage.binary_closing", input, opts, true)?;
    binary_impl("ndimage.binary_closing", &d, opts, false)
}

/// The input with every background region that does not touch the border
/// filled (connectivity from `structure`, default faces only) (`scipy.ndimage.binary_fill_holes`).
pub fn binary_fill_holes(input: &Array, structure: Option<&Array>) -> Result<Array> {
    let op = "ndimage.binary_fill_holes";
    check_input(op, input)?;
    let nd = input.ndim();
    let fg = crate::not_equal(input, 0)?;
    if nd == 0 || input.size() == 0 {
        return Ok(fg);
    }
    // Label the background; a region is a hole when none of its elements is on the border.
    let bg = crate::logical_not(&fg)?;
    let (labels, n) = super::measurements::label(&bg, structure)?;
    let mut touches = crate::zeros(input.size(), DType::Bool)?.to_device(&input.device())?;
    for axis in 0..nd {
        let c = super::measurements::coordinate(input.shape(), axis, input.device())?;
        let last = (input.shape()[axis] - 1) as f64;
        let edge = crate::logical_or(&crate::equal(&c, 0.0)?, &crate::equal(&c, last)?)?;
        touches = crate::logical_or(&touches, &edge)?;
    }
    let border = touches.astype(DType::Float64)?;
    let lab = contiguous_as(&labels, DType::Int64)?.reshape([input.size()])?;
    let b = border;
    let be = crate::backend::on(op, input.device())?;
    let on_border = wrap(
        be.label_reduce(
            op,
            b.view(),
            lab.view(),
            n + 1,
            crate::ops::ndimage::LabelReduce::Max,
        )?,
        &[n + 1],
        DType::Float64,
    );
    // A background element stays background when its region reaches the border.
    let keep_bg = crate::take(&on_border, &lab, None)?;
    let keep_bg = crate::logical_and(&crate::greater(&keep_bg, 0.0)?, &crate::greater(&lab, 0)?)?;
    crate::logical_not(&keep_bg.reshape(input.shape().to_vec())?)
}

fn grey(
    op: &'static str,
    input: &Array,
    footprint: Footprint,
    structure: Option<&Array>,
    opts: &FilterOptions,
    dilate: bool,
) -> Result<Array> {
    check_input(op, input)?;
    let nd = input.ndim();
    let mut o = opts.clone();
    // A structure without a footprint brings its own (flat) window.
    let fp = match (&footprint, structure) {
        (Footprint::Size(_), Some(s)) => Footprint::Mask(crate::ones_like(s)?),
        _ => footprint,
    };
    let add = structure.map(|s| structure_values(op, s, nd)).transpose()?;
    let shape = match &fp {
        Footprint::Size(s) => super::per_axis(op, "size", s, nd)?,
        Footprint::Mask(m) => m.shape().to_vec(),
    };
    if dilate {
        // Dilation reads the reflected window (an even extent's centre moves by one).
        let origins = o.origins_for(op, nd)?;
        o.origin = origins
            .iter()
            .zip(&shape)
            .map(|(&org, &e)| super::mirrored_origin(op, org, e))
            .collect::<Result<_>>()?;
    }
    let m = match &fp {
        Footprint::Mask(m) => m,
        Footprint::Size(size) => {
            let how = if dilate { LineOp::Max } else { LineOp::Min };
            return box_extremum(op, input, size, how, &o);
        }
    };
    let mut mask = host_values(m)?;
    let mut add = add;
    if dilate {
        mask.reverse();
        if let Some(a) = add.as_mut() {
            a.reverse();
        }
    }
    let sign = if dilate { 1.0 } else { -1.0 };
    let kept_add: Option<Vec<f64>> = add.map(|a| {
        a.iter()
            .zip(&mask)
            .filter(|&(_, &m)| m != 0.0)
            .map(|(v, _)| sign * v)
            .collect()
    });
    let fp2 = Footprint::Mask(crate::asarray_on(mask, crate::Device::Cpu)?.reshape(shape)?);
    rank_impl(
        op,
        input,
        &fp2,
        |n| Ok(if dilate { n.saturating_sub(1) } else { 0 }),
        kept_add.as_deref(),
        &o,
    )
}

/// Grey-scale erosion: the minimum over the footprint (minus `structure`)
/// (`scipy.ndimage.grey_erosion`).
pub fn grey_erosion(
    input: &Array,
    footprint: impl Into<Footprint>,
    structure: Option<&Array>,
    opts: &FilterOptions,
) -> Result<Array> {
    grey(
        "ndimage.grey_erosion",
        input,
        footprint.into(),
        structure,
        opts,
        false,
    )
}

/// Grey-scale dilation: the maximum over the reflected footprint (plus
/// the reflected `structure`) (`scipy.ndimage.grey_dilation`).
pub fn grey_dilation(
    input: &Array,
    footprint: impl Into<Footprint>,
    structure: Option<&Array>,
    opts: &FilterOptions,
) -> Result<Array> {
    grey(
        "ndimage.grey_dilation",
        input,
        footprint.into(),
        structure,
        opts,
        true,
    )
}

/// Grey erosion then dilation (`scipy.ndimage.grey_opening`).
pub fn grey_opening(
    input: &Array,
    footprint: impl Into<Footprint>,
    structure: Option<&Array>,
    opts: &FilterOptions,
) -> Result<Array> {
    let fp = footprint.into();
    let e = grey(
        "ndimage.grey_opening",
        input,
        fp.clone(),
        structure,
        opts,
        false,
    )?;
    grey("ndimage.grey_opening", &e, fp, structure, opts, true)
}

/// Grey dilation then erosion (`scipy.ndimage.grey_closing`).
pub fn grey_closing(
    input: &Array,
    footprint: impl Into<Footprint>,
    structure: Option<&Array>,
    opts: &FilterOptions,
) -> Result<Array> {
    let fp = footprint.into();
    let d = grey(
        "ndimage.grey_closing",
        input,
        fp.clone(),
        structure,
        opts,
        true,
    )?;
    grey("ndimage.grey_closing", &d, fp, structure, opts, false)
}

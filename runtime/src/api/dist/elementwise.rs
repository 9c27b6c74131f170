//! Elementwise work on distributed arrays: local on aligned blocks, with
//! replicated operands sliced to the block and misaligned ones moved first.

use std::collections::HashSet;
use std::panic::Location;
use std::sync::Mutex;

use super::{block_range, DistArray};
use crate::core::array::Array;
use crate::core::element::Scalar;
use crate::core::error::{Error, Result};

/// The global shape of two broadcast operands.
fn broadcast_shape(op: &'static str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| {
        let pad = n - s.len();
        if i < pad {
            1
        } else {
            s[i - pad]
        }
    };
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            _ => Err(Error::Broadcast {
                op,
                shapes: vec![a.to_vec(), b.to_vec()],
            }),
        })
        .collect()
}

/// Says once per call site that operands were moved (`CUPRITE_DIST_WARN`).
fn warn_moved(site: &'static Location<'static>, what: &str) {
    if std::env::var_os("CUPRITE_DIST_WARN").is_none() {
        return;
    }
    type Site = (&'static str, u32, u32);
    static SEEN: Mutex<Option<HashSet<Site>>> = Mutex::new(None);
    let key = (site.file(), site.line(), site.column());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if seen.get_or_insert_with(HashSet::new).insert(key) {
        eprintln!("cuprite dist: {what} at {site} (said once per call site)");
    }
}

impl DistArray {
    /// `f` applied to this rank's block: for elementwise functions
    /// (`d.map(|b| cp::sin(b))`), whose result has the block's shape.
    pub fn map(&self, f: impl FnOnce(&Array) -> Result<Array>) -> Result<DistArray> {
        let out = f(&self.local)?;
        if out.shape() != self.local.shape() {
            return Err(Error::Shape {
                op: "dist::map",
                detail: format!(
                    "the function changed the block's shape from {:?} to {:?}: map takes elementwise functions",
                    self.local.shape(),
                    out.shape()
                ),
            });
        }
        Ok(DistArray::from_parts(
            out,
            self.global.clone(),
            self.split,
            self.comm,
        ))
    }

    /// `f` of the two arrays' matching blocks, broadcasting as NumPy
    /// (`d.zip(&e, |a, b| cp::arctan2(a, b))`). Operands split along
    /// different axes are moved to this array's split first.
    #[track_caller]
    pub fn zip(
        &self,
        other: &DistArray,
        f: impl FnOnce(&Array, &Array) -> Result<Array>,
    ) -> Result<DistArray> {
        let (global, split, blocks) = align("dist::zip", Location::caller(), &[self, other])?;
        let out = f(&blocks[0], &blocks[1])?;
        Ok(DistArray::from_parts(out, global, split, self.comm))
    }

    /// `f` of this array's blocks and `other`, an ordinary array every rank
    /// holds in full (broadcast as NumPy, sliced to the block).
    #[track_caller]
    pub fn zip_array(
        &self,
        other: &Array,
        f: impl FnOnce(&Array, &Array) -> Result<Array>,
    ) -> Result<DistArray> {
        let replicated =
            DistArray::from_parts(other.clone(), other.shape().to_vec(), None, self.comm);
        self.zip(&replicated, f)
    }

    /// This operand's part of the result's block (global shape `global`,
    /// split along `split` of the result).
    fn block_for(
        &self,
        op: &'static str,
        site: &'static Location<'static>,
        global: &[usize],
        split: Option<usize>,
    ) -> Result<Array> {
        let lead = global.len() - self.global.len();
        let Some(rs) = split else {
            return Ok(self.local.clone());
        };
        // The result's split axis in this operand's own axes, if it has it.
        let mine = rs.checked_sub(lead);
        match (self.split, mine) {
            (Some(s), Some(m)) if s == m => Ok(self.local.clone()),
            (_, Some(m)) if self.global[m] == 1 => {
                // Broadcast along the split axis: every rank needs it whole.
                if self.split.is_some() {
                    warn_moved(
                        site,
                        &format!("{op}: an operand was gathered to every rank"),
                    );
                    self.to_array()
                } else {
                    Ok(self.local.clone())
                }
            }
            (None, Some(m)) => {
                let (lo, len) = block_range(global[rs], self.world_size(), self.rank());
                Ok(self.local.slice_axis(m, lo, lo + len))
            }
            (Some(_), Some(m)) => {
                warn_moved(
                    site,
                    &format!("{op}: an operand split along another axis was resplit"),
                );
                Ok(self.resplit(Some(m))?.local)
            }
            (Some(_), None) => {
                warn_moved(
                    site,
                    &format!("{op}: an operand was gathered to every rank"),
                );
                self.to_array()
            }
            (None, None) => Ok(self.local.clone()),
        }
    }

    /// `cond ? a : b` elementwise (`numpy.where`), aligned as [`DistArray::zip`].
    #[track_caller]
    pub fn where_(cond: &DistArray, a: &DistArray, b: &DistArray) -> Result<DistArray> {
        let (global, split, blocks) = align("dist::where", Location::caller(), &[cond, a, b])?;
        let out = crate::where_(&blocks[0], &blocks[1], &blocks[2])?;
        Ok(DistArray::from_parts(out, global, split, a.comm))
    }
}

/// The operands' broadcast global shape, the result's split axis (the first
/// split operand's) and each operand's part of this rank's result block.
fn align(
    op: &'static str,
    site: &'static Location<'static>,
    operands: &[&DistArray],
) -> Result<(Vec<usize>, Option<usize>, Vec<Array>)> {
    let mut global = operands[0].global.clone();
    for d in &operands[1..] {
        global = broadcast_shape(op, &global, &d.global)?;
    }
    let n = global.len();
    let split = operands
        .iter()
        .find_map(|d| d.split.map(|s| s + n - d.global.len()));
    let blocks = operands
        .iter()
        .map(|d| d.block_for(op, site, &global, split))
        .collect::<Result<Vec<_>>>()?;
    Ok((global, split, blocks))
}

/// Methods of binary ufuncs between two distributed arrays.
macro_rules! binary_methods {
    ($($name:ident => $f:path;)*) => {
        impl DistArray {
            $(
                #[doc = concat!("`", stringify!($name), "` of the two arrays, elementwise (see [`DistArray::zip`]).")]
                #[track_caller]
                pub fn $name(&self, other: &DistArray) -> Result<DistArray> {
                    let (global, split, blocks) = align(concat!("dist::", stringify!($name)), Location::caller(), &[self, other])?;
                    let out = $f(&blocks[0], &blocks[1])?;
                    Ok(DistArray::from_parts(out, global, split, self.comm))
                }
            )*
        }
    };
}

binary_methods! {
    add => crate::add;
    subtract => crate::subtract;
    multiply => crate::multiply;
    divide => crate::divide;
    power => crate::power;
    maximum => crate::maximum;
    minimum => crate::minimum;
    arctan2 => crate::arctan2;
    hypot => crate::hypot;
    greater => crate::greater;
    less => crate::less;
    equal => crate::equal;
    logical_and => crate::logical_and;
    logical_or => crate::logical_or;
}

/// Methods of unary ufuncs: local on every block.
macro_rules! unary_methods {
    ($($name:ident),* $(,)?) => {
        impl DistArray {
            $(
                #[doc = concat!("`", stringify!($name), "` of every element (local).")]
                pub fn $name(&self) -> Result<DistArray> {
                    self.map(|b| crate::$name(b))
                }
            )*
        }
    };
}

unary_methods!(
    sin,
    cos,
    tan,
    exp,
    log,
    sqrt,
    abs,
    tanh,
    floor,
    ceil,
    square,
    negative,
    isnan,
    isfinite,
    log1p,
    expm1,
    sinh,
    cosh,
    arcsin,
    arccos,
    arctan,
    sign,
    reciprocal,
    logical_not,
);

/// Arithmetic with a scalar: local on every block, NumPy's weak-scalar rules.
macro_rules! scalar_methods {
    ($($name:ident => $f:path;)*) => {
        impl DistArray {
            $(
                #[doc = concat!("`", stringify!($f), "` of every element and `s` (local).")]
                pub fn $name(&self, s: impl Into<Scalar>) -> Result<DistArray> {
                    let s: Scalar = s.into();
                    self.map(|b| $f(b, crate::api::operand::Operand::Scalar(s)))
                }
            )*
        }
    };
}

scalar_methods! {
    add_scalar => crate::add;
    sub_scalar => crate::subtract;
    mul_scalar => crate::multiply;
    div_scalar => crate::divide;
    pow_scalar => crate::power;
}

impl DistArray {
    /// A copy in `dtype` (local).
    pub fn astype(&self, dtype: crate::core::dtype::DType) -> Result<DistArray> {
        let out = self.local.astype(dtype)?;
        Ok(DistArray::from_parts(
            out,
            self.global.clone(),
            self.split,
            self.comm,
        ))
    }

    /// `a` limited to `[lo, hi]` (local).
    pub fn clip(&self, lo: f64, hi: f64) -> Result<DistArray> {
        self.map(|b| crate::clip(b, lo, hi))
    }
}

/// Operators, as on [`Array`]: an operator cannot return a `Result`, so an
/// error panics with its message; call the methods to handle errors.
macro_rules! operators {
    ($($trait:ident $method:ident => $name:ident, $scalar:ident;)*) => {
        $(
            impl std::ops::$trait<&DistArray> for &DistArray {
                type Output = DistArray;
                #[track_caller]
                fn $method(self, rhs: &DistArray) -> DistArray {
                    self.$name(rhs).unwrap_or_else(|e| panic!("{e}"))
                }
            }
            impl std::ops::$trait<f64> for &DistArray {
                type Output = DistArray;
                #[track_caller]
                fn $method(self, rhs: f64) -> DistArray {
                    self.$scalar(rhs).unwrap_or_else(|e| panic!("{e}"))
                }
            }
        )*
    };
}

operators! {
    Add add => add, add_scalar;
    Sub sub => subtract, sub_scalar;
    Mul mul => multiply, mul_scalar;
    Div div => divide, div_scalar;
}

//! NumPy-style text for arrays: `str(x)` and `repr(x)`, with print options.
//!
//! This follows NumPy 2.4's `arrayprint` (the default `floatmode='maxprec'`,
//! `legacy=False`):
//! * floats print the shortest digits that identify the value in its own
//!   type (NumPy's Dragon4 "unique" mode, ported here), at most `precision`
//!   after the point; an array switches to scientific notation when a finite
//!   non-zero magnitude is at least `10**min(8, finfo.precision)` (1e3 for
//!   float16, 1e6 for float32, 1e8 for float64; 1e2 for bfloat16, whose
//!   `finfo.precision` is 2 in `ml_dtypes`), or, unless `suppress`, below
//!   1e-4 or when max/min exceeds 1e3 (compared in the element's type);
//! * complex numbers format their real and imaginary parts separately;
//! * arrays with more than `threshold` elements show `edgeitems` at each
//!   edge of each long axis, and only those elements are read (the edges
//!   are gathered from views, so a huge array costs little to print);
//! * rows wrap at `linewidth`, with NumPy's continuation indentation;
//! * `repr` adds `shape=` for summarized and empty arrays and `dtype=` unless
//!   the dtype is a default one (float64, int64, complex128, bool).
//!
//! [`ElementFormat`] / [`format_elements`] expose the element formatting
//! (all values of one array formatted together so that they align) for
//! other renderings such as the notebook's HTML tables.

use std::cmp::Ordering;
use std::fmt;
use std::sync::RwLock;

use half::{bf16, f16};

use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};

/// How the sign of positive numbers is printed (NumPy's `sign` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sign {
    /// Only negative values get a sign (`'-'`, the default).
    #[default]
    Minus,
    /// Positive values get a `+` (`'+'`).
    Plus,
    /// Positive values get a space where the sign would be (`' '`).
    Space,
}

/// How arrays are printed (`np.set_printoptions`).
#[derive(Debug, Clone, PartialEq)]
pub struct PrintOptions {
    /// Arrays with more elements than this are summarized with `...`.
    pub threshold: usize,
    /// Items shown at each edge of a summarized axis.
    pub edgeitems: usize,
    /// At most this many digits after the point for floats.
    pub precision: usize,
    /// Characters per line before wrapping.
    pub linewidth: usize,
    /// When true, small values never switch an array to scientific notation
    /// (they print as `0.` at this precision), as NumPy's `suppress=True`.
    pub suppress: bool,
    /// The sign of positive numbers.
    pub sign: Sign,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            threshold: 1000,
            edgeitems: 3,
            precision: 8,
            linewidth: 75,
            suppress: false,
            sign: Sign::Minus,
        }
    }
}

// Process-wide, as NumPy's print options are.
/// The print options, one set per process: every notebook cell links its
/// own copy of this crate, and `set_printoptions` in one cell must hold in
/// the next.
fn options_lock() -> &'static RwLock<Option<PrintOptions>> {
    static THIS_COPY: std::sync::OnceLock<&'static RwLock<Option<PrintOptions>>> =
        std::sync::OnceLock::new();
    THIS_COPY
        .get_or_init(|| crate::core::global::process_global("printoptions", || RwLock::new(None)))
}

/// The current print options.
pub fn get_printoptions() -> PrintOptions {
    match options_lock().read() {
        Ok(o) => o.clone().unwrap_or_default(),
        Err(poisoned) => poisoned.into_inner().clone().unwrap_or_default(),
    }
}

/// Replaces the print options used by `Display`, `Debug` and the notebook
/// display (process-wide). `set_printoptions(PrintOptions::default())`
/// restores NumPy's defaults.
pub fn set_printoptions(options: PrintOptions) {
    match options_lock().write() {
        Ok(mut o) => *o = Some(options),
        Err(poisoned) => *poisoned.into_inner() = Some(options),
    }
}

/// NumPy's `str(x)` with the current print options: `[ 3. 12.]`.
pub fn str(a: &Array) -> String {
    str_with(a, &get_printoptions())
}

/// NumPy's `repr(x)` with the current print options: `array([ 3., 12.], dtype=float32)`.
pub fn repr(a: &Array) -> String {
    repr_with(a, &get_printoptions())
}

/// NumPy's `np.array_str(x)` with explicit print options.
pub fn str_with(a: &Array, opts: &PrintOptions) -> String {
    if a.ndim() == 0 {
        // A 0-d array prints as its scalar: full precision, no padding.
        return match shown_values(a, opts) {
            Some((_, values)) => values
                .first()
                .map(|v| scalar_str(a.dtype(), *v))
                .unwrap_or_default(),
            None => String::new(),
        };
    }
    array2string(a, opts, " ", "", "")
}

/// NumPy's `np.array_repr(x)` with explicit print options.
pub fn repr_with(a: &Array, opts: &PrintOptions) -> String {
    const PREFIX: &str = "array(";
    let body = array2string(a, opts, ", ", PREFIX, ")");
    let mut extras = Vec::new();
    if (a.size() == 0 && a.shape() != [0]) || a.size() > opts.threshold {
        extras.push(format!(
            "shape={}",
            crate::core::error::fmt_shape(a.shape())
        ));
    }
    let implied = matches!(
        a.dtype(),
        DType::Float64 | DType::Int64 | DType::Complex128 | DType::Bool
    );
    if !implied || a.size() == 0 {
        extras.push(format!("dtype={}", a.dtype()));
    }
    if extras.is_empty() {
        return format!("{PREFIX}{body})");
    }
    let text = format!("{PREFIX}{body},");
    let extra = format!("{})", extras.join(", "));
    // Extras go on their own line when they would pass the line width.
    let last_line = text.len() - text.rfind('\n').map_or(0, |i| i + 1);
    if last_line + extra.len() + 1 > opts.linewidth {
        format!("{text}\n{}{extra}", " ".repeat(PREFIX.len()))
    } else {
        format!("{text} {extra}")
    }
}

/// NumPy's `str()` of one scalar of `dtype` (what `str` of a 0-d array
/// prints): the shortest round-tripping digits, `3.0`, `1e+20`, `(1+2j)`, `True`.
pub fn scalar_str(dtype: DType, value: Scalar) -> String {
    match FloatType::of(dtype) {
        Some(ty) if dtype.is_complex() => complex_scalar_str(ty, value.as_c64()),
        Some(ty) => float_scalar_str(ty, value.as_f64(), Trim::LeaveOneZero, false),
        None if dtype.is_bool() => if value.as_bool() { "True" } else { "False" }.into(),
        None if dtype.is_unsigned_integer() => value.as_u64().to_string(),
        None => value.as_i64().to_string(),
    }
}

/// Formats the elements of one array of `dtype` together, as NumPy's
/// `array2string` does: every string has the same width, floats line up on
/// the point, and the notation (positional or scientific) is shared.
pub fn format_elements(dtype: DType, values: &[Scalar], opts: &PrintOptions) -> Vec<String> {
    let f = ElementFormat::new(dtype, values, opts);
    values.iter().map(|v| f.format(*v)).collect()
}

/// The element formatter of one array: decided from all the values shown
/// (NumPy's `FloatingFormat`, `ComplexFloatingFormat`, `IntegerFormat`, `BoolFormat`).
#[derive(Debug, Clone)]
pub struct ElementFormat {
    kind: FormatKind,
}

#[derive(Debug, Clone)]
enum FormatKind {
    Bool { pad_true: bool },
    Int { width: usize, sign: Sign },
    Float(FloatFormat),
    Complex(FloatFormat, FloatFormat),
}

impl ElementFormat {
    /// The formatter for `values`, the elements shown of an array of `dtype`
    /// with at least one dimension.
    pub fn new(dtype: DType, values: &[Scalar], opts: &PrintOptions) -> ElementFormat {
        Self::build(dtype, values, opts, false)
    }

    /// The formatter for the value of a 0-d array (as its `repr` shows it:
    /// `True` rather than ` True`).
    pub fn for_0d(dtype: DType, value: Scalar, opts: &PrintOptions) -> ElementFormat {
        Self::build(dtype, &[value], opts, true)
    }

    fn build(dtype: DType, values: &[Scalar], opts: &PrintOptions, zero_d: bool) -> ElementFormat {
        let kind = match FloatType::of(dtype) {
            _ if dtype.is_bool() => FormatKind::Bool { pad_true: !zero_d },
            Some(ty) if dtype.is_complex() => {
                let re: Vec<f64> = values.iter().map(|v| v.as_c64().re).collect();
                let im: Vec<f64> = values.iter().map(|v| v.as_c64().im).collect();
                FormatKind::Complex(
                    FloatFormat::new(&re, ty, opts, opts.sign),
                    FloatFormat::new(&im, ty, opts, Sign::Plus),
                )
            }
            Some(ty) => {
                let xs: Vec<f64> = values.iter().map(|v| v.as_f64()).collect();
                FormatKind::Float(FloatFormat::new(&xs, ty, opts, opts.sign))
            }
            None => int_format(dtype, values, opts.sign),
        };
        ElementFormat { kind }
    }

    /// One value in this format.
    pub fn format(&self, v: Scalar) -> String {
        match &self.kind {
            FormatKind::Bool { pad_true } => match (v.as_bool(), pad_true) {
                (true, true) => " True".into(),
                (true, false) => "True".into(),
                (false, _) => "False".into(),
            },
            FormatKind::Int { width, sign } => {
                let digits = match v {
                    Scalar::UInt(u) => u.to_string(),
                    other => other.as_i64().to_string(),
                };
                let text = match sign {
                    Sign::Plus if !digits.starts_with('-') => format!("+{digits}"),
                    Sign::Space if !digits.starts_with('-') => format!(" {digits}"),
                    _ => digits,
                };
                format!("{text:>width$}")
            }
            FormatKind::Float(f) => f.format(v.as_f64()),
            FormatKind::Complex(re, im) => {
                let c = v.as_c64();
                let i = im.format(c.im);
                // The `j` goes before the imaginary part's right padding.
                let used = i.trim_end().len();
                format!("{}{}j{}", re.format(c.re), &i[..used], &i[used..])
            }
        }
    }
}

/// NumPy's `IntegerFormat`: right-aligned to the widest of max and min.
fn int_format(dtype: DType, values: &[Scalar], sign: Sign) -> FormatKind {
    let as_wide = |v: &Scalar| -> i128 {
        if dtype.is_unsigned_integer() {
            v.as_u64() as i128
        } else {
            v.as_i64() as i128
        }
    };
    let (Some(max), Some(min)) = (
        values.iter().map(as_wide).max(),
        values.iter().map(as_wide).min(),
    ) else {
        return FormatKind::Int { width: 0, sign };
    };
    let mut sign = sign;
    if sign == Sign::Space && min < 0 {
        sign = Sign::Minus;
    }
    let mut max_len = max.to_string().len();
    if max >= 0 && sign != Sign::Minus {
        max_len += 1;
    }
    FormatKind::Int {
        width: max_len.max(min.to_string().len()),
        sign,
    }
}

// ---------------------------------------------------------------------------
// Arrays: edges, element formatting, line layout (NumPy's `_formatArray`).
// ---------------------------------------------------------------------------

/// The elements that are shown (the edge sub-array when summarizing, in C
/// order) and whether the array is summarized.
fn shown_values(a: &Array, opts: &PrintOptions) -> Option<(Array, Vec<Scalar>)> {
    let summarize = a.size() > opts.threshold;
    let data = if summarize {
        edge_array(a, opts.edgeitems, 0).ok()?
    } else {
        a.clone()
    };
    let values = crate::with_dtype!(data.dtype(), T => data
        .gather::<T>()
        .ok()?
        .into_iter()
        .map(Element::to_scalar)
        .collect::<Vec<Scalar>>());
    Some((data, values))
}

/// NumPy's `_leading_trailing`: the first and last `edge` items of every
/// axis longer than `2 * edge`, joined. Only views are sliced until the
/// corners are small, so just the shown elements are read.
fn edge_array(a: &Array, edge: usize, axis: usize) -> crate::Result<Array> {
    if axis == a.ndim() {
        return Ok(a.clone());
    }
    let n = a.shape()[axis];
    if n <= edge.saturating_mul(2) {
        return edge_array(a, edge, axis + 1);
    }
    if edge == 0 {
        // NumPy's `a[:0]` and `a[-0:]`: the whole axis.
        return edge_array(a, edge, axis + 1);
    }
    let head = edge_array(&a.slice_axis(axis, 0, edge), edge, axis + 1)?;
    let tail = edge_array(&a.slice_axis(axis, n - edge, n), edge, axis + 1)?;
    crate::api::shape::concatenate(&[&head, &tail], axis as isize)
}

/// NumPy's `array2string` for `str` (`separator=' '`) and `repr`
/// (`separator=', '`, `prefix='array('`, `suffix=')'`).
fn array2string(a: &Array, opts: &PrintOptions, sep: &str, prefix: &str, suffix: &str) -> String {
    if a.size() == 0 {
        return "[]".into();
    }
    let Some((data, values)) = shown_values(a, opts) else {
        return "[...]".into();
    };
    let dtype = a.dtype();
    if a.ndim() == 0 {
        let v = values.first().copied().unwrap_or(Scalar::Bool(false));
        return ElementFormat::for_0d(dtype, v, opts).format(v);
    }
    let f = ElementFormat::new(dtype, &values, opts);
    let words: Vec<String> = values.iter().map(|v| f.format(*v)).collect();
    let shape = data.shape();
    let mut strides = vec![1usize; shape.len()];
    for ax in (0..shape.len().saturating_sub(1)).rev() {
        strides[ax] = strides[ax + 1] * shape[ax + 1];
    }
    let edge = opts.edgeitems;
    let summarize = a.size() > opts.threshold;
    let lines = Lines {
        words: &words,
        shape,
        strides,
        cut: a
            .shape()
            .iter()
            .map(|&n| summarize && edge.saturating_mul(2) < n)
            .collect(),
        edge,
        sep,
    };
    let hanging = " ".repeat(1 + prefix.chars().count());
    let width =
        isize::try_from(opts.linewidth).unwrap_or(isize::MAX) - suffix.chars().count() as isize;
    lines.render(0, 0, &hanging, width)
}

/// The formatted elements of the shown (edge) array and how to lay them out.
struct Lines<'a> {
    words: &'a [String],
    /// Shape and C strides of the shown array.
    shape: &'a [usize],
    strides: Vec<usize>,
    /// Per axis: whether `...` stands for omitted items.
    cut: Vec<bool>,
    edge: usize,
    sep: &'a str,
}

impl Lines<'_> {
    /// The text of the sub-array at `offset` from `axis` on; `hanging` is
    /// the indentation of continuation lines, `width` the room left.
    fn render(&self, axis: usize, offset: usize, hanging: &str, width: isize) -> String {
        let ndim = self.shape.len();
        if axis == ndim {
            return self.words[offset].clone();
        }
        let next_hanging = format!("{hanging} ");
        let next_width = width - 1;
        let n = self.shape[axis];
        let stride = self.strides[axis];
        let (leading, trailing) = if self.cut[axis] {
            (self.edge, self.edge)
        } else {
            (0, n)
        };
        // Items in order: leading ones, the ellipsis, trailing ones (NumPy
        // always shows the last item, even with `edgeitems=0`).
        let items = (0..leading)
            .map(Some)
            .chain(self.cut[axis].then_some(None))
            .chain((1..=trailing.max(1)).rev().map(|i| Some(n - i)));
        let sep_trim = self.sep.trim_end();
        let mut s = String::new();
        if axis + 1 == ndim {
            let elem_width = width - sep_trim.len().max(1) as isize;
            let mut line = hanging.to_string();
            let mut first = true;
            for item in items {
                if !first {
                    line.push_str(self.sep);
                }
                first = false;
                let word = match item {
                    Some(i) => {
                        self.render(axis + 1, offset + i * stride, &next_hanging, next_width)
                    }
                    None => "...".to_string(),
                };
                extend_line(&mut s, &mut line, &word, elem_width, hanging);
            }
            s.push_str(&line);
        } else {
            let line_sep = format!("{sep_trim}{}", "\n".repeat(ndim - axis - 1));
            let mut first = true;
            for item in items {
                if !first {
                    s.push_str(&line_sep);
                }
                first = false;
                s.push_str(hanging);
                match item {
                    Some(i) => s.push_str(&self.render(
                        axis + 1,
                        offset + i * stride,
                        &next_hanging,
                        next_width,
                    )),
                    None => s.push_str("..."),
                }
            }
        }
        format!("[{}]", &s[hanging.len()..])
    }
}

/// NumPy's `_extendLine`: starts a new line when `word` would pass `width`
/// (unless the line holds nothing but the indentation).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: isize, indent: &str) {
    let too_long = (line.len() + word.len()) as isize > width;
    if too_long && line.len() > indent.len() {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = indent.to_string();
    }
    line.push_str(word);
}

// ---------------------------------------------------------------------------
// Floats: NumPy's FloatingFormat over Dragon4.
// ---------------------------------------------------------------------------

/// The binary float type whose digits are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FloatType {
    F16,
    BF16,
    F32,
    F64,
}

impl FloatType {
    /// The float type of a float dtype, or of a complex dtype's parts.
    fn of(dtype: DType) -> Option<FloatType> {
        match dtype {
            DType::Float16 => Some(FloatType::F16),
            DType::BFloat16 => Some(FloatType::BF16),
            DType::Float32 | DType::Complex64 => Some(FloatType::F32),
            DType::Float64 | DType::Complex128 => Some(FloatType::F64),
            _ => None,
        }
    }

    /// `x` rounded to this type (what NumPy's arithmetic in it yields).
    fn round(self, x: f64) -> f64 {
        match self {
            FloatType::F16 => f16::from_f64(x).to_f64(),
            FloatType::BF16 => bf16::from_f64(x).to_f64(),
            FloatType::F32 => x as f32 as f64,
            FloatType::F64 => x,
        }
    }

    /// `np.finfo(t).precision` (bfloat16: `ml_dtypes.finfo`).
    fn decimal_precision(self) -> i32 {
        match self {
            FloatType::F16 => 3,
            FloatType::BF16 => 2,
            FloatType::F32 => 6,
            FloatType::F64 => 15,
        }
    }

    /// Magnitude from which an array prints in scientific notation.
    fn array_exp_cutoff(self) -> f64 {
        10f64.powi(self.decimal_precision().min(8))
    }

    /// Magnitude from which a scalar prints in scientific notation.
    fn scalar_exp_cutoff(self) -> f64 {
        match self {
            FloatType::F64 => 1e16,
            t => 10f64.powi(t.decimal_precision()),
        }
    }

    /// (mantissa bits, exponent bits, exponent bias).
    fn layout(self) -> (u32, u32, i32) {
        match self {
            FloatType::F16 => (10, 5, 15),
            FloatType::BF16 => (7, 8, 127),
            FloatType::F32 => (23, 8, 127),
            FloatType::F64 => (52, 11, 1023),
        }
    }

    fn bits(self, x: f64) -> u64 {
        match self {
            FloatType::F16 => f16::from_f64(x).to_bits() as u64,
            FloatType::BF16 => bf16::from_f64(x).to_bits() as u64,
            FloatType::F32 => (x as f32).to_bits() as u64,
            FloatType::F64 => x.to_bits(),
        }
    }

    /// A finite value of this type as mantissa * 2^exponent.
    fn decode(self, x: f64) -> Decoded {
        let (mbits, ebits, bias) = self.layout();
        let bits = self.bits(x);
        let frac = bits & ((1u64 << mbits) - 1);
        let exp = ((bits >> mbits) & ((1u64 << ebits) - 1)) as i32;
        let negative = (bits >> (mbits + ebits)) & 1 == 1;
        if exp != 0 {
            Decoded {
                mantissa: (1u64 << mbits) | frac,
                exponent: exp - bias - mbits as i32,
                mantissa_bit: mbits,
                unequal_margins: exp != 1 && frac == 0,
                negative,
            }
        } else {
            Decoded {
                mantissa: frac,
                exponent: 1 - bias - mbits as i32,
                mantissa_bit: if frac == 0 {
                    0
                } else {
                    63 - frac.leading_zeros()
                },
                unequal_margins: false,
                negative,
            }
        }
    }
}

/// NumPy's `FloatingFormat` for one column of floats (or one part of complex numbers).
#[derive(Debug, Clone)]
struct FloatFormat {
    ty: FloatType,
    sign: Sign,
    scientific: bool,
    precision: i32,
    min_digits: i32,
    trim: Trim,
    pad_left: i32,
    pad_right: i32,
    exp_size: i32,
}

impl FloatFormat {
    fn new(values: &[f64], ty: FloatType, opts: &PrintOptions, sign: Sign) -> FloatFormat {
        // NumPy's digit buffer holds 16384 characters.
        let precision = opts.precision.min(16_000) as i32;
        let plus = sign == Sign::Plus;
        let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let mut f = FloatFormat {
            ty,
            sign,
            scientific: false,
            precision,
            min_digits: -1,
            trim: Trim::Dot,
            pad_left: 0,
            pad_right: 0,
            exp_size: -1,
        };
        let mut magnitudes = finite.iter().filter(|x| **x != 0.0).map(|x| x.abs());
        if let Some(first) = magnitudes.next() {
            let (mn, mx) = magnitudes.fold((first, first), |(lo, hi), x| (lo.min(x), hi.max(x)));
            // Compared in the element's type, as NumPy compares its scalars
            // with Python floats (NEP 50).
            let small = mn < ty.round(1e-4);
            let wide = ty.round(mx / mn) > 1000.0;
            f.scientific = mx >= ty.array_exp_cutoff() || (!opts.suppress && (small || wide));
        }
        if !finite.is_empty() {
            let texts: Vec<String> = finite
                .iter()
                .map(|&x| {
                    let d = ty.decode(x);
                    if f.scientific {
                        scientific(&d, precision, -1, Trim::Dot, plus, -1, -1)
                    } else {
                        positional(&d, precision, -1, Trim::Dot, plus, -1, -1)
                    }
                })
                .collect();
            let len = |s: &str| s.len() as i32;
            if f.scientific {
                let mut frac_max = 0;
                for t in &texts {
                    let (mant, exp) = t.split_once('e').unwrap_or((t, ""));
                    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
                    f.exp_size = f.exp_size.max(len(exp) - 1);
                    f.pad_left = f.pad_left.max(len(int));
                    frac_max = frac_max.max(len(frac));
                }
                f.precision = frac_max;
                f.min_digits = frac_max;
                f.trim = Trim::Keep;
                f.pad_right = f.exp_size + 2 + frac_max;
            } else {
                for t in &texts {
                    let (int, frac) = t.split_once('.').unwrap_or((t, ""));
                    f.pad_left = f.pad_left.max(len(int));
                    f.pad_right = f.pad_right.max(len(frac));
                }
                f.min_digits = 0;
            }
        }
        if sign == Sign::Space && !finite.iter().any(|x| x.is_sign_negative()) {
            f.pad_left += 1;
        }
        if finite.len() != values.len() {
            // Room for nan, inf and -inf.
            let neg_inf = sign != Sign::Minus || values.iter().any(|x| x.is_infinite() && *x < 0.0);
            let offset = f.pad_right + 1;
            f.pad_left = f.pad_left.max(3 - offset).max(3 + neg_inf as i32 - offset);
        }
        f
    }

    fn format(&self, x: f64) -> String {
        let plus = self.sign == Sign::Plus;
        if !x.is_finite() {
            let text = if x.is_nan() {
                if plus {
                    "+nan"
                } else {
                    "nan"
                }
            } else if x < 0.0 {
                "-inf"
            } else if plus {
                "+inf"
            } else {
                "inf"
            };
            let width = (self.pad_left + self.pad_right + 1).max(0) as usize;
            return format!("{text:>width$}");
        }
        let d = self.ty.decode(x);
        if self.scientific {
            scientific(
                &d,
                self.precision,
                self.min_digits,
                self.trim,
                plus,
                self.pad_left,
                self.exp_size,
            )
        } else {
            positional(
                &d,
                self.precision,
                self.min_digits,
                self.trim,
                plus,
                self.pad_left,
                self.pad_right,
            )
        }
    }
}

/// NumPy's `str()` of a float scalar: positional between 1e-4 and the
/// type's cutoff (or zero), else scientific; `trim` is the positional trim.
fn float_scalar_str(ty: FloatType, x: f64, trim: Trim, plus: bool) -> String {
    if x.is_nan() {
        return if plus { "+nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 {
            "-inf"
        } else if plus {
            "+inf"
        } else {
            "inf"
        }
        .into();
    }
    let d = ty.decode(x);
    let ax = x.abs();
    if ax == 0.0 || (ax >= 1e-4 && ax < ty.scalar_exp_cutoff()) {
        positional(&d, -1, -1, trim, plus, -1, -1)
    } else {
        scientific(&d, -1, -1, Trim::DotAndZeros, plus, -1, -1)
    }
}

/// NumPy's `str()` of a complex scalar: `(1+2j)`, `2j`, `(nan+infj)`.
fn complex_scalar_str(ty: FloatType, c: num_complex::Complex64) -> String {
    let part = |x: f64, plus: bool| float_scalar_str(ty, x, Trim::DotAndZeros, plus);
    if c.re == 0.0 && !c.re.is_sign_negative() {
        return format!("{}j", part(c.im, false));
    }
    format!("({}{}j)", part(c.re, false), part(c.im, true))
}

// ---------------------------------------------------------------------------
// Dragon4 (Steele & White / Burger & Dybvig, as NumPy's dragon4.c runs it):
// the shortest digits that identify a value in its own type, optionally cut
// at a number of digits, with IEEE unbiased rounding.
// ---------------------------------------------------------------------------

/// A finite float as `mantissa * 2^exponent`.
#[derive(Debug, Clone, Copy)]
struct Decoded {
    mantissa: u64,
    exponent: i32,
    /// Index of the highest set bit of the mantissa.
    mantissa_bit: u32,
    /// True when the gap to the next lower value is half the upper gap.
    unequal_margins: bool,
    negative: bool,
}

/// How trailing zeros and the point are treated (NumPy's `trim`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trim {
    /// `'k'`: keep trailing zeros (pad to `min_digits`) and the point.
    Keep,
    /// `'.'`: trim trailing zeros, keep the point (`1.`).
    Dot,
    /// `'0'`: trim trailing zeros but keep one (`1.0`).
    LeaveOneZero,
    /// `'-'`: trim trailing zeros and the point (`1`).
    DotAndZeros,
}

/// Whether cutoffs count digits after the point or all digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cutoff {
    Fraction,
    Total,
}

/// An unsigned big integer (little-endian 32-bit limbs, no high zero limbs).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    fn pow2(e: u32) -> Big {
        let mut b = Big::from_u64(1);
        b.shl(e);
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn is_even(&self) -> bool {
        self.0.first().is_none_or(|l| l % 2 == 0)
    }

    fn shl(&mut self, bits: u32) {
        if self.is_zero() {
            return;
        }
        let (limbs, rem) = ((bits / 32) as usize, bits % 32);
        if rem != 0 {
            let mut carry = 0u32;
            for l in self.0.iter_mut() {
                let next = *l >> (32 - rem);
                *l = (*l << rem) | carry;
                carry = next;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in self.0.iter_mut() {
            let p = *l as u64 * m as u64 + carry;
            *l = p as u32;
            carry = p >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
        if m == 0 {
            self.0.clear();
        }
    }

    fn mul_pow10(&mut self, mut e: u32) {
        while e >= 9 {
            self.mul_small(1_000_000_000);
            e -= 9;
        }
        if e > 0 {
            self.mul_small(10u32.pow(e));
        }
    }

    fn add(&self, o: &Big) -> Big {
        let (long, short) = if self.0.len() >= o.0.len() {
            (self, o)
        } else {
            (o, self)
        };
        let mut out = Vec::with_capacity(long.0.len() + 1);
        let mut carry = 0u64;
        for (i, &l) in long.0.iter().enumerate() {
            let s = l as u64 + *short.0.get(i).unwrap_or(&0) as u64 + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        if carry != 0 {
            out.push(carry as u32);
        }
        Big(out)
    }

    /// `self -= o`, for `self >= o`.
    fn sub_assign(&mut self, o: &Big) {
        let mut borrow = 0i64;
        for (i, l) in self.0.iter_mut().enumerate() {
            let d = *l as i64 - *o.0.get(i).unwrap_or(&0) as i64 - borrow;
            borrow = (d < 0) as i64;
            *l = d.rem_euclid(1 << 32) as u32;
        }
        self.trim();
    }

    fn compare(&self, o: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&o.0.len())
            .then_with(|| self.0.iter().rev().cmp(o.0.iter().rev()))
    }

    /// The digit `floor(self / d)` (below 10); `self` becomes the remainder.
    fn div_digit(&mut self, d: &Big) -> u32 {
        let mut q = 0;
        while self.compare(d) != Ordering::Less {
            self.sub_assign(d);
            q += 1;
        }
        q
    }
}

/// Dragon4 in unique mode: the digits of `v` (most significant first, at
/// least one) and the decimal exponent of the first digit. `cutoff_max`
/// stops after that many digits (-1: none); `cutoff_min` keeps going to at
/// least that many (-1: none); both counted as `mode` says.
fn dragon4(v: &Decoded, mode: Cutoff, cutoff_max: i32, cutoff_min: i32) -> (Vec<u8>, i32) {
    if v.mantissa == 0 {
        return (vec![b'0'], 0);
    }
    let is_even = Big::from_u64(v.mantissa).is_even();
    let mut value = Big::from_u64(v.mantissa);
    let mut scale;
    let mut margin_low;
    // Scale so that value = scaled_value / scale, margins = half the gaps
    // to the neighbouring floats (the upper one twice the lower one when unequal).
    let high_factor = if v.unequal_margins { 2 } else { 1 };
    if v.exponent > 0 {
        value.shl(v.exponent as u32 + high_factor);
        scale = Big::from_u64(2 * high_factor as u64);
        margin_low = Big::pow2(v.exponent as u32);
    } else {
        value.shl(high_factor);
        scale = Big::pow2((-v.exponent) as u32 + high_factor);
        margin_low = Big::from_u64(1);
    }
    let margin_high = |low: &Big| -> Big {
        let mut h = low.clone();
        if high_factor == 2 {
            h.shl(1);
        }
        h
    };
    use std::f64::consts::LOG10_2;
    let mut digit_exp =
        ((v.mantissa_bit as i32 + v.exponent) as f64 * LOG10_2 - 0.69).ceil() as i32;
    if cutoff_max >= 0 && mode == Cutoff::Fraction && digit_exp <= -cutoff_max {
        digit_exp = -cutoff_max + 1;
    }
    match digit_exp.cmp(&0) {
        Ordering::Greater => scale.mul_pow10(digit_exp as u32),
        Ordering::Less => {
            value.mul_pow10((-digit_exp) as u32);
            margin_low.mul_pow10((-digit_exp) as u32);
        }
        Ordering::Equal => {}
    }
    if value.compare(&scale) != Ordering::Less {
        digit_exp += 1;
    } else {
        value.mul_small(10);
        margin_low.mul_small(10);
    }
    let mut margin_hi = margin_high(&margin_low);
    // Beyond any realistic length (NumPy's buffer bound).
    let mut cutoff_max_exp = digit_exp - 16_384;
    if cutoff_max >= 0 {
        let desired = match mode {
            Cutoff::Total => digit_exp - cutoff_max,
            Cutoff::Fraction => -cutoff_max,
        };
        cutoff_max_exp = cutoff_max_exp.max(desired);
    }
    let mut cutoff_min_exp = digit_exp;
    if cutoff_min >= 0 {
        let desired = match mode {
            Cutoff::Total => digit_exp - cutoff_min,
            Cutoff::Fraction => -cutoff_min,
        };
        cutoff_min_exp = cutoff_min_exp.min(desired);
    }
    let mut out_exp = digit_exp - 1;
    let mut digits = Vec::new();
    let (mut low, mut high);
    let mut digit;
    loop {
        digit_exp -= 1;
        digit = value.div_digit(&scale);
        let value_high = value.add(&margin_hi);
        let c = value.compare(&margin_low);
        low = if is_even {
            c != Ordering::Greater
        } else {
            c == Ordering::Less
        };
        let c = value_high.compare(&scale);
        high = if is_even {
            c != Ordering::Less
        } else {
            c == Ordering::Greater
        };
        if ((low || high) && digit_exp <= cutoff_min_exp) || digit_exp == cutoff_max_exp {
            break;
        }
        digits.push(b'0' + digit as u8);
        value.mul_small(10);
        margin_low.mul_small(10);
        margin_hi = margin_high(&margin_low);
    }
    let mut round_down = low;
    if low == high {
        // Round to the closer digit; a tie goes to the even digit.
        value.shl(1);
        round_down = match value.compare(&scale) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => digit % 2 == 0,
        };
    }
    if round_down {
        digits.push(b'0' + digit as u8);
    } else if digit < 9 {
        digits.push(b'0' + digit as u8 + 1);
    } else {
        // Carry through trailing nines.
        loop {
            match digits.pop() {
                None => {
                    digits.push(b'1');
                    out_exp += 1;
                    break;
                }
                Some(b'9') => continue,
                Some(d) => {
                    digits.push(d + 1);
                    break;
                }
            }
        }
    }
    (digits, out_exp)
}

/// NumPy's `FormatPositional` (unique digits, fraction cutoff): `-12.375`.
/// `precision`, `min_digits`, `pad_left`, `pad_right`: -1 for none.
fn positional(
    v: &Decoded,
    precision: i32,
    min_digits: i32,
    trim: Trim,
    plus: bool,
    pad_left: i32,
    pad_right: i32,
) -> String {
    let sign = if v.negative {
        "-"
    } else if plus {
        "+"
    } else {
        ""
    };
    let (digits, exp10) = dragon4(v, Cutoff::Fraction, precision, min_digits);
    let digits = std::str::from_utf8(&digits).unwrap_or("0");
    let n = digits.len() as i32;
    let mut out = String::from(sign);
    let whole;
    let mut frac;
    if exp10 >= 0 {
        whole = exp10 + 1;
        if n <= whole {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', (whole - n) as usize));
            frac = 0;
        } else {
            out.push_str(&digits[..whole as usize]);
            out.push('.');
            out.push_str(&digits[whole as usize..]);
            frac = n - whole;
        }
    } else {
        whole = 1;
        let zeros = -(exp10 + 1);
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', zeros as usize));
        out.push_str(digits);
        frac = n + zeros;
    }
    if trim != Trim::DotAndZeros && frac == 0 {
        out.push('.');
    }
    match trim {
        Trim::LeaveOneZero if frac == 0 => {
            out.push('0');
            frac += 1;
        }
        Trim::Keep if min_digits.max(0) > frac => {
            out.extend(std::iter::repeat_n('0', (min_digits - frac) as usize));
            frac = min_digits;
        }
        _ => {}
    }
    if trim != Trim::Keep && frac > 0 {
        while out.ends_with('0') {
            out.pop();
            frac -= 1;
        }
        if out.ends_with('.') {
            match trim {
                Trim::LeaveOneZero => {
                    out.push('0');
                    frac += 1;
                }
                Trim::DotAndZeros => {
                    out.pop();
                }
                _ => {}
            }
        }
    }
    if pad_right >= frac {
        if trim == Trim::DotAndZeros && frac == 0 {
            out.push(' ');
        }
        out.extend(std::iter::repeat_n(' ', (pad_right - frac) as usize));
    }
    let used = whole + sign.len() as i32;
    if pad_left > used {
        out.insert_str(0, &" ".repeat((pad_left - used) as usize));
    }
    out
}

/// NumPy's `FormatScientific` (unique digits, `precision` digits after the
/// first at most): `-1.2375e+01`. -1 for none in the numeric arguments.
fn scientific(
    v: &Decoded,
    precision: i32,
    min_digits: i32,
    trim: Trim,
    plus: bool,
    pad_left: i32,
    exp_digits: i32,
) -> String {
    let sign = if v.negative {
        "-"
    } else if plus {
        "+"
    } else {
        ""
    };
    let mut out = String::new();
    let left = 1 + sign.len() as i32;
    if pad_left > left {
        out.push_str(&" ".repeat((pad_left - left) as usize));
    }
    out.push_str(sign);
    let cut = |p: i32| if p < 0 { -1 } else { p + 1 };
    let (digits, exp10) = dragon4(v, Cutoff::Total, cut(precision), cut(min_digits));
    let digits = std::str::from_utf8(&digits).unwrap_or("0");
    out.push_str(&digits[..1]);
    let mut frac = digits.len() as i32 - 1;
    if frac > 0 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    if trim != Trim::DotAndZeros && frac == 0 {
        out.push('.');
    }
    match trim {
        Trim::LeaveOneZero if frac == 0 => {
            out.push('0');
            frac += 1;
        }
        Trim::Keep if min_digits.max(0) > frac => {
            out.extend(std::iter::repeat_n('0', (min_digits - frac) as usize));
        }
        _ => {}
    }
    if trim != Trim::Keep && frac > 0 {
        while out.ends_with('0') {
            out.pop();
        }
        if trim == Trim::LeaveOneZero && out.ends_with('.') {
            out.push('0');
        }
    }
    let exp_digits = match exp_digits {
        d if d < 0 => 2,
        d => d.min(5) as usize,
    };
    let exp_sign = if exp10 < 0 { '-' } else { '+' };
    out.push_str(&format!(
        "e{exp_sign}{:0>exp_digits$}",
        exp10.unsigned_abs()
    ));
    out
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", repr(self))
    }
}

impl fmt::Display for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", str(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(ty: FloatType, x: f64, precision: i32, min_digits: i32, trim: Trim) -> String {
        positional(&ty.decode(x), precision, min_digits, trim, false, -1, -1)
    }

    fn sci(ty: FloatType, x: f64, precision: i32, min_digits: i32, trim: Trim) -> String {
        scientific(&ty.decode(x), precision, min_digits, trim, false, -1, -1)
    }

    #[test]
    fn dragon4_matches_numpy_format_float() {
        use FloatType::*;
        // NumPy 2.4: np.format_float_positional(np.float32(0.3)) -> '0.3'
        assert_eq!(pos(F32, 0.3f32 as f64, -1, -1, Trim::Keep), "0.3");
        // NumPy 2.4: np.format_float_positional(0.3) -> '0.3'
        assert_eq!(pos(F64, 0.3, -1, -1, Trim::Keep), "0.3");
        // NumPy 2.4: np.format_float_positional(np.float16(0.1)) -> '0.1'
        assert_eq!(
            pos(F16, f16::from_f64(0.1).to_f64(), -1, -1, Trim::Keep),
            "0.1"
        );
        // NumPy 2.4: np.format_float_positional(np.float16(0.1), min_digits=5) -> '0.09998'
        assert_eq!(
            pos(F16, f16::from_f64(0.1).to_f64(), 8, 5, Trim::Keep),
            "0.09998"
        );
        // NumPy 2.4: np.format_float_scientific(np.float32(0.3), precision=8, min_digits=7) -> '3.0000001e-01'
        assert_eq!(sci(F32, 0.3f32 as f64, 8, 7, Trim::Keep), "3.0000001e-01");
        // NumPy 2.4: np.format_float_positional(1/3, precision=8) -> '0.33333333'
        assert_eq!(pos(F64, 1.0 / 3.0, 8, -1, Trim::Keep), "0.33333333");
        // NumPy 2.4: np.format_float_positional(0.125, precision=2) -> '0.12'
        assert_eq!(pos(F64, 0.125, 2, -1, Trim::Keep), "0.12");
        // NumPy 2.4: np.format_float_positional(0.375, precision=2) -> '0.38'
        assert_eq!(pos(F64, 0.375, 2, -1, Trim::Keep), "0.38");
        // NumPy 2.4: np.format_float_positional(9.9999, precision=2) -> '10.'
        assert_eq!(pos(F64, 9.9999, 2, -1, Trim::Keep), "10.");
        // NumPy 2.4: np.format_float_positional(-1e-10, precision=8, trim='.') -> '-0.'
        assert_eq!(pos(F64, -1e-10, 8, -1, Trim::Dot), "-0.");
        // NumPy 2.4: np.format_float_scientific(1e23) -> '1.e+23'
        assert_eq!(sci(F64, 1e23, -1, -1, Trim::Keep), "1.e+23");
        // NumPy 2.4: np.format_float_scientific(5e-324) -> '4.9406564584124654e-324'
        assert_eq!(
            sci(F64, 5e-324, 17, 16, Trim::Keep),
            "4.9406564584124654e-324"
        );
        // NumPy 2.4: np.format_float_scientific(5e-324, unique=True) -> '5.e-324'
        assert_eq!(sci(F64, 5e-324, -1, -1, Trim::Keep), "5.e-324");
        // NumPy 2.4: np.format_float_positional(np.float64(2**60)) -> '1152921504606847000.'
        assert_eq!(
            pos(F64, 2f64.powi(60), -1, -1, Trim::Keep),
            "1152921504606847000."
        );
        // NumPy 2.4: np.format_float_positional(1.7976931348623157e308)[:25]
        //   -> '1797693134862315700000000'
        assert!(pos(F64, f64::MAX, -1, -1, Trim::Keep).starts_with("1797693134862315700000000"));
    }

    #[test]
    fn big_integers() {
        let mut a = Big::from_u64(u64::MAX);
        a.mul_pow10(20);
        let mut b = a.clone();
        b.shl(33);
        assert_eq!(b.compare(&a), Ordering::Greater);
        let mut c = a.add(&a);
        c.sub_assign(&a);
        assert_eq!(c, a);
        let mut d = Big::from_u64(95);
        assert_eq!(d.div_digit(&Big::from_u64(10)), 9);
        assert_eq!(d, Big::from_u64(5));
    }
}

//! NumPy-style text for arrays: `str(x)` and `repr(x)`, with print options.

use std::sync::RwLock;

use crate::array::Array;
use crate::dtype::DType;
use crate::element::Scalar;

/// How arrays are printed (`np.set_printoptions`).
#[derive(Debug, Clone, PartialEq)]
pub struct PrintOptions {
    /// Arrays with more elements than this are summarized with `...`.
    pub threshold: usize,
    /// Items shown at each edge of a summarized axis.
    pub edgeitems: usize,
    /// Significant digits after the point for floats.
    pub precision: usize,
    /// Line width before wrapping.
    pub linewidth: usize,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            threshold: 1000,
            edgeitems: 3,
            precision: 8,
            linewidth: 75,
        }
    }
}

static OPTIONS: RwLock<Option<PrintOptions>> = RwLock::new(None);

/// The current print options.
pub fn get_printoptions() -> PrintOptions {
    OPTIONS
        .read()
        .map(|o| o.clone().unwrap_or_default())
        .unwrap_or_default()
}

/// Replaces the print options used by `Display`, `Debug` and the notebook display.
pub fn set_printoptions(options: PrintOptions) {
    if let Ok(mut o) = OPTIONS.write() {
        *o = Some(options);
    }
}

/// Formats every value of one array so that they align, as NumPy does:
/// floats line up on the decimal point, complex numbers in two columns.
struct ValueFormatter {
    dtype: DType,
    precision: usize,
    scientific: bool,
    /// Widths of the integer and fraction parts of real (and imaginary) floats.
    re: Columns,
    im: Columns,
    width: usize,
}

#[derive(Default, Clone, Copy)]
struct Columns {
    int: usize,
    frac: usize,
}

impl ValueFormatter {
    fn new(dtype: DType, values: &[Scalar], opts: &PrintOptions) -> ValueFormatter {
        let mut f = ValueFormatter {
            dtype,
            precision: opts.precision,
            scientific: false,
            re: Columns::default(),
            im: Columns::default(),
            width: 0,
        };
        if dtype.is_inexact() {
            let parts =
                |pick: fn(Scalar) -> f64| -> Vec<f64> { values.iter().map(|v| pick(*v)).collect() };
            let re = parts(|v| v.as_c64().re);
            let im = parts(|v| v.as_c64().im);
            let finite_abs: Vec<f64> = re
                .iter()
                .chain(if dtype.is_complex() {
                    im.iter()
                } else {
                    [].iter()
                })
                .filter(|x| x.is_finite() && **x != 0.0)
                .map(|x| x.abs())
                .collect();
            if let (Some(mx), Some(mn)) = (
                finite_abs.iter().cloned().reduce(f64::max),
                finite_abs.iter().cloned().reduce(f64::min),
            ) {
                // NumPy's rule (FloatingFormat with suppress=False).
                f.scientific = mx >= 1e8 || mn < 1e-4 || mx / mn > 1e3;
            }
            f.re = f.columns(&re, false);
            f.im = f.columns(&im, true);
        }
        f.width = values.iter().map(|v| f.raw(*v).len()).max().unwrap_or(0);
        f
    }

    /// The plain text of a float before alignment (`"-3."`, `"0.25"`, `"1.5e-05"`).
    fn plain(&self, x: f64, sign: bool) -> String {
        let s = if x.is_nan() {
            "nan".to_string()
        } else if x.is_infinite() {
            if x > 0.0 { "inf" } else { "-inf" }.to_string()
        } else if self.scientific {
            let s = format!("{:.*e}", self.precision, x);
            let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
            let mant = trim_zeros(mant);
            let exp: i32 = exp.parse().unwrap_or(0);
            format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
        } else {
            trim_zeros(&format!("{:.*}", self.precision, x))
        };
        if sign && !s.starts_with('-') {
            format!("+{s}")
        } else {
            s
        }
    }

    fn split(s: &str) -> (&str, &str) {
        match s.find('.') {
            Some(i) => (&s[..i], &s[i + 1..]),
            None => (s, ""),
        }
    }

    fn columns(&self, xs: &[f64], sign: bool) -> Columns {
        let mut c = Columns::default();
        for &x in xs.iter().filter(|x| x.is_finite()) {
            let s = self.plain(x, sign);
            let (int, frac) = Self::split(&s);
            let frac = frac.split('e').next().unwrap_or("");
            c.int = c.int.max(int.len());
            c.frac = c.frac.max(frac.len());
        }
        c
    }

    /// A float aligned in its columns.
    fn aligned(&self, x: f64, cols: Columns, sign: bool) -> String {
        let s = self.plain(x, sign);
        let total = cols.int + 1 + cols.frac;
        if !x.is_finite() {
            return format!("{s:>total$}");
        }
        let (int, rest) = Self::split(&s);
        let (frac, exp) = match rest.split_once('e') {
            Some((f, e)) => (f, format!("e{e}")),
            None => (rest, String::new()),
        };
        if self.scientific {
            // Scientific mantissas are padded with zeros, as NumPy does.
            format!("{int:>w$}.{frac:0<f$}{exp}", w = cols.int, f = cols.frac)
        } else {
            format!("{int:>w$}.{frac:<f$}", w = cols.int, f = cols.frac)
        }
    }

    fn raw(&self, v: Scalar) -> String {
        match self.dtype {
            DType::Bool => if v.as_bool() { "True" } else { "False" }.into(),
            d if d.is_complex() => {
                let c = v.as_c64();
                format!(
                    "{}{}j",
                    self.aligned(c.re, self.re, false),
                    self.aligned(c.im, self.im, true)
                )
            }
            d if d.is_float() => self.aligned(v.as_f64(), self.re, false),
            _ => v.to_string(),
        }
    }

    fn fmt(&self, v: Scalar) -> String {
        format!("{:>w$}", self.raw(v), w = self.width)
    }
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') {
        let t = s.trim_end_matches('0');
        t.to_string()
    } else {
        s.to_string()
    }
}

/// Collects the shown elements (all, or the edges of a summarized array).
fn shown_values(a: &Array, summarize: bool, edge: usize) -> Vec<Scalar> {
    let all: Vec<Scalar> = crate::with_dtype!(a.dtype(), T => a.gather::<T>().into_iter().map(crate::Element::to_scalar).collect());
    if !summarize {
        return all;
    }
    let shape = a.shape();
    let mut out = Vec::new();
    let mut index = vec![0usize; shape.len()];
    for (k, v) in all.into_iter().enumerate() {
        let mut rem = k;
        for ax in (0..shape.len()).rev() {
            index[ax] = rem % shape[ax];
            rem /= shape[ax];
        }
        let shown = index
            .iter()
            .zip(shape)
            .all(|(&i, &n)| n <= 2 * edge || i < edge || i >= n - edge);
        if shown {
            out.push(v);
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn render(
    a: &Array,
    values: &[Scalar],
    pos: &mut usize,
    axis: usize,
    f: &ValueFormatter,
    summarize: bool,
    edge: usize,
    indent: usize,
    sep: &str,
) -> String {
    let shape = a.shape();
    let n = shape[axis];
    let cut = summarize && n > 2 * edge;
    let items: Vec<Option<usize>> = if cut {
        (0..edge)
            .map(Some)
            .chain([None])
            .chain((n - edge..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    };
    let last = axis + 1 == shape.len();
    let mut parts = Vec::new();
    for it in items {
        match it {
            None => parts.push("...".to_string()),
            Some(_) if last => {
                parts.push(f.fmt(values[*pos]));
                *pos += 1;
            }
            Some(_) => parts.push(render(
                a,
                values,
                pos,
                axis + 1,
                f,
                summarize,
                edge,
                indent + 1,
                sep,
            )),
        }
    }
    if last {
        format!("[{}]", parts.join(sep.trim_end_matches('\n')))
    } else {
        let newlines = "\n".repeat(shape.len() - axis - 1);
        let joiner = format!("{}{newlines}{}", sep.trim_end(), " ".repeat(indent + 1));
        format!("[{}]", parts.join(&joiner))
    }
}

fn body(a: &Array, sep: &str, indent: usize) -> String {
    let opts = get_printoptions();
    let summarize = a.size() > opts.threshold;
    let values = shown_values(a, summarize, opts.edgeitems);
    let f = ValueFormatter::new(a.dtype(), &values, &opts);
    if a.ndim() == 0 {
        return values.first().map(|v| f.raw(*v)).unwrap_or_default();
    }
    if a.size() == 0 {
        return "[]".into();
    }
    let mut pos = 0;
    render(
        a,
        &values,
        &mut pos,
        0,
        &f,
        summarize,
        opts.edgeitems,
        indent,
        sep,
    )
}

/// NumPy's `str(x)`: `[ 3. 12.]`.
pub fn str(a: &Array) -> String {
    body(a, " ", 0)
}

/// NumPy's `repr(x)`: `array([ 3., 12.], dtype=float32)`.
pub fn repr(a: &Array) -> String {
    let text = body(a, ", ", 6);
    let default_dtype = matches!(a.dtype(), DType::Float64 | DType::Int64 | DType::Bool);
    if default_dtype && a.size() > 0 {
        format!("array({text})")
    } else {
        let shape = if a.size() == 0 && a.ndim() != 1 {
            format!(", shape={}", crate::error::fmt_shape(a.shape()))
        } else {
            String::new()
        };
        format!("array({text}{shape}, dtype={})", a.dtype())
    }
}

//! Text tables: [`loadtxt`], [`genfromtxt`] (missing values as NaN) and
//! [`savetxt`]: the options, the parsing of one field and the printf
//! formats. Files are read by `table.rs`.

use std::io::Write;
use std::path::Path;

use num_complex::Complex64;

use super::{io_error, write_atomically};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{DType, Kind};
use crate::core::element::{Element, Scalar};
use crate::core::error::{fmt_shape, Error, Result};

/// Options of [`loadtxt`] and [`genfromtxt`], as NumPy's arguments of the
/// same names.
#[derive(Debug, Clone, PartialEq)]
pub struct TextOptions {
    /// The field separator (an ASCII character); `None` (the default):
    /// runs of whitespace.
    pub delimiter: Option<char>,
    /// Lines to skip at the start, comment lines included.
    pub skiprows: usize,
    /// The columns to read (negative counts from the end); `None`: all.
    pub usecols: Option<Vec<isize>>,
    /// The dtype of the result (float64 by default).
    pub dtype: DType,
    /// Text that starts a comment running to the end of the line (`"#"`
    /// by default); `None`: no comments.
    pub comments: Option<String>,
    /// The most data rows to read (after `skiprows`); `None`: all.
    pub max_rows: Option<usize>,
    /// The fewest dimensions of the result (0, 1 or 2); axes of length 1
    /// are squeezed down to it, as NumPy's `ndmin`.
    pub ndmin: usize,
    /// The device of the result; `None` is the current device.
    pub device: Option<Device>,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            delimiter: None,
            skiprows: 0,
            usecols: None,
            dtype: DType::Float64,
            comments: Some("#".into()),
            max_rows: None,
            ndmin: 0,
            device: None,
        }
    }
}

option_setters!(TextOptions {
    /// The field separator (`None`: whitespace).
    delimiter: Option<char>,
    /// Lines to skip at the start, comment lines included.
    skiprows: usize,
    /// The columns to read (negative from the end; `None`: all).
    usecols: Option<Vec<isize>>,
    /// The dtype of the result.
    dtype: DType,
    /// The comment marker (`None`: no comments).
    comments: Option<String>,
    /// The most data rows to read.
    max_rows: Option<usize>,
    /// The fewest dimensions of the result (0, 1 or 2).
    ndmin: usize,
    /// The device of the result (`None`: the current device).
    device: Option<Device>,
});

/// Options of [`savetxt`], as NumPy's arguments of the same names.
#[derive(Debug, Clone, PartialEq)]
pub struct SaveTxtOptions {
    /// A printf-style format for each value (`%.18e` by default; `d`, `i`,
    /// `e`, `E`, `f`, `F`, `g`, `G` and `s` with flags, width and precision),
    /// with optional text around it.
    pub fmt: String,
    /// The text between columns (`" "` by default).
    pub delimiter: String,
    /// The text ending each line (`"\n"` by default).
    pub newline: String,
    /// Text written before the data, each line prefixed by `comments`.
    pub header: String,
    /// Text written after the data, each line prefixed by `comments`.
    pub footer: String,
    /// The prefix of header and footer lines (`"# "` by default).
    pub comments: String,
}

impl Default for SaveTxtOptions {
    fn default() -> Self {
        SaveTxtOptions {
            fmt: "%.18e".into(),
            delimiter: " ".into(),
            newline: "\n".into(),
            header: String::new(),
            footer: String::new(),
            comments: "# ".into(),
        }
    }
}

option_setters!(SaveTxtOptions {
    /// The printf-style format of each value.
    fmt: String,
    /// The text between columns.
    delimiter: String,
    /// The text ending each line.
    newline: String,
    /// Text written before the data.
    header: String,
    /// Text written after the data.
    footer: String,
    /// The prefix of header and footer lines.
    comments: String,
});

/// Loads a text table (`np.loadtxt`): one row per line, fields split by
/// `delimiter` or whitespace, comments and blank lines skipped; every row
/// must have the same number of columns and every field must parse.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_loadtxt.csv");
/// std::fs::write(&path, "# x, y\n1, 2\n3, 4.5\n").unwrap();
/// let a = cp::loadtxt(&path, &cp::TextOptions::default().delimiter(Some(',')))?;
/// assert_eq!(a.shape(), &[2, 2]);
/// assert_eq!(a.to_vec::<f64>()?, vec![1.0, 2.0, 3.0, 4.5]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn loadtxt(path: impl AsRef<Path>, options: &TextOptions) -> Result<Array> {
    super::table::read_table("loadtxt", path.as_ref(), options, false)
}

/// Loads a text table as [`loadtxt`] does, reading empty or unparsable
/// fields as NaN (`np.genfromtxt` with its default missing values); the
/// dtype must be a float or complex dtype.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_genfromtxt.csv");
/// std::fs::write(&path, "1,,3\n4,NA,6\n").unwrap();
/// let a = cp::genfromtxt(&path, &cp::TextOptions::default().delimiter(Some(',')))?;
/// let v = a.to_vec::<f64>()?;
/// assert!(v[1].is_nan() && v[4].is_nan());
/// assert_eq!((v[0], v[5]), (1.0, 6.0));
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn genfromtxt(path: impl AsRef<Path>, options: &TextOptions) -> Result<Array> {
    let op = "genfromtxt";
    if !matches!(options.dtype.kind(), Kind::Float | Kind::Complex) {
        return Err(Error::DType {
            op,
            detail: format!(
                "missing values are read as NaN, which {} cannot hold; use a float or complex dtype (or loadtxt)",
                options.dtype
            ),
        });
    }
    super::table::read_table(op, path.as_ref(), options, true)
}

/// A complex number as NumPy writes it: `1+2j`, `(1-2.5e3j)`, `-3j`, `4`.
fn parse_complex(s: &str) -> Option<Complex64> {
    let s = s
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or(s);
    let Some(body) = s.strip_suffix(['j', 'J']) else {
        return s.parse::<f64>().ok().map(|re| Complex64::new(re, 0.0));
    };
    // The sign that splits the parts: not the first character, not an exponent's.
    let bytes = body.as_bytes();
    let split = (1..bytes.len())
        .rev()
        .find(|&i| matches!(bytes[i], b'+' | b'-') && !matches!(bytes[i - 1], b'e' | b'E'));
    match split {
        Some(i) => Some(Complex64::new(
            body[..i].parse().ok()?,
            body[i..].parse().ok()?,
        )),
        None => Some(Complex64::new(0.0, body.parse().ok()?)),
    }
}

/// One field as a scalar of `dtype`'s kind, or `None` when it does not
/// parse (or an integer does not fit).
pub(super) fn parse_field(text: &str, dtype: DType) -> Option<Scalar> {
    let s = match dtype.kind() {
        Kind::Bool => match text.to_ascii_lowercase().as_str() {
            "true" => Scalar::Bool(true),
            "false" => Scalar::Bool(false),
            t => Scalar::Bool(t.parse::<i64>().ok()? != 0),
        },
        Kind::Int => Scalar::Int(text.parse().ok()?),
        Kind::UInt => Scalar::UInt(text.parse().ok()?),
        // Parsed straight as f32 to round once.
        Kind::Float if dtype == DType::Float32 => Scalar::Float(text.parse::<f32>().ok()? as f64),
        Kind::Float => Scalar::Float(text.parse().ok()?),
        Kind::Complex => Scalar::Complex(parse_complex(text)?),
    };
    s.fits(dtype).then_some(s)
}

/// NumPy's `_ensure_ndmin_ndarray`: squeeze axes of length 1 when the
/// table has more than `ndmin` dimensions, then add axes up to `ndmin`
/// (a column for ndmin 2).
pub(super) fn ndmin_shape(shape: &[usize], ndmin: usize) -> Vec<usize> {
    let mut s = shape.to_vec();
    if s.len() > ndmin {
        s.retain(|&d| d != 1);
    }
    match (s.len(), ndmin) {
        (0, 1) => vec![1],
        (0, 2) => vec![1, 1],
        (1, 2) => vec![s[0], 1],
        _ => s,
    }
}

/// One printf conversion, with the text around it.
#[derive(Debug, Clone)]
struct Spec {
    prefix: String,
    suffix: String,
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    alternate: bool,
    width: usize,
    precision: Option<usize>,
    conversion: char,
}

impl Spec {
    fn parse(fmt: &str) -> Result<Spec> {
        let bad = |why: &str| Error::InvalidArgument {
            op: "savetxt",
            detail: format!("fmt {fmt:?}: {why}"),
        };
        let start = fmt
            .match_indices('%')
            .map(|(i, _)| i)
            .find(|&i| !fmt[i..].starts_with("%%"))
            .ok_or_else(|| bad("no % conversion"))?;
        let mut spec = Spec {
            prefix: fmt[..start].replace("%%", "%"),
            suffix: String::new(),
            left: false,
            plus: false,
            space: false,
            zero: false,
            alternate: false,
            width: 0,
            precision: None,
            conversion: 'e',
        };
        let mut chars = fmt[start + 1..].char_indices().peekable();
        while let Some(&(_, c)) = chars.peek() {
            match c {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '0' => spec.zero = true,
                '#' => spec.alternate = true,
                _ => break,
            }
            chars.next();
        }
        let number = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
            let mut n: Option<usize> = None;
            while let Some(&(_, c)) = chars.peek() {
                let Some(d) = c.to_digit(10) else { break };
                n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d as usize));
                chars.next();
            }
            n
        };
        spec.width = number(&mut chars).unwrap_or(0).min(1 << 10);
        if chars.peek().is_some_and(|&(_, c)| c == '.') {
            chars.next();
            spec.precision = Some(number(&mut chars).unwrap_or(0).min(1 << 10));
        }
        let (at, conversion) = chars
            .next()
            .ok_or_else(|| bad("the conversion is cut off"))?;
        if !"diueEfFgGs".contains(conversion) {
            return Err(bad(&format!("unsupported conversion %{conversion}")));
        }
        spec.conversion = conversion;
        let rest = &fmt[start + 1 + at + conversion.len_utf8()..];
        if rest.replace("%%", "").contains('%') {
            return Err(bad("give one conversion, used for every column"));
        }
        spec.suffix = rest.replace("%%", "%");
        Ok(spec)
    }

    /// `value` formatted as C's printf would.
    fn format(&self, value: Scalar) -> String {
        let upper = self.conversion.is_ascii_uppercase();
        let (negative, digits) = match (self.conversion, value) {
            ('d' | 'i' | 'u', Scalar::Int(i)) => (i < 0, i.unsigned_abs().to_string()),
            ('d' | 'i' | 'u', Scalar::UInt(u)) => (false, u.to_string()),
            ('d' | 'i' | 'u', Scalar::Bool(b)) => (false, (b as u8).to_string()),
            ('s', Scalar::Int(i)) => (i < 0, i.unsigned_abs().to_string()),
            ('s', Scalar::UInt(u)) => (false, u.to_string()),
            ('s', Scalar::Bool(b)) => (false, if b { "True" } else { "False" }.into()),
            (_, v) => {
                let x = v.as_f64();
                let negative = x.is_sign_negative() && !x.is_nan();
                let a = x.abs();
                let digits = if !a.is_finite() {
                    let t = if a.is_nan() { "nan" } else { "inf" };
                    if upper {
                        t.to_ascii_uppercase()
                    } else {
                        t.into()
                    }
                } else {
                    match self.conversion {
                        'd' | 'i' | 'u' => format!("{}", a.trunc()),
                        'f' | 'F' => format!("{a:.*}", self.precision.unwrap_or(6)),
                        'e' | 'E' => exp_form(a, self.precision.unwrap_or(6), upper),
                        's' => format!("{a}"),
                        _ => self.general(a, upper),
                    }
                };
                (negative, digits)
            }
        };
        let sign = if negative {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        };
        let len = sign.len() + digits.len();
        let pad = self.width.saturating_sub(len);
        let finite = digits.starts_with(|c: char| c.is_ascii_digit());
        let body = if self.left {
            format!("{sign}{digits}{}", " ".repeat(pad))
        } else if self.zero && finite {
            format!("{sign}{}{digits}", "0".repeat(pad))
        } else {
            format!("{}{sign}{digits}", " ".repeat(pad))
        };
        format!("{}{body}{}", self.prefix, self.suffix)
    }

    /// `%g`: `%e` or `%f` by the exponent, trailing zeros removed.
    fn general(&self, a: f64, upper: bool) -> String {
        let p = self.precision.unwrap_or(6).max(1);
        let exponent = if a == 0.0 {
            0
        } else {
            let e = format!("{a:.*e}", p - 1);
            e[e.find('e').map_or(0, |i| i + 1)..]
                .parse::<i32>()
                .unwrap_or(0)
        };
        let mut s = if exponent < -4 || exponent >= p as i32 {
            exp_form(a, p - 1, upper)
        } else {
            format!("{a:.*}", (p as i32 - 1 - exponent).max(0) as usize)
        };
        if !self.alternate {
            let (mantissa, exp) = match s.find(['e', 'E']) {
                Some(i) => s.split_at(i),
                None => (&s[..], ""),
            };
            let mantissa = if mantissa.contains('.') {
                mantissa.trim_end_matches('0').trim_end_matches('.')
            } else {
                mantissa
            };
            s = format!("{mantissa}{exp}");
        }
        s
    }
}

/// `a >= 0` as C's `%.{precision}e`: `1.500000e+00`.
fn exp_form(a: f64, precision: usize, upper: bool) -> String {
    let s = format!("{a:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{e}{sign}{:02}", exp.unsigned_abs())
}

/// Saves a 1-D or 2-D array as a text table (`np.savetxt`): a 1-D array
/// one value per line, a 2-D array one row per line; complex values as
/// NumPy writes them, ` (re+imj)` (`re-imj` for a negative imaginary part). A GPU array is copied to the host.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_savetxt.csv");
/// let a = cp::asarray(vec![vec![1.0, 2.5], vec![-3.0, 4.0]])?;
/// cp::savetxt(&path, &a, &cp::SaveTxtOptions::default().fmt("%.2f".into()).delimiter(",".into()))?;
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "1.00,2.50\n-3.00,4.00\n");
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn savetxt(path: impl AsRef<Path>, a: &Array, options: &SaveTxtOptions) -> Result<()> {
    let op = "savetxt";
    let path = path.as_ref();
    let (rows, cols) = match a.shape() {
        [n] => (*n, 1),
        [r, c] => (*r, *c),
        s => {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "only 1-D and 2-D arrays are written as text, not shape {}",
                    fmt_shape(s)
                ),
            })
        }
    };
    let spec = Spec::parse(&options.fmt)?;
    let values: Vec<Scalar> = crate::with_dtype!(a.dtype(), T => a.to_vec::<T>()?.into_iter().map(T::to_scalar).collect());
    let complex = a.dtype().kind() == Kind::Complex;
    let commented = |text: &str| {
        let mut s = String::new();
        for line in text.split('\n') {
            s.push_str(&options.comments);
            s.push_str(line);
            s.push_str(&options.newline);
        }
        s
    };
    write_atomically(op, path, None, |w| {
        let mut out = |s: &str| w.write_all(s.as_bytes()).map_err(|e| io_error(op, path, e));
        if !options.header.is_empty() {
            out(&commented(&options.header))?;
        }
        let mut line = String::new();
        for r in 0..rows {
            line.clear();
            for c in 0..cols {
                if c > 0 {
                    line.push_str(&options.delimiter);
                }
                let v = values[r * cols + c];
                if complex {
                    let z = v.as_c64();
                    line.push_str(" (");
                    line.push_str(&spec.format(Scalar::Float(z.re)));
                    line.push('+');
                    line.push_str(&spec.format(Scalar::Float(z.im)));
                    line.push_str("j)");
                } else {
                    line.push_str(&spec.format(v));
                }
            }
            line.push_str(&options.newline);
            if complex {
                // As NumPy: a negative imaginary part reads `re-imj`.
                line = line.replace("+-", "-");
            }
            out(&line)?;
        }
        if !options.footer.is_empty() {
            out(&commented(&options.footer))?;
        }
        Ok(())
    })
}

//! Text tables: [`loadtxt`], [`genfromtxt`] (missing values as NaN) and
//! [`savetxt`]. Delimited files are split by the `csv` crate; whitespace
//! tables (the default, where runs of spaces and tabs separate fields,
//! which `csv` does not do) are split here.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use num_complex::Complex64;

use super::{format_error, io_error, open, write_atomically};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Kind};
use crate::element::{Element, Scalar};
use crate::error::{fmt_shape, Error, Result};

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
    read_table("loadtxt", path.as_ref(), options, false)
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
    read_table(op, path.as_ref(), options, true)
}

/// Calls `row` with the 1-based line number and the fields of each data
/// row of `input`, after `skiprows` lines, with comments, blank lines
/// and the whitespace around fields removed; stops after `max_rows` rows.
fn for_each_row(
    op: &'static str,
    path: &Path,
    input: impl BufRead,
    options: &TextOptions,
    row: &mut dyn FnMut(u64, &[&str]) -> Result<()>,
) -> Result<()> {
    let comment = options.comments.as_deref().filter(|c| !c.is_empty());
    let max_rows = options.max_rows.unwrap_or(usize::MAX);
    let mut rows = 0usize;
    let not_utf8 = |line: u64| format_error(op, path, format!("line {line} is not valid UTF-8"));
    match options.delimiter {
        None => {
            let mut line = String::new();
            let mut reader = input;
            let mut number = 0u64;
            while rows < max_rows {
                line.clear();
                let got = reader.read_line(&mut line).map_err(|e| match e.kind() {
                    std::io::ErrorKind::InvalidData => not_utf8(number + 1),
                    _ => io_error(op, path, e),
                })?;
                if got == 0 {
                    break;
                }
                number += 1;
                if number <= options.skiprows as u64 {
                    continue;
                }
                let text = match comment.and_then(|c| line.find(c)) {
                    Some(at) => &line[..at],
                    None => &line[..],
                };
                let fields: Vec<&str> = text.split_whitespace().collect();
                if !fields.is_empty() {
                    row(number, &fields)?;
                    rows += 1;
                }
            }
        }
        Some(d) => {
            let delimiter = u8::try_from(d).ok().filter(u8::is_ascii).ok_or_else(|| {
                Error::invalid(op, format!("the delimiter {d:?} is not an ASCII character"))
            })?;
            let mut reader = csv::ReaderBuilder::new()
                .delimiter(delimiter)
                .has_headers(false)
                .flexible(true)
                .trim(csv::Trim::All)
                .from_reader(input);
            let mut record = csv::ByteRecord::new();
            while rows < max_rows {
                let more = reader.read_byte_record(&mut record).map_err(|e| {
                    format_error(op, path, format!("malformed delimited text: {e}"))
                })?;
                if !more {
                    break;
                }
                let number = record.position().map_or(0, |p| p.line());
                if number <= options.skiprows as u64 {
                    continue;
                }
                let mut fields: Vec<&str> = Vec::with_capacity(record.len());
                for field in record.iter() {
                    let text = std::str::from_utf8(field).map_err(|_| not_utf8(number))?;
                    match comment.and_then(|c| text.find(c)) {
                        Some(at) => {
                            let kept = text[..at].trim();
                            if !kept.is_empty() || !fields.is_empty() {
                                fields.push(kept);
                            }
                            break;
                        }
                        None => fields.push(text),
                    }
                }
                // A blank line is one empty field.
                if !(fields.is_empty() || fields.len() == 1 && fields[0].is_empty()) {
                    row(number, &fields)?;
                    rows += 1;
                }
            }
        }
    }
    Ok(())
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
fn parse_field(text: &str, dtype: DType) -> Option<Scalar> {
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

fn read_table(
    op: &'static str,
    path: &Path,
    options: &TextOptions,
    missing_as_nan: bool,
) -> Result<Array> {
    if options.ndmin > 2 {
        return Err(Error::invalid(
            op,
            format!("ndmin must be 0, 1 or 2, not {}", options.ndmin),
        ));
    }
    let (file, _) = open(op, path)?;
    let input = BufReader::with_capacity(1 << 20, file);
    let dtype = options.dtype;
    let mut columns: Option<Vec<usize>> = None;
    let mut width = 0usize;
    let mut rows = 0usize;
    let data = crate::with_dtype!(dtype, T => {
        let mut values: Vec<T> = Vec::new();
        for_each_row(op, path, input, options, &mut |line, fields| {
            let cols = match columns.take() {
                Some(c) => c,
                None => {
                    width = fields.len();
                    match &options.usecols {
                        None => (0..width).collect(),
                        Some(u) => u
                            .iter()
                            .map(|&c| {
                                crate::layout::normalize_axis(op, c, width).map_err(|_| {
                                    format_error(op, path, format!(
                                        "usecols index {c} is out of range for the {width} columns of line {line}"
                                    ))
                                })
                            })
                            .collect::<Result<Vec<usize>>>()?,
                    }
                }
            };
            if options.usecols.is_none() && fields.len() != width {
                return Err(format_error(op, path, format!(
                    "line {line} has {} columns, but the first data row has {width}",
                    fields.len()
                )));
            }
            for &c in cols.iter() {
                let Some(&text) = fields.get(c) else {
                    return Err(format_error(op, path, format!(
                        "line {line} has {} columns, too few for column {c}",
                        fields.len()
                    )));
                };
                let value = match parse_field(text, dtype) {
                    Some(v) => T::from_scalar(v),
                    None if missing_as_nan => T::from_scalar(Scalar::Float(f64::NAN)),
                    None => {
                        return Err(format_error(op, path, format!(
                            "line {line}, column {c}: {text:?} is not a valid {dtype}"
                        )))
                    }
                };
                values.push(value);
            }
            columns = Some(cols);
            rows += 1;
            Ok(())
        })?;
        T::into_data(values)
    });
    let ncols = columns.map_or(0, |c| c.len());
    let shape = if rows == 0 {
        vec![0]
    } else {
        vec![rows, ncols]
    };
    let shape = ndmin_shape(&shape, options.ndmin);
    let device = options.device.unwrap_or_else(crate::device::current_device);
    Array::from_host(data, &shape, device)
}

/// NumPy's `_ensure_ndmin_ndarray`: squeeze axes of length 1 when the
/// table has more than `ndmin` dimensions, then add axes up to `ndmin`
/// (a column for ndmin 2).
fn ndmin_shape(shape: &[usize], ndmin: usize) -> Vec<usize> {
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
    write_atomically(op, path, |w| {
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

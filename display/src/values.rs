//! NumPy-style text for individual elements, all of one array formatted
//! together so that they align (`np.array2string`'s element formatters).
//!
//! Floats print the shortest digits that identify the value *in its own
//! dtype* (so float32 `0.3` prints `0.3`), at most `precision` after the
//! point; the array switches to scientific notation by NumPy's rule
//! (`max >= 1e8`, `min < 1e-4` or `max / min > 1e3` over finite non-zero
//! magnitudes). Complex numbers format their real and imaginary parts
//! separately, as NumPy does.

use cuprite::half::{bf16, f16};
use cuprite::{DType, Scalar};

/// Which float type a value came from (decides its shortest digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FloatType {
    F16,
    BF16,
    F32,
    F64,
}

impl FloatType {
    fn of(dtype: DType) -> FloatType {
        match dtype {
            DType::Float16 => FloatType::F16,
            DType::BFloat16 => FloatType::BF16,
            DType::Float32 | DType::Complex64 => FloatType::F32,
            _ => FloatType::F64,
        }
    }

    /// True when `text` parses back to the same value of this type as `x`.
    fn round_trips(self, text: &str, x: f64) -> bool {
        let Ok(y) = text.parse::<f64>() else {
            return false;
        };
        match self {
            FloatType::F64 => y == x,
            FloatType::F32 => y as f32 == x as f32,
            FloatType::F16 => f16::from_f64(y) == f16::from_f64(x),
            FloatType::BF16 => bf16::from_f64(y) == bf16::from_f64(x),
        }
    }
}

/// `x` in positional notation with the fewest fraction digits (at most
/// `precision`) that identify it; trailing zeros trimmed, the point kept.
fn positional(x: f64, ty: FloatType, precision: usize) -> String {
    let mut text = format!("{x:.precision$}");
    for k in 0..precision {
        let s = format!("{x:.k$}");
        if ty.round_trips(&s, x) {
            text = s;
            break;
        }
    }
    trim_fraction(&text)
}

/// `x` in scientific notation: (mantissa with the point kept, exponent).
fn scientific(x: f64, ty: FloatType, precision: usize) -> (String, i32) {
    let mut text = format!("{x:.precision$e}");
    for k in 0..precision {
        let s = format!("{x:.k$e}");
        if ty.round_trips(&s, x) {
            text = s;
            break;
        }
    }
    let (mant, exp) = text.split_once('e').unwrap_or((&text, "0"));
    (trim_fraction(mant), exp.parse().unwrap_or(0))
}

/// `"2.500"` → `"2.5"`, `"3"` → `"3."`, `"-0"` → `"-0."`.
fn trim_fraction(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').to_string()
    } else {
        format!("{s}.")
    }
}

fn split_point(s: &str) -> (&str, &str) {
    match s.find('.') {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    }
}

/// One float column's format, decided from all the values shown.
struct FloatFormat {
    ty: FloatType,
    precision: usize,
    sign_plus: bool,
    scientific: bool,
    pad_left: usize,
    pad_right: usize,
    exp_digits: usize,
}

impl FloatFormat {
    fn new(values: &[f64], ty: FloatType, precision: usize, sign_plus: bool) -> FloatFormat {
        let mut f = FloatFormat {
            ty,
            precision,
            sign_plus,
            scientific: false,
            pad_left: 0,
            pad_right: 0,
            exp_digits: 2,
        };
        let finite: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let nonzero = finite.iter().filter(|x| **x != 0.0).map(|x| x.abs());
        let (mut mn, mut mx) = (f64::INFINITY, 0.0f64);
        for a in nonzero {
            mn = mn.min(a);
            mx = mx.max(a);
        }
        if mx > 0.0 {
            f.scientific = mx >= 1e8 || mn < 1e-4 || mx / mn > 1e3;
        }
        for &x in &finite {
            let (int, frac, exp) = f.parts(x);
            f.pad_left = f.pad_left.max(int.len());
            f.pad_right = f.pad_right.max(frac.len());
            if let Some(e) = exp {
                f.exp_digits = f.exp_digits.max(e.unsigned_abs().to_string().len());
            }
        }
        if finite.len() != values.len() {
            // Room for nan / inf / -inf, as NumPy makes.
            let neg_inf = values.iter().any(|x| x.is_infinite() && *x < 0.0) || sign_plus;
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max(3usize.saturating_sub(offset))
                .max((3 + neg_inf as usize).saturating_sub(offset));
        }
        f
    }

    /// Integer part (with sign), fraction digits and exponent of a finite value.
    fn parts(&self, x: f64) -> (String, String, Option<i32>) {
        let (text, exp) = if self.scientific {
            let (m, e) = scientific(x, self.ty, self.precision);
            (m, Some(e))
        } else {
            (positional(x, self.ty, self.precision), None)
        };
        let (int, frac) = split_point(&text);
        let int = if self.sign_plus && !int.starts_with('-') {
            format!("+{int}")
        } else {
            int.to_string()
        };
        (int, frac.to_string(), exp)
    }

    fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let word = if x.is_nan() {
                "nan"
            } else if x > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            let word = if self.sign_plus && !word.starts_with('-') {
                format!("+{word}")
            } else {
                word.to_string()
            };
            let width = self.pad_left + self.pad_right + 1;
            return format!("{word:>width$}");
        }
        let (int, frac, exp) = self.parts(x);
        match exp {
            Some(e) => {
                // Scientific mantissas are padded with zeros (`1.0e-05, 1.5e-05`).
                let sign = if e < 0 { '-' } else { '+' };
                format!(
                    "{int:>l$}.{frac:0<r$}e{sign}{:0>d$}",
                    e.unsigned_abs(),
                    l = self.pad_left,
                    r = self.pad_right,
                    d = self.exp_digits
                )
            }
            None => format!(
                "{int:>l$}.{frac:<r$}",
                l = self.pad_left,
                r = self.pad_right
            ),
        }
    }
}

/// Formats the elements of one array (of `dtype`) together; returns one
/// string per value, all padded to the same width.
pub fn format_elements(dtype: DType, values: &[Scalar], precision: usize) -> Vec<String> {
    let raw: Vec<String> = if dtype.is_bool() {
        values
            .iter()
            .map(|v| if v.as_bool() { "True" } else { "False" }.to_string())
            .collect()
    } else if dtype.is_complex() {
        let ty = FloatType::of(dtype);
        let re: Vec<f64> = values.iter().map(|v| v.as_c64().re).collect();
        let im: Vec<f64> = values.iter().map(|v| v.as_c64().im).collect();
        let fre = FloatFormat::new(&re, ty, precision, false);
        let fim = FloatFormat::new(&im, ty, precision, true);
        re.iter()
            .zip(&im)
            .map(|(r, i)| {
                let i = fim.format(*i);
                let used = i.trim_end().len();
                format!(
                    "{}{}j{}",
                    fre.format(*r),
                    &i[..used],
                    " ".repeat(i.len() - used)
                )
            })
            .collect()
    } else if dtype.is_float() {
        let xs: Vec<f64> = values.iter().map(|v| v.as_f64()).collect();
        let f = FloatFormat::new(&xs, FloatType::of(dtype), precision, false);
        xs.iter().map(|x| f.format(*x)).collect()
    } else {
        values.iter().map(|v| v.to_string()).collect()
    };
    let width = raw.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    raw.into_iter()
        .map(|s| {
            let pad = width - s.chars().count();
            format!("{}{s}", " ".repeat(pad))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64s(xs: &[f64]) -> Vec<Scalar> {
        xs.iter().map(|x| Scalar::Float(*x)).collect()
    }

    #[test]
    fn floats_like_numpy() {
        // NumPy 2.4: np.array([1.5, -2.25, 3]) -> array([ 1.5 , -2.25,  3.  ])
        assert_eq!(
            format_elements(DType::Float64, &f64s(&[1.5, -2.25, 3.0]), 8),
            [" 1.5 ", "-2.25", " 3.  "]
        );
        // NumPy 2.4: np.array([1e-5, 1.5e-5, 100.]) -> array([1.0e-05, 1.5e-05, 1.0e+02])
        assert_eq!(
            format_elements(DType::Float64, &f64s(&[1e-5, 1.5e-5, 100.0]), 8),
            ["1.0e-05", "1.5e-05", "1.0e+02"]
        );
        // NumPy 2.4: np.array([np.nan, np.inf, -np.inf, 1.5]) -> array([ nan,  inf, -inf,  1.5])
        assert_eq!(
            format_elements(
                DType::Float64,
                &f64s(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.5]),
                8
            ),
            [" nan", " inf", "-inf", " 1.5"]
        );
        // NumPy 2.4: np.array([1e20, 1.0]) -> array([1.e+20, 1.e+00])
        assert_eq!(
            format_elements(DType::Float64, &f64s(&[1e20, 1.0]), 8),
            ["1.e+20", "1.e+00"]
        );
        // NumPy 2.4: np.array([np.nan, 1.0, -np.inf], dtype=np.float32) -> array([ nan,   1., -inf], ...)
        assert_eq!(
            format_elements(
                DType::Float32,
                &f64s(&[f64::NAN, 1.0, f64::NEG_INFINITY]),
                8
            ),
            [" nan", "  1.", "-inf"]
        );
        // NumPy 2.4: np.array([123456789.0, 1.5]) -> array([1.23456789e+08, 1.50000000e+00])
        assert_eq!(
            format_elements(DType::Float64, &f64s(&[123456789.0, 1.5]), 8),
            ["1.23456789e+08", "1.50000000e+00"]
        );
        // NumPy 2.4: np.array([-1.5, 0.25], dtype=np.float16) -> array([-1.5 ,  0.25], ...)
        assert_eq!(
            format_elements(DType::Float16, &f64s(&[-1.5, 0.25]), 8),
            ["-1.5 ", " 0.25"]
        );
        // NumPy 2.4: np.array(1/3) -> array(0.33333333)
        assert_eq!(
            format_elements(DType::Float64, &f64s(&[1.0 / 3.0]), 8),
            ["0.33333333"]
        );
    }

    #[test]
    fn float32_and_float16_use_their_own_shortest_digits() {
        // NumPy 2.4: np.array([0.1, 0.3], dtype=np.float32) -> array([0.1, 0.3], dtype=float32)
        let v = [Scalar::Float(0.1f32 as f64), Scalar::Float(0.3f32 as f64)];
        assert_eq!(format_elements(DType::Float32, &v, 8), ["0.1", "0.3"]);
        let v = [Scalar::Float(f16::from_f64(0.1).to_f64())];
        assert_eq!(format_elements(DType::Float16, &v, 8), ["0.1"]);
    }

    #[test]
    fn complex_and_bool() {
        use cuprite::num_complex::Complex64;
        // NumPy 2.4: np.array([1+2j, -3.5-0.25j]) -> array([ 1. +2.j  , -3.5-0.25j])
        let v = [
            Scalar::Complex(Complex64::new(1.0, 2.0)),
            Scalar::Complex(Complex64::new(-3.5, -0.25)),
        ];
        assert_eq!(
            format_elements(DType::Complex128, &v, 8),
            [" 1. +2.j  ", "-3.5-0.25j"]
        );
        // NumPy 2.4: np.array([1+2j, -0.5j, 3.25, 1e-3+1j])
        //   -> [ 1.00e+00+2.j , -0.00e+00-0.5j,  3.25e+00+0.j ,  1.00e-03+1.j ]
        let v = [
            Scalar::Complex(Complex64::new(1.0, 2.0)),
            Scalar::Complex(Complex64::new(-0.0, -0.5)),
            Scalar::Complex(Complex64::new(3.25, 0.0)),
            Scalar::Complex(Complex64::new(1e-3, 1.0)),
        ];
        assert_eq!(
            format_elements(DType::Complex128, &v, 8),
            [
                " 1.00e+00+2.j ",
                "-0.00e+00-0.5j",
                " 3.25e+00+0.j ",
                " 1.00e-03+1.j "
            ]
        );
        // NumPy 2.4: np.array([True, False]) -> array([ True, False])
        let v = [Scalar::Bool(true), Scalar::Bool(false)];
        assert_eq!(format_elements(DType::Bool, &v, 8), [" True", "False"]);
    }
}

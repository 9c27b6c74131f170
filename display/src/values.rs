//! NumPy-style text for individual elements, all of one array formatted
//! together so that they align (`np.array2string`'s element formatters).
//!
//! This is the runtime's formatter ([`cuprite::format::ElementFormat`]), the
//! one behind `text/plain` (`repr`), so the HTML tables and the text agree:
//! shortest digits in the element's own dtype, NumPy's switch to scientific
//! notation, complex parts formatted separately, and the current print
//! options (`suppress`, `sign`).

use cuprite::format::PrintOptions;
use cuprite::{DType, Scalar};

/// Formats the elements of one array (of `dtype`) together, with the
/// current print options but `precision` digits at most after the point;
/// returns one string per value, all padded to the same width.
pub fn format_elements(dtype: DType, values: &[Scalar], precision: usize) -> Vec<String> {
    let opts = PrintOptions {
        precision,
        ..cuprite::get_printoptions()
    };
    cuprite::format::format_elements(dtype, values, &opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuprite::half::f16;

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

//! The three forms of a linear filter (transfer function `ba`, zeros-poles-
//! gain `zpk`, second-order sections `sos`) and SciPy's conversions between
//! them (`tf2zpk`, `zpk2tf`, `zpk2sos`, `sos2zpk`, `tf2sos`, `sos2tf`).
//!
//! Designs are small (a few dozen coefficients), so they live on the host
//! as plain `Vec`s; [`Sos::to_array`] and [`Ba::to_arrays`] put them on a
//! device for the filtering functions.

use num_complex::Complex64;

use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::error::{fmt_shape, Error, Result};

/// A transfer function `b(z) / a(z)` (coefficients in decreasing powers).
#[derive(Debug, Clone, PartialEq)]
pub struct Ba {
    /// Numerator coefficients.
    pub b: Vec<f64>,
    /// Denominator coefficients.
    pub a: Vec<f64>,
}

/// Zeros, poles and gain: `k * prod(s - z) / prod(s - p)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Zpk {
    /// Zeros.
    pub z: Vec<Complex64>,
    /// Poles.
    pub p: Vec<Complex64>,
    /// System gain.
    pub k: f64,
}

/// Second-order sections: each row `[b0, b1, b2, a0, a1, a2]` is one biquad,
/// applied in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Sos {
    /// The sections, first applied first.
    pub sections: Vec<[f64; 6]>,
}

/// A filter design in the form SciPy's `output` asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// Numerator and denominator (`output='ba'`).
    Ba(Ba),
    /// Zeros, poles, gain (`output='zpk'`).
    Zpk(Zpk),
    /// Second-order sections (`output='sos'`).
    Sos(Sos),
}

/// Which form a design returns (SciPy's `output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FilterForm {
    /// Transfer function coefficients (SciPy's default).
    #[default]
    Ba,
    /// Zeros, poles and gain.
    Zpk,
    /// Second-order sections (recommended for filtering).
    Sos,
}

impl FilterForm {
    /// `"ba"`, `"zpk"` or `"sos"`.
    pub fn parse(s: &str) -> Result<FilterForm> {
        match s.to_ascii_lowercase().as_str() {
            "ba" => Ok(FilterForm::Ba),
            "zpk" => Ok(FilterForm::Zpk),
            "sos" => Ok(FilterForm::Sos),
            _ => Err(Error::invalid(
                "FilterForm::parse",
                format!("'{s}' is not a valid output form (ba, zpk or sos)"),
            )),
        }
    }
}

/// How `zpk2sos` pairs poles with zeros (SciPy's `pairing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pairing {
    /// Each pole with its nearest zero; an odd order gets a padded section.
    Nearest,
    /// As `Nearest`, but an odd order keeps a first-order section.
    KeepOdd,
    /// No padding of the last section (the only choice for analog filters).
    Minimal,
}

impl Filter {
    /// The transfer function, converting from the other forms.
    pub fn ba(&self) -> Result<Ba> {
        match self {
            Filter::Ba(ba) => Ok(ba.clone()),
            Filter::Zpk(f) => zpk2tf(&f.z, &f.p, f.k),
            Filter::Sos(s) => sos2tf(&s.sections),
        }
    }

    /// Zeros, poles and gain, converting from the other forms.
    pub fn zpk(&self) -> Result<Zpk> {
        match self {
            Filter::Ba(f) => tf2zpk(&f.b, &f.a),
            Filter::Zpk(f) => Ok(f.clone()),
            Filter::Sos(s) => sos2zpk(&s.sections),
        }
    }

    /// Second-order sections (digital pairing), converting from the other forms.
    pub fn sos(&self) -> Result<Sos> {
        match self {
            Filter::Ba(f) => tf2sos(&f.b, &f.a, None, false),
            Filter::Zpk(f) => zpk2sos(&f.z, &f.p, f.k, None, false),
            Filter::Sos(s) => Ok(s.clone()),
        }
    }
}

impl Sos {
    /// The sections as a float64 array of shape (n_sections, 6) on the current device.
    pub fn to_array(&self) -> Result<Array> {
        let flat: Vec<f64> = self.sections.iter().flatten().copied().collect();
        Array::from_host_slice(&flat, &[self.sections.len(), 6], current_device())
    }
}

impl Ba {
    /// `b` and `a` as float64 arrays on the current device (for `lfilter`).
    pub fn to_arrays(&self) -> Result<(Array, Array)> {
        let dev = current_device();
        Ok((
            Array::from_host_slice(&self.b, &[self.b.len()], dev)?,
            Array::from_host_slice(&self.a, &[self.a.len()], dev)?,
        ))
    }
}

/// Anything that holds second-order sections: a [`Sos`], an array of shape
/// (n_sections, 6) on any device, or rows of six coefficients.
pub trait SosCoefficients {
    /// The sections as host rows; `op` names the caller in errors.
    fn sections(&self, op: &'static str) -> Result<Vec<[f64; 6]>>;
    /// The dtype the coefficients take part in type promotion with.
    fn dtype(&self) -> crate::DType {
        crate::DType::Float64
    }
}

impl SosCoefficients for Sos {
    fn sections(&self, op: &'static str) -> Result<Vec<[f64; 6]>> {
        self.sections.as_slice().sections(op)
    }
}

impl SosCoefficients for [[f64; 6]] {
    fn sections(&self, op: &'static str) -> Result<Vec<[f64; 6]>> {
        if self.is_empty() {
            return Err(Error::shape(
                op,
                "sos must have at least one section (shape (n_sections, 6))",
            ));
        }
        Ok(self.to_vec())
    }
}

impl SosCoefficients for Vec<[f64; 6]> {
    fn sections(&self, op: &'static str) -> Result<Vec<[f64; 6]>> {
        self.as_slice().sections(op)
    }
}

impl SosCoefficients for Array {
    fn dtype(&self) -> crate::DType {
        Array::dtype(self)
    }

    fn sections(&self, op: &'static str) -> Result<Vec<[f64; 6]>> {
        if self.ndim() != 2 || self.shape()[1] != 6 || self.shape()[0] == 0 {
            return Err(Error::shape(
                op,
                format!(
                    "sos must be shape (n_sections, 6) with n_sections >= 1, not {}",
                    fmt_shape(self.shape())
                ),
            ));
        }
        if self.dtype().is_complex() {
            return Err(Error::DType {
                op,
                detail: format!("sos must be real, not {}", self.dtype()),
            });
        }
        // A handful of coefficients: read directly, not a counted host round trip of data.
        let v = self.astype(crate::DType::Float64)?.to_vec::<f64>()?;
        Ok(v.chunks_exact(6)
            .map(|c| [c[0], c[1], c[2], c[3], c[4], c[5]])
            .collect())
    }
}

/// The roots of the polynomial `c` (decreasing powers), as `numpy.roots`:
/// eigenvalues of the companion matrix (faer), zeros for trailing zeros.
pub(crate) fn roots(op: &'static str, c: &[f64]) -> Result<Vec<Complex64>> {
    let first = c.iter().position(|&x| x != 0.0);
    let last = c.iter().rposition(|&x| x != 0.0);
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(Vec::new());
    };
    let trailing = c.len() - last - 1;
    let p = &c[first..=last];
    let n = p.len() - 1;
    let mut out = Vec::with_capacity(n + trailing);
    if n > 0 {
        let mut m = faer::Mat::<f64>::zeros(n, n);
        for j in 0..n {
            m[(0, j)] = -p[j + 1] / p[0];
        }
        for i in 1..n {
            m[(i, i - 1)] = 1.0;
        }
        let w = m.eigenvalues().map_err(|e| Error::LinAlg {
            op,
            detail: format!("polynomial roots did not converge ({e:?})"),
        })?;
        out.extend(w.iter().map(|z| Complex64::new(z.re, z.im)));
    }
    out.extend(std::iter::repeat_n(Complex64::new(0.0, 0.0), trailing));
    Ok(out)
}

/// The monic polynomial with these roots (`numpy.poly`), complex coefficients.
pub(crate) fn poly_complex(roots: &[Complex64]) -> Vec<Complex64> {
    let mut a = vec![Complex64::new(1.0, 0.0)];
    for &r in roots {
        a.push(Complex64::new(0.0, 0.0));
        for i in (1..a.len()).rev() {
            let prev = a[i - 1];
            a[i] -= r * prev;
        }
    }
    a
}

/// The monic polynomial with these roots, which must be closed under
/// conjugation so the coefficients are real (as `numpy.poly` decides).
pub(crate) fn poly_real(op: &'static str, roots: &[Complex64]) -> Result<Vec<f64>> {
    let a = poly_complex(roots);
    let scale = a.iter().map(|c| c.norm()).fold(0.0f64, f64::max);
    let worst = a.iter().map(|c| c.im.abs()).fold(0.0f64, f64::max);
    if worst > 1e-9 * scale.max(1.0) {
        return Err(Error::invalid(
            op,
            "the roots are not closed under complex conjugation, so the polynomial has complex coefficients (only real filters are supported)",
        ));
    }
    Ok(a.iter().map(|c| c.re).collect())
}

/// `b` and `a` scaled so `a[0] == 1`, with leading zeros of `a` and leading
/// (near-)zeros of `b` removed (`scipy.signal.normalize`).
pub(crate) fn normalize(op: &'static str, b: &[f64], a: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    let Some(first) = a.iter().position(|&x| x != 0.0) else {
        return Err(Error::invalid(
            op,
            "the denominator must have at least one nonzero element",
        ));
    };
    if b.is_empty() {
        return Err(Error::invalid(op, "the numerator must not be empty"));
    }
    let a0 = a[first];
    let den: Vec<f64> = a[first..].iter().map(|x| x / a0).collect();
    let num: Vec<f64> = b.iter().map(|x| x / a0).collect();
    let lead = num.iter().take_while(|x| x.abs() <= 1e-14).count();
    let lead = lead.min(num.len() - 1);
    Ok((num[lead..].to_vec(), den))
}

/// Zeros, poles and gain of the transfer function `b / a` (`scipy.signal.tf2zpk`).
pub fn tf2zpk(b: &[f64], a: &[f64]) -> Result<Zpk> {
    let op = "tf2zpk";
    let (b, a) = normalize(op, b, a)?;
    let k = b[0];
    let bn: Vec<f64> = b.iter().map(|x| x / k).collect();
    Ok(Zpk {
        z: roots(op, &bn)?,
        p: roots(op, &a)?,
        k,
    })
}

/// The transfer function of zeros `z`, poles `p` and gain `k` (`scipy.signal.zpk2tf`).
pub fn zpk2tf(z: &[Complex64], p: &[Complex64], k: f64) -> Result<Ba> {
    let op = "zpk2tf";
    let b = poly_real(op, z)?.iter().map(|c| k * c).collect();
    Ok(Ba {
        b,
        a: poly_real(op, p)?,
    })
}

/// Second-order sections of the transfer function `b / a` (`scipy.signal.tf2sos`).
pub fn tf2sos(b: &[f64], a: &[f64], pairing: Option<Pairing>, analog: bool) -> Result<Sos> {
    let f = tf2zpk(b, a)?;
    zpk2sos(&f.z, &f.p, f.k, pairing, analog)
}

/// The transfer function of second-order sections (`scipy.signal.sos2tf`).
pub fn sos2tf(sos: &[[f64; 6]]) -> Result<Ba> {
    let sections = sos.sections("sos2tf")?;
    let mut b = vec![1.0];
    let mut a = vec![1.0];
    for s in &sections {
        b = polymul(&b, &s[..3]);
        a = polymul(&a, &s[3..]);
    }
    Ok(Ba { b, a })
}

/// Zeros, poles and gain of second-order sections (`scipy.signal.sos2zpk`):
/// two zeros and two poles per section (zeros at the origin pad sections
/// of lower order).
pub fn sos2zpk(sos: &[[f64; 6]]) -> Result<Zpk> {
    let sections = sos.sections("sos2zpk")?;
    let zero = Complex64::new(0.0, 0.0);
    let mut z = vec![zero; 2 * sections.len()];
    let mut p = vec![zero; 2 * sections.len()];
    let mut k = 1.0;
    for (i, s) in sections.iter().enumerate() {
        let f = tf2zpk(&s[..3], &s[3..])?;
        z[2 * i..2 * i + f.z.len()].copy_from_slice(&f.z);
        p[2 * i..2 * i + f.p.len()].copy_from_slice(&f.p);
        k *= f.k;
    }
    Ok(Zpk { z, p, k })
}

fn polymul(x: &[f64], y: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; x.len() + y.len() - 1];
    for (i, a) in x.iter().enumerate() {
        for (j, b) in y.iter().enumerate() {
            out[i + j] += a * b;
        }
    }
    out
}

/// `z` split into the positive-imaginary member of each conjugate pair
/// (averaged with its partner) and the real values, each sorted by real
/// part (`scipy.signal._cplxreal`).
pub(crate) fn cplxreal(op: &'static str, z: &[Complex64]) -> Result<(Vec<Complex64>, Vec<f64>)> {
    let tol = 100.0 * f64::EPSILON;
    let mut z = z.to_vec();
    z.sort_by(|a, b| {
        a.re.total_cmp(&b.re)
            .then(a.im.abs().total_cmp(&b.im.abs()))
    });
    let is_real = |c: &Complex64| c.im.abs() <= tol * c.norm();
    let zr: Vec<f64> = z.iter().filter(|c| is_real(c)).map(|c| c.re).collect();
    let rest: Vec<Complex64> = z.iter().filter(|c| !is_real(c)).copied().collect();
    let mut zp: Vec<Complex64> = rest.iter().filter(|c| c.im > 0.0).copied().collect();
    let mut zn: Vec<Complex64> = rest.iter().filter(|c| c.im < 0.0).copied().collect();
    let unmatched = || {
        Error::invalid(
            op,
            "the array contains a complex value with no matching conjugate",
        )
    };
    if zp.len() != zn.len() {
        return Err(unmatched());
    }
    // Runs of equal real part: order each by |imag| so conjugates line up.
    let mut start = 0;
    while start < zp.len() {
        let mut stop = start + 1;
        while stop < zp.len() && zp[stop].re - zp[stop - 1].re <= tol * zp[stop - 1].norm() {
            stop += 1;
        }
        for chunk in [&mut zp[start..stop], &mut zn[start..stop]] {
            chunk.sort_by(|a, b| a.im.abs().total_cmp(&b.im.abs()));
        }
        start = stop;
    }
    if zp
        .iter()
        .zip(&zn)
        .any(|(a, b)| (a - b.conj()).norm() > tol * b.norm())
    {
        return Err(unmatched());
    }
    let zc = zp
        .iter()
        .zip(&zn)
        .map(|(a, b)| (a + b.conj()) / 2.0)
        .collect();
    Ok((zc, zr))
}

/// The index into `fro` of the value nearest `to` among the real ones,
/// the complex ones, or any (`scipy.signal._nearest_real_complex_idx`).
fn nearest(fro: &[Complex64], to: Complex64, which: Option<bool>) -> Option<usize> {
    let mut order: Vec<usize> = (0..fro.len()).collect();
    order.sort_by(|&i, &j| (fro[i] - to).norm().total_cmp(&(fro[j] - to).norm()));
    order
        .into_iter()
        .find(|&i| which.is_none_or(|real| (fro[i].im == 0.0) == real))
}

/// One section `[b, a]` of the given zeros and poles (at most two each),
/// right-aligned as SciPy's `_single_zpksos`.
fn single_section(op: &'static str, z: &[Complex64], p: &[Complex64]) -> Result<[f64; 6]> {
    let b = poly_real(op, z)?;
    let a = poly_real(op, p)?;
    let mut s = [0.0; 6];
    s[3 - b.len()..3].copy_from_slice(&b);
    s[6 - a.len()..6].copy_from_slice(&a);
    Ok(s)
}

/// Second-order sections of zeros `z`, poles `p` and gain `k`
/// (`scipy.signal.zpk2sos`), paired as SciPy does: poles closest to the
/// unit circle (the imaginary axis when `analog`) go last, each with its
/// nearest zeros. `pairing` defaults to `Nearest` (`Minimal` when `analog`).
pub fn zpk2sos(
    z: &[Complex64],
    p: &[Complex64],
    k: f64,
    pairing: Option<Pairing>,
    analog: bool,
) -> Result<Sos> {
    let op = "zpk2sos";
    let pairing = pairing.unwrap_or(if analog {
        Pairing::Minimal
    } else {
        Pairing::Nearest
    });
    if analog && pairing != Pairing::Minimal {
        return Err(Error::invalid(
            op,
            "for analog zpk2sos conversion, pairing must be minimal",
        ));
    }
    if z.is_empty() && p.is_empty() {
        let s = if analog {
            [0.0, 0.0, k, 0.0, 0.0, 1.0]
        } else {
            [k, 0.0, 0.0, 1.0, 0.0, 0.0]
        };
        return Ok(Sos { sections: vec![s] });
    }
    let zero = Complex64::new(0.0, 0.0);
    let (mut z, mut p) = (z.to_vec(), p.to_vec());
    let n_sections;
    if pairing != Pairing::Minimal {
        let n = z.len().max(p.len());
        z.resize(n, zero);
        p.resize(n, zero);
        n_sections = n.div_ceil(2);
        if p.len() % 2 == 1 && pairing == Pairing::Nearest {
            p.push(zero);
            z.push(zero);
        }
    } else {
        if p.len() < z.len() {
            return Err(Error::invalid(
                op,
                format!(
                    "for analog zpk2sos conversion, there must be at least as many poles as zeros ({} < {})",
                    p.len(),
                    z.len()
                ),
            ));
        }
        n_sections = p.len().div_ceil(2);
    }
    let joined = |(c, r): (Vec<Complex64>, Vec<f64>)| -> Vec<Complex64> {
        c.into_iter()
            .chain(r.into_iter().map(|x| Complex64::new(x, 0.0)))
            .collect()
    };
    let mut z = joined(cplxreal(op, &z)?);
    let mut p = joined(cplxreal(op, &p)?);
    let worst = |p: &[Complex64]| -> usize {
        let badness = |c: &Complex64| {
            if analog {
                c.re.abs()
            } else {
                (1.0 - c.norm()).abs()
            }
        };
        let mut best = 0;
        for i in 1..p.len() {
            if badness(&p[i]) < badness(&p[best]) {
                best = i;
            }
        }
        best
    };
    let is_real = |c: &Complex64| c.im == 0.0;
    let mut sos = vec![[0.0; 6]; n_sections];
    for si in (0..n_sections).rev() {
        // `cplxreal` keeps one of each conjugate pair: poles that are not
        // in pairs (NaN among them) run out before the sections do.
        if p.is_empty() {
            return Err(Error::invalid(
                op,
                format!("the poles do not fill {n_sections} sections: complex poles without their conjugates"),
            ));
        }
        let p1 = p.remove(worst(&p));
        let real_poles = p.iter().filter(|c| is_real(c)).count();
        let real_zeros = z.iter().filter(|c| is_real(c)).count();
        let take = |z: &mut Vec<Complex64>, which: Option<bool>| -> Result<Complex64> {
            let i = nearest(z, p1, which).ok_or_else(|| {
                Error::invalid(op, "internal: no zero of the kind needed to pair a pole")
            })?;
            Ok(z.remove(i))
        };
        sos[si] = if is_real(&p1) && real_poles == 0 {
            if pairing != Pairing::Minimal {
                let z1 = take(&mut z, Some(true))?;
                single_section(op, &[z1, zero], &[p1, zero])?
            } else if !z.is_empty() {
                let z1 = take(&mut z, Some(true))?;
                single_section(op, &[z1], &[p1])?
            } else {
                single_section(op, &[], &[p1])?
            }
        } else if p.len() + 1 == z.len() && !is_real(&p1) && real_poles == 1 && real_zeros == 1 {
            let z1 = take(&mut z, Some(false))?;
            single_section(op, &[z1, z1.conj()], &[p1, p1.conj()])?
        } else {
            let p2 = if is_real(&p1) {
                let reals: Vec<usize> = (0..p.len()).filter(|&i| is_real(&p[i])).collect();
                let sub: Vec<Complex64> = reals.iter().map(|&i| p[i]).collect();
                p.remove(reals[worst(&sub)])
            } else {
                p1.conj()
            };
            if z.is_empty() {
                single_section(op, &[], &[p1, p2])?
            } else {
                let z1 = take(&mut z, None)?;
                if !is_real(&z1) {
                    single_section(op, &[z1, z1.conj()], &[p1, p2])?
                } else if !z.is_empty() {
                    let z2 = take(&mut z, Some(true))?;
                    single_section(op, &[z1, z2], &[p1, p2])?
                } else {
                    single_section(op, &[z1], &[p1, p2])?
                }
            }
        };
    }
    for c in &mut sos[0][..3] {
        *c *= k;
    }
    Ok(Sos { sections: sos })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_and_poly_round_trip() {
        // (x - 1)(x - 2)(x^2 + 1) with a trailing zero root.
        let c = [1.0, -3.0, 3.0, -3.0, 2.0, 0.0];
        let r = roots("test", &c).unwrap();
        assert_eq!(r.len(), 5);
        assert!(r.iter().any(|z| z.norm() == 0.0), "{r:?}");
        let back = poly_real("test", &r).unwrap();
        for (x, y) in back.iter().zip(c) {
            assert!((x - y).abs() < 1e-12, "{back:?}");
        }
    }
}

//! Element math of SciPy's special functions (`scipy.special`): the CPU
//! halves of the ufunc table's `special::` rows.
//!
//! Every function computes in f64 and rounds once to the element type, as
//! SciPy's float32 loops do for most of these functions: the float32,
//! float16 and bfloat16 results are the float64 ones correctly rounded
//! (the GPU halves compute float32 in float32 where CUDA has the function
//! natively, so the two agree within a few float32 ulps there).
//!
//! Where a well-kept crate has the function to an ulp, it is used: `libm`
//! (Rust's port of musl) for `erf`, `erfc`, `gamma`, `gammaln`, `j0`, `j1`,
//! `y0`, `y1`. Bessel functions of real order are written here
//! (`bessel_order`: no crate has them for non-integer orders). The rest follow the algorithms SciPy uses (Cephes and
//! Boost through SciPy's `xsf` library), with their published coefficients
//! in `tables.rs`, so results agree with SciPy's to a few ulps; the module
//! of each family says what it adds.

mod bessel;
mod bessel_order;
mod elementary;
mod error_fn;
mod gamma_fn;
mod incomplete_beta;
mod incomplete_gamma;
mod inverse;
mod poly;
mod tables;
mod zeta;

use half::{bf16, f16};

/// `gammaln` of one f64, for code that needs the value of a parameter
/// (the front end's distributions).
pub(crate) fn gammaln_f64(x: f64) -> f64 {
    gamma_fn::gammaln(x)
}

/// `betaln` of two f64s, as [`gammaln_f64`].
pub(crate) fn betaln_f64(a: f64, b: f64) -> f64 {
    gamma_fn::betaln(a, b)
}

use crate::core::element::Element;

/// Declares the trait of special functions with one method per function,
/// each computing in f64 through the family module's function.
macro_rules! special_functions {
    (
        unary { $($u:ident => $uf:path,)* }
        binary { $($b:ident => $bf:path,)* }
        ternary { $($t:ident => $tf:path,)* }
    ) => {
        /// SciPy's special functions of a real float element, computed in
        /// f64 and rounded once to the element type.
        pub(crate) trait Special: Element {
            /// The element as f64 (exact for every real float type).
            fn widen(self) -> f64;
            /// The f64 result rounded to the element type.
            fn narrow(v: f64) -> Self;
            $(
                #[inline]
                fn $u(self) -> Self {
                    Self::narrow($uf(self.widen()))
                }
            )*
            $(
                #[inline]
                fn $b(self, other: Self) -> Self {
                    Self::narrow($bf(self.widen(), other.widen()))
                }
            )*
            $(
                #[inline]
                fn $t(self, b: Self, c: Self) -> Self {
                    Self::narrow($tf(self.widen(), b.widen(), c.widen()))
                }
            )*
        }
    };
}

special_functions! {
    unary {
        erf => error_fn::erf,
        erfc => error_fn::erfc,
        erfcx => error_fn::erfcx,
        erfinv => error_fn::erfinv,
        erfcinv => error_fn::erfcinv,
        ndtr => error_fn::ndtr,
        ndtri => error_fn::ndtri,
        log_ndtr => error_fn::log_ndtr,
        gamma => gamma_fn::gamma,
        gammaln => gamma_fn::gammaln,
        digamma => gamma_fn::digamma,
        loggamma => gamma_fn::loggamma,
        expit => elementary::expit,
        logit => elementary::logit,
        log_expit => elementary::log_expit,
        entr => elementary::entr,
        i0 => bessel::i0,
        i0e => bessel::i0e,
        i1 => bessel::i1,
        i1e => bessel::i1e,
        k0 => bessel::k0,
        k0e => bessel::k0e,
        k1 => bessel::k1,
        k1e => bessel::k1e,
        j0 => bessel::j0,
        j1 => bessel::j1,
        y0 => bessel::y0,
        y1 => bessel::y1,
    }
    binary {
        beta => gamma_fn::beta,
        betaln => gamma_fn::betaln,
        gammainc => incomplete_gamma::gammainc,
        gammaincc => incomplete_gamma::gammaincc,
        gammaincinv => inverse::gammaincinv,
        gammainccinv => inverse::gammainccinv,
        zeta => zeta::zeta,
        polygamma => zeta::polygamma,
        binom => gamma_fn::binom,
        huber => elementary::huber,
        pseudo_huber => elementary::pseudo_huber,
        xlogy => elementary::xlogy,
        xlog1py => elementary::xlog1py,
        rel_entr => elementary::rel_entr,
        kl_div => elementary::kl_div,
        jv => bessel_order::jv,
        yv => bessel_order::yv,
        iv => bessel_order::iv,
        ive => bessel_order::ive,
        kv => bessel_order::kv,
        kve => bessel_order::kve,
    }
    ternary {
        betainc => incomplete_beta::betainc,
        betaincinv => inverse::betaincinv,
    }
}

impl Special for f64 {
    #[inline]
    fn widen(self) -> f64 {
        self
    }
    #[inline]
    fn narrow(v: f64) -> f64 {
        v
    }
}

impl Special for f32 {
    #[inline]
    fn widen(self) -> f64 {
        self as f64
    }
    #[inline]
    fn narrow(v: f64) -> f32 {
        v as f32
    }
}

impl Special for f16 {
    #[inline]
    fn widen(self) -> f64 {
        self.to_f64()
    }
    #[inline]
    fn narrow(v: f64) -> f16 {
        f16::from_f64(v)
    }
}

impl Special for bf16 {
    #[inline]
    fn widen(self) -> f64 {
        self.to_f64()
    }
    #[inline]
    fn narrow(v: f64) -> bf16 {
        bf16::from_f64(v)
    }
}

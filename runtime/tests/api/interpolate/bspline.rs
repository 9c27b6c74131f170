//! `make_interp_spline` and `BSpline` against SciPy's values, GPU against
//! CPU, and bad input.

use super::{assert_matches, fx, gpu_matches_cpu, random_case};
use crate::common;
use cp::interpolate::{make_interp_spline, BSpline, Extrapolate, SplineEnds};
use cuprite as cp;

#[test]
fn make_interp_spline_matches_scipy_for_every_degree() {
    let (x, y, xi) = (fx("data/x"), fx("data/y"), fx("data/xi"));
    for k in 0..=5usize {
        let key = |f: &str| format!("bspl_k{k}/{f}");
        let s = make_interp_spline(&x, &y, k, SplineEnds::NotAKnot).unwrap();
        assert_matches(&key("t"), s.t(), &key("t"), 1e-14);
        assert_matches(&key("c"), &s.c().unwrap(), &key("c"), 1e-9);
        assert_matches(&key("v"), &s.call(&xi).unwrap(), &key("v"), 1e-9);
        if k >= 1 {
            let d = s.derivative(1).unwrap();
            assert_matches(&key("d1"), &d.call(&xi).unwrap(), &key("d1"), 1e-9);
        }
        // For k = 0 this includes SciPy's 0 at and past the last knot
        // (the antiderivative's last interval has zero length).
        let a = s.antiderivative(1).unwrap();
        assert_matches(&key("anti"), &a.call(&xi).unwrap(), &key("anti"), 1e-9);
        assert_matches(
            &key("int"),
            &s.integrate(-0.5, 7.25).unwrap(),
            &key("int"),
            1e-9,
        );
        let no = BSpline::new(s.t(), &s.c().unwrap(), k, Extrapolate::No).unwrap();
        assert_matches(&key("noext"), &no.call(&xi).unwrap(), &key("noext"), 1e-9);
        assert_matches(
            &key("intno"),
            &no.integrate(-0.5, 7.25).unwrap(),
            &key("intno"),
            1e-9,
        );
    }
    for (bc, ends) in [
        ("natural", SplineEnds::Natural),
        ("clamped", SplineEnds::Clamped),
    ] {
        let key = |f: &str| format!("bspl_{bc}/{f}");
        let s = make_interp_spline(&x, &y, 3, ends).unwrap();
        assert_matches(&key("t"), s.t(), &key("t"), 1e-14);
        assert_matches(&key("c"), &s.c().unwrap(), &key("c"), 1e-9);
        assert_matches(&key("v"), &s.call(&xi).unwrap(), &key("v"), 1e-9);
    }
}

#[test]
fn make_interp_spline_refuses_bad_input() {
    let (x, y) = (fx("data/x"), fx("data/y"));
    let msg = |r: cp::Result<BSpline>| r.unwrap_err().to_string();
    let e = msg(make_interp_spline(&x, &y, 6, SplineEnds::NotAKnot));
    assert!(
        e.contains("make_interp_spline") && e.contains("k = 6"),
        "{e}"
    );
    let e = msg(make_interp_spline(&x, &y, 2, SplineEnds::Natural));
    assert!(
        e.contains("make_interp_spline") && e.contains("k = 2"),
        "{e}"
    );
    let few = cp::asarray(vec![0.0, 1.0, 2.0]).unwrap();
    let e = msg(make_interp_spline(&few, &few, 3, SplineEnds::NotAKnot));
    assert!(
        e.contains("at least k + 1 = 4") && e.contains("got 3"),
        "{e}"
    );
    let bad = cp::asarray(vec![0.0, 2.0, 1.0, 3.0]).unwrap();
    let e = msg(make_interp_spline(&bad, &bad, 1, SplineEnds::NotAKnot));
    assert!(
        e.contains("make_interp_spline") && e.contains("strictly increasing"),
        "{e}"
    );
    let e = msg(BSpline::new(&x, &y, 5, Extrapolate::Yes));
    assert!(e.contains("BSpline") && e.contains("12 knots"), "{e}");
    let s = make_interp_spline(&x, &y, 2, SplineEnds::NotAKnot).unwrap();
    let e = s.derivative(3).unwrap_err().to_string();
    assert!(
        e.contains("BSpline.derivative") && e.contains("nu = 3"),
        "{e}"
    );
}

/// Every degree builds (k >= 3 and natural / clamped ends by the banded
/// collocation solve), evaluates, differentiates and integrates on the device.
#[test]
fn gpu_bsplines_match_cpu_on_random_inputs() {
    let seed = common::test_seed("gpu_bsplines_match_cpu_on_random_inputs");
    let (x, y, xi) = random_case(200, 3, 5000, seed);
    for k in 0..=5usize {
        gpu_matches_cpu(
            &format!("make_interp_spline k={k}"),
            1e-9,
            |a| {
                let s = make_interp_spline(&a[0], &a[1], k, SplineEnds::NotAKnot)?;
                cp::concatenate(&[&s.call(&a[2])?, &s.antiderivative(1)?.call(&a[2])?], 0)
            },
            &[x.clone(), y.clone(), xi.clone()],
        );
    }
    for ends in [SplineEnds::Natural, SplineEnds::Clamped] {
        gpu_matches_cpu(
            &format!("make_interp_spline {ends:?}"),
            1e-9,
            |a| make_interp_spline(&a[0], &a[1], 3, ends)?.call(&a[2]),
            &[x.clone(), y.clone(), xi.clone()],
        );
    }
    for k in 3..=5usize {
        let s = make_interp_spline(&x, &y, k, SplineEnds::NotAKnot).unwrap();
        let (t, c) = (s.t().clone(), s.c().unwrap());
        gpu_matches_cpu(
            &format!("BSpline k={k}"),
            1e-9,
            |a| {
                let s = BSpline::new(&a[0], &a[1], k, Extrapolate::Yes)?;
                let d = s.derivative(1)?.call(&a[2])?;
                cp::concatenate(
                    &[
                        &s.call(&a[2])?,
                        &d,
                        &s.integrate(1.0, 50.0)?.reshape([1, -1])?,
                    ],
                    0,
                )
            },
            &[t, c, xi.clone()],
        );
    }
}

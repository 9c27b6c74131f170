//! cp::interpolate against SciPy 1.17 (fixtures written by
//! tests/data/scipy/generate_interpolate.py) on every device, the GPU
//! against the CPU backend on random inputs with no host fallback, and bad
//! input.

use crate::common;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use common::values_f64;
use cp::interpolate::{
    interp1d, interpn, Akima1DInterpolator, AkimaMethod, BoundaryCondition, CubicSpline,
    CubicSplineOptions, Extrapolate, FillValue, GridOptions, Interp1dKind, Interp1dOptions,
    PchipInterpolator, RegularGridInterpolator, RegularGridMethod,
};
use cp::{Array, DType, Device};
use cuprite as cp;

fn fixtures() -> &'static BTreeMap<String, Array> {
    static F: OnceLock<BTreeMap<String, Array>> = OnceLock::new();
    F.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/scipy/interpolate.npz"
        );
        let opts = cp::LoadOptions::default().device(Some(Device::Cpu));
        cp::load_npz_with(path, &opts).expect("interpolate.npz (run generate_interpolate.py)")
    })
}

/// The fixture `key` on the current device.
fn fx(key: &str) -> Array {
    fixtures()
        .get(key)
        .unwrap_or_else(|| panic!("fixture {key} missing"))
        .to_device(&cp::current_device())
        .unwrap()
}

/// Shape and values within `tol` of the fixture, relative to its largest
/// magnitude; NaN only where the fixture has NaN.
#[track_caller]
fn assert_matches(what: &str, got: &Array, key: &str, tol: f64) {
    let want = &fixtures()[key];
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_vec_close(what, &values_f64(got), &values_f64(want), tol);
}

#[track_caller]
fn assert_vec_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want
        .iter()
        .filter(|v| v.is_finite())
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1e-300);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else {
            (g - w).abs() <= tol * scale
        };
        assert!(
            ok,
            "{what}[{i}]: got {g}, want {w} (tol {tol} x {scale});\n got {got:?}\nwant {want:?}"
        );
    }
}

const TOL: f64 = 1e-11;

on_every_device!(cubic_spline_boundary_conditions, |dev| {
    let (x, y, xi) = (fx("data/x"), fx("data/y"), fx("data/xi"));
    let explicit = CubicSplineOptions::default()
        .bc_start(BoundaryCondition::Derivative {
            order: 1,
            values: vec![0.5, -1.0],
        })
        .bc_end(BoundaryCondition::Derivative {
            order: 2,
            values: vec![2.0, 0.25],
        });
    let cases = [
        ("not_a_knot", CubicSplineOptions::default()),
        (
            "clamped",
            CubicSplineOptions::default().bc(BoundaryCondition::Clamped),
        ),
        (
            "natural",
            CubicSplineOptions::default().bc(BoundaryCondition::Natural),
        ),
        ("explicit", explicit),
    ];
    for (name, opts) in cases {
        let s = CubicSpline::with(&x, &y, opts.clone())?;
        assert_eq!(s.x().device(), dev);
        assert_matches(name, &s.c()?, &format!("cubic_{name}/c"), TOL);
        for nu in 0..4 {
            let v = s.call_with(&xi, nu, None)?;
            assert_matches(name, &v, &format!("cubic_{name}/nu{nu}"), TOL);
        }
        assert_matches(
            name,
            &s.antiderivative(1)?.call(&xi)?,
            &format!("cubic_{name}/anti"),
            TOL,
        );
        assert_matches(
            name,
            &s.call_with(&xi, -1, None)?,
            &format!("cubic_{name}/anti"),
            TOL,
        );
        assert_matches(
            name,
            &s.integrate(-0.5, 7.25, None)?,
            &format!("cubic_{name}/int"),
            TOL,
        );
        let no = CubicSpline::with(&x, &y, opts.extrapolate(Some(Extrapolate::No)))?;
        assert_matches(name, &no.call(&xi)?, &format!("cubic_{name}/noext"), TOL);
        // derivative() agrees with evaluating the derivative.
        let d2 = s.derivative(2)?.call(&xi)?;
        assert_matches(name, &d2, &format!("cubic_{name}/nu2"), TOL);
    }
});

on_every_device!(cubic_spline_periodic_and_small, |_dev| {
    let (x, xi) = (fx("data/x"), fx("data/xi"));
    let yp = fx("periodic/y");
    let s = CubicSpline::with(
        &x,
        &yp,
        CubicSplineOptions::default().bc(BoundaryCondition::Periodic),
    )?;
    assert_eq!(s.extrapolate(), Extrapolate::Periodic);
    assert_matches("periodic c", &s.c()?, "periodic/c", TOL);
    assert_matches("periodic", &s.call(&xi)?, "periodic/v", TOL);
    assert_matches(
        "periodic d1",
        &s.call_with(&xi, 1, None)?,
        "periodic/d1",
        TOL,
    );
    assert_matches(
        "periodic int",
        &s.integrate(-3.0, 24.5, None)?,
        "periodic/int",
        1e-10,
    );
    let y = fx("data/y");
    let two = CubicSpline::new(&x.slice(cp::s![0..2])?, &y.slice(cp::s![0..2])?)?;
    assert_matches("two points", &two.call(&xi)?, "small2/v", TOL);
    let three = CubicSpline::new(&x.slice(cp::s![0..3])?, &y.slice(cp::s![0..3])?)?;
    assert_matches("three points", &three.call(&xi)?, "small3/v", TOL);
    let p3 = CubicSpline::with(
        &x.slice(cp::s![0..3])?,
        &fx("small3p/y"),
        CubicSplineOptions::default().bc(BoundaryCondition::Periodic),
    )?;
    assert_matches("three periodic", &p3.call(&xi)?, "small3p/v", TOL);
});

on_every_device!(cubic_spline_along_an_axis, |_dev| {
    let x = fx("data/x");
    let y = fx("axis1/y");
    let s = CubicSpline::with(&x, &y, CubicSplineOptions::default().axis(2))?;
    let xin = fx("data/xin").slice(cp::s![0..5])?;
    assert_matches("axis 2", &s.call(&xin)?, "axis1/v", TOL);
    assert_matches(
        "axis 2, 2-D points",
        &s.call(&fx("axis1/xi2"))?,
        "axis1/v2",
        TOL,
    );
});

on_every_device!(pchip_and_akima, |_dev| {
    let (x, xi, xin) = (fx("data/x"), fx("data/xi"), fx("data/xin"));
    let y = fx("pchip/y");
    let p = PchipInterpolator::new(&x, &y, 0, None)?;
    assert_matches("pchip", &p.call(&xi)?, "pchip/v", TOL);
    assert_matches("pchip d1", &p.call_with(&xi, 1, None)?, "pchip/d1", TOL);
    assert_matches("pchip int", &p.integrate(0.5, 9.0, None)?, "pchip/int", TOL);
    let p2 = PchipInterpolator::new(&x.slice(cp::s![0..2])?, &y.slice(cp::s![0..2])?, 0, None)?;
    assert_matches("pchip two", &p2.call(&xi)?, "pchip2/v", TOL);
    for (name, m) in [
        ("akima", AkimaMethod::Akima),
        ("makima", AkimaMethod::Makima),
    ] {
        let a = Akima1DInterpolator::new(&x, &y, 0, m, None)?;
        assert_matches(name, &a.call(&xi)?, &format!("{name}/v"), TOL);
        assert_matches(
            name,
            &a.call_with(&xin, 1, None)?,
            &format!("{name}/d1"),
            TOL,
        );
        let e = Akima1DInterpolator::new(&x, &y, 0, m, Some(true))?;
        assert_matches(name, &e.call(&xi)?, &format!("{name}/vext"), TOL);
    }
});

fn kind_name(k: Interp1dKind) -> &'static str {
    match k {
        Interp1dKind::Linear => "linear",
        Interp1dKind::Nearest => "nearest",
        Interp1dKind::NearestUp => "nearest-up",
        Interp1dKind::Previous => "previous",
        Interp1dKind::Next => "next",
        Interp1dKind::Zero => "zero",
        Interp1dKind::SLinear => "slinear",
        Interp1dKind::Quadratic => "quadratic",
        Interp1dKind::Cubic => "cubic",
    }
}

on_every_device!(interp1d_every_kind, |_dev| {
    let (x, y, xi, xin) = (
        fx("data/x"),
        fx("interp1d/y"),
        fx("data/xi"),
        fx("data/xin"),
    );
    use Interp1dKind::*;
    for kind in [
        Linear, Nearest, NearestUp, Previous, Next, Zero, SLinear, Quadratic, Cubic,
    ] {
        let name = kind_name(kind);
        let opts = Interp1dOptions::default().kind(kind);
        let f = interp1d(
            &x,
            &y,
            opts.bounds_error(Some(false))
                .fill_value(FillValue::BelowAbove(-7.0, 9.0)),
        )?;
        assert_matches(name, &f.call(&xi)?, &format!("interp1d_{name}/fill"), TOL);
        let g = interp1d(&x, &y, opts.fill_value(FillValue::Extrapolate))?;
        assert_matches(name, &g.call(&xi)?, &format!("interp1d_{name}/ext"), TOL);
        let h = interp1d(&x, &y, opts)?;
        assert_matches(name, &h.call(&xin)?, &format!("interp1d_{name}/in"), TOL);
    }
    let u = interp1d(
        &fx("unsorted/x"),
        &fx("unsorted/y"),
        Interp1dOptions::default(),
    )?;
    assert_matches("unsorted", &u.call(&xin)?, "unsorted/v", TOL);
});

on_every_device!(regular_grids, |_dev| {
    let (g0, g1, g2) = (fx("grid/g0"), fx("grid/g1"), fx("grid/g2"));
    let (vals, pts) = (fx("grid/values"), fx("grid/pts"));
    for (name, method) in [
        ("linear", RegularGridMethod::Linear),
        ("nearest", RegularGridMethod::Nearest),
    ] {
        let opts = GridOptions::default().method(method).bounds_error(false);
        let r = RegularGridInterpolator::new(&[&g0, &g1, &g2], &vals, opts)?;
        assert_matches(name, &r.call(&pts)?, &format!("grid_{name}/nanfill"), TOL);
        let e = RegularGridInterpolator::new(&[&g0, &g1, &g2], &vals, opts.fill_value(None))?;
        assert_matches(name, &e.call(&pts)?, &format!("grid_{name}/ext"), TOL);
    }
    let opts = GridOptions::default()
        .bounds_error(false)
        .fill_value(Some(-1.0));
    let r = RegularGridInterpolator::new(&[&g0, &g1, &g2], &fx("grid/values4"), opts)?;
    let slinear = GridOptions::default()
        .method(RegularGridMethod::SLinear)
        .bounds_error(false);
    let sl = RegularGridInterpolator::new(&[&g0, &g1, &g2], &vals, slinear)?;
    assert_matches("slinear", &sl.call(&pts)?, "grid_linear/nanfill", TOL);
    assert_matches("trailing", &r.call(&pts)?, "grid_trailing/v", TOL);
    let inside = fx("grid/inside");
    let v = interpn(&[&g0, &g1, &g2], &vals, &inside, GridOptions::default())?;
    assert_matches("interpn", &v, "interpn/v", TOL);
    let plane = vals.slice(cp::s![.., .., 0])?;
    let xy = inside.slice(cp::s![.., 0..2])?;
    let opts = GridOptions::default().method(RegularGridMethod::Nearest);
    assert_matches(
        "interpn 2-D",
        &interpn(&[&g0, &g1], &plane, &xy, opts)?,
        "interpn2/v",
        TOL,
    );
});

on_every_device!(float32_follows_float64, |_dev| {
    let (x, y, xi) = (fx("data/x"), fx("data/y"), fx("data/xi"));
    let s = CubicSpline::new(&x.astype(DType::Float32)?, &y.astype(DType::Float32)?)?;
    let v = s.call(&xi)?;
    assert_eq!(v.dtype(), DType::Float32);
    assert_matches("float32 spline", &v, "cubic_not_a_knot/nu0", 1e-4);
});

/// `x` sorted random knots (at least `n`), `y` random `(n, m)`, random points.
fn random_case(n: usize, m: usize, points: usize, seed: u64) -> (Array, Array, Array) {
    let steps: Vec<f64> = common::rnd(n, seed).iter().map(|v| 0.2 + v.abs()).collect();
    let x: Vec<f64> = steps
        .iter()
        .scan(0.0, |acc, s| {
            *acc += s;
            Some(*acc)
        })
        .collect();
    let span = x[n - 1] - x[0];
    let xi: Vec<f64> = common::rnd(points, seed + 1)
        .iter()
        .map(|v| x[0] + span * (0.55 * v + 0.5))
        .collect();
    let y = cp::from_shape_vec([n, m], common::rnd(n * m, seed + 2), cp::Order::C).unwrap();
    (cp::asarray(x).unwrap(), y, cp::asarray(xi).unwrap())
}

/// `f` on the CPU and on the GPU give the same array, with no host fallback.
fn gpu_matches_cpu(
    what: &str,
    tol: f64,
    f: impl Fn(&[Array]) -> cp::Result<Array>,
    inputs: &[Array],
) {
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let want = cp::with_device(Device::Cpu, || f(inputs)).unwrap();
    cp::cuda::reset_host_fallbacks();
    let on_gpu: Vec<Array> = inputs.iter().map(|a| a.to_device(&gpu).unwrap()).collect();
    let got = cp::with_device(gpu, || f(&on_gpu)).unwrap();
    common::assert_no_host_fallback(what);
    assert_eq!(got.device(), gpu, "{what}");
    assert_eq!(got.dtype(), want.dtype(), "{what}");
    assert_eq!(got.shape(), want.shape(), "{what}");
    let (g, w) = (values_f64(&got), values_f64(&want));
    assert!(
        w.iter().all(|v| v.is_finite()),
        "{what}: the CPU gave a non-finite value"
    );
    assert_vec_close(what, &g, &w, tol);
}

#[test]
fn gpu_splines_match_cpu_on_random_inputs() {
    let seed = common::test_seed("gpu_splines_match_cpu_on_random_inputs");
    let (x, y, xi) = random_case(5000, 3, 20000, seed);
    let inputs = [x, y, xi];
    gpu_matches_cpu(
        "CubicSpline",
        1e-9,
        |a| CubicSpline::new(&a[0], &a[1])?.call(&a[2]),
        &inputs,
    );
    gpu_matches_cpu(
        "CubicSpline natural d2",
        1e-9,
        |a| {
            let o = CubicSplineOptions::default().bc(BoundaryCondition::Natural);
            CubicSpline::with(&a[0], &a[1], o)?.call_with(&a[2], 2, None)
        },
        &inputs,
    );
    gpu_matches_cpu(
        "CubicSpline integrate",
        1e-9,
        |a| CubicSpline::new(&a[0], &a[1])?.integrate(1.0, 700.0, None),
        &inputs,
    );
    gpu_matches_cpu(
        "PCHIP",
        1e-9,
        |a| PchipInterpolator::new(&a[0], &a[1], 0, None)?.call(&a[2]),
        &inputs,
    );
    gpu_matches_cpu(
        "makima",
        1e-9,
        |a| Akima1DInterpolator::new(&a[0], &a[1], 0, AkimaMethod::Makima, Some(true))?.call(&a[2]),
        &inputs,
    );
    gpu_matches_cpu(
        "interp1d nearest",
        0.0,
        |a| {
            let o = Interp1dOptions::default()
                .kind(Interp1dKind::Nearest)
                .axis(0)
                .fill_value(FillValue::Extrapolate);
            interp1d(&a[0], &a[1], o)?.call(&a[2])
        },
        &inputs,
    );
    gpu_matches_cpu(
        "interp1d quadratic",
        1e-9,
        |a| {
            let o = Interp1dOptions::default()
                .kind(Interp1dKind::Quadratic)
                .axis(0)
                .fill_value(FillValue::Extrapolate);
            interp1d(&a[0], &a[1], o)?.call(&a[2])
        },
        &inputs,
    );
    let (x, y, xi) = random_case(3000, 1, 10000, seed + 7);
    let yp = cp::concatenate(
        &[
            &y.slice(cp::s![0..2999]).unwrap(),
            &y.slice(cp::s![0..1]).unwrap(),
        ],
        0,
    )
    .unwrap();
    gpu_matches_cpu(
        "CubicSpline periodic",
        1e-9,
        |a| {
            let o = CubicSplineOptions::default().bc(BoundaryCondition::Periodic);
            CubicSpline::with(&a[0], &a[1], o)?.call(&a[2])
        },
        &[x, yp, xi],
    );
}

#[test]
fn gpu_grids_match_cpu_on_random_inputs() {
    let seed = common::test_seed("gpu_grids_match_cpu_on_random_inputs");
    let axis = |n: usize, s: u64| -> Array {
        let v: Vec<f64> = common::rnd(n, s)
            .iter()
            .scan(0.0, |acc, d| {
                *acc += 0.1 + d.abs();
                Some(*acc)
            })
            .collect();
        cp::asarray(v).unwrap()
    };
    let (a, b, c) = (axis(20, seed), axis(31, seed + 1), axis(17, seed + 2));
    let values = common::rand(&[20, 31, 17], DType::Float32, seed + 3);
    let pts = cp::multiply(
        cp::add(common::rand(&[50000, 3], DType::Float64, seed + 4), 1.0).unwrap(),
        4.0,
    )
    .unwrap();
    for method in [RegularGridMethod::Linear, RegularGridMethod::Nearest] {
        gpu_matches_cpu(
            &format!("grid {method:?}"),
            1e-6,
            |v| {
                let o = GridOptions::default()
                    .method(method)
                    .bounds_error(false)
                    .fill_value(None);
                RegularGridInterpolator::new(&[&v[0], &v[1], &v[2]], &v[3], o)?.call(&v[4])
            },
            &[a.clone(), b.clone(), c.clone(), values.clone(), pts.clone()],
        );
    }
}

on_every_device!(bad_input, |_dev| {
    let x = cp::asarray(vec![0.0, 1.0, 1.0, 3.0])?;
    let y = cp::asarray(vec![0.0, 1.0, 2.0, 3.0])?;
    let e = CubicSpline::new(&x, &y).unwrap_err();
    assert_error!(e, InvalidArgument, "CubicSpline");
    assert!(e.to_string().contains("x[2] = 1"), "{e}");
    let x = cp::asarray(vec![0.0, 1.0, 2.0, 3.0])?;
    let short = cp::asarray(vec![0.0, 1.0, 2.0])?;
    let e = CubicSpline::new(&x, &short).unwrap_err();
    assert_error!(e, Shape, "CubicSpline");
    assert!(e.to_string().contains("lengths differ"), "{e}");
    assert_error!(
        PchipInterpolator::new(&x, &short, 0, None).unwrap_err(),
        Shape,
        "PchipInterpolator"
    );
    let nan = cp::asarray(vec![0.0, f64::NAN, 2.0, 3.0])?;
    assert_error!(
        Akima1DInterpolator::new(&nan, &y, 0, AkimaMethod::Akima, None).unwrap_err(),
        InvalidArgument,
        "Akima1DInterpolator"
    );
    let bad_periodic = CubicSplineOptions::default().bc(BoundaryCondition::Periodic);
    assert_error!(
        CubicSpline::with(&x, &y, bad_periodic).unwrap_err(),
        InvalidArgument,
        "CubicSpline"
    );
    let half_periodic = CubicSplineOptions::default().bc_start(BoundaryCondition::Periodic);
    assert_error!(
        CubicSpline::with(&x, &y, half_periodic).unwrap_err(),
        InvalidArgument,
        "CubicSpline"
    );
    let f = interp1d(&x, &y, Interp1dOptions::default())?;
    let e = f.call(&cp::asarray(vec![0.5, 4.5])?).unwrap_err();
    assert_error!(e, InvalidArgument, "interp1d.__call__");
    assert!(e.to_string().contains("x_new[1] = 4.5"), "{e}");
    let e = interp1d(
        &x,
        &y,
        Interp1dOptions::default()
            .kind(Interp1dKind::Cubic)
            .bounds_error(Some(true))
            .fill_value(FillValue::Extrapolate),
    )
    .unwrap_err();
    assert_error!(e, InvalidArgument, "interp1d");
    let g = cp::asarray(vec![0.0, 1.0, 2.0])?;
    let vals = cp::zeros([3, 3], DType::Float64)?;
    let r = RegularGridInterpolator::new(&[&g, &g], &vals, GridOptions::default())?;
    let e = r.call(&cp::asarray(vec![0.5, 0.5, 0.5])?).unwrap_err();
    assert_error!(e, Shape, "RegularGridInterpolator.__call__");
    let e = r
        .call(&cp::asarray(vec![0.5, 0.5, 0.5, 2.5])?.reshape([2, 2])?)
        .unwrap_err();
    assert_error!(e, InvalidArgument, "RegularGridInterpolator.__call__");
    assert!(e.to_string().contains("xi[1, 1] = 2.5"), "{e}");
    let e = RegularGridInterpolator::new(
        &[&g, &short.slice(cp::s![0..2])?],
        &vals,
        GridOptions::default(),
    )
    .unwrap_err();
    assert_error!(e, Shape, "RegularGridInterpolator");
    let e = RegularGridInterpolator::new(
        &[&cp::asarray(vec![0.0, 2.0, 1.0])?, &g],
        &vals,
        GridOptions::default(),
    )
    .unwrap_err();
    assert_error!(e, InvalidArgument, "RegularGridInterpolator");
    let c = cp::zeros([4, 3], DType::Complex128)?;
    assert_error!(CubicSpline::new(&x, &c).unwrap_err(), DType, "CubicSpline");
});

/// `make_interp_spline` and `BSpline`.
mod bspline;

/// `RegularGridInterpolator` and `interpn` with methods cubic, quintic and pchip.
mod grid_spline;

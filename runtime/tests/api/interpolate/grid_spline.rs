//! Regular grids read by splines (methods cubic, quintic, pchip) against
//! SciPy's values on 1-D, 2-D and 3-D grids (fill, NaN fill,
//! extrapolation, bounds errors), the GPU against the CPU with no host
//! fallback.

use super::{assert_matches, fx, gpu_matches_cpu};
use crate::common;
use cp::interpolate::{interpn, GridOptions, RegularGridInterpolator, RegularGridMethod};
use cp::{Array, DType};
use cuprite as cp;

const METHODS: [(&str, RegularGridMethod); 3] = [
    ("cubic", RegularGridMethod::Cubic),
    ("quintic", RegularGridMethod::Quintic),
    ("pchip", RegularGridMethod::Pchip),
];

/// The axes of fixture grid `tag`.
fn axes(tag: &str, d: usize) -> Vec<Array> {
    (0..d).map(|i| fx(&format!("sgrid_{tag}/g{i}"))).collect()
}

on_every_device!(spline_grids_match_scipy, |_dev| {
    for (tag, d) in [("1d", 1), ("2d", 2), ("3d", 3)] {
        let ax = axes(tag, d);
        let refs: Vec<&Array> = ax.iter().collect();
        let values = fx(&format!("sgrid_{tag}/values"));
        let pts = fx(&format!("sgrid_{tag}/pts"));
        for (name, method) in METHODS {
            let key = |f: &str| format!("sgrid_{tag}_{name}/{f}");
            let o = GridOptions::default().method(method).bounds_error(false);
            let r = RegularGridInterpolator::new(&refs, &values, o)?;
            assert_matches(&key("nanfill"), &r.call(&pts)?, &key("nanfill"), 1e-9);
            let r = RegularGridInterpolator::new(&refs, &values, o.fill_value(Some(-3.5)))?;
            assert_matches(&key("fill"), &r.call(&pts)?, &key("fill"), 1e-9);
            let r = RegularGridInterpolator::new(&refs, &values, o.fill_value(None))?;
            assert_matches(&key("ext"), &r.call(&pts)?, &key("ext"), 1e-9);
            // Another method at call time solves its own spline.
            let lin =
                RegularGridInterpolator::new(&refs, &values, o.method(RegularGridMethod::Linear))?;
            assert_matches(
                &key("call_with"),
                &lin.call_with(&pts, method)?,
                &key("nanfill"),
                1e-9,
            );
        }
    }
    // interpn: SciPy's default iterative solver stops at a relative
    // residual of 1e-5, so its spline values are that close to the exact ones.
    let ax = axes("3d", 3);
    let refs: Vec<&Array> = ax.iter().collect();
    let (values, inside) = (fx("sgrid_3d/values"), fx("sgrid_3d/inside"));
    for (name, method) in METHODS {
        let tol = if name == "pchip" { 1e-9 } else { 1e-4 };
        let v = interpn(
            &refs,
            &values,
            &inside,
            GridOptions::default().method(method),
        )?;
        assert_matches(name, &v, &format!("sinterpn_3d_{name}/v"), tol);
    }
});

on_every_device!(spline_grids_check_their_input, |_dev| {
    let ax = axes("3d", 3);
    let refs: Vec<&Array> = ax.iter().collect();
    let (values, pts) = (fx("sgrid_3d/values"), fx("sgrid_3d/pts"));
    for (_, method) in METHODS {
        let r =
            RegularGridInterpolator::new(&refs, &values, GridOptions::default().method(method))?;
        let e = r.call(&pts).unwrap_err();
        assert_error!(e, InvalidArgument, "RegularGridInterpolator.__call__");
        assert!(e.to_string().contains("out of bounds"), "{e}");
    }
    // Quintic needs six points per axis; the second axis of this grid has five.
    let g = cp::asarray(vec![0.0, 1.0, 2.0, 3.0, 4.0])?;
    let g6 = cp::asarray(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0])?;
    let v = cp::zeros([6, 5], DType::Float64)?.to_device(&cp::current_device())?;
    let o = GridOptions::default().method(RegularGridMethod::Quintic);
    let e = RegularGridInterpolator::new(&[&g6, &g], &v, o).unwrap_err();
    assert_error!(e, InvalidArgument, "RegularGridInterpolator");
    assert!(e.to_string().contains("dimension 1"), "{e}");
    let cubic = RegularGridInterpolator::new(&[&g6, &g], &v, o.method(RegularGridMethod::Cubic))?;
    let e = cubic
        .call_with(
            &cp::zeros([2, 2], DType::Float64)?.to_device(&cp::current_device())?,
            RegularGridMethod::Quintic,
        )
        .unwrap_err();
    assert_error!(e, InvalidArgument, "RegularGridInterpolator.__call__");
});

#[test]
fn gpu_spline_grids_match_cpu_on_random_inputs() {
    let seed = common::test_seed("gpu_spline_grids_match_cpu_on_random_inputs");
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
    let pts = cp::multiply(
        cp::add(common::rand(&[20000, 3], DType::Float64, seed + 4), 1.0).unwrap(),
        4.0,
    )
    .unwrap();
    for dt in [DType::Float64, DType::Float32] {
        let values = common::rand(&[20, 31, 17, 2], dt, seed + 3);
        let tol = if dt == DType::Float32 { 1e-4 } else { 1e-9 };
        for (name, method) in METHODS {
            gpu_matches_cpu(
                &format!("grid {name} {dt}"),
                tol,
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
}

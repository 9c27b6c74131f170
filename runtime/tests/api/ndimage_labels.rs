//! cp::ndimage's labelling, measurements, morphology and distance
//! transforms against SciPy 1.17 (fixtures written by
//! tests/data/scipy/generate_ndimage.py) on every device, the GPU against
//! the CPU backend on larger random inputs, and bad input.

use crate::ndimage_common;

use cp::ndimage::{self as nd, BinaryOptions, FilterOptions};
use cp::{Array, DType, Device};
use cuprite as cp;
use ndimage_common::{check, check_vals, fixtures, fx, gpu_matches_cpu, random, vals};

fn bools(a: &Array) -> Vec<f64> {
    vals(&a.astype(DType::Bool).unwrap())
}

#[track_caller]
fn check_bool(got: &Array, key: &str) {
    assert_eq!(got.dtype(), DType::Bool, "{key}: dtype");
    let want = fixtures().get(key).unwrap();
    assert_eq!(got.shape(), want.shape(), "{key}: shape");
    check_vals(key, &bools(got), &bools(want), 0.0);
}

on_every_device!(label_matches_scipy, |_dev| {
    let bw = fx("in/bw");
    let (lab, n) = nd::label(&bw, None)?;
    assert_eq!(lab.dtype(), DType::Int32);
    check(&lab, "label/cross", 0.0);
    assert_eq!(
        n as f64,
        vals(&fx("label/cross")).into_iter().fold(0.0, f64::max)
    );
    let full = cp::ones([3usize, 3], DType::Bool)?;
    check(&nd::label(&bw, Some(&full))?.0, "label/full", 0.0);
    let bw3 = fx("in/bw3");
    check(&nd::label(&bw3, None)?.0, "label/3d", 0.0);
    let full3 = cp::ones([3usize, 3, 3], DType::Bool)?;
    check(&nd::label(&bw3, Some(&full3))?.0, "label/3d_full", 0.0);
});

on_every_device!(measurements_match_scipy, |_dev| {
    let v = fx("in/vals");
    let (lab, _) = nd::label(&fx("in/bw"), None)?;
    let idx: Vec<i64> = vals(&fx("in/idx")).into_iter().map(|x| x as i64).collect();
    let ix = Some(idx.as_slice());
    check(&nd::sum_labels(&v, Some(&lab), ix)?, "sum_labels", 1e-12);
    check(
        &nd::sum_labels(&v, Some(&lab), None)?,
        "sum_labels/all",
        1e-12,
    );
    check(&nd::mean(&v, Some(&lab), ix)?, "mean", 1e-12);
    check(&nd::variance(&v, Some(&lab), ix)?, "variance", 1e-10);
    check(
        &nd::standard_deviation(&v, Some(&lab), ix)?,
        "standard_deviation",
        1e-10,
    );
    check(&nd::minimum(&v, Some(&lab), ix)?, "minimum", 0.0);
    check(&nd::maximum(&v, Some(&lab), ix)?, "maximum", 0.0);
    let (_, _, minpos, maxpos) = nd::extrema(&v, Some(&lab), ix)?;
    check(&minpos, "extrema/minpos", 0.0);
    check(&maxpos, "extrema/maxpos", 0.0);
    check(
        &nd::center_of_mass(&v, Some(&lab), ix)?,
        "center_of_mass",
        1e-12,
    );
    check(
        &nd::center_of_mass(&v, None, None)?,
        "center_of_mass/all",
        1e-12,
    );
    check(
        &nd::histogram(&v, 0.0, 1.0, 5, Some(&lab), ix)?,
        "histogram",
        0.0,
    );
    let objs = nd::find_objects(&lab, 0)?;
    let want = vals(&fixtures()["find_objects"]);
    let got: Vec<f64> = objs
        .iter()
        .flat_map(|o| {
            let o = o.as_ref().expect("every label present");
            o.iter()
                .map(|r| r.start as f64)
                .chain(o.iter().map(|r| r.end as f64))
                .collect::<Vec<_>>()
        })
        .collect();
    check_vals("find_objects", &got, &want, 0.0);
});

on_every_device!(morphology_matches_scipy, |_dev| {
    check_bool(
        &nd::generate_binary_structure(2, 1)?,
        "generate_binary_structure/2_1",
    );
    check_bool(
        &nd::generate_binary_structure(3, 2)?,
        "generate_binary_structure/3_2",
    );
    check_bool(
        &nd::iterate_structure(&nd::generate_binary_structure(2, 1)?, 3)?,
        "iterate_structure/2_1_3",
    );
    let bw = fx("in/bw");
    let full = cp::ones([3usize, 3], DType::Bool)?;
    let d = BinaryOptions::default();
    let it2 = BinaryOptions::default().structure(&full).iterations(2);
    type Bin = fn(&Array, &BinaryOptions) -> cp::Result<Array>;
    let fns: [(&str, Bin); 4] = [
        ("binary_erosion", nd::binary_erosion),
        ("binary_dilation", nd::binary_dilation),
        ("binary_opening", nd::binary_opening),
        ("binary_closing", nd::binary_closing),
    ];
    for (name, f) in fns {
        check_bool(&f(&bw, &d)?, &format!("{name}/default"));
        check_bool(&f(&bw, &it2)?, &format!("{name}/iter2_full"));
    }
    check_bool(
        &nd::binary_erosion(&bw, &d.clone().border_value(true))?,
        "binary_erosion/border",
    );
    check_bool(
        &nd::binary_fill_holes(&fx("in/holes"), None)?,
        "binary_fill_holes",
    );
    let v = fx("in/vals");
    let (fp, se) = (fx("in/fp"), fx("in/se"));
    let o = FilterOptions::default();
    type Grey = fn(&Array, nd::Footprint, Option<&Array>, &FilterOptions) -> cp::Result<Array>;
    let greys: [(&str, Grey); 4] = [
        ("grey_erosion", |x, f, s, o| nd::grey_erosion(x, f, s, o)),
        ("grey_dilation", |x, f, s, o| nd::grey_dilation(x, f, s, o)),
        ("grey_opening", |x, f, s, o| nd::grey_opening(x, f, s, o)),
        ("grey_closing", |x, f, s, o| nd::grey_closing(x, f, s, o)),
    ];
    for (name, f) in greys {
        check(
            &f(&v, [3usize, 2].into(), None, &o)?,
            &format!("{name}/size"),
            0.0,
        );
        check(&f(&v, (&fp).into(), None, &o)?, &format!("{name}/fp"), 0.0);
        check(
            &f(&v, 1usize.into(), Some(&se), &o)?,
            &format!("{name}/se"),
            1e-15,
        );
    }
});

on_every_device!(dilation_until_stable_matches_scipy, |_dev| {
    let got = nd::binary_dilation(&fx("in/seed"), &BinaryOptions::default().iterations(0))?;
    check_bool(&got, "binary_dilation/until");
});

on_every_device!(distance_transforms_match_scipy, |_dev| {
    let m = fx("in/dt");
    check(
        &nd::distance_transform_edt(&m, None, false)?.0,
        "edt",
        1e-13,
    );
    let (d, idx) = nd::distance_transform_edt(&m, Some(&[1.0, 2.5]), true)?;
    check(&d, "edt/sampling", 1e-13);
    // The indices name a zero element at exactly that distance (ties may pick another than SciPy).
    let idx = vals(&idx.expect("indices"));
    let (mv, dv) = (vals(&m), vals(&d));
    let (h, w) = (11usize, 12usize);
    for i in 0..h * w {
        let (r, c) = (idx[i] as usize, idx[h * w + i] as usize);
        assert_eq!(
            mv[r * w + c],
            0.0,
            "element {i}: index ({r}, {c}) is not a zero element"
        );
        let dd = ((((i / w) as f64 - r as f64) * 1.0).powi(2)
            + (((i % w) as f64 - c as f64) * 2.5).powi(2))
        .sqrt();
        assert!(
            (dd - dv[i]).abs() < 1e-12,
            "element {i}: index distance {dd} vs {}",
            dv[i]
        );
    }
    check(
        &nd::distance_transform_edt(&fx("in/dt3"), Some(&[2.0, 1.0, 0.5]), false)?.0,
        "edt/3d",
        1e-13,
    );
    check(
        &nd::distance_transform_cdt(&m, "chessboard")?,
        "cdt/chessboard",
        0.0,
    );
    check(
        &nd::distance_transform_cdt(&m, "taxicab")?,
        "cdt/taxicab",
        0.0,
    );
});

#[test]
fn gpu_labels_and_measurements_match_cpu() {
    for seed in [11u64, 12, 13] {
        let blobs = |d: Device, shape: &[usize]| -> cp::Result<Array> {
            let smooth = nd::gaussian_filter(
                &random(shape, seed, d),
                &[1.5],
                &[0],
                &FilterOptions::default(),
            )?;
            cp::greater(&smooth, 0.5)
        };
        gpu_matches_cpu("label 2-D", 0.0, |d| {
            Ok(nd::label(&blobs(d, &[300, 257])?, None)?.0)
        });
        gpu_matches_cpu("label 2-D full", 0.0, |d| {
            let s = nd::generate_binary_structure(2, 2)?;
            Ok(nd::label(&blobs(d, &[300, 257])?, Some(&s))?.0)
        });
        gpu_matches_cpu("label 3-D", 0.0, |d| {
            Ok(nd::label(&blobs(d, &[30, 31, 29])?, None)?.0)
        });
        // Uniform noise thresholded: hundreds of thousands of components over
        // 2.4M elements, so the numbering's scan runs in several phases; the
        // count is compared as the last element.
        gpu_matches_cpu("label 2-D noise, with its count", 0.0, |d| {
            let (l, n) = nd::label(&cp::greater(random(&[1531, 1567], seed, d), 0.45)?, None)?;
            let count = cp::asarray(vec![n as i64])?;
            cp::concatenate(&[&l.ravel()?.astype(DType::Int64)?, &count], 0)
        });
        let idx: Vec<i64> = (0..40).collect();
        gpu_matches_cpu("sum_labels", 1e-12, |d| {
            let (l, _) = nd::label(&blobs(d, &[200, 190])?, None)?;
            nd::sum_labels(&random(&[200, 190], seed + 1, d), Some(&l), Some(&idx))
        });
        gpu_matches_cpu("maximum_position", 0.0, |d| {
            let (l, _) = nd::label(&blobs(d, &[200, 190])?, None)?;
            nd::maximum_position(&random(&[200, 190], seed + 1, d), Some(&l), Some(&idx))
        });
        gpu_matches_cpu("center_of_mass", 1e-12, |d| {
            let (l, _) = nd::label(&blobs(d, &[200, 190])?, None)?;
            nd::center_of_mass(&random(&[200, 190], seed + 1, d), Some(&l), Some(&idx))
        });
        gpu_matches_cpu("binary_erosion 10 iterations", 0.0, |d| {
            let o = BinaryOptions::default()
                .iterations(10)
                .structure(&nd::generate_binary_structure(2, 2)?);
            nd::binary_erosion(&blobs(d, &[128, 140])?, &o)
        });
        gpu_matches_cpu("binary_fill_holes", 0.0, |d| {
            nd::binary_fill_holes(&blobs(d, &[128, 140])?, None)
        });
        gpu_matches_cpu("edt", 1e-12, |d| {
            Ok(nd::distance_transform_edt(&blobs(d, &[150, 170])?, Some(&[1.0, 1.5]), false)?.0)
        });
        gpu_matches_cpu("edt indices", 0.0, |d| {
            Ok(
                nd::distance_transform_edt(&blobs(d, &[40, 17, 23])?, None, true)?
                    .1
                    .expect("indices"),
            )
        });
        gpu_matches_cpu("cdt", 0.0, |d| {
            nd::distance_transform_cdt(&blobs(d, &[150, 170])?, "taxicab")
        });
    }
}

/// A 0/1 float64 array of `shape` on `dev`, 0 (background) where `bg(flat index)`.
fn mask(shape: &[usize], dev: Device, bg: impl Fn(usize) -> bool) -> cp::Result<Array> {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| if bg(i) { 0.0 } else { 1.0 }).collect();
    cp::from_shape_vec(shape, v, cp::Order::C)?.to_device(&dev)
}

on_every_device!(edt_of_one_background_pixel_is_its_distance, |dev| {
    // Axis 0 of 37 rows spans two 32-row bands; rows of 301 take 16 bands.
    let (h, w, r0, c0) = (37usize, 301usize, 20usize, 150usize);
    let m = mask(&[h, w], dev, |i| i == r0 * w + c0)?;
    let (d, idx) = nd::distance_transform_edt(&m, Some(&[0.7, 1.3]), true)?;
    let (d, idx) = (vals(&d), vals(&idx.expect("indices")));
    for i in 0..h * w {
        let (dr, dc) = ((i / w) as f64 - r0 as f64, (i % w) as f64 - c0 as f64);
        let want = ((0.7 * dr).powi(2) + (1.3 * dc).powi(2)).sqrt();
        assert!(
            (d[i] - want).abs() <= 1e-12 * want.max(1.0),
            "{i}: {} vs {want}",
            d[i]
        );
        assert_eq!((idx[i], idx[h * w + i]), (r0 as f64, c0 as f64), "{i}");
    }
    // Without any background everything is infinitely far and names itself.
    let (d, idx) = nd::distance_transform_edt(&mask(&[3, 40], dev, |_| false)?, None, true)?;
    assert!(vals(&d).iter().all(|v| *v == f64::INFINITY));
    let idx = vals(&idx.expect("indices"));
    for i in 0..120 {
        assert_eq!((idx[i], idx[120 + i]), ((i / 40) as f64, (i % 40) as f64));
    }
});

/// The GPU's distances and nearest-zero indices are the CPU's, exactly.
#[track_caller]
fn edt_gpu_is_cpu(
    what: &str,
    shape: &[usize],
    sampling: Option<&[f64]>,
    bg: impl Fn(usize) -> bool,
) {
    gpu_matches_cpu(&format!("edt {what}"), 0.0, |d| {
        Ok(nd::distance_transform_edt(&mask(shape, d, &bg)?, sampling, false)?.0)
    });
    gpu_matches_cpu(&format!("edt {what} indices"), 0.0, |d| {
        let (dist, idx) = nd::distance_transform_edt(&mask(shape, d, &bg)?, sampling, true)?;
        let idx = idx.expect("indices");
        // Distances and indices, compared as one array.
        cp::concatenate(
            &[
                &dist.reshape([dist.size()])?,
                &idx.astype(DType::Float64)?.reshape([idx.size()])?,
            ],
            0,
        )
    });
}

#[test]
fn gpu_edt_matches_cpu_on_hard_inputs() {
    let hash = |i: usize, salt: usize| {
        let x = (i as u64 ^ (salt as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .wrapping_mul(0xbf58_476d_1ce4_e5b9);
        ((x ^ (x >> 31)) % 100_000) as f64 / 100_000.0
    };
    let aniso: &[f64] = &[0.7, 1.3];
    // Adversarial: one background pixel, all background, every other pixel
    // (stripes on an even width, a checkerboard on an odd one).
    edt_gpu_is_cpu("one pixel", &[300, 257], None, |i| i == 123 * 257 + 200);
    edt_gpu_is_cpu("one pixel aniso", &[300, 257], Some(aniso), |i| i == 7);
    edt_gpu_is_cpu("all background", &[200, 190], None, |_| true);
    edt_gpu_is_cpu("none", &[65, 70], None, |_| false);
    edt_gpu_is_cpu("every other, even", &[300, 256], None, |i| i % 2 == 0);
    edt_gpu_is_cpu("every other, odd", &[301, 257], Some(aniso), |i| i % 2 == 1);
    // The bench's kind of input: about 0.1 % background, and denser.
    edt_gpu_is_cpu("sparse", &[700, 900], None, |i| hash(i, 1) < 0.001);
    edt_gpu_is_cpu("sparse aniso", &[700, 900], Some(&[1.0, 0.3]), |i| {
        hash(i, 2) < 0.002
    });
    edt_gpu_is_cpu("dense", &[333, 250], Some(aniso), |i| hash(i, 3) < 0.4);
    // Rows of 2048 (64 bands of 32), of 5000 (128 bands of 40, the last
    // empty) and of 12000 (past shared memory: the one-thread-per-line pass).
    edt_gpu_is_cpu("rows 2048", &[40, 2048], None, |i| hash(i, 4) < 0.001);
    edt_gpu_is_cpu("rows 5000", &[3, 5000], Some(&[2.0, 0.5]), |i| {
        hash(i, 5) < 0.003
    });
    edt_gpu_is_cpu("rows 12000", &[2, 12000], Some(aniso), |i| {
        hash(i, 6) < 0.002
    });
    // Thin shapes and 1-D (the first pass is the last and takes the root).
    edt_gpu_is_cpu("1xN", &[1, 3000], None, |i| hash(i, 7) < 0.01);
    edt_gpu_is_cpu("Nx1", &[3000, 1], Some(&[1.7, 0.2]), |i| hash(i, 8) < 0.01);
    edt_gpu_is_cpu("1-D", &[5000], Some(&[0.3]), |i| hash(i, 9) < 0.002);
    edt_gpu_is_cpu("1-D ties", &[70], None, |i| i % 6 == 0);
    edt_gpu_is_cpu("single", &[1, 1], None, |_| false);
    // 3-D: strided middle axes packed many lines a block (300 x 5) or one
    // over 48 KiB (2100 x 70), and the last axis.
    edt_gpu_is_cpu("3-D", &[9, 300, 5], Some(&[1.5, 0.5, 2.0]), |i| {
        hash(i, 10) < 0.01
    });
    edt_gpu_is_cpu("3-D long middle", &[3, 2100, 70], None, |i| {
        hash(i, 11) < 0.0005
    });
    edt_gpu_is_cpu(
        "3-D one pixel",
        &[20, 33, 40],
        Some(&[1.0, 2.5, 0.75]),
        |i| i == 9999,
    );
    edt_gpu_is_cpu("4-D", &[5, 6, 7, 8], None, |i| hash(i, 12) < 0.05);
}

/// `nd::label` of the mask `on(flat index)` of `shape` on `d`, raveled with
/// its count as the last element (int64).
fn label_with_count(
    d: Device,
    shape: &[usize],
    structure: Option<&Array>,
    on: impl Fn(usize) -> bool,
) -> cp::Result<Array> {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| if on(i) { 1.0 } else { 0.0 }).collect();
    let mask = cp::from_shape_vec(shape, v, cp::Order::C)?.to_device(&d)?;
    let (l, count) = nd::label(&mask, structure)?;
    let count = cp::asarray(vec![count as i64])?;
    cp::concatenate(&[&l.ravel()?.astype(DType::Int64)?, &count], 0)
}

// The faces-only path links runs along the last axis inside 32-element
// segments and skips redundant unions; these masks hit its edges: runs
// across segments and rows, every element alone, one long component, thin
// arrays (one row, one column), 3-D; the full structure takes the generic
// kernel.
#[test]
fn gpu_label_shapes_match_cpu() {
    let noise = |shape: &[usize], seed: u64, above: f64| -> Vec<bool> {
        let n: usize = shape.iter().product();
        crate::common::rnd(n, seed)
            .into_iter()
            .map(|x| 0.5 * (x + 1.0) > above)
            .collect()
    };
    type Mask = Box<dyn Fn(usize) -> bool>;
    let cases: Vec<(&str, Vec<usize>, Mask)> = vec![
        ("all true", vec![1000, 1000], Box::new(|_| true)),
        ("all false", vec![300, 200], Box::new(|_| false)),
        ("stripes", vec![257, 300], Box::new(|i| (i / 300) % 2 == 0)),
        (
            "checkerboard",
            vec![133, 129],
            Box::new(|i| (i / 129 + i % 129) % 2 == 0),
        ),
        (
            // Full rows joined at alternate ends: one component.
            "snake",
            vec![200, 150],
            Box::new(|i| {
                let (r, c) = (i / 150, i % 150);
                r % 2 == 0 || (r % 4 == 1 && c == 149) || (r % 4 == 3 && c == 0)
            }),
        ),
        (
            // Columns joined only along the last row.
            "comb",
            vec![97, 70],
            Box::new(|i| (i % 70) % 2 == 0 || i / 70 == 96),
        ),
        ("1 x N", vec![1, 5000], {
            let m = noise(&[5000], 21, 0.3);
            Box::new(move |i| m[i])
        }),
        ("N x 1", vec![5000, 1], {
            let m = noise(&[5000], 22, 0.3);
            Box::new(move |i| m[i])
        }),
        ("1-D", vec![4099], {
            let m = noise(&[4099], 23, 0.2);
            Box::new(move |i| m[i])
        }),
        ("3-D noise", vec![40, 37, 70], {
            let m = noise(&[40, 37, 70], 24, 0.6);
            Box::new(move |i| m[i])
        }),
        ("3-D dense", vec![30, 33, 65], {
            let m = noise(&[30, 33, 65], 25, 0.1);
            Box::new(move |i| m[i])
        }),
        ("2-D dense", vec![700, 650], {
            let m = noise(&[700, 650], 26, 0.05);
            Box::new(move |i| m[i])
        }),
    ];
    for (what, shape, on) in &cases {
        gpu_matches_cpu(&format!("label {what}"), 0.0, |d| {
            label_with_count(d, shape, None, on)
        });
    }
    let m = noise(&[500, 300], 27, 0.55);
    gpu_matches_cpu("label noise, full structure", 0.0, |d| {
        let s = nd::generate_binary_structure(2, 2)?;
        label_with_count(d, &[500, 300], Some(&s), |i| m[i])
    });
    let m = noise(&[31, 29, 43], 28, 0.6);
    gpu_matches_cpu("label 3-D noise, edges structure", 0.0, |d| {
        let s = nd::generate_binary_structure(3, 2)?;
        label_with_count(d, &[31, 29, 43], Some(&s), |i| m[i])
    });
}

#[test]
fn bad_input_is_an_error() {
    let x = cp::zeros([4usize, 5], DType::Float64).unwrap();
    let s1 = cp::ones([3usize], DType::Bool).unwrap();
    // Structures of the wrong rank or extent, or not symmetric.
    let e = nd::label(&x, Some(&s1)).unwrap_err();
    assert!(e.to_string().contains("structure"), "{e}");
    assert!(nd::label(&x, Some(&cp::ones([5usize, 5], DType::Bool).unwrap())).is_err());
    let lop = cp::asarray(vec![
        vec![true, true, false],
        vec![false, true, false],
        vec![false, false, false],
    ])
    .unwrap();
    assert!(nd::label(&x, Some(&lop)).is_err());
    assert!(nd::binary_erosion(&x, &BinaryOptions::default().structure(&s1)).is_err());
    assert!(nd::grey_erosion(&x, 3usize, Some(&s1), &FilterOptions::default()).is_err());
    // Labels of another shape, bad histogram range, bad metric, bad sampling.
    let l = cp::zeros([5usize, 4], DType::Int32).unwrap();
    assert!(nd::sum_labels(&x, Some(&l), None).is_err());
    assert!(nd::histogram(&x, 1.0, 0.0, 4, None, None).is_err());
    assert!(nd::distance_transform_cdt(&x, "euclid").is_err());
    assert!(nd::distance_transform_edt(&x, Some(&[1.0, 2.0, 3.0]), false).is_err());
    assert!(nd::distance_transform_edt(&x, Some(&[0.0]), false).is_err());
    assert!(nd::find_objects(&x, 0).is_err());
}

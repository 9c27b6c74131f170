//! The parameters of cp::ndimage's morphology and window filters against
//! SciPy 1.17 (fixtures written by tests/data/scipy/generate_ndimage.py):
//! binary operations with `mask`, `border_value`, `origin` and
//! `iterations` (0: until nothing changes), grey operations and window
//! filters with `origin`; the GPU against the CPU on larger random inputs.

use crate::ndimage_common;

use cp::ndimage::{self as nd, BinaryOptions, FilterOptions};
use cp::{Array, DType, Device};
use cuprite as cp;
use ndimage_common::{check, check_vals, fixtures, fx, gpu_matches_cpu, mode, random, vals, MODES};

#[track_caller]
fn check_bool(got: &Array, key: &str) {
    assert_eq!(got.dtype(), DType::Bool, "{key}: dtype");
    let want = fixtures().get(key).unwrap();
    assert_eq!(got.shape(), want.shape(), "{key}: shape");
    let b = |a: &Array| vals(&a.astype(DType::Bool).unwrap());
    check_vals(key, &b(got), &b(want), 0.0);
}

type Bin = fn(&Array, &BinaryOptions) -> cp::Result<Array>;
const BINARY: [(&str, Bin); 4] = [
    ("binary_erosion", nd::binary_erosion),
    ("binary_dilation", nd::binary_dilation),
    ("binary_opening", nd::binary_opening),
    ("binary_closing", nd::binary_closing),
];

on_every_device!(binary_parameters_match_scipy, |_dev| {
    let (bw, seed, mask) = (fx("in/bw"), fx("in/seed"), fx("in/bmask"));
    let (asym, even) = (fx("in/asym"), fx("in/even"));
    let d = BinaryOptions::default();
    for (name, f) in BINARY {
        let key = |case: &str| format!("{name}/{case}");
        check_bool(&f(&bw, &d.clone().mask(&mask))?, &key("mask"));
        let o = d.clone().structure(&asym).iterations(3).mask(&mask);
        check_bool(&f(&bw, &o)?, &key("mask_iter3"));
        check_bool(
            &f(&seed, &d.clone().iterations(0).mask(&mask))?,
            &key("mask_until"),
        );
        let o = d.clone().structure(&asym).border_value(true);
        check_bool(&f(&bw, &o)?, &key("border1"));
        check_bool(
            &f(&bw, &d.clone().structure(&asym).origin(1))?,
            &key("origin"),
        );
        let o = d.clone().structure(&asym).origins(&[-1, 1]);
        check_bool(&f(&bw, &o)?, &key("origins"));
        let o = d.clone().structure(&even).origins(&[0, -1]).iterations(2);
        check_bool(&f(&bw, &o)?, &key("even_origin"));
        let o = d
            .clone()
            .structure(&asym)
            .iterations(0)
            .border_value(true)
            .origins(&[1, 0]);
        check_bool(&f(&bw, &o)?, &key("until_border"));
    }
    let empty = cp::zeros([3usize, 3], DType::Bool)?.to_device(&cp::current_device())?;
    let o = d.clone().structure(&empty).mask(&mask);
    check_bool(&nd::binary_erosion(&bw, &o)?, "binary_erosion/empty_mask");
});

on_every_device!(grey_and_filter_origins_match_scipy, |_dev| {
    let (v, fp, se, a2) = (fx("in/vals"), fx("in/fp"), fx("in/se"), fx("in/a2"));
    type Grey = fn(&Array, nd::Footprint, Option<&Array>, &FilterOptions) -> cp::Result<Array>;
    let greys: [(&str, Grey); 4] = [
        ("grey_erosion", |x, f, s, o| nd::grey_erosion(x, f, s, o)),
        ("grey_dilation", |x, f, s, o| nd::grey_dilation(x, f, s, o)),
        ("grey_opening", |x, f, s, o| nd::grey_opening(x, f, s, o)),
        ("grey_closing", |x, f, s, o| nd::grey_closing(x, f, s, o)),
    ];
    for (name, f) in greys {
        let o = FilterOptions::default()
            .mode(mode("constant"))
            .cval(0.5)
            .origins(&[1, -1]);
        check(
            &f(&v, [3usize, 4].into(), None, &o)?,
            &format!("{name}/size_origin"),
            0.0,
        );
        let o = FilterOptions::default().mode(mode("wrap")).origin(-1);
        check(
            &f(&v, (&fp).into(), None, &o)?,
            &format!("{name}/fp_origin"),
            0.0,
        );
        let o = FilterOptions::default()
            .mode(mode("mirror"))
            .origins(&[0, 1]);
        check(
            &f(&v, 1usize.into(), Some(&se), &o)?,
            &format!("{name}/se_origin"),
            1e-15,
        );
    }
    for m in MODES {
        let o = |org: &[isize]| {
            FilterOptions::default()
                .mode(mode(m))
                .cval(0.5)
                .origins(org)
        };
        let key = |f: &str| format!("{f}/origin/{m}");
        check(
            &nd::uniform_filter(&a2, &[3, 4], &o(&[1, -2]))?,
            &key("uniform_filter"),
            1e-14,
        );
        check(
            &nd::minimum_filter(&a2, [4usize, 3], &o(&[-2, 1]))?,
            &key("minimum_filter"),
            0.0,
        );
        check(
            &nd::maximum_filter(&a2, &fp, &o(&[1, -1]))?,
            &key("maximum_filter"),
            0.0,
        );
        check(
            &nd::median_filter(&a2, [3usize, 2], &o(&[-1, 0]))?,
            &key("median_filter"),
            0.0,
        );
    }
});

on_every_device!(binary_mask_of_the_wrong_shape_is_an_error, |_dev| {
    let bw = fx("in/bw");
    let m = cp::ones([3usize, 3], DType::Bool)?.to_device(&cp::current_device())?;
    let e = nd::binary_dilation(&bw, &BinaryOptions::default().mask(&m)).unwrap_err();
    assert_error!(e, Shape, "ndimage.binary_dilation");
    assert!(e.to_string().contains("mask of shape [3, 3]"), "{e}");
});

#[test]
fn gpu_morphology_parameters_match_cpu() {
    let blobs = |d: Device, shape: &[usize], seed: u64| -> cp::Result<Array> {
        let smooth = nd::gaussian_filter(
            &random(shape, seed, d),
            &[1.5],
            &[0],
            &FilterOptions::default(),
        )?;
        cp::greater(&smooth, 0.5)
    };
    let asym = |d: Device| -> cp::Result<Array> {
        cp::asarray(vec![
            false, true, true, true, true, false, false, true, false,
        ])?
        .reshape([3, 3])?
        .to_device(&d)
    };
    for (name, f) in BINARY {
        gpu_matches_cpu(&format!("{name} mask until stable"), 0.0, |d| {
            let mask = cp::greater(random(&[130, 141], 7, d), 0.3)?;
            let o = BinaryOptions::default()
                .structure(&asym(d)?)
                .iterations(0)
                .mask(&mask)
                .border_value(true)
                .origins(&[1, -1]);
            f(&blobs(d, &[130, 141], 5)?, &o)
        });
    }
    // Step counts around the device's chunk of 32 steps, steps after
    // convergence (skipped launches; the second step copies), tiled
    // windows of 1-3 dimensions and the general kernel (4-D, wide halo).
    let seed_pixel = |d: Device, shape: &[usize]| -> cp::Result<Array> {
        let n: usize = shape.iter().product();
        let v: Vec<bool> = (0..n).map(|i| i == n / 2 + 3).collect();
        cp::from_shape_vec(shape, v, cp::Order::C)?.to_device(&d)
    };
    for it in [1usize, 2, 3, 10, 31, 32, 33, 70, 0] {
        gpu_matches_cpu(&format!("dilation from a point, {it} steps"), 0.0, |d| {
            let o = BinaryOptions::default().iterations(it);
            nd::binary_dilation(&seed_pixel(d, &[61, 50])?, &o)
        });
        gpu_matches_cpu(&format!("erosion converging early, {it} steps"), 0.0, |d| {
            let o = BinaryOptions::default().iterations(it);
            nd::binary_erosion(&blobs(d, &[90, 77], 11)?, &o)
        });
        gpu_matches_cpu(
            &format!("erosion that changes nothing, {it} steps"),
            0.0,
            |d| {
                let ones = cp::ones([40usize, 33], DType::Bool)?.to_device(&d)?;
                let o = BinaryOptions::default().iterations(it).border_value(true);
                nd::binary_erosion(&ones, &o)
            },
        );
        gpu_matches_cpu(&format!("4-D dilation mask, {it} steps"), 0.0, |d| {
            let mask = cp::greater(random(&[5, 6, 7, 8], 3, d), 0.2)?;
            let o = BinaryOptions::default().iterations(it).mask(&mask);
            nd::binary_dilation(&seed_pixel(d, &[5, 6, 7, 8])?, &o)
        });
    }
    gpu_matches_cpu("3-D erosion, full connectivity", 0.0, |d| {
        let s = nd::generate_binary_structure(3, 3)?.to_device(&d)?;
        let o = BinaryOptions::default().structure(&s).iterations(2);
        nd::binary_erosion(&blobs(d, &[20, 21, 40], 12)?, &o)
    });
    gpu_matches_cpu("line dilation, border", 0.0, |d| {
        let o = BinaryOptions::default().iterations(3).border_value(true);
        nd::binary_dilation(&cp::greater(random(&[999], 13, d), 0.9)?, &o)
    });
    gpu_matches_cpu("erosion, wide structure (general)", 0.0, |d| {
        // Corners of 41 x 1001: the tile's halo does not fit in shared memory.
        let v: Vec<bool> = (0..41 * 1001)
            .map(|i| matches!((i / 1001, i % 1001), (0 | 40, 0 | 1000) | (20, 500)))
            .collect();
        let s = cp::from_shape_vec(vec![41, 1001], v, cp::Order::C)?.to_device(&d)?;
        let o = BinaryOptions::default().structure(&s).iterations(2);
        nd::binary_erosion(&blobs(d, &[60, 1100], 14)?, &o)
    });
    gpu_matches_cpu("dilation of a view, origin", 0.0, |d| {
        let o = BinaryOptions::default().iterations(4).origins(&[1, 0]);
        nd::binary_dilation(&cp::greater(random(&[70, 90], 15, d), 0.97)?.t(), &o)
    });
    gpu_matches_cpu("grey_dilation origin", 0.0, |d| {
        let o = FilterOptions::default()
            .mode(mode("wrap"))
            .origins(&[-1, 2]);
        nd::grey_dilation(&random(&[200, 190], 9, d), [3usize, 5], None, &o)
    });
    gpu_matches_cpu("uniform_filter origin", 1e-12, |d| {
        let o = FilterOptions::default()
            .mode(mode("mirror"))
            .origins(&[2, -1]);
        nd::uniform_filter(&random(&[200, 190], 10, d), &[5, 4], &o)
    });
}

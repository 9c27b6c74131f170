//! cp::ndimage's filters and spline interpolation against SciPy 1.17
//! (fixtures written by tests/data/scipy/generate_ndimage.py) on every
//! device, the GPU against the CPU backend on larger random inputs, and
//! bad input.

use crate::ndimage_common;

use cp::ndimage::{self as nd, FilterOptions, Footprint, InterpOptions, Mode};
use cp::{DType, Device};
use cuprite as cp;
use ndimage_common::{check, fx, gpu_matches_cpu, mode, random, IMODES, MODES};

fn fo(m: &str) -> FilterOptions {
    FilterOptions::default().mode(mode(m)).cval(0.5)
}

on_every_device!(line_filters_match_scipy, |_dev| {
    let (a1, a2) = (fx("in/a1"), fx("in/a2"));
    let (w3, w4) = ([0.2, 0.5, 0.3], [1.0, 2.0, -1.0, 0.5]);
    for m in MODES {
        for o in [-1isize, 0, 1] {
            let opts = fo(m).origin(o);
            check(
                &nd::correlate1d(&a2, &w3, 1, &opts)?,
                &format!("correlate1d/{m}/{o}/w3"),
                1e-13,
            );
            check(
                &nd::correlate1d(&a2, &w4, 0, &opts)?,
                &format!("correlate1d/{m}/{o}/w4"),
                1e-13,
            );
            check(
                &nd::convolve1d(&a1, &w3, -1, &opts)?,
                &format!("convolve1d/{m}/{o}/w3"),
                1e-13,
            );
            check(
                &nd::convolve1d(&a2, &w4, 1, &opts)?,
                &format!("convolve1d/{m}/{o}/w4"),
                1e-13,
            );
        }
    }
});

on_every_device!(nd_correlation_matches_scipy, |_dev| {
    let (a2, k) = (fx("in/a2"), fx("in/k"));
    for m in MODES {
        for (o0, o1) in [(0isize, 0isize), (1, -1), (-1, 1)] {
            let opts = FilterOptions::default()
                .mode(mode(m))
                .cval(0.25)
                .origins(&[o0, o1]);
            check(
                &nd::correlate(&a2, &k, &opts)?,
                &format!("correlate/{m}/{o0}_{o1}"),
                1e-13,
            );
            check(
                &nd::convolve(&a2, &k, &opts)?,
                &format!("convolve/{m}/{o0}_{o1}"),
                1e-13,
            );
        }
    }
});

on_every_device!(gaussian_and_uniform_match_scipy, |_dev| {
    let (a1, a2, a3) = (fx("in/a1"), fx("in/a2"), fx("in/a3"));
    for m in MODES {
        for (p, q) in [(0usize, 0usize), (1, 0), (0, 2), (1, 1)] {
            let g = nd::gaussian_filter(&a2, &[1.5, 0.8], &[p, q], &fo(m).truncate(3.0))?;
            check(&g, &format!("gaussian_filter/{m}/{p}{q}"), 1e-12);
        }
        check(
            &nd::gaussian_filter1d(&a1, 1.2, -1, 1, &fo(m))?,
            &format!("gaussian_filter1d/{m}"),
            1e-12,
        );
        check(
            &nd::uniform_filter(&a2, &[2, 4], &fo(m))?,
            &format!("uniform_filter/{m}"),
            1e-12,
        );
        check(
            &nd::uniform_filter1d(&a2, 4, 1, &fo(m).origin(1))?,
            &format!("uniform_filter1d/{m}"),
            1e-12,
        );
    }
    let d = FilterOptions::default();
    check(
        &nd::gaussian_filter(&a3, &[1.0, 0.5, 2.0], &[0], &d)?,
        "gaussian_filter/3d",
        1e-12,
    );
    check(
        &nd::uniform_filter(&a3, &[3], &d)?,
        "uniform_filter/3d",
        1e-12,
    );
});

on_every_device!(order_filters_match_scipy, |_dev| {
    let a2 = fx("in/a2");
    let fp = fx("in/fp");
    for m in MODES {
        let o = fo(m);
        check(
            &nd::minimum_filter(&a2, [3, 4], &o)?,
            &format!("minimum_filter/{m}/size"),
            0.0,
        );
        check(
            &nd::maximum_filter(&a2, [3, 4], &o)?,
            &format!("maximum_filter/{m}/size"),
            0.0,
        );
        check(
            &nd::median_filter(&a2, [3, 4], &o)?,
            &format!("median_filter/{m}/size"),
            0.0,
        );
        check(
            &nd::minimum_filter(&a2, &fp, &o)?,
            &format!("minimum_filter/{m}/fp"),
            0.0,
        );
        check(
            &nd::maximum_filter(&a2, &fp, &o)?,
            &format!("maximum_filter/{m}/fp"),
            0.0,
        );
        check(
            &nd::median_filter(&a2, &fp, &o)?,
            &format!("median_filter/{m}/fp"),
            0.0,
        );
        check(
            &nd::percentile_filter(&a2, 30.0, &fp, &o)?,
            &format!("percentile_filter/{m}/fp"),
            0.0,
        );
        check(
            &nd::rank_filter(&a2, -2, [3, 3], &o)?,
            &format!("rank_filter/{m}/size"),
            0.0,
        );
        check(
            &nd::minimum_filter1d(&a2, 4, 0, &o.clone().origin(1))?,
            &format!("minimum_filter1d/{m}"),
            0.0,
        );
        check(
            &nd::maximum_filter1d(&a2, 3, 1, &o)?,
            &format!("maximum_filter1d/{m}"),
            0.0,
        );
    }
    check(
        &nd::median_filter(&fx("in/a3"), 3usize, &FilterOptions::default())?,
        "median_filter/3d",
        0.0,
    );
    let shifted = FilterOptions::default().origins(&[1, -1]);
    check(
        &nd::median_filter(&a2, [3, 3], &shifted)?,
        "median_filter/origin",
        0.0,
    );
});

on_every_device!(derivatives_match_scipy, |_dev| {
    let a2 = fx("in/a2");
    for m in MODES {
        for ax in [0isize, 1] {
            check(
                &nd::sobel(&a2, ax, &fo(m))?,
                &format!("sobel/{m}/{ax}"),
                1e-13,
            );
            check(
                &nd::prewitt(&a2, ax, &fo(m))?,
                &format!("prewitt/{m}/{ax}"),
                1e-13,
            );
        }
        check(&nd::laplace(&a2, &fo(m))?, &format!("laplace/{m}"), 1e-13);
        check(
            &nd::gaussian_laplace(&a2, &[1.0], &fo(m))?,
            &format!("gaussian_laplace/{m}"),
            1e-12,
        );
        check(
            &nd::gaussian_gradient_magnitude(&a2, &[1.0], &fo(m))?,
            &format!("gaussian_gradient_magnitude/{m}"),
            1e-12,
        );
    }
});

on_every_device!(spline_filters_match_scipy, |_dev| {
    let (s1, a2) = (fx("in/s1"), fx("in/a2"));
    for order in 2..=5usize {
        for m in ["mirror", "reflect", "grid-wrap", "wrap", "constant"] {
            // SciPy approximates the reflect condition's sum for short lines.
            let tol = if m == "reflect" { 1e-5 } else { 1e-12 };
            check(
                &nd::spline_filter1d(&s1, order, 0, mode(m))?,
                &format!("spline_filter1d/{order}/{m}"),
                tol,
            );
        }
        check(
            &nd::spline_filter(&a2, order, Mode::Mirror)?,
            &format!("spline_filter/{order}"),
            1e-12,
        );
    }
});

on_every_device!(map_coordinates_matches_scipy, |_dev| {
    let (img, coords) = (fx("in/img"), fx("in/coords"));
    for order in 0..=5usize {
        for m in IMODES {
            // Nearest and grid-constant prefilter a padded input whose
            // far edge condition differs from SciPy's (see the module doc).
            let tol = match m {
                "nearest" | "grid-constant" => 1e-4,
                "reflect" | "grid-mirror" => 1e-6,
                _ => 1e-11,
            };
            let o = InterpOptions::default()
                .order(order)
                .mode(mode(m))
                .cval(0.3);
            check(
                &nd::map_coordinates(&img, &coords, &o)?,
                &format!("map_coordinates/{order}/{m}"),
                tol,
            );
        }
    }
});

on_every_device!(geometric_transforms_match_scipy, |dev| {
    let img = fx("in/img");
    let mat = fx("in/mat");
    let hom = cp::asarray(vec![
        vec![0.9, 0.3, 0.5],
        vec![-0.2, 1.1, -1.0],
        vec![0.0, 0.0, 1.0],
    ])?
    .to_device(&dev)?;
    for order in [0usize, 1, 3, 5] {
        let tol = if order > 1 { 1e-5 } else { 1e-12 };
        let o = InterpOptions::default().order(order);
        let near = o.clone().mode(Mode::Nearest);
        check(
            &nd::affine_transform(&img, &mat, &[0.5, -1.0], Some(&[6, 7]), &near)?,
            &format!("affine_transform/{order}"),
            tol,
        );
        check(
            &nd::affine_transform(&img, &hom, &[], None, &o.clone().mode(Mode::Reflect))?,
            &format!("affine_transform/{order}/hom"),
            tol,
        );
        check(
            &nd::zoom(&img, &[2.0], false, &o)?,
            &format!("zoom/{order}/x2"),
            tol,
        );
        check(
            &nd::zoom(&img, &[1.5, 0.7], false, &o.clone().mode(Mode::Mirror))?,
            &format!("zoom/{order}/mixed"),
            tol,
        );
        let grid = o.clone().mode(Mode::GridConstant).cval(0.2);
        check(
            &nd::zoom(&img, &[0.5, 1.3], true, &grid)?,
            &format!("zoom/{order}/grid"),
            1e-4,
        );
        check(
            &nd::shift(&img, &[1.3, -0.4], &o.clone().mode(Mode::Wrap))?,
            &format!("shift/{order}"),
            tol,
        );
        check(
            &nd::shift(&img, &[-2.2, 0.6], &o.clone().cval(0.7))?,
            &format!("shift/{order}/constant"),
            tol,
        );
        check(
            &nd::rotate(&img, 30.0, (1, 0), true, &o)?,
            &format!("rotate/{order}/reshape"),
            tol,
        );
        let same = o.clone().mode(Mode::Nearest);
        check(
            &nd::rotate(&img, -50.0, (0, 1), false, &same)?,
            &format!("rotate/{order}/same"),
            1e-4,
        );
    }
    check(
        &nd::zoom(
            &fx("in/a3"),
            &[1.5, 0.8, 1.2],
            false,
            &InterpOptions::default(),
        )?,
        "zoom/3/3d",
        1e-12,
    );
});

#[test]
fn gpu_filters_match_cpu() {
    let opts = |m: &str| FilterOptions::default().mode(mode(m)).cval(0.25);
    for (i, m) in MODES.iter().enumerate() {
        let seed = 100 + i as u64;
        gpu_matches_cpu("gaussian_filter 2-D f32", 1e-5, |d| {
            nd::gaussian_filter(
                &random(&[61, 77], seed, d).astype(DType::Float32)?,
                &[2.5],
                &[0],
                &opts(m),
            )
        });
        gpu_matches_cpu("gaussian_filter 3-D order", 1e-12, |d| {
            nd::gaussian_filter(
                &random(&[9, 10, 11], seed, d),
                &[1.0, 2.0, 0.7],
                &[1, 0, 2],
                &opts(m),
            )
        });
        gpu_matches_cpu("convolve", 1e-12, |d| {
            let k = random(&[4, 3], seed + 7, d);
            nd::convolve(&random(&[33, 40], seed, d), &k, &opts(m).origins(&[1, 0]))
        });
        gpu_matches_cpu("median_filter", 0.0, |d| {
            nd::median_filter(&random(&[50, 47], seed, d), [5, 5], &opts(m))
        });
        gpu_matches_cpu("rank_filter 3-D", 0.0, |d| {
            nd::rank_filter(&random(&[8, 9, 10], seed, d), 3, [3, 2, 3], &opts(m))
        });
        gpu_matches_cpu("maximum_filter uint8", 0.0, |d| {
            let x = cp::multiply(random(&[40, 41], seed, d), 200.0)?.astype(DType::UInt8)?;
            nd::maximum_filter(&x, [3, 6], &opts(m))
        });
        gpu_matches_cpu("sobel", 1e-12, |d| {
            nd::sobel(&random(&[30, 31], seed, d), 0, &opts(m))
        });
        gpu_matches_cpu("gaussian_gradient_magnitude", 1e-12, |d| {
            nd::gaussian_gradient_magnitude(&random(&[30, 31], seed, d), &[1.5], &opts(m))
        });
    }
}

/// The tiled rank kernel (windows of up to 3 dimensions whose selection
/// fits in registers) and the general one it leaves the rest to: every
/// dtype it keys, lines, planes and volumes, footprints with origins,
/// windows too large for it, and NaN, infinities and signed zeros, which
/// both backends order as `total_cmp`.
#[test]
fn gpu_small_rank_windows_match_cpu() {
    let opts = |m: &str| FilterOptions::default().mode(mode(m)).cval(0.25);
    for (i, m) in MODES.iter().enumerate() {
        let seed = 700 + i as u64;
        gpu_matches_cpu("median 5x5 f32", 0.0, |d| {
            let x = random(&[70, 45], seed, d).astype(DType::Float32)?;
            nd::median_filter(&x, [5, 5], &opts(m))
        });
        gpu_matches_cpu("median 5x5 transposed", 0.0, |d| {
            nd::median_filter(&random(&[45, 70], seed, d).t(), [5, 5], &opts(m))
        });
        gpu_matches_cpu("percentile footprint origin f32", 0.0, |d| {
            let fp = cp::greater(random(&[4, 5], seed + 1, d), 0.3)?;
            let x = random(&[37, 66], seed, d).astype(DType::Float32)?;
            nd::percentile_filter(&x, 70.0, &fp, &opts(m).origins(&[1, -2]))
        });
        gpu_matches_cpu("minimum footprint", 0.0, |d| {
            let fp = cp::greater(random(&[3, 6], seed + 2, d), 0.4)?;
            nd::minimum_filter(&random(&[33, 40], seed, d), &fp, &opts(m))
        });
        gpu_matches_cpu("rank 3-D 3x3x3", 0.0, |d| {
            nd::rank_filter(&random(&[9, 10, 35], seed, d), 20, [3, 3, 3], &opts(m))
        });
        gpu_matches_cpu("median line", 0.0, |d| {
            nd::median_filter(&random(&[1000], seed, d), [7usize], &opts(m))
        });
        gpu_matches_cpu("median one-row plane", 0.0, |d| {
            nd::median_filter(&random(&[1, 300], seed, d), [3, 3], &opts(m))
        });
        gpu_matches_cpu("median one-row line", 0.0, |d| {
            nd::median_filter(&random(&[1, 300], seed, d), [1, 4], &opts(m))
        });
        gpu_matches_cpu("median 9x9 (tiled)", 0.0, |d| {
            nd::median_filter(&random(&[40, 50], seed, d), [9, 9], &opts(m))
        });
        gpu_matches_cpu("minimum over 1,000+ taps (tiled)", 0.0, |d| {
            // Above the general kernel's 1024 taps: a chain, not a sort.
            let fp = cp::greater(random(&[40, 40], seed + 3, d), 0.3)?;
            nd::minimum_filter(&random(&[50, 45], seed, d), &fp, &opts(m))
        });
        gpu_matches_cpu("median 11x11 (general)", 0.0, |d| {
            nd::median_filter(&random(&[30, 35], seed, d), [11, 11], &opts(m))
        });
        gpu_matches_cpu("median 4-D (general)", 0.0, |d| {
            nd::median_filter(&random(&[4, 5, 6, 7], seed, d), [3, 2, 3, 2], &opts(m))
        });
        gpu_matches_cpu("rank wide footprint (general)", 0.0, |d| {
            // Two taps 2000 apart: the halo does not fit in shared memory.
            let fp = cp::zeros([1usize, 2001], DType::Bool)?;
            let fp = cp::logical_or(&fp, &cp::greater(&cp::arange(2001i64)?, 1999.5)?)?;
            let fp = cp::logical_or(&fp, &cp::less(&cp::arange(2001i64)?, 0.5)?)?.to_device(&d)?;
            nd::rank_filter(&random(&[20, 60], seed, d), 1, &fp, &opts(m))
        });
    }
    for dt in [
        DType::Bool,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::UInt16,
        DType::UInt32,
        DType::UInt64,
        DType::Float16,
    ] {
        gpu_matches_cpu(&format!("median 3x3 {dt}"), 0.0, |d| {
            // Signed types get negative values; wrapped ones stay distinct.
            let x = cp::multiply(cp::subtract(random(&[29, 70], 31, d), 0.3)?, 250.0)?;
            let x = if dt == DType::Bool {
                cp::greater(&x, 0.0)?
            } else if dt.is_unsigned_integer() {
                cp::abs(&x)?.astype(dt)?
            } else {
                x.astype(dt)?
            };
            nd::rank_filter(&x, 3, [3, 3], &opts("reflect"))
        });
    }
    // NaN, infinities and signed zeros: each backend orders them as
    // `total_cmp` (NaN last, -0.0 below 0.0), compared bit for bit.
    for dt in [DType::Float32, DType::Float64] {
        let Some(dev) = crate::common::gpu_or_skip() else {
            return;
        };
        let special = |d: Device| -> cp::Result<cp::Array> {
            let specials = [f64::NAN, f64::INFINITY, -f64::INFINITY, -0.0, 0.0, 1.0];
            let v: Vec<f64> = crate::common::rnd(24 * 31, 77)
                .into_iter()
                .enumerate()
                .map(|(i, r)| if i % 3 == 0 { specials[i / 3 % 6] } else { r })
                .collect();
            cp::from_shape_vec(vec![24, 31], v, cp::Order::C)?
                .astype(dt)?
                .to_device(&d)
        };
        for rank in [0isize, 2, 4, 6, 8] {
            let bits = |d: Device| -> Vec<u64> {
                let r = cp::with_device(d, || {
                    nd::rank_filter(&special(d)?, rank, [3, 3], &opts("nearest"))
                })
                .unwrap();
                r.astype(DType::Float64)
                    .unwrap()
                    .to_device(&Device::Cpu)
                    .unwrap()
                    .to_vec::<f64>()
                    .unwrap()
                    .iter()
                    .map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() })
                    .collect()
            };
            assert_eq!(
                bits(dev),
                bits(Device::Cpu),
                "rank {rank} {dt} with specials"
            );
        }
    }
}

#[test]
fn gpu_interpolation_matches_cpu() {
    for (i, m) in IMODES.iter().enumerate() {
        let seed = 300 + i as u64;
        for order in 0..=5usize {
            let o = InterpOptions::default()
                .order(order)
                .mode(mode(m))
                .cval(0.4);
            gpu_matches_cpu("map_coordinates", 1e-10, |d| {
                let c = cp::subtract(cp::multiply(random(&[2, 500], seed + 1, d), 40.0)?, 5.0)?;
                nd::map_coordinates(&random(&[25, 30], seed, d), &c, &o)
            });
            gpu_matches_cpu("map_coordinates 3-D", 1e-10, |d| {
                let c = cp::subtract(cp::multiply(random(&[3, 7, 11], seed + 1, d), 12.0)?, 2.0)?;
                nd::map_coordinates(&random(&[6, 7, 8], seed, d), &c, &o)
            });
            gpu_matches_cpu("zoom", 1e-10, |d| {
                nd::zoom(&random(&[20, 23], seed, d), &[1.7, 0.6], false, &o)
            });
            gpu_matches_cpu("rotate", 1e-10, |d| {
                nd::rotate(&random(&[20, 23], seed, d), 33.0, (0, 1), true, &o)
            });
        }
    }
}

/// The GPU prefilter splits lines into chunks of 128 samples that warm up
/// from about 25-50 samples before: lines of 1000, 300, 257 and 129 take
/// several chunks (the last one short), along the last, the first and a
/// middle axis, under each of the three edge conditions (mirror, reflect,
/// periodic), every order; short lines (5, 3, 2, 1) stay whole.
#[test]
fn gpu_spline_filter_matches_cpu_on_long_lines() {
    for order in 2..=5usize {
        for (i, m) in ["mirror", "reflect", "grid-wrap", "wrap"]
            .iter()
            .enumerate()
        {
            let seed = 500 + 10 * order as u64 + i as u64;
            gpu_matches_cpu("spline_filter1d last axis", 1e-12, |d| {
                nd::spline_filter1d(&random(&[3, 1000], seed, d), order, -1, mode(m))
            });
            gpu_matches_cpu("spline_filter1d first axis", 1e-12, |d| {
                nd::spline_filter1d(&random(&[300, 5], seed, d), order, 0, mode(m))
            });
            gpu_matches_cpu("spline_filter1d middle axis", 1e-12, |d| {
                nd::spline_filter1d(&random(&[2, 257, 3], seed, d), order, 1, mode(m))
            });
            gpu_matches_cpu("spline_filter1d short lines", 1e-12, |d| {
                nd::spline_filter1d(&random(&[4, 2, 3], seed, d), order, 1, mode(m))
            });
            gpu_matches_cpu("spline_filter1d single samples", 1e-12, |d| {
                nd::spline_filter1d(&random(&[6, 1], seed, d), order, 1, mode(m))
            });
            gpu_matches_cpu("spline_filter 1-D", 1e-12, |d| {
                nd::spline_filter(&random(&[129], seed, d), order, mode(m))
            });
            gpu_matches_cpu("spline_filter f32 transposed", 1e-12, |d| {
                let x = random(&[140, 131], seed, d).astype(DType::Float32)?;
                nd::spline_filter(&x.t(), order, mode(m))
            });
        }
    }
}

/// Every interpolation kernel the GPU builds: ranks 1 to 4 (4 loops over
/// its outer axes), float32 and float64 in and out, coordinates and
/// affine maps (output rank equal to the input's), every order and mode,
/// inputs long enough for the chunked prefilter, a non-contiguous input,
/// and coordinates far outside or not finite.
#[test]
fn gpu_interpolation_paths_match_cpu() {
    let f32_in =
        |shape: &[usize], seed: u64, d: Device| random(shape, seed, d).astype(DType::Float32);
    for (i, m) in IMODES.iter().enumerate() {
        let seed = 700 + i as u64;
        for order in 0..=5usize {
            let o = InterpOptions::default()
                .order(order)
                .mode(mode(m))
                .cval(0.4);
            gpu_matches_cpu("map_coordinates 1-D f32", 1e-6, |d| {
                let c = cp::subtract(cp::multiply(random(&[1, 400], seed + 1, d), 340.0)?, 20.0)?;
                nd::map_coordinates(&f32_in(&[300], seed, d)?, &c, &o)
            });
            gpu_matches_cpu("map_coordinates 2-D f32 coords", 1e-6, |d| {
                let c = cp::subtract(
                    cp::multiply(random(&[2, 30, 40], seed + 2, d), 180.0)?,
                    10.0,
                )?;
                nd::map_coordinates(
                    &f32_in(&[150, 160], seed, d)?,
                    &c.astype(DType::Float32)?,
                    &o,
                )
            });
            gpu_matches_cpu("map_coordinates 4-D", 1e-10, |d| {
                let c = cp::subtract(cp::multiply(random(&[4, 60], seed + 3, d), 8.0)?, 1.5)?;
                nd::map_coordinates(&random(&[4, 5, 3, 6], seed, d), &c, &o)
            });
            gpu_matches_cpu("zoom x2 f32", 1e-6, |d| {
                nd::zoom(&f32_in(&[40, 260], seed, d)?, &[2.0], false, &o)
            });
            gpu_matches_cpu("zoom 1-D grid", 1e-10, |d| {
                nd::zoom(&random(&[333], seed, d), &[0.7], true, &o)
            });
            gpu_matches_cpu("zoom 3-D", 1e-10, |d| {
                nd::zoom(&random(&[5, 7, 140], seed, d), &[1.3, 0.8, 1.1], false, &o)
            });
            gpu_matches_cpu("affine_transform transposed f32", 1e-6, |d| {
                let mat = cp::asarray(vec![vec![0.9, 0.2], vec![-0.3, 1.1]])?.to_device(&d)?;
                let x = f32_in(&[170, 30], seed, d)?;
                nd::affine_transform(&x.t(), &mat, &[3.5, -20.0], Some(&[25, 150]), &o)
            });
            gpu_matches_cpu("shift 4-D", 1e-10, |d| {
                nd::shift(&random(&[3, 4, 5, 6], seed, d), &[0.5, -1.2, 2.3, 0.1], &o)
            });
        }
        let o = InterpOptions::default().order(3).mode(mode(m)).cval(0.4);
        gpu_matches_cpu("map_coordinates far and not finite", 1e-10, |d| {
            let c = vec![
                f64::NAN,
                1e12,
                -1e12,
                3.0,
                f64::INFINITY,
                -7.5,
                2.0,
                4.0,
                f64::NEG_INFINITY,
                7.0,
                0.5,
                5.0e9,
            ];
            let c = cp::from_shape_vec(vec![2, 6], c, cp::Order::C)?.to_device(&d)?;
            nd::map_coordinates(&random(&[8, 9], seed, d), &c, &o)
        });
    }
}

#[test]
fn bad_input_is_an_error() {
    let x = cp::zeros([4usize, 5], DType::Float64).unwrap();
    let w3 = cp::ones([3usize], DType::Float64).unwrap();
    let d = FilterOptions::default();
    // Weights or footprint of the wrong rank.
    assert!(nd::correlate(&x, &w3, &d).is_err());
    assert!(nd::median_filter(&x, Footprint::Mask(w3.clone()), &d).is_err());
    // An origin outside the window, an axis that is not there.
    assert!(nd::correlate1d(&x, &[1.0, 2.0, 3.0], 0, &d.clone().origin(2)).is_err());
    assert!(nd::correlate1d(&x, &[1.0], 2, &d).is_err());
    assert!(nd::uniform_filter(&x, &[1, 2, 3], &d).is_err());
    assert!(nd::gaussian_filter(&x, &[-1.0], &[0], &d).is_err());
    assert!(nd::rank_filter(&x, 9, [3, 3], &d).is_err());
    assert!(nd::percentile_filter(&x, 150.0, [3, 3], &d).is_err());
    // A bad mode name.
    let e = Mode::from_name("ndimage.correlate", "mirrored").unwrap_err();
    assert!(e.to_string().contains("mirrored"), "{e}");
    // Coordinates of the wrong shape, a bad order, a bad matrix.
    let c = cp::zeros([3usize, 7], DType::Float64).unwrap();
    let io = InterpOptions::default();
    let e = nd::map_coordinates(&x, &c, &io).unwrap_err();
    assert!(e.to_string().contains("coordinates"), "{e}");
    assert!(nd::map_coordinates(&x, &c.reshape([21usize]).unwrap(), &io).is_err());
    assert!(nd::zoom(&x, &[2.0], false, &io.clone().order(6)).is_err());
    assert!(nd::zoom(&x, &[0.0], false, &io).is_err());
    assert!(nd::affine_transform(&x, &w3, &[], None, &io).is_err());
    assert!(nd::rotate(&x, 10.0, (0, 0), true, &io).is_err());
    let complex = x.astype(DType::Complex128).unwrap();
    assert!(nd::gaussian_filter(&complex, &[1.0], &[0], &d).is_err());
    let _ = Device::Cpu;
}

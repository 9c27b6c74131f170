//! Histograms, bincount and interp on the CPU.

use super::CpuBackend;
use crate::core::error::Result;
use crate::core::view::View;
use crate::ops::binning::{bin_of, interp_one, Bincount, Binning, Histogram, Interp};

/// Adds one to each bin named (counts), or the sample's weight (sums), and
/// writes the totals into `out` (int64 or float64).
fn accumulate(bins: impl Iterator<Item = Option<usize>>, weights: Option<View<'_>>, out: View<'_>) {
    let n = out.size();
    match weights {
        None => {
            let mut counts = vec![0i64; n];
            for b in bins.flatten() {
                counts[b] += 1;
            }
            out.scatter(&counts);
        }
        Some(w) => {
            let w = w.gather_as::<f64>();
            let mut sums = vec![0.0f64; n];
            for (b, w) in bins.zip(w) {
                if let Some(b) = b {
                    sums[b] += w;
                }
            }
            out.scatter(&sums);
        }
    }
}

impl Binning for CpuBackend {
    fn histogram(&self, _op: &'static str, h: Histogram<'_>) -> Result<()> {
        let axes: Vec<(Vec<f64>, Vec<f64>, bool)> = h
            .axes
            .iter()
            .map(|a| {
                (
                    a.values.gather_as::<f64>(),
                    a.edges.gather::<f64>(),
                    a.uniform,
                )
            })
            .collect();
        let n = axes.first().map_or(0, |a| a.0.len());
        let bins = (0..n).map(|k| {
            axes.iter()
                .try_fold(0usize, |flat, (values, edges, uniform)| {
                    let b = bin_of(values[k], edges, *uniform)?;
                    Some(flat * (edges.len() - 1) + b)
                })
        });
        accumulate(bins, h.weights, h.out);
        Ok(())
    }

    fn bincount(&self, _op: &'static str, b: Bincount<'_>) -> Result<()> {
        let bins = b.x.gather_as::<i64>().into_iter().map(|v| Some(v as usize));
        accumulate(bins, b.weights, b.out);
        Ok(())
    }

    fn interp(&self, _op: &'static str, i: Interp<'_>) -> Result<()> {
        let (xp, fp) = (i.xp.gather::<f64>(), i.fp.gather::<f64>());
        let out: Vec<f64> =
            i.x.gather_as::<f64>()
                .into_iter()
                .map(|v| interp_one(v, &xp, &fp, i.left, i.right))
                .collect();
        i.out.scatter(&out);
        Ok(())
    }
}

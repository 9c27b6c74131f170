//! Random draws on the CPU.

pub(crate) mod dists;

use super::CpuBackend;
use crate::core::element::Element;
use crate::core::error::Result;
use crate::core::storage::{CpuStorage, Storage};
use crate::ops::random::{
    block_words, bounded32, bounded64, box_muller_f32, box_muller_f64, open_f32, open_f64,
    unit_f32, unit_f64, wide, Draw, DrawJob, Random,
};

impl Random for CpuBackend {
    fn draw(&self, op: &'static str, job: DrawJob) -> Result<Storage> {
        let DrawJob {
            draw,
            dtype,
            len,
            key,
            offset,
        } = job;
        crate::core::layout::check_host_room(op, len, dtype.itemsize())?;
        let data = match draw {
            Draw::Sample(dist) => {
                crate::with_dtype!(dtype, T => T::into_data(dists::fill::<T>(dist, len, key, offset)))
            }
            _ => {
                crate::with_dtype!(dtype, T => T::into_data(fill_cpu::<T>(draw, len, key, offset)))
            }
        };
        Ok(Storage::Cpu(CpuStorage::new(data)))
    }
}

/// Values `0..n` of `draw` in dtype `T`, starting at block `offset` (the CPU
/// backend; `cuda::rand` computes the same values on a GPU).
#[allow(clippy::needless_range_loop)] // lanes index the words and the values alike
fn fill_cpu<T: Element>(draw: Draw, n: usize, key: [u32; 2], offset: u64) -> Vec<T> {
    let dtype = T::DTYPE;
    let per = draw.per_block(dtype);
    let mut out: Vec<T> = Vec::with_capacity(n);
    let blocks = n.div_ceil(per);
    for b in 0..blocks {
        let block = offset.wrapping_add(b as u64);
        let w = block_words(key, block, 0);
        let mut vals = [crate::Scalar::Int(0); 4];
        match (draw, per) {
            (Draw::Uniform { low, span }, 4) => {
                let (l, s) = (low as f32, span as f32);
                for v in 0..4 {
                    vals[v] = crate::Scalar::Float((l + s * unit_f32(w[v])) as f64);
                }
            }
            (Draw::Uniform { low, span }, _) => {
                for v in 0..2 {
                    let u = unit_f64(wide(w[2 * v], w[2 * v + 1]));
                    vals[v] = crate::Scalar::Float(low + span * u);
                }
            }
            (Draw::Normal { loc, scale }, 4) => {
                let (l, s) = (loc as f32, scale as f32);
                for q in 0..2 {
                    let (z0, z1) = box_muller_f32(w[2 * q], w[2 * q + 1]);
                    vals[2 * q] = crate::Scalar::Float((l + s * z0) as f64);
                    vals[2 * q + 1] = crate::Scalar::Float((l + s * z1) as f64);
                }
            }
            (Draw::Normal { loc, scale }, _) => {
                let (z0, z1) = box_muller_f64(wide(w[0], w[1]), wide(w[2], w[3]));
                vals[0] = crate::Scalar::Float(loc + scale * z0);
                vals[1] = crate::Scalar::Float(loc + scale * z1);
            }
            (Draw::Exponential { scale }, 4) => {
                let s = scale as f32;
                for v in 0..4 {
                    let e = -(open_f32(w[v]) as f64).ln() as f32;
                    vals[v] = crate::Scalar::Float((s * e) as f64);
                }
            }
            (Draw::Exponential { scale }, _) => {
                for v in 0..2 {
                    let e = -open_f64(wide(w[2 * v], w[2 * v + 1])).ln();
                    vals[v] = crate::Scalar::Float(scale * e);
                }
            }
            (Draw::Integers { low, range }, 4) => {
                for v in 0..4 {
                    let k = bounded32(key, block, v, w[v], range);
                    vals[v] = crate::Scalar::Int((low as u64).wrapping_add(k) as i64);
                }
            }
            (Draw::Integers { low, range }, _) => {
                for v in 0..2 {
                    let k = bounded64(key, block, v, wide(w[2 * v], w[2 * v + 1]), range);
                    vals[v] = crate::Scalar::Int((low as u64).wrapping_add(k) as i64);
                }
            }
            (Draw::Sample(_), _) => unreachable!("element-wise samples are drawn by dists::fill"),
        }
        let take = per.min(n - b * per);
        out.extend(vals[..take].iter().map(|&s| T::from_scalar(s)));
    }
    out
}

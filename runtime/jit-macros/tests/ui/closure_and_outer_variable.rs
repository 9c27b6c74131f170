use cuprite_jit_macros::kernel;

const SCALE: f32 = 2.0;

#[kernel]
fn scaled(x: &[f32], out: &mut [f32]) {
    let f = |v: f32| v * 2.0;
    out[0] = x[0];
}

#[kernel]
fn outer(x: &[f32], out: &mut [f32]) {
    out[0] = x[0] * SCALE;
}

fn main() {}

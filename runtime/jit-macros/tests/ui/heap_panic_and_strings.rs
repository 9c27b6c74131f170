use cuprite_jit_macros::{elementwise, kernel};

#[kernel]
fn allocates(out: &mut [f32]) {
    let v = vec![0.0f32; 4];
}

#[kernel]
fn panics(out: &mut [f32]) {
    if out.len() == 0 {
        panic!("empty");
    }
}

#[kernel]
fn named(label: String, out: &mut [f32]) {}

#[elementwise]
fn dynamic(x: &dyn std::fmt::Debug) -> f32 {
    1.0
}

fn main() {}

//! The workshop's first program: a range reshaped to 2 x 3 as float32,
//! summed along axis 1. Runs on the GPU when one is usable, else on the CPU.
//!
//! `cargo run -p cuprite --example hello_gpu`

use cuprite as cp;

fn main() -> cp::Result<()> {
    let (device, why) = cp::device::default_device_and_reason();
    println!("device: {device} ({why})");
    let x = cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)?;
    let y = x.sum_axis(1)?;
    println!("x =\n{x}");
    println!(
        "y = x.sum_axis(1) = {y}   shape {:?}, {}",
        y.shape(),
        y.dtype()
    );
    println!("on the host: {:?}", y.to_vec::<f32>()?);
    Ok(())
}

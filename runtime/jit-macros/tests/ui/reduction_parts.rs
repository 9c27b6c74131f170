use cuprite_jit_macros::reduction;

#[reduction]
mod no_identity {
    fn map(x: f32) -> f32 {
        x * x
    }
    fn combine(a: f32, b: f32) -> f32 {
        a + b
    }
}

#[reduction]
mod three_way {
    const IDENTITY: f32 = 0.0;
    fn map(x: f32) -> f32 {
        x
    }
    fn combine(a: f32, b: f32, c: f32) -> f32 {
        a + b + c
    }
}

#[reduction]
mod with_helper {
    const IDENTITY: f64 = 0.0;
    fn map(x: f64) -> f64 {
        x
    }
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    fn square(x: f64) -> f64 {
        x * x
    }
}

#[reduction]
mod identity_of_another_type {
    const IDENTITY: i32 = 0;
    fn map(x: f32) -> f32 {
        x
    }
    fn combine(a: f32, b: f32) -> f32 {
        a.max(b)
    }
}

fn main() {}

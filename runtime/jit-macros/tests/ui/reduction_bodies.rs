use cuprite_jit_macros::reduction;

const LIMIT: f32 = 4.0;

#[reduction]
mod clipped_sum {
    const IDENTITY: f32 = 0.0;
    fn map(x: f32) -> f32 {
        let clip = |v: f32| v.min(4.0);
        clip(x)
    }
    fn combine(a: f32, b: f32) -> f32 {
        a + b
    }
}

#[reduction]
mod outer_limit {
    const IDENTITY: f32 = 0.0;
    fn map(x: f32) -> f32 {
        x.min(LIMIT)
    }
    fn combine(a: f32, b: f32) -> f32 {
        a + b
    }
}

#[reduction]
mod checked {
    const IDENTITY: f64 = 0.0;
    fn map(x: f64) -> f64 {
        x
    }
    fn combine(a: f64, b: f64) -> f64 {
        assert!(a >= 0.0);
        a + b
    }
}

fn main() {}

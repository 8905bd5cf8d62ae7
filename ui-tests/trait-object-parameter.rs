use ad::differentiable;

pub trait Energy {
    fn energy(&self, x: f64) -> f64;
}

// A function behind a trait object: its derivative cannot be found through it.
#[differentiable]
fn through_dyn_fn(f: &dyn Fn(f64) -> f64, x: f64) -> f64 {
    f(x) * x
}

// A trait object of a user's trait.
#[differentiable]
fn through_dyn_trait(_model: Box<dyn Energy>, x: f64) -> f64 {
    x * 2.0
}

fn main() {}

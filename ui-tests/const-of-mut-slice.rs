// A slice the function writes cannot be held constant.
use ad::Const;

#[ad::differentiable]
fn f(a: f64, _x: Const<&mut [f64]>) -> f64 {
    a
}

fn main() {}

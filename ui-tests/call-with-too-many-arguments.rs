use ad::differentiable;

fn helper(x: f64, y: f64) -> f64 {
    x * y
}

#[differentiable]
fn f(x: f64) -> f64 {
    helper(x, x, 2.0) + 1.0
}

fn main() {}

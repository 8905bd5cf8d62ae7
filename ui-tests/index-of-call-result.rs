use ad::differentiable;

fn pair(x: f64) -> [f64; 2] {
    [x, 2.0 * x]
}

#[differentiable]
fn f(x: f64) -> f64 {
    pair(x)[1] * x
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn twice(f: fn(f64) -> f64, x: f64) -> f64 {
    f(f(x))
}

#[differentiable]
fn g(x: f64) -> f64 {
    let square = |v: f64| v * v;
    twice(|v| v * v, x) + twice(square, x)
}

fn main() {}

use ad::differentiable;

fn scaled(x: f64, n: u32) -> f64 {
    x * f64::from(n)
}

#[differentiable]
fn f(x: f64) -> f64 {
    scaled(x, 1.5) + 1.0
}

fn main() {}

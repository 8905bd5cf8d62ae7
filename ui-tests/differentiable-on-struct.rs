use ad::differentiable;

#[differentiable]
struct Point {
    x: f64,
    y: f64,
}

fn main() {}

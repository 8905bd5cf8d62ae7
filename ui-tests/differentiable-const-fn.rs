use ad::differentiable;

#[differentiable]
const fn double(x: f64) -> f64 {
    2.0 * x
}

fn main() {}

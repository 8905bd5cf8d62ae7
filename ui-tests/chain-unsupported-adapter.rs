use ad::differentiable;

#[differentiable]
fn positive_sum(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).map(|v| v * v).sum()
}

fn main() {}

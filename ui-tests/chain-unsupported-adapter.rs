use ad::differentiable;

#[differentiable]
fn positive_sum(x: &[f64]) -> f64 {
    x.iter().rev().map(|v| v * v).sum()
}

fn main() {}

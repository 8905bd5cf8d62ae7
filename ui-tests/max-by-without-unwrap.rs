use ad::differentiable;

#[differentiable]
fn largest(x: &[f64]) -> f64 {
    x.iter()
        .copied()
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap_or(0.0)
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn largest_magnitude(x: &[f64]) -> f64 {
    x.iter()
        .copied()
        .max_by(|a, b| a.abs().partial_cmp(&b.abs()).unwrap())
        .unwrap()
}

fn main() {}

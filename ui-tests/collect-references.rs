use ad::differentiable;

#[differentiable]
fn count_positive(x: &[f64]) -> f64 {
    let v: Vec<&f64> = x.iter().filter(|v| **v > 0.0).collect();
    v.len() as f64
}

fn main() {}

use ad::differentiable;

fn total(v: &[f64]) -> f64 {
    v.iter().sum()
}

#[differentiable]
fn f(w: &[f64]) -> f64 {
    total(w) * 2.0
}

fn main() {}

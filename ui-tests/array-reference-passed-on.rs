use ad::differentiable;

fn norm2(p: &[f64; 2]) -> f64 {
    p[0] * p[0] + p[1] * p[1]
}

#[differentiable]
fn uses_norm2(p: &[f64; 2]) -> f64 {
    norm2(p) + p[0]
}

fn main() {}

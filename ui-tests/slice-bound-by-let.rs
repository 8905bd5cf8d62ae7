use ad::differentiable;

#[differentiable]
fn f(w: &[f64]) -> f64 {
    let v = w;
    let total = v;
    total[0] * 2.0
}

fn main() {}

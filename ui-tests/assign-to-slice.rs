use ad::differentiable;

#[differentiable]
fn f(mut y: &[f64]) -> f64 {
    if y[0] > 0.0 {
        y = &y[1..];
    }
    y[0] * 2.0
}

fn main() {}

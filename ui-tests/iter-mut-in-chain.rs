use ad::differentiable;

#[differentiable]
fn f(mut v: Vec<f64>, x: f64) -> f64 {
    v.iter_mut().map(|y| *y * x).sum()
}

fn main() {}

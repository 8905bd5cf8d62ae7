use ad::differentiable;

#[differentiable]
fn f(v: Vec<f64>) -> f64 {
    let tail: f64 = v[1..].iter().sum();
    tail * v[0]
}

fn main() {}

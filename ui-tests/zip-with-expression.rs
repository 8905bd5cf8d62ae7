use ad::differentiable;

fn weights() -> Vec<f64> {
    vec![1.0, 2.0]
}

#[differentiable]
fn f(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for (x, w) in v.iter().zip(weights().iter()) {
        s += x * w;
    }
    s
}

fn main() {}

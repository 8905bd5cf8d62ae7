use ad::differentiable;

#[differentiable]
fn f(v: Vec<f64>) -> f64 {
    let tail = v[1..].to_vec();
    tail[0] * v[0]
}

fn main() {}

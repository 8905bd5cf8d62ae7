use ad::differentiable;

#[differentiable]
fn f(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for y in v.iter().filter(|y| **y > 0.0) {
        s = s * 0.5 + y;
    }
    s
}

fn main() {}

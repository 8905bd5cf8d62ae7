use ad::differentiable;

#[differentiable]
fn f(v: Vec<(f64, f64)>) -> f64 {
    let mut s = 0.0;
    for (a, b) in v.iter() {
        s += a * b;
    }
    s
}

fn main() {}

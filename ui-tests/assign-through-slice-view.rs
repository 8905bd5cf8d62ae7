use ad::differentiable;

#[differentiable]
fn f(x: f64, n: usize) -> f64 {
    let mut h = vec![x; n];
    let head = &h[..2];
    head[0] = x * x;
    h[0] + h[1]
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut a = [0.0; 2];
    a[0] = x;
    a[0] + a[1]
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn power(x: f64, n: i32) -> f64 {
    let mut acc = 1.0;
    for _ in 0..n {
        acc *= x;
    }
    acc
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn f(x: f64, n: i32) -> f64 {
    let mut y = x;
    for _ in 0..n {
        y *= 2.0;
        if y > 10.0 {
            return y;
        }
    }
    y
}

fn main() {}

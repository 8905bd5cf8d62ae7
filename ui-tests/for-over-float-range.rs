use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = 0.0;
    for t in 0.0..x {
        y += t;
    }
    y
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut y = x;
    while y < 100.0 {
        y *= 2.0;
        if y > 50.0 {
            break;
        }
    }
    y
}

fn main() {}

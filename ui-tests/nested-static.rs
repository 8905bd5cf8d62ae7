use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    static SCALE: f64 = 2.0;
    x * SCALE
}

fn main() {}

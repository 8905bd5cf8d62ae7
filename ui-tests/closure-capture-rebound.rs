use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let scale = |t: f64| t * x;
    let x = 2.0 * x;
    scale(x)
}

fn main() {}

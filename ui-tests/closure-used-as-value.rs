use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let scale = |t: f64| t * x;
    let _ = scale;
    x
}

fn main() {}

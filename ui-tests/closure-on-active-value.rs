use ad::differentiable;

#[differentiable]
fn scaled(x: f64) -> f64 {
    let g = |t: f64| t * x;
    g(2.0)
}

fn main() {}

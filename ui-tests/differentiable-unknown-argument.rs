use ad::differentiable;

#[differentiable(reverse)]
fn f(x: f64) -> f64 {
    x * x
}

fn main() {}

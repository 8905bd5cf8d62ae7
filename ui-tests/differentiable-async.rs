use ad::differentiable;

#[differentiable]
async fn square(x: f64) -> f64 {
    x * x
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn square(x: impl num_traits::Float) -> f64 {
    x.to_f64().unwrap()
}

fn main() {}

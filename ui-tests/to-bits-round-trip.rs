use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    f64::from_bits(x.to_bits())
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn sign(x: f64) -> f64 {
    match x {
        0.0 => 0.0,
        _ => 1.0,
    }
}

fn main() {}

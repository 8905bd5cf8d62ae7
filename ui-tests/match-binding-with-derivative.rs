use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let positive = if x > 0.0 { Some(x) } else { None };
    match positive {
        Some(v) => v * v,
        None => 0.0,
    }
}

fn main() {}

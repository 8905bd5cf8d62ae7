use ad::differentiable;

// `unwrap_or` of an `Option` that carries a derivative: a `match` spells it.
#[differentiable]
fn f(x: f64) -> f64 {
    let positive = if x > 0.0 { Some(x.sqrt()) } else { None };
    positive.unwrap_or(0.0) * x
}

fn main() {}

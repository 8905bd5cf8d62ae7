use ad::differentiable;

fn bucket(x: f64) -> i32 {
    (x * 4.0) as i32
}

#[differentiable]
fn f(x: f64) -> f64 {
    match bucket(x) {
        0 => x,
        _ => x * x,
    }
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn f(x: f64, k: i32) -> f64 {
    match k {
        0 => x,
        n => x * n as f64,
    }
}

fn main() {}

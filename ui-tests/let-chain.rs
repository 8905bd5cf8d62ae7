use ad::differentiable;

#[differentiable]
fn f(x: f64, n: u32) -> f64 {
    let steps = n.checked_sub(1);
    if let Some(k) = steps && k > 2 {
        x * k as f64
    } else {
        x
    }
}

fn main() {}

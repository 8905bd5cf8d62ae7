use ad::differentiable;

#[differentiable]
fn f(x: f64, n: u32) -> f64 {
    let mut y = x;
    let mut steps = Some(n);
    while let Some(k) = steps {
        y *= 0.5;
        steps = k.checked_sub(1);
    }
    y
}

fn main() {}

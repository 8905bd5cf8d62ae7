use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let mut acc = 0.0;
    for v in [x, 2.0 * x] {
        acc += v;
    }
    acc
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn f(mut x: f64) -> f64 {
    assert!({
        x = 2.0;
        true
    });
    x
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = async { x };
    drop(y);
    x
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y = unsafe { core::ptr::read(&x) };
    y * 2.0
}

fn main() {}

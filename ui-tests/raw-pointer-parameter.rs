use ad::differentiable;

#[differentiable]
fn f(x: *const f64) -> f64 {
    unsafe { *x }
}

fn main() {}

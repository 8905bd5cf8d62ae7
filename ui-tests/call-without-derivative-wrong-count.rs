use ad::differentiable;

fn helper(x: f64, y: f64) -> f64 {
    x * y
}

// The call's arguments carry no derivative, so the derivative calls `helper` directly.
#[differentiable]
fn f(x: f64) -> f64 {
    helper(2.0) + x
}

fn main() {}

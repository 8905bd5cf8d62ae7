use ad::differentiable;

// Every mistake in one function is reported in one build: the attribute's argument, a parameter
// type, and an unsupported construct in the body.
#[differentiable(order = 2)]
fn f(x: f64, label: String) -> f64 {
    let y = unsafe { core::ptr::read(&x) };
    y * label.len() as f64
}

fn main() {}

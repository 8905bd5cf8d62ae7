use ad::differentiable;

// A view bound with `&` is read-only: `iter_mut` of it would write through it.
#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut h = vec![0.0; x.len()];
    h[0] = x[0];
    let part = &h[..];
    for v in part.iter_mut() {
        *v *= 2.0;
    }
    h[0]
}

fn main() {}

use ad::differentiable;

fn touch(v: &mut f64) -> bool {
    *v = 2.0;
    true
}

// A local without a declared type lent as `&mut`: lent as a slice, which a float is not.
#[differentiable]
fn f(y: f64) -> f64 {
    let mut x = y * 2.0;
    let t = touch(&mut x);
    if t { x * 3.0 } else { x }
}

fn main() {}

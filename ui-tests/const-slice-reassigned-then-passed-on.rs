// A slice held constant, in a local the function assigns more than once, passed on to another
// function: the reverse sweep cannot read it again, nor keep it on the tape.
use ad::Const;

#[ad::differentiable]
fn inner(a: f64, x: Const<&[f64]>) -> f64 {
    a * x[0]
}

#[ad::differentiable]
fn outer(a: f64, x: Const<&[f64]>, y: Const<&[f64]>) -> f64 {
    let mut z = x;
    if a > 0.0 {
        z = y;
    }
    inner(a, z) * a
}

fn main() {}

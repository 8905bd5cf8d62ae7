// A plain tuple's field indexed, to read or to write: its fields are values, not places (a
// tuple struct's are, where the body names its type).
#[ad::differentiable]
fn f(mut p: (Vec<f64>, f64), x: f64) -> f64 {
    p.0[1] = x;
    p.0[0] * p.1
}

fn main() {}

// A tuple struct's field indexed, to read or to write: not yet (the elements of named fields
// are, also through elements of fields).
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Pair(Vec<f64>, f64);

#[ad::differentiable]
fn f(mut p: Pair, x: f64) -> f64 {
    p.0[1] = x;
    p.0[0] * p.1
}

fn main() {}

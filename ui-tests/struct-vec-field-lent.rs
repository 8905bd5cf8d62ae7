// A field of a struct lent by reference must be a struct itself: a `Vec` field is an error
// with the fix, at the argument.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Bag { w: Vec<f64>, x: f64 }

#[ad::differentiable]
fn total(v: &[f64]) -> f64 { v[0] + v[1] }

#[ad::differentiable]
fn f(b: &Bag) -> f64 {
    total(&b.w) * b.x
}

fn main() {}

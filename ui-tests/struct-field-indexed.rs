// A struct's field indexed in place: bind the field first.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[ad::differentiable]
fn f(l: Layer, x: f64) -> f64 {
    l.w[0] * x + l.b
}

fn main() {}

// An element of a struct's field written in place: not yet (reading one is supported).
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[ad::differentiable]
fn f(mut l: Layer, x: f64) -> f64 {
    l.w[0] = x * l.b;
    l.w[0] * x + l.b
}

fn main() {}

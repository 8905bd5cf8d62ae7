// An element of a field indexed through an element of a `Vec` of structs, or a tuple
// struct's field indexed: not yet (a named field's element of a struct variable is).
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Layer {
    w: Vec<f64>,
    b: f64,
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Net {
    layers: Vec<Layer>,
}

#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Pair(Vec<f64>, f64);

#[ad::differentiable]
fn f(mut n: Net, mut p: Pair, x: f64) -> f64 {
    n.layers[0].w[0] = x;
    p.0[1] = x;
    n.layers[0].b + p.1
}

fn main() {}

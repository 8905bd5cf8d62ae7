// A field of an element of a `Vec` of structs assigned, plainly and compound, and a tuple
// struct's field indexed: not yet (elements of named fields, also through elements, are).
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
    n.layers[0].b = x;
    n.layers[1].b *= x;
    p.0[1] = x;
    n.layers[0].b + p.1
}

fn main() {}

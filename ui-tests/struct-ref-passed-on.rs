// A reference to a struct passed on to another function: not yet.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
pub struct Model {
    pub b: f64,
}

#[ad::differentiable]
pub fn predict(m: &Model, x: f64) -> f64 { m.b * x }

#[ad::differentiable]
pub fn total(m: &Model, xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() { s += predict(m, xs[i]); }
    s
}

fn main() {}

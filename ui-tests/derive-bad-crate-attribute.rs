// `#[ad(..)]` on a derived type takes `crate = path` only.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
#[ad(tangent = Self)]
struct Point {
    x: f64,
}

fn main() {}

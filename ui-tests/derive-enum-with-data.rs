// An enum with data would drop the derivatives of what its variants hold.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
enum Reading {
    Raw(f64),
    Missing,
}

fn main() {}

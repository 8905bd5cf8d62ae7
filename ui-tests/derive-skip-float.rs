// A float field left out of the tangent: not supported yet, with what to do instead.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Model {
    weight: f64,
    #[ad(skip)]
    learning_rate: f64,
}

fn main() {}

// `#[ad(..)]` on a field takes `skip` only.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Params {
    #[ad(constant)]
    scale: f64,
    value: f64,
}

fn main() {}

// A union has no derivative.
#[derive(Clone, Copy, ad::Differentiable)]
union Bits {
    f: f64,
    u: u64,
}

fn main() {}

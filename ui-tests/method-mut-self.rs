// A method that takes `&mut self` in a differentiable `impl` block: not yet.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Counter {
    total: f64,
}

#[ad::differentiable]
impl Counter {
    fn add(&mut self, x: f64) -> f64 {
        self.total += x;
        self.total
    }
}

fn main() {}

// Methods a differentiable `impl` block does not take yet, each reported: `&mut self`, a
// typed receiver, a generic method.
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

    fn boxed(self: Box<Self>) -> f64 {
        self.total
    }

    fn scaled<T: Into<f64>>(&self, by: T) -> f64 {
        self.total * by.into()
    }
}

fn main() {}

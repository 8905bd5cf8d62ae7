// Methods a differentiable `impl` block does not take yet, each reported: a typed receiver, a
// generic method; and a call of a `&mut self` method inside a differentiable body.
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

#[ad::differentiable]
fn twice(x: f64) -> f64 {
    let mut c = Counter { total: x };
    c.add(x)
}

fn main() {}

// A generic method of a struct called in a body: not yet.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
pub struct Rod {
    pub a: f64,
}

impl Rod {
    pub fn scaled<T: Into<f64>>(&self, k: T) -> f64 {
        self.a * k.into()
    }
}

#[ad::differentiable]
pub fn stretch(r: &Rod) -> f64 {
    r.scaled::<f64>(2.0)
}

fn main() {}

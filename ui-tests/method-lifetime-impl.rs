// The methods of an `impl` block with a lifetime parameter: not differentiated (a generic
// block over types is, at `f64` and `f32`).
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
pub struct Scaled {
    pub k: f64,
}

pub struct View<'a> {
    pub of: &'a Scaled,
}

#[ad::differentiable]
impl<'a> View<'a> {
    pub fn value(&self, x: f64) -> f64 {
        self.of.k * x
    }
}

fn main() {}

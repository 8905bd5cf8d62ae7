// A method named like a container's count, of a type the macro cannot see, returning a float:
// an error, not a value silently without derivative.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
pub struct Rod {
    pub a: f64,
    pub b: f64,
}

impl Rod {
    pub fn len(&self) -> f64 {
        self.b - self.a
    }
}

pub fn rod(a: f64) -> Rod {
    Rod { a, b: 2.0 }
}

#[ad::differentiable]
pub fn stretch(a: f64) -> f64 {
    let r = rod(a);
    r.len() * a
}

fn main() {}

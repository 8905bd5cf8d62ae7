use ad::differentiable;

trait Halve {
    fn halve(self) -> Self;
}

impl Halve for f64 {
    fn halve(self) -> f64 {
        self / 2.0
    }
}

#[differentiable]
fn half(x: f64) -> f64 {
    x.halve()
}

fn main() {}

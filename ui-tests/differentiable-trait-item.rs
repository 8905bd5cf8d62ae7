use ad::differentiable;

trait Model {
    #[differentiable]
    fn loss(&self, x: f64) -> f64;
}

fn main() {}

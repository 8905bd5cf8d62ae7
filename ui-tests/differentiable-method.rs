use ad::differentiable;

struct Scale(f64);

impl Scale {
    #[differentiable]
    fn apply(&self, x: f64) -> f64 {
        self.0 * x
    }
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn cubes(x: Vec<f64>) -> f64 {
    x.into_iter().map(|v| v * v * v).sum()
}

fn main() {}

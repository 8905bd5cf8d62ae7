use ad::differentiable;

#[differentiable]
fn doubled_sum(x: &[f64]) -> f64 {
    x.iter().flat_map(|v| [*v, 2.0 * v]).map(|v| v * v).sum()
}

fn main() {}

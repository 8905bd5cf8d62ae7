use ad::differentiable;

#[differentiable]
fn first(v: Vec<f64>) -> &'static f64 {
    Box::leak(Box::new(v[0]))
}

fn main() {}

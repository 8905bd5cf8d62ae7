use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    let y: f64 = format!("{x}").parse().unwrap();
    y
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn label(x: f64) -> String {
    if x > 0.0 {
        String::from("positive")
    } else {
        String::from("not positive")
    }
}

fn main() {}

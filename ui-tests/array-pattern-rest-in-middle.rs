use ad::differentiable;

#[differentiable]
fn ends(p: [f64; 4]) -> f64 {
    let [first, .., last] = p;
    first * last
}

fn main() {}

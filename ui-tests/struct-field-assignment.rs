use ad::differentiable;

struct State {
    value: f64,
}

#[differentiable]
fn f(x: f64) -> f64 {
    let mut s = State { value: 0.0 };
    s.value = x * x;
    s.value
}

fn main() {}

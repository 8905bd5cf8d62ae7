use ad::differentiable;

#[differentiable]
fn f(v: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for y in v.iter().scan(0.0, |acc, y| {
        *acc += y;
        Some(*acc)
    }) {
        s = s * 0.5 + y;
    }
    s
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn f(x: f64, n: i32) -> f64 {
    let mut y = x;
    'outer: for _ in 0..n {
        for _ in 0..n {
            y *= 1.5;
            if y > 10.0 {
                break 'outer;
            }
        }
    }
    y
}

fn main() {}

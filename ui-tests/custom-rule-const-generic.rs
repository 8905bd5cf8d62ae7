use ad::differentiable;

#[differentiable]
fn norm<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i];
    }
    s.sqrt()
}

fn main() {}

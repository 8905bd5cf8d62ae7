use ad::{custom_rule, differentiable};

#[differentiable]
fn norm<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i];
    }
    s.sqrt()
}

// A rule's instantiations are registered in statics: one per length is too many.
#[custom_rule(forward, of = norm)]
fn norm_jvp<const N: usize>(x: [f64; N], dx: [f64; N]) -> (f64, f64) {
    let n = norm(x);
    let mut t = 0.0;
    for i in 0..N {
        t += x[i] * dx[i];
    }
    (n, t / n)
}

fn main() {}

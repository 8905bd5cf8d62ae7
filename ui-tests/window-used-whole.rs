use ad::differentiable;

fn first(w: &[f64]) -> f64 {
    w[0]
}

#[differentiable]
fn f(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for w in x.windows(2) {
        s += first(w);
    }
    s
}

fn main() {}

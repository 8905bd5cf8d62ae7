// A struct's field lent to a function that writes it: not yet, an error with the copy to
// write instead.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct S {
    w: Vec<f64>,
    k: f64,
}

#[ad::differentiable]
fn scale(v: &mut [f64], k: f64) {
    for i in 0..v.len() {
        v[i] *= k;
    }
}

#[ad::differentiable]
fn f(mut s: S, x: f64) -> f64 {
    scale(&mut s.w, x);
    s.w[0] + s.k
}

fn main() {}

use ad::differentiable;

#[differentiable]
fn f(mut v: Vec<f64>, x: f64) -> f64 {
    for y in v.iter_mut() {
        let r = y;
        *r *= x;
    }
    v[0]
}

fn main() {}

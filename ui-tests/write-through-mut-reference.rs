use ad::differentiable;

fn touch(v: &mut f64) -> bool {
    *v = 2.0;
    true
}

#[differentiable]
fn f(mut x: f64) -> f64 {
    if touch(&mut x) {
        x * 3.0
    } else {
        x
    }
}

fn main() {}

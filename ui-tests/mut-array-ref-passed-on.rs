use ad::differentiable;

#[differentiable]
fn scale(y: &mut [f64; 3], x: f64) {
    for v in y.iter_mut() {
        *v *= x;
    }
}

// Its derivatives take `y` as a `&mut [f64]`, which `scale` would not accept.
#[differentiable]
fn passes_on(y: &mut [f64; 3], x: f64) {
    scale(y, x);
}

fn main() {}

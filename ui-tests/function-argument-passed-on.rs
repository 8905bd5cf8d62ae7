use ad::differentiable;

#[differentiable]
fn twice<F: Fn(f64) -> f64>(f: F, x: f64) -> f64 {
    f(f(x))
}

#[differentiable]
fn four_times<F: Fn(f64) -> f64 + Copy>(f: F, x: f64) -> f64 {
    twice(f, twice(f, x))
}

fn main() {}

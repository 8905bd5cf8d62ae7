use ad::differentiable;

#[differentiable]
fn square<T: std::ops::Mul<Output = T> + Copy>(x: T) -> T {
    x * x
}

fn main() {}

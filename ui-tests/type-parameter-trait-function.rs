use ad::differentiable;
use num_traits::Float;

// A function of the type parameter's traits that is not a differentiated float method.
#[differentiable]
fn distance<T: Float>(x: T, y: T) -> T {
    T::abs_sub(x, y)
}

fn main() {}

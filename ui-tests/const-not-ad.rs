// A type of the user's named `Const` is not `ad::Const`.
#[derive(Clone, Copy)]
struct Const<T>(T);

#[ad::differentiable]
fn f(a: f64, c: Const<f64>) -> f64 {
    a * c.0
}

fn main() {}

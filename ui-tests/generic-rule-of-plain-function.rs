use ad::custom_rule;

fn f(x: f64) -> f64 {
    x * x
}

#[custom_rule(forward, of = f)]
fn f_jvp<T: Into<f64>>(x: T, dx: f64) -> (f64, f64) {
    let x = x.into();
    (f(x), 2.0 * x * dx)
}

fn main() {}

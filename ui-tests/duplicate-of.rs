use ad::custom_rule;

fn f(x: f64) -> f64 {
    x * x
}

fn g(x: f64) -> f64 {
    x * x
}

#[custom_rule(forward, of = f, of = g)]
fn f_jvp(x: f64, dx: f64) -> (f64, f64) {
    (f(x), 2.0 * x * dx)
}

fn main() {}

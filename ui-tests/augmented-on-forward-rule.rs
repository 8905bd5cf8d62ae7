use ad::custom_rule;

fn f(x: f64) -> f64 {
    x * x
}

fn f_forward(x: f64) -> (f64, f64) {
    (x * x, x)
}

#[custom_rule(forward, of = f, augmented = f_forward)]
fn f_jvp(x: f64, dx: f64) -> (f64, f64) {
    (f(x), 2.0 * x * dx)
}

fn main() {}

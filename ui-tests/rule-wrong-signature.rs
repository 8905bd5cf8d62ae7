use ad::custom_rule;

fn f(x: f64) -> f64 {
    x * x
}

#[custom_rule(forward, of = f)]
fn f_jvp(x: f64) -> f64 {
    2.0 * x
}

fn main() {}

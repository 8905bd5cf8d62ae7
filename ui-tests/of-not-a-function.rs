use ad::custom_rule;

const SOME_CONST: f64 = 1.0;

#[custom_rule(forward, of = SOME_CONST)]
fn const_jvp(x: f64, dx: f64) -> (f64, f64) {
    (x, dx)
}

fn main() {}

use ad::custom_rule;

#[custom_rule(forward, of = f64::sin)]
fn sin_jvp(x: f64, dx: f64) -> (f64, f64) {
    (x.sin(), x.cos() * dx)
}

fn main() {}

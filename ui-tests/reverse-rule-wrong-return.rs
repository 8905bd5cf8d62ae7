use ad::custom_rule;

fn product(x: f64, y: f64) -> f64 {
    x * y
}

// A reverse rule returns one adjoint per argument: here two, as a tuple.
#[custom_rule(reverse, of = product)]
fn product_vjp(x: f64, y: f64, _value: f64, bar: f64) -> f64 {
    (x + y) * bar
}

fn main() {}

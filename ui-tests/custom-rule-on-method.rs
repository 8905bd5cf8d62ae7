use ad::custom_rule;

fn f(x: f64) -> f64 {
    x * x
}

struct Rules;

impl Rules {
    #[custom_rule(forward, of = f)]
    fn f_jvp(&self, x: f64, dx: f64) -> (f64, f64) {
        (f(x), 2.0 * x * dx)
    }
}

fn main() {}

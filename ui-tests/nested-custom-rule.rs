use ad::differentiable;

fn g(x: f64) -> f64 {
    x
}

#[differentiable]
fn f(x: f64) -> f64 {
    #[ad::custom_rule(forward, of = g)]
    fn g_jvp(x: f64, dx: f64) -> (f64, f64) {
        (x, dx)
    }
    g(x)
}

fn main() {}

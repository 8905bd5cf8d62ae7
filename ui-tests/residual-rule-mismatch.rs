use ad::custom_rule;

fn lse(a: f64, b: f64) -> f64 {
    (a.exp() + b.exp()).ln()
}

fn lse_forward_part(a: f64, b: f64) -> (f64, (f64, f64)) {
    let s = a.exp() + b.exp();
    (s.ln(), (a.exp() / s, b.exp() / s))
}

// The residuals are a pair, but the reverse part takes one float.
#[custom_rule(reverse, of = lse, augmented = lse_forward_part)]
fn lse_reverse_part(weight: f64, bar: f64) -> (f64, f64) {
    (weight * bar, (1.0 - weight) * bar)
}

fn main() {}

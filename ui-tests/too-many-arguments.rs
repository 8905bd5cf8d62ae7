// Seventeen arguments, one past the limit: the macro says so at the signature and names the fix.
#[ad::differentiable]
fn seventeen(
    x1: f64,
    x2: f64,
    x3: f64,
    x4: f64,
    x5: f64,
    x6: f64,
    x7: f64,
    x8: f64,
    x9: f64,
    x10: f64,
    x11: f64,
    x12: f64,
    x13: f64,
    x14: f64,
    x15: f64,
    x16: f64,
    x17: f64,
) -> f64 {
    x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16 + x17
}

// Sixteen is within the limit: no error here.
#[ad::differentiable]
fn sixteen(
    x1: f64,
    x2: f64,
    x3: f64,
    x4: f64,
    x5: f64,
    x6: f64,
    x7: f64,
    x8: f64,
    x9: f64,
    x10: f64,
    x11: f64,
    x12: f64,
    x13: f64,
    x14: f64,
    x15: f64,
    x16: f64,
) -> f64 {
    x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11 + x12 + x13 + x14 + x15 + x16
}

fn main() {
    // The function itself still compiles and can be called.
    let _ = seventeen(
        1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
        17.0,
    );
}

use ad::differentiable;

#[differentiable]
fn f(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn g(x: f64, y: f64) -> f64 {
    let z = f(x) * y.sin();
    let mut w = z / 2.0;
    w += x;
    if x > 0.0 { w * 2.0 } else { w - 1.0 }
}

#[test]
fn smoke() {
    let (y, dy) = ad::jvp(g, (1.0, 2.0), (1.0, 0.0));
    println!("{y} {dy}");
    let (y2, dy2) = ad::jvp(f, (3.0,), (1.0,));
    assert_eq!((y2, dy2), (9.0, 6.0));
}

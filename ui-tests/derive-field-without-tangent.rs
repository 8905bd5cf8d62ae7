// A field whose type has no tangent (a struct without the derive): an error at that field, with
// the fix.
struct Units {
    scale: f64,
}

#[derive(ad::Differentiable)]
struct Reading {
    value: f64,
    units: Units,
}

fn main() {}

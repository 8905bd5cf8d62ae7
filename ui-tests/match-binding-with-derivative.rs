use ad::differentiable;

#[derive(Clone, Copy)]
enum Reading {
    Calibrated(f64),
    Raw(f64),
}

fn read(x: f64, calibrated: bool) -> Reading {
    if calibrated {
        Reading::Calibrated(x)
    } else {
        Reading::Raw(x)
    }
}

// An enum of the user's own carries no derivative through its payload (yet): the `match`
// would bind `v` without one.
#[differentiable]
fn f(x: f64, calibrated: bool) -> f64 {
    let r = read(x, calibrated);
    match r {
        Reading::Calibrated(v) => v * v,
        Reading::Raw(v) => v,
    }
}

fn main() {}

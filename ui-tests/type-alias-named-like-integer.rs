use ad::differentiable;

mod m {
    #[allow(non_camel_case_types)]
    pub type u32 = f64;
}

#[differentiable]
fn f(x: f64) -> f64 {
    let y: m::u32 = x;
    y * 2.0
}

fn main() {}

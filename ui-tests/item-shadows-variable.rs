// An item declared inside the function with the name of a variable: rustc reads the item where
// it shadows the variable, the macro would read the variable.
use ad::differentiable;

#[allow(non_upper_case_globals)]
#[differentiable]
fn const_shadows_parameter(x: &[f64], y: f64) -> f64 {
    let mut s = x[0] * y;
    {
        const x: [f64; 3] = [1.0, -2.0, 3.0];
        for i in 0..3 {
            s += x[i] * y;
        }
    }
    s
}

#[allow(non_upper_case_globals)]
#[differentiable]
fn local_after_item(x: f64) -> f64 {
    let y = {
        const k: f64 = 2.0;
        x * k
    };
    let k = 3.0;
    y * k
}

fn main() {}

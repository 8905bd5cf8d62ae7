use ad::differentiable;

// The macro's own `x` and the caller's `x` are two variables with one name.
macro_rules! make_four_times {
    ($x:ident) => {
        #[differentiable]
        fn four_times($x: f64) -> f64 {
            let x = $x * 3.0;
            x + $x
        }
    };
}

make_four_times!(x);

fn main() {}

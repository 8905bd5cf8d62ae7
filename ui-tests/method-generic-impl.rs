// The methods of a generic `impl` block: not yet.
#[derive(Clone, Debug, PartialEq, ad::Differentiable)]
struct Scale<T> {
    by: T,
}

#[ad::differentiable]
impl<T: num_traits::Float> Scale<T> {
    fn apply(&self, x: T) -> T {
        self.by * x
    }
}

fn main() {}

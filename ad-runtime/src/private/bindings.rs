//! The witnesses that tell, at compile time, that a name the reverse sweep reads is the binding
//! the macro means.

/// The witness of variable number `N` of a generated reverse derivative.
#[derive(Clone, Copy)]
pub struct Binding<const N: usize>;

/// Holds when a read finds the binding the macro means (see `same_binding`).
#[diagnostic::on_unimplemented(
    message = "#[differentiable] cannot tell apart two variables of this name",
    label = "this name stands for two different variables here",
    note = "the function declares one name in two macro contexts (say a `macro_rules!` parameter and a local of the macro), and reverse mode tells variables apart by name: rename one of them"
)]
pub trait SameBinding<T> {}

impl<const N: usize> SameBinding<Binding<N>> for Binding<N> {}

impl<const N: usize> Binding<N> {
    /// Checks, at compile time, that this witness (the one rustc resolves a name to) is that of
    /// binding `A`, the one the macro means.
    #[inline(always)]
    pub fn same_as<A: SameBinding<Self>>(&self) {}
}

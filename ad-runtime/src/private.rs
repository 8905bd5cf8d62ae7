//! Helpers for the code that the macros generate. Not a public API.
//!
//! Generated code reaches everything generic through methods of [`Function`](crate::Function),
//! so that a mistake in the user's code is reported on the user's tokens, naming a public trait,
//! never a hidden helper.

use core::any::Any;

/// Erases a loaded rule for the registry.
pub fn boxed<T: Any + Send + Sync>(rule: T) -> Box<dyn Any + Send + Sync> {
    Box::new(rule)
}

/// The zero tangent of a value whose tangent the generated code needs but never computed.
#[inline(always)]
pub fn zero<T: crate::Differentiable>(value: &T) -> T::Tangent {
    value.zero_tangent()
}

/// Adds `value` to an adjoint that is `None` while it is zero. An exactly zero `value` is no
/// contribution: the adjoint stays `None`, so no partial derivative is multiplied by it (an
/// infinite one, `sqrt` at 0, would make a NaN out of nothing).
#[inline(always)]
pub fn acc<T: crate::Accumulate + PartialEq + Default>(slot: &mut Option<T>, value: T) {
    if value == T::default() {
        return;
    }
    *slot = Some(match slot.take() {
        Some(sum) => sum.accumulate(value),
        None => value,
    });
}

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

//! Helpers for the code that the macros generate. Not a public API.
//!
//! The macros emit, for each rule, a non-generic loader function in the user's crate that calls
//! one of these with the user's paths. Every generic step happens here, so a mistake in the
//! user's code is reported once, on the user's tokens.

use crate::function::Function;
use crate::registry::FnInfo;
use core::any::{Any, TypeId};

/// The identity of `f`, whose address the caller computed with `f as usize`.
pub fn fn_info<F: Function<A>, A>(f: F, address: usize) -> FnInfo {
    let _ = f;
    FnInfo {
        key: TypeId::of::<F>(),
        ptr_type: TypeId::of::<F::Ptr>(),
        name: core::any::type_name::<F>(),
        address,
    }
}

/// Loads a forward rule of `f`. rustc checks `rule` against `F::Forward` on the rule's own
/// tokens, spelling out the expected `fn(A1, Tan<A1>, ..) -> (R, Tan<R>)` on a mismatch.
pub fn load_forward<F: Function<A>, A>(
    f: F,
    address: usize,
    rule: F::Forward,
) -> (FnInfo, Box<dyn Any + Send + Sync>) {
    (fn_info(f, address), Box::new(rule))
}

/// The zero tangent of a value whose tangent the generated code needs but never computed.
#[inline(always)]
pub fn zero<T: crate::Differentiable>(value: &T) -> T::Tangent {
    value.zero_tangent()
}

//! Compile-time helpers for the code that the macros generate. Not a public API.

use crate::function::Function;
use core::any::{Any, TypeId};

/// The identity of a function, computed in a `static` initializer.
pub struct FnParts<P> {
    pub key: TypeId,
    pub ptr_type: TypeId,
    pub name: fn() -> &'static str,
    pub ptr: P,
    pub address: fn(&'static (dyn Any + Send + Sync)) -> Option<usize>,
}

fn address<F: Function<A>, A>(ptr: &'static (dyn Any + Send + Sync)) -> Option<usize> {
    ptr.downcast_ref::<F::Ptr>().map(|p| F::address(*p))
}

/// The identity of `f`; `ptr` is `f` again, coerced to its pointer type by the caller.
pub const fn fn_parts<F: Function<A>, A>(f: F, ptr: F::Ptr) -> FnParts<F::Ptr> {
    let _ = f;
    FnParts {
        key: TypeId::of::<F>(),
        ptr_type: TypeId::of::<F::Ptr>(),
        name: core::any::type_name::<F>,
        ptr,
        address: address::<F, A>,
    }
}

/// Checks that `rule` is a forward rule of `f`: rustc reports a mismatch on the rule's tokens,
/// spelling out the expected `fn(A1, Tan<A1>, ..) -> (R, Tan<R>)`.
pub const fn forward_rule<F: Function<A>, A>(
    f: F,
    ptr: F::Ptr,
    rule: F::Forward,
) -> (FnParts<F::Ptr>, F::Forward) {
    (fn_parts(f, ptr), rule)
}

/// The zero tangent of a value whose tangent the generated code needs but never computed.
#[inline(always)]
pub fn zero<T: crate::Differentiable>(value: &T) -> T::Tangent {
    value.zero_tangent()
}

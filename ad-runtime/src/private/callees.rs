//! The identities of the callees in a generated derivative's list, for `rules::check`, and
//! the loaded rule erased for the registry.

use core::any::Any;

/// The identity of a callee in the callee list of a generated derivative, at the instantiation
/// that the arguments `A` make (the macro writes `A` from the arguments' declared types, so that
/// a generic callee called without a turbofish is named). A call whose arguments do not fit
/// its callee falls back, by autoref, to [`CalleeOther`]: an identity the check skips, and no
/// second error for the call the user wrote wrong (rustc reports it in the user's function).
pub struct CalleeOf<F, A>(core::marker::PhantomData<fn() -> (F, A)>);

impl<F, A> CalleeOf<F, A> {
    #[inline]
    pub fn of(_: &F) -> Self {
        CalleeOf(core::marker::PhantomData)
    }

    /// At the argument types a [`Witness`] gives.
    #[inline]
    pub fn of_witness<W: Witness<Args = A>>(_: &F, _: W) -> Self {
        CalleeOf(core::marker::PhantomData)
    }
}

/// The types of a call's arguments, each as a `PhantomData`: declared, of a literal
/// ([`ty_of`]), or left to inference (`PhantomData<_>`).
pub trait Witness {
    type Args;
}

macro_rules! witness {
    ($($a:ident)*) => {
        impl<$($a),*> Witness for ($(core::marker::PhantomData<$a>,)*) {
            type Args = ($($a,)*);
        }
    };
}

witness!();
witness!(A0);
witness!(A0 A1);
witness!(A0 A1 A2);
witness!(A0 A1 A2 A3);
witness!(A0 A1 A2 A3 A4);
witness!(A0 A1 A2 A3 A4 A5);
witness!(A0 A1 A2 A3 A4 A5 A6);
witness!(A0 A1 A2 A3 A4 A5 A6 A7);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14);
witness!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14 A15);

/// The type of a literal written as an argument, as rustc gives it there.
#[inline(always)]
pub fn ty_of<T>(_: T) -> core::marker::PhantomData<T> {
    core::marker::PhantomData
}

/// [`CalleeOf`] where `F` is a function of `A`.
pub trait CalleeExact {
    fn info(&self, address: usize) -> crate::registry::FnInfo;
}

impl<F: crate::Function<A>, A> CalleeExact for CalleeOf<F, A> {
    fn info(&self, address: usize) -> crate::registry::FnInfo {
        crate::registry::FnInfo {
            key: core::any::TypeId::of::<F>(),
            ptr_type: core::any::TypeId::of::<F::Ptr>(),
            name: core::any::type_name::<F>(),
            address,
            buffers: F::BUFFERS,
        }
    }
}

/// [`CalleeOf`] where the arguments do not fit `F`.
pub trait CalleeOther {
    fn info(&self, address: usize) -> crate::registry::FnInfo;
}

impl<F, A> CalleeOther for &CalleeOf<F, A> {
    fn info(&self, _: usize) -> crate::registry::FnInfo {
        crate::registry::absent().0
    }
}

/// Erases a loaded rule for the registry.
pub fn boxed<T: Any + Send + Sync>(rule: T) -> Box<dyn Any + Send + Sync> {
    Box::new(rule)
}

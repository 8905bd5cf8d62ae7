//! The fitting of a generated call's arguments to its callee, which keeps a call the user wrote
//! wrong from being reported twice.
//!
//! A call whose arguments do not fit the callee (a wrong count, a wrong type) is an error in the
//! user's own function, where rustc reports it. The generated call must not report it again, so
//! its arguments go through [`Fit<F, A>`], where `F` is the callee and `A` the tuple of the
//! arguments as written. When `F` is a function of the arguments `A`, method resolution finds
//! the exact `fit` ([`FitExact`]), the identity, and `A` is tied to the callee's parameters (an
//! unsuffixed literal argument gets the parameter's type). Otherwise it falls back, by autoref,
//! to a `fit` ([`FitOther`]) that gives the value whatever type the call needs: that
//! type-checks without a word and never runs, since the user's function, and with it the crate,
//! does not compile. Generated code brings both traits into scope, unnamed.

use core::marker::PhantomData;

/// A callee `F` and the arguments `A` of a call, as types.
pub struct Fit<F, A>(PhantomData<fn() -> (F, A)>);

impl<F, A> Fit<F, A> {
    #[inline(always)]
    pub fn of(_: &F, _: &A) -> Self {
        Fit(PhantomData)
    }
}

/// [`Fit`] where `F` is a function of `A`: the identity.
pub trait FitExact<A> {
    fn fit<P>(&self, value: P) -> P;
    fn fit_tangents<P>(&self, value: P) -> P;
}

impl<F: crate::Function<A>, A> FitExact<A> for Fit<F, A> {
    #[inline(always)]
    fn fit<P>(&self, value: P) -> P {
        value
    }

    #[inline(always)]
    fn fit_tangents<P>(&self, value: P) -> P {
        value
    }
}

/// [`Fit`] where the arguments do not fit `F`: never runs.
pub trait FitOther<A> {
    fn fit<P, B>(&self, value: P) -> B;
    fn fit_tangents<P>(&self, value: P) -> <A as crate::Differentiable>::Tangent
    where
        A: crate::Differentiable;
}

impl<F, A> FitOther<A> for &Fit<F, A> {
    fn fit<P, B>(&self, _: P) -> B {
        unreachable!(
            "ad: the arguments of a call do not fit the function it calls, which rustc reports on the call"
        )
    }

    fn fit_tangents<P>(&self, _: P) -> <A as crate::Differentiable>::Tangent
    where
        A: crate::Differentiable,
    {
        unreachable!(
            "ad: the arguments of a call do not fit the function it calls, which rustc reports on the call"
        )
    }
}

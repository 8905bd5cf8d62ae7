//! Lazy dispatch from generated derivative code to whatever rule currently wins.
//!
//! Every call site in generated code owns a `static` [`CallSite`]. It caches the resolved rule
//! together with the epoch of the called function at resolution; the fast path is one atomic
//! load of the cache pointer, one of that function's epoch, and two compares, with no lock and no
//! lookup. A registration for the function bumps its epoch, so the next call through any site
//! that calls it resolves again and sees the new rule.

use crate::error::Error;
use crate::function::{Function, Tan};
use crate::registry::{self, ForwardImpl, Location, ReverseImpl, Validity};
use crate::tape::Tape;
use core::any::TypeId;
use core::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The header every cached resolution starts with.
#[repr(C)]
struct Header {
    /// The called function's epoch and the value it had at resolution.
    valid: Validity,
    /// `TypeId` of the `T` in the `Cached<T>` this header begins: checked before the cast back.
    type_id: TypeId,
}

#[repr(C)]
struct Cached<T> {
    header: Header,
    value: T,
}

/// The cache of one call site in generated code.
#[doc(hidden)]
pub struct CallSite {
    /// Points to a leaked `Cached<T>`; never freed, because another thread may be calling the
    /// rule it holds. One small allocation per site each time the called function's rules change.
    cache: AtomicPtr<Header>,
    caller: &'static str,
    location: Location,
}

impl CallSite {
    /// A call site inside `caller` at `file:line:column`.
    pub const fn new(caller: &'static str, file: &'static str, line: u32, column: u32) -> Self {
        CallSite {
            cache: AtomicPtr::new(ptr::null_mut()),
            caller,
            location: Location { file, line, column },
        }
    }

    /// The cached resolution of type `T`, if there is one and it is still valid.
    #[inline(always)]
    fn get<T: 'static>(&self) -> Option<&'static Cached<T>> {
        let header = self.cache.load(Ordering::Acquire);
        if header.is_null() {
            return None;
        }
        // SAFETY: a non-null cache pointer always comes from `Box::leak` of a `Cached<U>` in
        // `set`, never freed; `Cached` is `repr(C)` with the header first, so reading the header
        // is valid whatever `U` is, and the `TypeId` check makes the cast to `Cached<T>` exact.
        unsafe {
            let h = &*header;
            if h.valid.epoch.load(Ordering::Acquire) != h.valid.seen
                || h.type_id != TypeId::of::<T>()
            {
                return None;
            }
            Some(&*header.cast::<Cached<T>>())
        }
    }

    fn set<T: Send + Sync + 'static>(&self, valid: Validity, value: T) -> &'static Cached<T> {
        let cached: &'static mut Cached<T> = Box::leak(Box::new(Cached {
            header: Header {
                valid,
                type_id: TypeId::of::<T>(),
            },
            value,
        }));
        self.cache
            .store(ptr::from_mut(cached).cast::<Header>(), Ordering::Release);
        cached
    }

    /// The function that contains this call site.
    pub fn caller(&self) -> &'static str {
        self.caller
    }

    /// Where the call stands.
    pub fn location(&self) -> Location {
        self.location
    }
}

/// Calls the forward rule that currently wins for `f`, from generated code.
#[inline]
pub(crate) fn forward<F, A>(
    site: &'static CallSite,
    f: F,
    args: A,
    tangents: F::Tangents,
) -> (F::Output, Tan<F::Output>)
where
    F: Function<A>,
    A: 'static,
{
    if let Some(cached) = site.get::<ForwardImpl<F, A>>() {
        return cached.value.call(f, args, tangents);
    }
    forward_slow(site, f, args, tangents)
}

#[cold]
#[inline(never)]
fn forward_slow<F, A>(
    site: &'static CallSite,
    f: F,
    args: A,
    tangents: F::Tangents,
) -> (F::Output, Tan<F::Output>)
where
    F: Function<A>,
    A: 'static,
{
    match registry::resolve_forward(f, site.caller, site.location) {
        Ok((valid, rule)) => site.set(valid, rule).value.call(f, args, tangents),
        Err(error) => fail(&error),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn fail(error: &Error) -> ! {
    panic!("{error}")
}

/// Marks the word under a resolution pointer on the tape, so that a tape out of step with its
/// generated code is a panic, not a wild pointer.
const RESOLUTION_MARK: u64 = 0xADAD_5EED_0000_0001;

/// The forward sweep of a call through the registry in reverse mode: runs the winning reverse
/// rule's forward part and records on the tape which rule that was, so that the reverse sweep
/// uses the same one even if the registry changes in between.
#[inline]
pub(crate) fn augmented<F, A>(site: &'static CallSite, f: F, tape: &mut Tape, args: A) -> F::Output
where
    F: Function<A>,
    A: 'static,
{
    let cached: &'static Cached<ReverseImpl<F, A>> = match site.get::<ReverseImpl<F, A>>() {
        Some(cached) => cached,
        None => match registry::resolve_reverse(f, site.caller, site.location) {
            Ok((valid, rule)) => site.set(valid, rule),
            Err(error) => fail(&error),
        },
    };
    let value = match &cached.value {
        ReverseImpl::Generated(r) => F::call_reverse(*r, args, tape, None, false)
            .0
            .expect("ad: a generated forward sweep returns its value"),
        ReverseImpl::Split(r) => r.augment(args, tape),
        ReverseImpl::Rule(_) | ReverseImpl::DynRule(_) | ReverseImpl::FromForward(_) => {
            f.call(args)
        }
    };
    tape.push(ptr::from_ref(cached).expose_provenance() as u64);
    tape.push(RESOLUTION_MARK);
    value
}

/// The reverse sweep of a call recorded by [`augmented`].
#[inline]
pub(crate) fn backward<F, A>(
    f: F,
    tape: &mut Tape,
    args: A,
    value: F::Output,
    adjoint: crate::function::Tan<F::Output>,
) -> F::Tangents
where
    F: Function<A>,
    A: 'static,
{
    assert_eq!(
        tape.pop::<u64>(),
        RESOLUTION_MARK,
        "ad: a reverse sweep is out of step with its tape"
    );
    let address = tape.pop::<u64>() as usize;
    let header = ptr::with_exposed_provenance::<Header>(address);
    // SAFETY: the tape is private to this crate's entry points and to generated code, whose
    // pushes and pops pair up: the word under the mark was pushed by `augmented` above from a
    // `&'static` into a `Cached<T>` leaked by `CallSite::set` and never freed, so it points to a
    // live header; the `TypeId` check makes the cast to `Cached<ReverseImpl<F, A>>` exact.
    let rule = unsafe {
        assert!(
            (*header).type_id == TypeId::of::<ReverseImpl<F, A>>(),
            "ad: a reverse sweep found a rule of another function on its tape"
        );
        &(*header.cast::<Cached<ReverseImpl<F, A>>>()).value
    };
    match rule {
        ReverseImpl::Generated(r) => F::call_reverse(*r, args, tape, Some(adjoint), false).1,
        ReverseImpl::Rule(r) => F::call_reverse_rule(*r, args, value, adjoint),
        ReverseImpl::DynRule(r) => F::call_dyn_reverse_rule(r, args, value, adjoint),
        ReverseImpl::FromForward(r) => registry::reverse_from_forward(f, r, &args, &adjoint),
        ReverseImpl::Split(r) => r.back(tape, adjoint),
    }
}

//! Lazy dispatch from generated derivative code to whatever rule currently wins.
//!
//! Every call site in generated code owns a `static` [`CallSite`]. It caches the resolved rule
//! together with the epoch of the called function at resolution; the fast path is one atomic
//! load of the cache pointer, one of that function's epoch, and two compares, with no lock and no
//! lookup. A registration for the function bumps its epoch, so the next call through any site
//! that calls it resolves again and sees the new rule.

use crate::error::Error;
use crate::function::{Function, Tan};
use crate::registry::{self, ForwardImpl, Location, Validity};
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

    #[inline(always)]
    fn get<T: 'static>(&self) -> Option<&'static T> {
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
            Some(&(*header.cast::<Cached<T>>()).value)
        }
    }

    fn set<T: Send + Sync + 'static>(&self, valid: Validity, value: T) -> &'static T {
        let cached: &'static mut Cached<T> = Box::leak(Box::new(Cached {
            header: Header {
                valid,
                type_id: TypeId::of::<T>(),
            },
            value,
        }));
        self.cache
            .store(ptr::from_mut(cached).cast::<Header>(), Ordering::Release);
        &cached.value
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
    if let Some(rule) = site.get::<ForwardImpl<F, A>>() {
        return rule.call(args, tangents);
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
        Ok((valid, rule)) => site.set(valid, rule).call(args, tangents),
        Err(error) => fail(&error),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn fail(error: &Error) -> ! {
    panic!("{error}")
}

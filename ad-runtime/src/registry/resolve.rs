//! Resolution: what a function and mode resolve to, and the typed rule taken out of it.

use super::convert::forward_from_reverse;
use super::statics::{Loaded, key_of_address, static_rules};
use super::{Key, Location, Mode, Origin, RuntimeRule, Validity, generation, runtime_rules};
use crate::error::Error;
use crate::function::{Function, Signature};
use core::any::{Any, TypeId};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The key of `f`: its item type, or, for a function pointer, the item with the same address.
pub(crate) fn key_of<F: Function<A>, A>(f: F, location: Location) -> Result<Key, Error> {
    match (&f as &dyn Any).downcast_ref::<F::Ptr>() {
        None => Ok(Key {
            type_id: TypeId::of::<F>(),
            address: 0,
        }),
        Some(ptr) => key_of_address(TypeId::of::<F::Ptr>(), F::address(*ptr), location),
    }
}

/// What a function and mode resolve to, before any typed rule is taken out.
pub(crate) enum Resolution<'a> {
    Runtime(&'a RuntimeRule),
    Static(&'static Loaded),
    /// A rule of the other mode, to be converted (DESIGN section 3, step 3).
    Converted(Box<Resolution<'a>>),
}

impl Mode {
    fn other(self) -> Mode {
        match self {
            Mode::Forward => Mode::Reverse,
            Mode::Reverse => Mode::Forward,
        }
    }
}

/// The user's own rule for a function and mode, if any: the newest run-time rule, else the
/// `#[custom_rule]` (two of them are a conflict).
fn custom_rule<'a>(
    runtime: &'a [RuntimeRule],
    key: Key,
    mode: Mode,
    name: &dyn Fn() -> String,
) -> Result<Option<Resolution<'a>>, Error> {
    if let Some(rule) = runtime
        .iter()
        .rev()
        .find(|r| r.key == key && r.mode == mode)
    {
        return Ok(Some(Resolution::Runtime(rule)));
    }
    let mut custom = static_rules(key)
        .iter()
        .filter(|l| l.entry.mode == mode && l.entry.origin == Origin::Custom);
    let Some(first) = custom.next() else {
        return Ok(None);
    };
    let rest: Vec<_> = custom.collect();
    if rest.is_empty() {
        return Ok(Some(Resolution::Static(first)));
    }
    let mut rules: Vec<(String, Location)> = core::iter::once(first)
        .chain(rest)
        .map(|l| (l.entry.rule_name.to_owned(), l.entry.location))
        .collect();
    rules.sort_by(|a, b| (a.1.file, a.1.line).cmp(&(b.1.file, b.1.line)));
    Err(Error::Conflict {
        function: name(),
        mode,
        rules,
    })
}

/// Resolution order of DESIGN section 3, untyped. `runtime` is the locked run-time list.
pub(crate) fn resolve<'a>(
    runtime: &'a [RuntimeRule],
    key: Key,
    mode: Mode,
    name: &dyn Fn() -> String,
    caller: &str,
    location: Location,
) -> Result<Resolution<'a>, Error> {
    // 1 and 2: a run-time rule, then a `#[custom_rule]`, of this mode.
    if let Some(rule) = custom_rule(runtime, key, mode, name)? {
        return Ok(rule);
    }
    // 3: the user's rule of the other mode, converted, so that it is never bypassed.
    if let Some(rule) = custom_rule(runtime, key, mode.other(), name)? {
        return Ok(Resolution::Converted(Box::new(rule)));
    }
    // 4: the generated derivative.
    if let Some(generated) = static_rules(key)
        .iter()
        .find(|l| l.entry.mode == mode && l.entry.origin == Origin::Generated)
    {
        return Ok(Resolution::Static(generated));
    }
    // Or one that a first call registered.
    if let Some(generated) = super::late::generated(key, mode) {
        return Ok(Resolution::Static(generated));
    }
    Err(Error::MissingRule {
        function: name(),
        mode,
        caller: caller.to_owned(),
        location,
    })
}

const MISMATCH: &str = "ad: a rule is registered under the key of a function of another type";

/// Takes the typed forward rule out of a resolution.
pub(crate) fn forward_rule<F: Function<A>, A>(resolution: &Resolution<'_>) -> ForwardImpl<F::Sig> {
    match resolution {
        Resolution::Runtime(rule) => ForwardImpl::Runtime(
            rule.rule
                .downcast_ref::<Arc<F::DynForward>>()
                .expect(MISMATCH)
                .clone(),
        ),
        Resolution::Static(loaded) => {
            ForwardImpl::Static(*loaded.rule.downcast_ref::<F::Forward>().expect(MISMATCH))
        }
        Resolution::Converted(reverse) => {
            ForwardImpl::FromReverse(Box::new(reverse_rule::<F, A>(reverse)))
        }
    }
}

/// A resolved forward rule of a function of signature `S`, ready to call.
pub(crate) enum ForwardImpl<S: Signature> {
    Static(S::Forward),
    Runtime(Arc<S::DynForward>),
    /// A reverse rule, one reverse sweep per coordinate of the result.
    FromReverse(Box<ReverseImpl<S>>),
}

/// Calls a resolved forward rule of `f`.
#[inline(always)]
pub(crate) fn call_forward<F: Function<A>, A>(
    rule: &ForwardImpl<F::Sig>,
    f: F,
    args: A,
    tangents: F::Tangents,
) -> (F::Output, crate::function::Tan<F::Output>) {
    match rule {
        ForwardImpl::Static(rule) => F::call_forward(*rule, args, tangents),
        ForwardImpl::Runtime(rule) => F::call_dyn_forward(rule, args, tangents),
        ForwardImpl::FromReverse(rule) => forward_from_reverse(f, rule, args, &tangents),
    }
}

/// A rule of the other mode cannot stand in for a function with slice arguments.
fn check_convertible<F: Function<A>, A>(
    resolution: &Resolution<'_>,
    mode: Mode,
    caller: &str,
    location: Location,
) -> Result<(), Error> {
    if F::BUFFERS && matches!(resolution, Resolution::Converted(_)) {
        return Err(Error::NotConvertible {
            function: core::any::type_name::<F>().to_owned(),
            mode,
            caller: caller.to_owned(),
            location,
        });
    }
    Ok(())
}

/// The key of `f` with its epoch and the epoch's value, read so that a resolution made with
/// them goes stale if the static index changes. A pointer's key comes from the index: had the
/// index been rebuilt between reading the key and the epoch, the epoch read would already
/// include the rebuild's bump while the key was the old one, so the key is read again until it
/// stands still.
fn keyed_epoch<F: Function<A>, A>(
    f: F,
    location: Location,
) -> Result<(Key, &'static AtomicU64, u64), Error> {
    let mut key = key_of(f, location)?;
    loop {
        let epoch = generation(key);
        let seen = epoch.load(Ordering::Acquire);
        let again = key_of(f, location)?;
        if again == key {
            return Ok((key, epoch, seen));
        }
        key = again;
    }
}

/// Resolves the forward rule of `f`, with how long the resolution stays valid.
pub(crate) fn resolve_forward<F: Function<A>, A>(
    f: F,
    caller: &str,
    location: Location,
) -> Result<(Validity, ForwardImpl<F::Sig>), Error> {
    let runtime = runtime_rules();
    let (key, epoch, seen) = keyed_epoch(f, location)?;
    let name = || core::any::type_name::<F>().to_owned();
    let resolution = resolve(&runtime, key, Mode::Forward, &name, caller, location)?;
    check_convertible::<F, A>(&resolution, Mode::Forward, caller, location)?;
    Ok((Validity { epoch, seen }, forward_rule::<F, A>(&resolution)))
}

/// `resolve()`, and if it finds no rule, once per function and thread: `f` called on copies of
/// `args` so that it registers its instantiation (`late.rs`), then `resolve()` again.
fn or_registered<F: Function<A>, A, T>(
    f: F,
    args: &A,
    resolve: impl Fn() -> Result<T, Error>,
) -> Result<T, Error> {
    match resolve() {
        Err(Error::MissingRule { .. }) if super::late::register_by_call(f, args) => resolve(),
        resolved => resolved,
    }
}

/// [`resolve_forward`], with a first call that registers the instantiation (`late.rs`).
pub(crate) fn resolve_forward_at<F: Function<A>, A>(
    f: F,
    args: &A,
    caller: &str,
    location: Location,
) -> Result<(Validity, ForwardImpl<F::Sig>), Error> {
    or_registered(f, args, || resolve_forward(f, caller, location))
}

/// [`resolve_reverse`], with a first call that registers the instantiation (`late.rs`).
pub(crate) fn resolve_reverse_at<F: Function<A>, A>(
    f: F,
    args: &A,
    caller: &str,
    location: Location,
) -> Result<(Validity, ReverseImpl<F::Sig>), Error> {
    or_registered(f, args, || resolve_reverse(f, caller, location))
}

/// A resolved reverse rule of a function of signature `S`.
pub(crate) enum ReverseImpl<S: Signature> {
    Generated(S::Reverse),
    Rule(S::ReverseRule),
    DynRule(Arc<S::DynReverseRule>),
    /// A forward rule, one JVP per coordinate of the arguments.
    FromForward(Box<ForwardImpl<S>>),
    /// A user's reverse rule with residuals.
    Split(crate::function::SplitRule<S>),
}

/// Takes the typed reverse rule out of a resolution.
pub(crate) fn reverse_rule<F: Function<A>, A>(resolution: &Resolution<'_>) -> ReverseImpl<F::Sig> {
    match resolution {
        Resolution::Runtime(rule) => ReverseImpl::DynRule(
            rule.rule
                .downcast_ref::<Arc<F::DynReverseRule>>()
                .expect(MISMATCH)
                .clone(),
        ),
        Resolution::Static(loaded) if loaded.entry.origin == Origin::Generated => {
            ReverseImpl::Generated(*loaded.rule.downcast_ref::<F::Reverse>().expect(MISMATCH))
        }
        Resolution::Static(loaded) => match loaded.rule.downcast_ref::<F::ReverseRule>() {
            Some(rule) => ReverseImpl::Rule(*rule),
            None => ReverseImpl::Split(
                loaded
                    .rule
                    .downcast_ref::<crate::function::SplitRule<F::Sig>>()
                    .expect(MISMATCH)
                    .clone(),
            ),
        },
        Resolution::Converted(forward) => {
            ReverseImpl::FromForward(Box::new(forward_rule::<F, A>(forward)))
        }
    }
}

/// Resolves the reverse rule of `f`, with how long the resolution stays valid.
pub(crate) fn resolve_reverse<F: Function<A>, A>(
    f: F,
    caller: &str,
    location: Location,
) -> Result<(Validity, ReverseImpl<F::Sig>), Error> {
    let runtime = runtime_rules();
    let (key, epoch, seen) = keyed_epoch(f, location)?;
    let name = || core::any::type_name::<F>().to_owned();
    let resolution = resolve(&runtime, key, Mode::Reverse, &name, caller, location)?;
    check_convertible::<F, A>(&resolution, Mode::Reverse, caller, location)?;
    Ok((Validity { epoch, seen }, reverse_rule::<F, A>(&resolution)))
}

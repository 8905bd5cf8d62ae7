//! Instantiations registered by their first call: the derivatives of a function with a const
//! parameter (`fn norm<const N: usize>(x: [f64; N])`), which the macro cannot name in a static
//! because `N` has too many values (`docs/ARCHITECTURE.md`, decision 11).
//!
//! The primal of such a function starts with a test of a thread-local flag. When a derivative
//! of one of its instantiations is missing, the entry point or call site that holds the
//! arguments sets the flag and calls the function once on copies of them; the primal sees the
//! flag, clears it, registers the derivatives of its own instantiation here (it can name them:
//! they are generic over the same parameters), and runs as usual. The resolution then finds
//! them, as it finds the derivatives collected at link time, behind every rule of the user's.

use super::statics::Loaded;
use super::{Key, Mode, Origin, RuleEntry};
use crate::function::Function;
use core::any::{Any, TypeId};
use core::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::sync::RwLock;

/// The derivatives registered by a first call, by the function's key.
static LATE: RwLock<Vec<&'static Loaded>> = RwLock::new(Vec::new());

thread_local! {
    /// Set while a function is called so that it registers its instantiation.
    static REGISTERING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the primal that asks should register its instantiation: true once after
/// [`register_by_call`] set the flag, for the first primal of a const-generic function that
/// runs; reading it clears it, so the functions that one calls run as usual.
#[doc(hidden)]
#[inline(always)]
pub fn registering() -> bool {
    REGISTERING.with(|flag| flag.get() && flag.replace(false))
}

/// Registers the generated derivatives of one instantiation (called by the primal's preamble),
/// unless an earlier call registered them, and makes the call sites that cached a resolution of
/// the function resolve again.
#[doc(hidden)]
pub fn register_instantiation(entries: &[RuleEntry]) {
    let mut late = LATE.write().unwrap_or_else(|e| e.into_inner());
    let mut changed = Vec::new();
    for entry in entries {
        let (function, rule) = (entry.load)();
        if function.key == TypeId::of::<super::statics::Absent>()
            || late
                .iter()
                .any(|l| l.function.key == function.key && l.entry.mode == entry.mode)
        {
            continue;
        }
        let entry: &'static RuleEntry = Box::leak(Box::new(RuleEntry {
            load: entry.load,
            mode: entry.mode,
            origin: Origin::Generated,
            rule_name: entry.rule_name,
            location: entry.location,
            callees: entry.callees,
        }));
        // Once per instantiation and process, and read by resolutions that may outlive the
        // lock: leaked, like the entries collected at link time.
        late.push(Box::leak(Box::new(Loaded {
            entry,
            function,
            rule,
        })));
        changed.push(function);
    }
    drop(late);
    changed.into_iter().for_each(super::statics::bump_epochs);
}

/// The derivative of `key` in `mode` that a first call registered.
pub(crate) fn generated(key: Key, mode: Mode) -> Option<&'static Loaded> {
    if key.address != 0 {
        return None;
    }
    LATE.read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .copied()
        .find(|l| l.function.key == key.type_id && l.entry.mode == mode)
}

/// Every derivative registered by a first call.
pub(crate) fn all() -> Vec<&'static Loaded> {
    LATE.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Calls `f` once on copies of `args` with the flag set, so that a const-generic function
/// registers the derivatives of its instantiation (a function pointer is then resolved to the
/// instantiation at its address); `false`, without calling it, if its arguments cannot be
/// copied, or if this thread called it so before.
pub(crate) fn register_by_call<F: Function<A>, A>(f: F, args: &A) -> bool {
    // A function pointer stands for the function at its address: one pointer type, many
    // functions.
    let address = (&f as &dyn Any)
        .downcast_ref::<F::Ptr>()
        .map_or(0, |ptr| F::address(*ptr));
    // Per thread: a thread that misses while another registers the same instantiation
    // registers it too (the second registration is dropped) rather than report it missing.
    thread_local! {
        static TRIED: RefCell<HashSet<(TypeId, usize)>> = RefCell::new(HashSet::new());
    }
    if !TRIED.with(|tried| tried.borrow_mut().insert((TypeId::of::<F>(), address))) {
        return false;
    }
    let Some(copies) = F::scratch_args(args) else {
        return false;
    };
    /// Clears the flag however the call ends, so a function without a preamble leaves it set
    /// for no one.
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            REGISTERING.with(|flag| flag.set(false));
        }
    }
    let _clear = Clear;
    REGISTERING.with(|flag| flag.set(true));
    drop(f.call(copies));
    true
}

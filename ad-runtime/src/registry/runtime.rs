//! The rules registered at run time, and the epochs that tell call-site caches when a
//! resolution is stale.

use super::{Key, Location, Mode};
use core::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, RwLock, RwLockReadGuard};

pub(crate) struct RuntimeRule {
    pub(crate) id: u64,
    pub(crate) key: Key,
    pub(crate) mode: Mode,
    pub(crate) name: &'static str,
    pub(crate) location: Location,
    /// An `Arc<F::DynForward>` for a forward rule.
    pub(crate) rule: Box<dyn Any + Send + Sync>,
}

/// The registry's state that changes at run time. Writers bump the [`generation`] of the
/// function whose rules they change while they hold the write lock, so a reader that holds the
/// read lock sees a generation that matches what it reads.
pub(crate) static RUNTIME: RwLock<Vec<RuntimeRule>> = RwLock::new(Vec::new());

/// The epoch of one function: bumped whenever a run-time rule for it is registered or dropped.
///
/// Call-site caches compare against the epoch of the function they call, so a registration
/// makes exactly the sites that call that function resolve again; the counters are few (one per
/// function ever resolved or given a run-time rule) and live for the whole process.
pub(crate) fn generation(key: Key) -> &'static AtomicU64 {
    static GENERATIONS: OnceLock<Mutex<HashMap<Key, &'static AtomicU64>>> = OnceLock::new();
    let mut map = GENERATIONS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    map.entry(key)
        .or_insert_with(|| Box::leak(Box::new(AtomicU64::new(1))))
}

pub(crate) fn runtime_rules() -> RwLockReadGuard<'static, Vec<RuntimeRule>> {
    // A panic while the lock is held cannot leave the Vec half-updated (push and remove are
    // the only writes), so a poisoned lock is still consistent.
    RUNTIME.read().unwrap_or_else(|e| e.into_inner())
}

/// A resolution is valid while the function's epoch still reads `seen`.
#[derive(Clone, Copy)]
pub(crate) struct Validity {
    pub(crate) epoch: &'static AtomicU64,
    pub(crate) seen: u64,
}

impl Validity {
    /// Whether the function's rules are still those of the resolution.
    #[inline(always)]
    pub(crate) fn holds(&self) -> bool {
        self.epoch.load(Ordering::Acquire) == self.seen
    }
}

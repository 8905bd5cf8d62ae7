//! Helpers for the code that the macros generate. Not a public API.
//!
//! Generated code reaches everything generic through methods of [`Function`](crate::Function),
//! so that a mistake in the user's code is reported on the user's tokens, naming a public trait,
//! never a hidden helper.

mod adjoints;
mod bindings;
mod callees;
mod fit;
mod lend;
mod loops;
mod receiver;
mod seq;

pub use adjoints::*;
pub use bindings::*;
pub use callees::*;
pub use fit::*;
pub use lend::*;
pub use loops::*;
pub use receiver::*;
pub use seq::*;

//! Run-time support of the `ad` crate. Users depend on `ad`, which re-exports what is public here.

mod add_tangent;
mod api;
mod constant;
mod dispatch;
mod error;
mod function;
mod real;
mod registry;
pub mod rules;
mod tangent;
mod tape;

pub use add_tangent::AddTangent;
pub use api::{grad, jvp, try_jvp, try_value_and_grad, try_vjp, value_and_grad, vjp, vjp_into};
pub use constant::{Const, ConstSlice};
pub use error::Error;
pub use function::{
    Arg, ArrayRef, Dup, DupMut, ForwardClosure, Function, Param, Ref, ReverseClosure, Slice,
    SliceMut, Tan,
};
pub use real::Real;
pub use registry::{Location, Mode, Origin};
pub use tangent::{
    Accumulate, Differentiable, Linear, NoDerivative, NoTangent, Seed, ShapeMismatch, ShapelessZero,
};

#[doc(hidden)]
pub mod __private {
    pub use crate::__register_rule as register_rule;
    pub use crate::api::last_tape_high_water;
    pub use crate::constant::IsConst;
    pub use crate::dispatch::{CallSite, reverse_resolutions};
    pub use crate::function::Function;
    #[cfg(not(feature = "inventory"))]
    pub use crate::registry::RULES;
    pub use crate::registry::{
        Callee, FnInfo, LoadedRule, Location, Mode, Origin, RuleEntry, RuleGroup, absent,
        register_instantiation, registering,
    };
    #[cfg(feature = "inventory")]
    pub use inventory;
    pub use linkme;
    pub mod ops {
        pub use crate::ops::*;
    }
    pub mod prim {
        pub use crate::prim::*;
    }
    pub use crate::function::{
        Dup, DupMut, DupRef, Sweep, Swept, Tupled, augmented_with, backward_into_with,
        backward_with, forward_with,
    };
    pub use crate::private::*;
    pub use crate::tangent::{Differentiable, NoDerivative, NoTangent};
    pub use crate::tape::{Sink, Tape, Tapeable};
}

mod ops;
mod prim;
mod private;

//! Reverse mode: emits the split reverse derivative of an `ir::Func` as one plain Rust function.
//!
//! `fn __ad_reverse_f(args.., tape, adjoint: Option<Tan<R>>) -> (Option<R>, adjoints)` runs the
//! forward sweep when `adjoint` is `None`: the primal's own operations, in its order, pushing
//! onto the tape what the reverse sweep needs (the operands of each nonlinear operation, the
//! arguments and value of each call, each branch taken), and returns the value. Called again with
//! `Some(adjoint)` and the same arguments, it runs the reverse sweep: the instructions backwards,
//! popping what the forward sweep pushed, and returns the arguments' adjoints. A callee's sweeps
//! run inside the caller's on the same tape, so no primal runs twice.
//!
//! Both sweeps live in one function so that rustc infers every type once: a record pushed in the
//! forward sweep is also stored in a local slot (`Option<T>`, dead at run time), and the reverse
//! sweep pops "a value of the slot's type". Adjoints are held in `Adj<T>` (a float as itself,
//! other tangents as `Option`s, `None` while zero). Where the source tells `T` (a declared type,
//! float arithmetic, see `types.rs`) the adjoint is declared with it; elsewhere rustc infers it
//! from the values added, so none of them needs a type the macro cannot write.
//!
//! Each abrupt exit (`return`, `break`, `continue`) has an id. An exit records what the
//! constructs it leaves record when they complete (the decisions of its `if`s, how the loop
//! iteration ended, a loop's trip count), then the id of a `return` goes on top. The reverse
//! sweep of the function, or of a loop iteration that ended by an exit, starts not live, looking
//! for that exit: it enters only the constructs that hold it, skips everything else, and becomes
//! live at the exit's reverse.

use crate::activity::Activity;
use crate::ir::{Arith, Block, Func, Inst, Value, Var};
use crate::prims::Shape;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use syn::Ident;
use syn::ext::IdentExt;

mod analysis;
mod backward_call;
mod carried;
mod dense;
mod emit;
mod exits;
mod forward_call;
mod forward_loop;
mod forward_sweep;
mod inplace;
mod kept;
mod plan;
mod replay;
mod reverse_sweep;
mod shared;
mod shared_indices;
mod types;

use shared::*;

fn hyg(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

fn v_ident(v: Value) -> Ident {
    hyg(&format!("__v{}", v.0))
}

/// Adjoint of a value.
fn b_ident(v: Value) -> Ident {
    hyg(&format!("__b{}", v.0))
}

/// Adjoint of a variable.
fn x_ident(var: Var) -> Ident {
    hyg(&format!("__x{}", var.0))
}

/// The type witness of an indexed variable (`Option<Ty<T>>`), which gives its adjoint a type.
fn k_ident(var: Var) -> Ident {
    hyg(&format!("__k{}", var.0))
}

/// The variables without a declared type, bound by a `let` with a value, whose struct fields
/// are read: their type is taken where they are bound.
fn typed_at_let(func: &Func) -> HashSet<u32> {
    let insts = func.body.all_insts();
    let bound: HashSet<u32> = insts
        .iter()
        .filter_map(|inst| match inst {
            Inst::Let { var, init: Some(_) } => Some(var.0),
            _ => None,
        })
        .collect();
    insts
        .iter()
        .filter_map(|inst| match inst {
            Inst::Field {
                out,
                index,
                of: Some(v),
                ..
            } if func.place_field(*out, index)
                && func.vars[v.0 as usize].ty.is_none()
                && bound.contains(&v.0) =>
            {
                Some(v.0)
            }
            _ => None,
        })
        .collect()
}

/// The type of a variable without a declared type, taken where it is bound (`Ty<T>`).
fn ty_witness(var: Var) -> Ident {
    hyg(&format!("__ty{}", var.0))
}

/// The slot that names the type of a struct value built or updated (`s.y = ..`, `S { .. }`),
/// whose adjoint's fields the reverse sweep takes out: a field is read on a known type only,
/// and the adjoint's type may be told only later (by the variable's at the end).
fn built_ty(out: Value) -> Ident {
    hyg(&format!("__tv{}", out.0))
}

/// The adjoint buffer of a slice parameter.
fn bar_ident(var: Var) -> Ident {
    hyg(&format!("__bar{}", var.0))
}

/// The call-site cache of the call defining `v`, named by both sweeps.
fn site_ident(v: Value) -> Ident {
    hyg(&format!("__AD_SITE_{}", v.0))
}

/// Record slot of the instruction defining `v`.
fn s_ident(v: Value) -> Ident {
    hyg(&format!("__s{}", v.0))
}

pub struct Reverse<'a> {
    func: &'a Func,
    act: &'a Activity,
    krate: &'a TokenStream,
    caller: TokenStream,
    /// Values whose adjoint some instruction adds to.
    contributed: HashSet<u32>,
    /// Variables whose adjoint some read adds to.
    var_contributed: HashSet<u32>,
    /// Values whose defining instruction pushes a record.
    recorded: Vec<Value>,
    /// Return points, numbered from 1; 0 is the end of the body.
    returns: HashMap<*const Inst, u32>,
    /// `break`s and `continue`s, numbered after and among the return points: each abrupt exit
    /// has an id of its own.
    jumps: HashMap<*const Inst, u32>,
    /// While the reverse sweep of a loop body that an exit can leave is emitted: its
    /// instructions run only while the sweep is live.
    in_exit_loop: Cell<usize>,
    /// While the forward sweep of a loop that makes room on the tape for its records is emitted
    /// (see `forward_loop.rs`): the words of the pushes it makes.
    reserving: RefCell<Option<Vec<RoomFor>>>,
    /// While the forward sweep of an inner loop of a loop that makes room per iteration is
    /// emitted: the inner loop's trip count, by which its records count.
    reserve_times: RefCell<Option<TokenStream>>,
    /// Number of `if`s, for naming decisions.
    ifs: HashMap<*const Inst, u32>,
    /// Number of loops, for naming trip counts.
    loops: HashMap<*const Inst, u32>,
    /// Recorded values whose instruction is inside a loop: their records always use the tape.
    in_loop: HashSet<u32>,
    /// Loop depth during `scan`.
    depth: usize,
    /// Variables whose elements are read or written by index.
    indexed: HashSet<u32>,
    /// Variables without a declared type whose struct fields are read: their type is taken where
    /// they are bound, for the records of those reads.
    typed_at_let: HashSet<u32>,
    /// Where the reverse sweep finds each operand of an arithmetic or method record: on the
    /// tape, or written again (a constant, a parameter the function never assigns), or nowhere
    /// (no adjoint needs it).
    layouts: HashMap<u32, Vec<Src>>,
    /// Plain `for` loops over `start..end` whose reverse sweep binds the loop variable again,
    /// counting down from `start + trips - 1`: their variable, and `start`.
    replayed: HashMap<*const Inst, (Ident, TokenStream)>,
    /// Slice parameters passed on whole to calls: their adjoints go to their buffers.
    slice_reads: HashMap<u32, (Var, bool)>,
    /// The literals, by value, for calls written again as the user wrote them.
    literals: HashMap<u32, TokenStream>,
    /// Calls some of whose arguments the reverse sweep computes again instead of keeping them
    /// (a number parameter the function never assigns, a replayed loop's variable, an element
    /// of a slice parameter): per argument, those tokens, or `None` for an argument kept in the
    /// record.
    call_args: HashMap<u32, Vec<Option<TokenStream>>>,
    /// Replayed loops whose range the reverse sweep can compute again: the range, whose length
    /// is the trip count, which then stays off the tape.
    trips: HashMap<*const Inst, TokenStream>,
    /// Values that are finite float literals (`100.0`, or a local bound once to one), and
    /// whether the literal is nonzero: a product with one, or a quotient by a nonzero one, turns
    /// a zero adjoint into zeros, so its adjoint is not tested for zero.
    finite: HashMap<u32, bool>,
    /// Per replayed loop: reads of slice or array parameters at the loop variable (plus a
    /// literal) that every iteration makes. The reverse sweep reads each once at the last
    /// iteration's index before it replays the loop, which cannot fail (the forward sweep read
    /// it) and tells the compiler that every index of the loop is in bounds.
    last_reads: HashMap<*const Inst, Vec<TokenStream>>,
    /// Per plain loop, its reads `v[i]` of one and the same element in every iteration, the
    /// only reads of `v` in the loop: their adjoints add up in a local while the loop is
    /// replayed, and reach `v`'s adjoint once, after it (see `replay.rs`); with `v`.
    summed: HashMap<*const Inst, Vec<(Value, Var)>>,
    /// Per replayed loop, what it keeps once per run instead of once per iteration (see
    /// `kept.rs`).
    kept: HashMap<*const Inst, kept::Kept>,
    /// Stores of updates in place (`v[i] += e`, see `inplace.rs`): the other operand of the
    /// sum, and whether it is subtracted.
    inplace: HashMap<u32, (Value, bool)>,
    /// The reads and sums of those updates, whose reverse the store's does instead.
    inplace_skip: HashSet<u32>,
    /// Per replayed loop, the variables whose element adjoints its reverse sweep carries in
    /// locals from one iteration to the next (see `carried.rs`).
    carried: HashMap<*const Inst, Vec<carried::Carried>>,
    /// The reads that add to those locals, and the local each adds to.
    carried_reads: HashMap<u32, Ident>,
    /// Reads of a variable whose value is used before anything writes the variable (the read
    /// needs no copy): what is added to their adjoint goes straight to the variable's. Between
    /// the read and its use nothing takes the variable's adjoint, and sums commute, so this is
    /// the same derivative with one adjoint fewer to declare, take and add.
    direct: HashMap<u32, Var>,
    /// The adjoint types the source tells (see `types.rs`).
    known: types::Known,
    /// Local `Vec`s whose adjoint is a buffer of fixed length (see `dense.rs`), how their
    /// `vec![..]` gives their length, and the lengths the reverse sweep computes again.
    dense: HashSet<u32>,
    dense_made: HashMap<u32, dense::DenseLen>,
    dense_len: HashMap<u32, TokenStream>,
    /// Fields of struct parameters read through their reference whose adjoint is a buffer
    /// taken out of the struct's for the reverse sweep (see `dense.rs`).
    dense_fields: Vec<(Var, syn::Member)>,
}

/// A push counted in the room a loop makes on the tape: the words it takes (a record's, from its
/// slot, or a branch's decision), and for a push of an inner loop of a loop that makes room per
/// iteration, the inner loop's trip count.
type RoomFor = (TokenStream, Option<TokenStream>);

/// Where the reverse sweep finds an operand of a record.
#[derive(Clone)]
enum Src {
    Tape,
    Inline(TokenStream),
    /// A literal, whose type comes from the adjoint it is combined with.
    Literal(TokenStream),
    /// The same value as the record's field `k` (`a * a`): kept once.
    Same(usize),
    /// An element of a `&[T]` parameter, `ident[index]`: the tape keeps the index instead, and
    /// the reverse sweep binds it to `name`, where the indexing that read the element finds it
    /// too, so one word serves both records.
    Elem {
        ident: Ident,
        index: Value,
        name: Ident,
    },
    Unused,
}

impl<'a> Reverse<'a> {
    pub fn new(func: &'a Func, act: &'a Activity, krate: &'a TokenStream) -> Self {
        let name = func.name.unraw().to_string();
        let mut r = Reverse {
            func,
            act,
            krate,
            caller: quote!(::core::concat!(::core::module_path!(), "::", #name)),
            contributed: HashSet::new(),
            var_contributed: HashSet::new(),
            recorded: Vec::new(),
            returns: HashMap::new(),
            jumps: HashMap::new(),
            in_exit_loop: Cell::new(0),
            reserving: RefCell::new(None),
            reserve_times: RefCell::new(None),
            ifs: HashMap::new(),
            loops: HashMap::new(),
            in_loop: HashSet::new(),
            depth: 0,
            indexed: HashSet::new(),
            typed_at_let: typed_at_let(func),
            layouts: HashMap::new(),
            replayed: HashMap::new(),
            slice_reads: crate::lower::slice_reads(func),
            literals: crate::lower::literals(func),
            call_args: HashMap::new(),
            trips: HashMap::new(),
            finite: HashMap::new(),
            last_reads: HashMap::new(),
            summed: HashMap::new(),
            kept: HashMap::new(),
            inplace: HashMap::new(),
            inplace_skip: HashSet::new(),
            carried: HashMap::new(),
            carried_reads: HashMap::new(),
            direct: HashMap::new(),
            known: types::Known::new(func),
            dense: HashSet::new(),
            dense_made: HashMap::new(),
            dense_len: HashMap::new(),
            dense_fields: Vec::new(),
        };
        r.scan(&func.body);
        // Which adjoints receive something is a backward flow from the result and the returns:
        // an instruction adds to its operands' adjoints only if its own adjoint receives
        // something, so that every adjoint the reverse sweep declares is also given a value
        // (and with it a type).
        r.contributed.clear();
        r.var_contributed.clear();
        // A `&mut [T]` output's buffer brings the adjoint of what the function writes there.
        for p in &func.params {
            if crate::lower::slice_of(&p.ty).is_some_and(|(mutable, _)| mutable) && r.act.var(p.var)
            {
                r.var_contributed.insert(p.var.0);
            }
        }
        if let Some(res) = func.body.result {
            r.contribute(res);
        }
        while r.flow(&func.body) {}
        for inst in func.body.all_insts() {
            if let Inst::Read { out, var, .. } = inst
                && !func.values[out.0 as usize].needs_copy
                && !r.is_slice(*var)
            {
                r.direct.insert(out.0, *var);
            }
        }
        r.plan_dense();
        r.plan_dense_fields();
        r.plan_layouts();
        r
    }

    pub fn fn_name(func: &Func) -> Ident {
        hyg(&format!("__ad_reverse_{}", func.name.unraw()))
    }

    fn active(&self, v: Value) -> bool {
        self.act.value(v)
    }

    /// Whether the output slice `var` is passed more than once to one call: it is then lent as
    /// `&[T]`, each time.
    fn lent_twice(&self, args: &[Value], var: Var) -> bool {
        args.iter()
            .filter(|a| self.slice_reads.get(&a.0).is_some_and(|(v, _)| *v == var))
            .count()
            > 1
    }

    /// The output slices passed whole to a call, each once, in order: the reverse sweep passes
    /// copies of them as they were at the call. (A part, `&mut y[a..b]`, keeps a copy of its
    /// own, as a local lent mutably does.)
    fn copied_outputs(&self, args: &[Value], lent: &[crate::ir::Lent]) -> Vec<Var> {
        let mut out: Vec<Var> = Vec::new();
        for (a, how) in args.iter().zip(lent) {
            if let Some((var, true)) = self.slice_reads.get(&a.0)
                && how.mutable().is_none()
                && !out.contains(var)
            {
                out.push(*var);
            }
        }
        out
    }

    /// Whether a variable is a slice parameter, whose adjoint is its buffer.
    fn is_slice(&self, var: Var) -> bool {
        self.func.vars[var.0 as usize]
            .ty
            .as_ref()
            .is_some_and(|t| crate::lower::slice_of(t).is_some())
    }
}

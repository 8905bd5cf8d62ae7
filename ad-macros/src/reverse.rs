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

mod carried;
mod dense;
mod forward_sweep;
mod inplace;
mod kept;
mod plan;
mod replay;
mod reverse_sweep;
mod shared;
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
    /// (see `forward_sweep.rs`): the slots of the records it pushes.
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
}

/// A record counted in the room a loop makes on the tape: its slot, and for a record of an inner
/// loop of a loop that makes room per iteration, the inner loop's trip count.
type RoomFor = (Ident, Option<TokenStream>);

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
        r.plan_layouts();
        r
    }

    /// One pass of the backward flow of adjoints; whether anything changed.
    fn flow(&mut self, b: &Block) -> bool {
        let before = (self.contributed.len(), self.var_contributed.len());
        for inst in b.insts.iter().rev() {
            match inst {
                Inst::Read { out, var, .. } => {
                    if self.has(*out) && self.act.var(*var) {
                        self.var_contributed.insert(var.0);
                    }
                }
                Inst::Neg { out, a } | Inst::Field { out, a, .. } | Inst::Cast { out, a, .. } => {
                    if self.has(*out) {
                        self.contribute(*a);
                    }
                }
                Inst::Arith { out, a, b, .. } => {
                    if self.has(*out) {
                        self.contribute(*a);
                        self.contribute(*b);
                    }
                }
                Inst::Method {
                    out,
                    recv,
                    args,
                    prim,
                    ..
                } => {
                    if self.has(*out) {
                        self.contribute(*recv);
                        if prim.shape != Shape::PowI {
                            for a in args {
                                self.contribute(*a);
                            }
                        }
                    }
                }
                // A call's reverse sweep always runs (it pops the callee's records) and gives
                // its arguments adjoints, zero if the call's value has none.
                Inst::Call { out, args, .. } => {
                    if self.active(*out) {
                        for a in args {
                            self.contribute(*a);
                        }
                    }
                }
                Inst::Tuple { out, elems } => {
                    if self.has(*out) {
                        for e in elems {
                            self.contribute(*e);
                        }
                    }
                }
                Inst::Let { var, init: Some(v) } | Inst::Assign { var, value: v, .. } => {
                    if self.var_contributed.contains(&var.0) {
                        self.contribute(*v);
                    }
                }
                Inst::Block { out, block } => {
                    if let (Some(o), Some(r)) = (out, block.result)
                        && self.has(*o)
                    {
                        self.contribute(r);
                    }
                    self.flow(block);
                }
                Inst::If {
                    out,
                    then_block,
                    else_block,
                    ..
                } => {
                    if let Some(o) = out
                        && self.has(*o)
                    {
                        for r in [then_block.result, else_block.result].into_iter().flatten() {
                            self.contribute(r);
                        }
                    }
                    self.flow(then_block);
                    self.flow(else_block);
                }
                Inst::Loop { body, .. } => {
                    self.flow(body);
                }
                Inst::Index { out, var, .. } | Inst::Sum { out, var, .. } => {
                    if self.has(*out) && self.act.var(*var) {
                        self.var_contributed.insert(var.0);
                    }
                }
                Inst::IndexAssign { var, value, .. } => {
                    if self.var_contributed.contains(&var.0) {
                        self.contribute(*value);
                    }
                }
                Inst::Array { out, elems, .. } => {
                    if self.has(*out) {
                        for e in elems {
                            self.contribute(*e);
                        }
                    }
                }
                Inst::Repeat { out, elem, .. } => {
                    if self.has(*out) {
                        self.contribute(*elem);
                    }
                }
                Inst::Return { value } => self.contribute(*value),
                Inst::Break | Inst::Continue => {}
                Inst::Const { .. }
                | Inst::Opaque { .. }
                | Inst::Inactive { .. }
                | Inst::Let { init: None, .. }
                | Inst::Verbatim { .. } => {}
            }
        }
        before != (self.contributed.len(), self.var_contributed.len())
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

    /// The output slices passed to a call, each once, in order: the reverse sweep passes copies
    /// of them as they were at the call.
    fn copied_outputs(&self, args: &[Value]) -> Vec<Var> {
        let mut out: Vec<Var> = Vec::new();
        for a in args {
            if let Some((var, true)) = self.slice_reads.get(&a.0)
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

    fn contribute(&mut self, v: Value) {
        if self.active(v) && !self.slice_reads.contains_key(&v.0) {
            self.contributed.insert(v.0);
        }
    }

    /// Finds which adjoints receive contributions, which instructions record, the return points
    /// and the `if`s.
    fn scan(&mut self, b: &Block) {
        for inst in &b.insts {
            match inst {
                Inst::Read { out, var, .. } => {
                    if self.active(*out) && self.act.var(*var) {
                        self.var_contributed.insert(var.0);
                    }
                }
                Inst::Neg { out, a } | Inst::Field { out, a, .. } => {
                    if self.active(*out) {
                        self.contribute(*a);
                        if matches!(inst, Inst::Field { .. }) {
                            self.note_record(*out);
                        }
                    }
                }
                Inst::Arith { out, op, a, b, .. } => {
                    if self.active(*out) {
                        self.contribute(*a);
                        self.contribute(*b);
                        if matches!(op, Arith::Mul | Arith::Div | Arith::Rem) {
                            self.note_record(*out);
                        }
                    }
                }
                Inst::Method {
                    out,
                    recv,
                    args,
                    prim,
                    ..
                } => {
                    if self.active(*out) {
                        self.contribute(*recv);
                        if prim.shape != Shape::PowI {
                            for a in args {
                                self.contribute(*a);
                            }
                        }
                        self.note_record(*out);
                    }
                }
                Inst::Call { out, args, .. } => {
                    if self.active(*out) {
                        for a in args {
                            self.contribute(*a);
                        }
                        self.note_record(*out);
                    }
                }
                Inst::Cast { out, a, .. } => {
                    if self.active(*out) {
                        self.contribute(*a);
                        self.note_record(*out);
                    }
                }
                Inst::Tuple { out, elems } => {
                    if self.active(*out) {
                        for e in elems {
                            self.contribute(*e);
                        }
                    }
                }
                Inst::Let { var, init: Some(v) } | Inst::Assign { var, value: v, .. } => {
                    if self.act.var(*var) {
                        self.contribute(*v);
                    }
                }
                Inst::Block { out, block } => {
                    self.scan(block);
                    if let (Some(o), Some(r)) = (out, block.result)
                        && self.active(*o)
                    {
                        self.contribute(r);
                    }
                }
                Inst::If {
                    out,
                    then_block,
                    else_block,
                    ..
                } => {
                    let n = self.ifs.len() as u32;
                    self.ifs.insert(std::ptr::from_ref(inst), n);
                    self.scan(then_block);
                    self.scan(else_block);
                    if let Some(o) = out
                        && self.active(*o)
                    {
                        for r in [then_block.result, else_block.result].into_iter().flatten() {
                            self.contribute(r);
                        }
                    }
                }
                Inst::Loop { head, body } => {
                    let n = self.loops.len() as u32;
                    self.loops.insert(std::ptr::from_ref(inst), n);
                    self.depth += 1;
                    if let crate::ir::LoopHead::While { cond_block, .. } = head {
                        self.scan(cond_block);
                    }
                    self.scan(body);
                    self.depth -= 1;
                }
                Inst::Index { out, var, .. } | Inst::Sum { out, var, .. } => {
                    if self.active(*out) {
                        self.var_contributed.insert(var.0);
                        self.indexed.insert(var.0);
                        self.note_record(*out);
                    }
                }
                Inst::IndexAssign { id, var, value, .. } => {
                    if self.act.var(*var) {
                        self.contribute(*value);
                        self.indexed.insert(var.0);
                        self.note_record(*id);
                    }
                }
                Inst::Array { out, elems, .. } => {
                    if self.active(*out) {
                        for e in elems {
                            self.contribute(*e);
                        }
                    }
                }
                Inst::Repeat { out, elem, .. } => {
                    if self.active(*out) {
                        self.contribute(*elem);
                    }
                }
                Inst::Return { value } => {
                    let k = self.next_exit();
                    self.returns.insert(std::ptr::from_ref(inst), k);
                    self.contribute(*value);
                }
                Inst::Break | Inst::Continue => {
                    let k = self.next_exit();
                    self.jumps.insert(std::ptr::from_ref(inst), k);
                }
                Inst::Const { .. }
                | Inst::Opaque { .. }
                | Inst::Inactive { .. }
                | Inst::Let { init: None, .. }
                | Inst::Verbatim { .. } => {}
            }
        }
    }

    fn note_record(&mut self, out: Value) {
        self.recorded.push(out);
        if self.depth > 0 {
            self.in_loop.insert(out.0);
        }
    }

    fn has_returns(&self) -> bool {
        !self.returns.is_empty()
    }

    fn next_exit(&self) -> u32 {
        (self.returns.len() + self.jumps.len()) as u32 + 1
    }

    /// Whether the reverse sweep emitted here may not be live: after a return point it has not
    /// reached yet, or in a loop body after a `break` or `continue` it has not reached yet.
    fn guarded(&self) -> bool {
        self.has_returns() || self.in_exit_loop.get() > 0
    }

    /// The exits inside `b` that leave it: return points at any depth, and the `break`s and
    /// `continue`s that are not inside a loop nested in `b`.
    fn exits_in(&self, b: &Block) -> Vec<u32> {
        let mut out = Vec::new();
        for inst in &b.insts {
            let key = std::ptr::from_ref(inst);
            match inst {
                Inst::Return { .. } => out.push(self.returns[&key]),
                Inst::Break | Inst::Continue => out.push(self.jumps[&key]),
                Inst::Block { block, .. } => out.extend(self.exits_in(block)),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    out.extend(self.exits_in(then_block));
                    out.extend(self.exits_in(else_block));
                }
                Inst::Loop { body, .. } => out.extend(self.returns_in(body)),
                _ => {}
            }
        }
        out
    }

    /// The return points inside `b`, at any depth.
    fn returns_in(&self, b: &Block) -> Vec<u32> {
        let mut out = Vec::new();
        for inst in &b.insts {
            match inst {
                Inst::Return { .. } => out.push(self.returns[&std::ptr::from_ref(inst)]),
                Inst::Block { block, .. } => out.extend(self.returns_in(block)),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    out.extend(self.returns_in(then_block));
                    out.extend(self.returns_in(else_block));
                }
                Inst::Loop { body, .. } => out.extend(self.returns_in(body)),
                _ => {}
            }
        }
        out
    }

    pub fn emit(&mut self) -> TokenStream {
        let func = self.func;
        let krate = self.krate;
        let name = Self::fn_name(func);
        let tape = hyg("__tape");
        let adjoint = hyg("__adjoint");
        let mut params = Vec::new();
        let mut zeros = Vec::new();
        let mut adjoints_out = Vec::new();
        let mut tangent_types = Vec::new();
        // The zero adjoints of the parameters, made before the forward sweep may move them
        // (a `Vec` passed on to a call): they give the adjoints their shapes.
        let mut shapes = Vec::new();
        let mut fit_bars = Vec::new();
        for (k, p) in func.params.iter().enumerate() {
            let var = &func.vars[p.var.0 as usize];
            let ident = &var.ident;
            let ty = &p.ty;
            let m = var.mutable.then(|| quote!(mut));
            if let Some((mutable, e)) = crate::lower::slice_of(ty) {
                // A slice comes with its adjoint buffer, which its adjoint accumulates in.
                let dup = hyg(&format!("__dup{k}"));
                let bar = bar_ident(p.var);
                let kind = if mutable { quote!(DupMut) } else { quote!(Dup) };
                params.push(quote!(#dup: #krate::__private::#kind<'_, #e>));
                shapes.push(quote!(let #krate::__private::#kind { value: #m #ident, adjoint: #bar } = #dup;));
                // In the reverse sweep (the forward sweep alone may get no buffer), the buffer
                // as long as the slice, so that an index checked on one is checked on both.
                fit_bars.push(quote!(let #bar = &mut #bar[..#ident.len()];));
                let none = quote!(#krate::__private::NoTangent);
                zeros.push(none.clone());
                adjoints_out.push(none.clone());
                tangent_types.push(none);
                continue;
            }
            if p.by_ref {
                // A reference to an array: the derivative works on a copy of the array.
                params.push(quote!(#ident: &#ty));
                shapes.push(quote!(let #m #ident: #ty = ::core::clone::Clone::clone(#ident);));
            } else {
                params.push(quote!(#m #ident: #ty));
            }
            // Held constant: no adjoint at all.
            if crate::lower::const_of(ty).is_some() {
                let none = quote!(#krate::__private::NoTangent);
                zeros.push(none.clone());
                adjoints_out.push(none.clone());
                tangent_types.push(none);
                continue;
            }
            let z = hyg(&format!("__z{k}"));
            shapes.push(quote!(let #z = #krate::__private::zero(&#ident);));
            zeros.push(quote!(#z));
            tangent_types.push(quote!(<#ty as #krate::__private::Differentiable>::Tangent));
            if self.var_contributed.contains(&p.var.0) {
                let x = x_ident(p.var);
                adjoints_out.push(quote!(#krate::__private::fit(#x, #z)));
            } else {
                adjoints_out.push(quote!(#z));
            }
        }
        let ret = &func.ret;
        let mut slots: Vec<TokenStream> = self
            .recorded
            .iter()
            .map(|v| {
                let s = s_ident(*v);
                quote!(let mut #s = ::core::option::Option::None;)
            })
            .collect();
        let mut indexed: Vec<u32> = self.indexed.iter().copied().collect();
        indexed.sort_unstable();
        for v in indexed {
            if self.is_slice(Var(v)) {
                continue;
            }
            let k = k_ident(Var(v));
            let init = func
                .params
                .iter()
                .find(|p| p.var.0 == v)
                .map(|p| {
                    let ident = &func.vars[p.var.0 as usize].ident;
                    quote!(::core::option::Option::Some(#krate::__private::type_of(&#ident)))
                })
                .unwrap_or_else(|| quote!(::core::option::Option::None));
            slots.push(quote!(let mut #k = #init;));
        }
        slots.extend(self.kept_slots());
        slots.extend(self.dense_slots());

        // Items declared in the body serve both sweeps (a cast may name a local type alias):
        // they stand first, outside the forward sweep's block.
        let items: Vec<TokenStream> = func
            .body
            .insts
            .iter()
            .filter_map(|inst| match inst {
                Inst::Verbatim {
                    tokens, item: true, ..
                } => Some(tokens.clone()),
                _ => None,
            })
            .collect();
        // The caches of the call sites: the reverse sweep of a call finds the rule its forward
        // sweep ran there first.
        let sites: Vec<TokenStream> = func
            .body
            .all_insts()
            .into_iter()
            .filter_map(|inst| match inst {
                Inst::Call { out, span, .. } if self.active(*out) => Some(
                    crate::expand::site_static(krate, &self.caller, *span, &site_ident(*out)),
                ),
                _ => None,
            })
            .collect();
        let param_witnesses: Vec<TokenStream> = func
            .params
            .iter()
            .map(|p| self.binding_witness(p.var))
            .collect();
        // Forward sweep.
        let mut al = Aliases::default();
        let fwd_body = self.forward_block(&func.body, &mut al, &[]);
        let end_mark = self.has_returns().then(|| quote!(#tape.push(0u32);));
        let fwd_tail = match func.body.result {
            Some(r) => {
                let p = self.p(r, &al);
                quote! {
                    #end_mark
                    ::core::option::Option::Some(#p)
                }
            }
            // A function that only writes `&mut [T]` outputs.
            None if crate::forward::is_unit(&func.ret) => quote! {
                #end_mark
                ::core::option::Option::Some(())
            },
            None => TokenStream::new(),
        };
        let joint = hyg("__joint");
        let joint_out = hyg("__joint_out");
        // What the runtime's `Function::Reverse` has for this many arguments: a result that
        // fits in registers for one argument.
        let shape = if func.params.len() == 1 {
            quote!(Swept)
        } else {
            quote!(Tupled)
        };
        let value = hyg("__value");
        let fwd_label = syn::Lifetime {
            apostrophe: Span::mixed_site(),
            ident: hyg("__fwd"),
        };

        // Reverse sweep.
        let mut decls = Vec::new();
        let mut values: Vec<u32> = self
            .contributed
            .iter()
            .copied()
            .filter(|v| !self.direct.contains_key(v))
            .collect();
        values.sort_unstable();
        for v in values {
            let b = b_ident(Value(v));
            let ty = self.known.value_adjoint(Value(v)).map(|t| quote!(::<#t>));
            decls.push(quote!(let mut #b = #krate::__private::Adj #ty::default();));
        }
        let mut vars: Vec<u32> = self.var_contributed.iter().copied().collect();
        vars.sort_unstable();
        for v in vars {
            if self.is_slice(Var(v)) || self.is_dense(Var(v)) {
                continue;
            }
            let x = x_ident(Var(v));
            let ty = self
                .known
                .var_adjoint(func, Var(v), krate)
                .map(|t| quote!(::<#t>));
            decls.push(quote!(let mut #x = #krate::__private::Adj #ty::default();));
        }
        let exit = hyg("__exit");
        let live = hyg("__live");
        let live_decl = if self.has_returns() {
            quote! {
                let mut #exit: u32 = #tape.pop();
                let mut #live = #exit == 0;
            }
        } else if !self.jumps.is_empty() {
            quote! {
                let mut #exit: u32 = 0;
                let mut #live = true;
            }
        } else {
            TokenStream::new()
        };
        let seed = func.body.result.and_then(|r| self.slot(r)).map(|b| {
            let seed = hyg("__seed");
            self.guard(quote! {
                if let ::core::option::Option::Some(#seed) = #adjoint {
                    #krate::__private::acc(&mut #b, #seed);
                }
            })
        });
        let rev_body = self.reverse_block(&func.body);
        let dense_push = self.dense_push();
        let dense_decls = self.dense_decls();

        let (generics, where_clause) = crate::generics::derivative_generics(&func.generics, krate);
        quote! {
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unreachable_code, non_snake_case, clippy::all, clippy::pedantic, clippy::nursery)]
            fn #name #generics(
                #(#params,)*
                #tape: &mut #krate::__private::Tape,
                #adjoint: ::core::option::Option<<#ret as #krate::__private::Differentiable>::Tangent>,
                #joint: bool,
                #joint_out: &mut ::core::option::Option<#ret>,
            ) -> #krate::__private::#shape<#ret, (#(#tangent_types,)*)> #where_clause {
                #(#items)*
                #(#sites)*
                #(#shapes)*
                #(#slots)*
                // The forward sweep, unless this call is the reverse sweep alone.
                let #value: ::core::option::Option<#ret> = #fwd_label: {
                    // Forward sweep alone (no adjoint) or both sweeps (adjoint and joint); not
                    // for the reverse sweep alone, nor for popping only (no adjoint, joint).
                    if #adjoint.is_some() != #joint {
                        break #fwd_label ::core::option::Option::None;
                    }
                    #(#param_witnesses)*
                    #fwd_body
                    #fwd_tail
                };
                if #adjoint.is_none() && !#joint {
                    #dense_push
                    return #krate::__private::Sweep::forward(#value, (#(#zeros,)*));
                }
                #tape.note_high_water();
                #(#fit_bars)*
                #dense_decls
                #(#decls)*
                #live_decl
                #seed
                #rev_body
                #krate::__private::Sweep::reverse(#joint_out, #value, (#(#adjoints_out,)*))
            }
        }
    }
}

impl Reverse<'_> {
    /// The forward sweep of a loop that an exit can leave: the trip count is counted at the start
    /// of each iteration, so that an iteration that ends early counts too, and goes on the tape
    /// after the loop, after the loop's marker in `LoopMode::Marker`. In
    /// `LoopMode::PerIteration` each iteration that ends normally pushes a 0 marker.
    fn forward_exit_loop(
        &mut self,
        inst: &Inst,
        head: &crate::ir::LoopHead,
        body: &Block,
        al: &Aliases,
        decisions: &[Enclosing],
    ) -> TokenStream {
        let tape = hyg("__tape");
        let index = self.loop_index(inst);
        let n = hyg(&format!("__n{index}"));
        let mode = loop_mode(body);
        let marker = (mode == LoopMode::Marker).then(|| hyg(&format!("__m{index}")));
        let mut inside = decisions.to_vec();
        inside.push(Enclosing::Loop {
            trips: n.clone(),
            marker: marker.clone(),
        });
        let mut inner = al.clone();
        let body = self.forward_block(body, &mut inner, &inside);
        let end = (mode == LoopMode::PerIteration).then(|| quote!(#tape.push(0u32);));
        let looped = match head {
            crate::ir::LoopHead::For { pat, var, iter, .. } => {
                let it = self.p(*iter, al);
                let witness = var.map(|v| self.binding_witness(v));
                quote!(for #pat in #it { #n += 1; #witness #body #end })
            }
            crate::ir::LoopHead::While { cond_block, cond } => {
                let mut c_al = al.clone();
                let c_body = self.forward_block(cond_block, &mut c_al, decisions);
                let c = self.p(*cond, &c_al);
                quote!(while { #c_body #c } { #n += 1; #body #end })
            }
            crate::ir::LoopHead::Infinite => quote!(loop { #n += 1; #body #end }),
        };
        let (marker_decl, marker_push) = match &marker {
            Some(m) => (quote!(let mut #m: u32 = 0;), quote!(#tape.push(#m);)),
            None => (TokenStream::new(), TokenStream::new()),
        };
        quote! {
            let mut #n: usize = 0;
            #marker_decl
            #looped
            #marker_push
            #tape.push(#n);
        }
    }

    /// The reverse sweep of a loop that an exit can leave. An iteration that ended by exit `k`
    /// is replayed from that exit on: the sweep is not live, and looks for `k`, until it passes
    /// `k`, whose reverse makes it live again; so it is live after every iteration.
    fn reverse_exit_loop(&self, body: &Block) -> TokenStream {
        let tape = hyg("__tape");
        let live = hyg("__live");
        let exit = hyg("__exit");
        let trips = hyg("__trips");
        let mark = hyg("__mark");
        let guarded = self.guarded();
        self.in_exit_loop.set(self.in_exit_loop.get() + 1);
        let inner = self.reverse_block(body);
        self.in_exit_loop.set(self.in_exit_loop.get() - 1);
        let ended = quote! {
            let #mark: u32 = #tape.pop();
            if #mark != 0 {
                #live = false;
                #exit = #mark;
            }
        };
        let code = match loop_mode(body) {
            LoopMode::PerIteration => quote! {
                let #trips: usize = #tape.pop();
                for _ in 0..#trips {
                    #ended
                    #inner
                }
            },
            // Only the last iteration, replayed first, can have ended early.
            _ => quote! {
                let #trips: usize = #tape.pop();
                #ended
                for _ in 0..#trips {
                    #inner
                }
            },
        };
        if !guarded {
            return code;
        }
        // Entered when the sweep is live, or when it starts at a return inside.
        let inside = self.returns_in(body);
        quote!(if #live #(|| #exit == #inside)* { #code })
    }
}

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
//! other tangents as `Option`s, `None` while zero), whose `T` rustc infers from the values added,
//! so none of them needs a type the macro cannot write.
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
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use syn::Ident;
use syn::ext::IdentExt;

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
}

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
        r.plan_layouts();
        r
    }

    /// Decides, for each arithmetic and method record, which operands go on the tape; drops the
    /// records that keep nothing.
    fn plan_layouts(&mut self) {
        let mut defs: HashMap<u32, Src> = HashMap::new();
        let mut assigned: HashSet<u32> = HashSet::new();
        let insts = self.func.body.all_insts();
        for inst in &insts {
            match inst {
                Inst::Assign { var, .. } | Inst::IndexAssign { var, .. } => {
                    assigned.insert(var.0);
                }
                // Code kept as written that may change what it reads (a macro): assigned too.
                Inst::Opaque {
                    reads,
                    may_write: true,
                    ..
                }
                | Inst::Verbatim {
                    reads,
                    may_write: true,
                    ..
                } => {
                    assigned.extend(reads.iter().map(|v| v.0));
                }
                _ => {}
            }
        }
        let params: HashSet<u32> = self.func.params.iter().map(|p| p.var.0).collect();
        let stable: HashSet<u32> = params
            .iter()
            .copied()
            .filter(|v| !assigned.contains(v))
            .collect();
        let nested_items = insts.iter().any(|inst| {
            matches!(inst, Inst::Verbatim { item: true, .. })
                && !self.func.body.insts.iter().any(|i| std::ptr::eq(i, *inst))
        });
        let mut loop_vars: HashSet<u32> = HashSet::new();
        let mut bound: HashMap<u32, Src> = HashMap::new();
        self.plan_replays(&self.func.body, &stable, &mut Vec::new(), &mut loop_vars);
        for inst in &insts {
            match inst {
                // A number is the same everywhere; a path (a `const`, a `use`d name) is written
                // again only if no block below the body's top level declares an item, which
                // the reverse sweep, standing outside those blocks, would not see.
                Inst::Const { out, tokens } if is_number(tokens) || !nested_items => {
                    defs.insert(out.0, Src::Literal(tokens.clone()));
                }
                Inst::Read { out, var, ident }
                    if stable.contains(&var.0) && !self.func.values[out.0 as usize].needs_copy =>
                {
                    defs.insert(out.0, Src::Inline(quote!(#ident)));
                }
                // The loop variable of a replayed loop, under the name the reverse sweep binds.
                Inst::Read { out, var, .. }
                    if loop_vars.contains(&var.0)
                        && !self.func.values[out.0 as usize].needs_copy =>
                {
                    let ri = replay_ident(*var);
                    defs.insert(out.0, Src::Inline(quote!(#ri)));
                }
                // A local bound once to a value the reverse sweep has: that value.
                Inst::Let {
                    var,
                    init: Some(init),
                } if !assigned.contains(&var.0) => {
                    if let Some(src @ (Src::Inline(_) | Src::Literal(_))) = defs.get(&init.0) {
                        bound.insert(var.0, src.clone());
                    }
                }
                Inst::Read { out, var, .. }
                    if bound.contains_key(&var.0)
                        && !self.func.values[out.0 as usize].needs_copy =>
                {
                    defs.insert(out.0, bound[&var.0].clone());
                }
                // An element of a slice or array parameter the function never writes, at an
                // index the reverse sweep has: read again.
                Inst::Index {
                    out,
                    var,
                    ident,
                    index,
                } if params.contains(&var.0)
                    && !assigned.contains(&var.0)
                    && self.func.vars[var.0 as usize].ty.as_ref().is_some_and(|t| {
                        crate::lower::slice_of(t).is_some_and(|(m, _)| !m)
                            || matches!(t, syn::Type::Array(_))
                    }) =>
                {
                    if let Some(i) = raw(&defs, *index) {
                        defs.insert(out.0, Src::Inline(quote!(#ident[#i])));
                    }
                }
                // The length of a slice or array parameter the function never assigns.
                Inst::Opaque {
                    out, tokens, reads, ..
                } if reads.len() == 1
                    && stable.contains(&reads[0].0)
                    && self.func.vars[reads[0].0 as usize]
                        .ty
                        .as_ref()
                        .is_some_and(|t| {
                            crate::lower::slice_of(t).is_some_and(|(m, _)| !m)
                                || matches!(t, syn::Type::Array(_))
                        })
                    && is_len_of(tokens, &self.func.vars[reads[0].0 as usize].ident) =>
                {
                    defs.insert(out.0, Src::Inline(tokens.clone()));
                }
                // Index arithmetic (`i * n + j`) on values the reverse sweep has.
                Inst::Arith {
                    out,
                    a,
                    b,
                    op_tokens,
                    ..
                }
                | Inst::Inactive {
                    out,
                    a,
                    b,
                    op_tokens,
                } if !self.active(*out) => {
                    if let (Some(x), Some(y)) = (raw(&defs, *a), raw(&defs, *b)) {
                        let expr = quote!((#x #op_tokens #y));
                        // Of literals only (`0.5 * h` with `let h = 0.01;`), it stays a literal
                        // that takes its type from where it is used.
                        let src = match (&defs[&a.0], &defs[&b.0]) {
                            (Src::Literal(_), Src::Literal(_)) => Src::Literal(expr),
                            _ => Src::Inline(expr),
                        };
                        defs.insert(out.0, src);
                    }
                }
                // Float sums, differences and products of values the reverse sweep has: computed
                // again (the same operations on the same operands, so the same bits), which is
                // cheaper than a push and a pop; a size bound keeps chains short. With an operand
                // that is not a literal, the expression has the operands' float type; of literals
                // only, it stays a literal, which takes its type from the adjoint it meets.
                Inst::Arith {
                    out,
                    op: Arith::Add | Arith::Sub | Arith::Mul,
                    a,
                    b,
                    op_tokens,
                } => {
                    if let (Some(x), Some(y)) = (defs.get(&a.0), defs.get(&b.0))
                        && let (Some(xt), Some(yt)) = (raw(&defs, *a), raw(&defs, *b))
                        && token_count(&xt) + token_count(&yt) <= INLINE_TOKENS
                    {
                        let expr = quote!((#xt #op_tokens #yt));
                        let src = match (x, y) {
                            (Src::Literal(_), Src::Literal(_)) => Src::Literal(expr),
                            _ => Src::Inline(expr),
                        };
                        defs.insert(out.0, src);
                    }
                }
                Inst::Neg { out, a } => match defs.get(&a.0) {
                    Some(Src::Inline(x)) if token_count(x) < INLINE_TOKENS => {
                        defs.insert(out.0, Src::Inline(quote!((-#x))));
                    }
                    Some(Src::Literal(x)) if token_count(x) < INLINE_TOKENS => {
                        defs.insert(out.0, Src::Literal(quote!((-#x))));
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        // Ranges of replayed loops that read only parameters never written, enclosing replayed
        // loops' variables and locals bound once to values the reverse sweep has.
        let written: HashSet<u32> = insts
            .iter()
            .flat_map(|inst| match inst {
                Inst::Opaque {
                    reads,
                    may_write: true,
                    ..
                }
                | Inst::Verbatim {
                    reads,
                    may_write: true,
                    ..
                } => reads.iter().map(|v| v.0).collect(),
                _ => Vec::new(),
            })
            .collect();
        for inst in &insts {
            let Inst::Loop {
                head: crate::ir::LoopHead::For { iter, .. },
                ..
            } = inst
            else {
                continue;
            };
            let key = std::ptr::from_ref(*inst);
            if !self.replayed.contains_key(&key) {
                continue;
            }
            let Some(Inst::Opaque { tokens, reads, .. }) = insts
                .iter()
                .find(|i| matches!(i, Inst::Opaque { out, .. } if out == iter))
            else {
                continue;
            };
            let mut subst: Vec<(String, TokenStream)> = Vec::new();
            let ok = reads.iter().all(|r| {
                let name = self.func.vars[r.0 as usize].ident.unraw().to_string();
                if subst.iter().any(|(n, _)| *n == name) || written.contains(&r.0) {
                    return false;
                }
                // A parameter the forward sweep cannot have moved: a number, a slice, an array.
                let kept = self.func.vars[r.0 as usize].ty.as_ref().is_some_and(|t| {
                    is_number_type(t)
                        || crate::lower::slice_of(t).is_some()
                        || matches!(t, syn::Type::Array(a) if is_number_type(&a.elem))
                });
                let to = if stable.contains(&r.0) && kept {
                    let ident = &self.func.vars[r.0 as usize].ident;
                    quote!(#ident)
                } else if loop_vars.contains(&r.0) {
                    let ri = replay_ident(*r);
                    quote!(#ri)
                } else {
                    match bound.get(&r.0) {
                        Some(Src::Inline(t) | Src::Literal(t)) => quote!((#t)),
                        _ => return false,
                    }
                };
                subst.push((name, to));
                true
            });
            if ok && let Some(range) = substitute(tokens, &subst) {
                self.trips.insert(key, range);
            }
        }
        // Arguments of calls, but not literals: their type comes from the callee's parameter,
        // which the reverse sweep does not see. Only reads of variables of a number type and
        // elements read by value (so `Copy`): the call may have moved anything else.
        let copied_read = |v: Value| {
            insts.iter().any(|inst| match inst {
                Inst::Read { out, var, .. } => {
                    *out == v
                        && (loop_vars.contains(&var.0)
                            || self.func.vars[var.0 as usize]
                                .ty
                                .as_ref()
                                .is_some_and(is_number_type))
                }
                Inst::Index { out, .. } => *out == v,
                _ => false,
            })
        };
        for inst in &insts {
            if let Inst::Call { out, args, .. } = inst
                && self.active(*out)
            {
                let again: Vec<Option<TokenStream>> = args
                    .iter()
                    .map(|a| match defs.get(&a.0) {
                        Some(Src::Inline(t))
                            if !self.slice_reads.contains_key(&a.0) && copied_read(*a) =>
                        {
                            Some(t.clone())
                        }
                        _ => None,
                    })
                    .collect();
                if again.iter().any(Option::is_some) {
                    self.call_args.insert(out.0, again);
                }
            }
        }
        let src = |v: Value, needed: bool| -> Src {
            if !needed {
                return Src::Unused;
            }
            defs.get(&v.0).cloned().unwrap_or(Src::Tape)
        };
        for inst in &insts {
            let layout = match inst {
                Inst::Arith { out, op, a, b, .. } if self.active(*out) => {
                    let (ca, cb) = (self.has(*a), self.has(*b));
                    match op {
                        // (a, b): a's adjoint needs b, b's needs a.
                        Arith::Mul => {
                            let (sa, sb) = (src(*a, cb), src(*b, ca));
                            if matches!((&sa, &sb), (Src::Tape, Src::Tape))
                                && same_value(&insts, &defs, *a, *b)
                            {
                                vec![sa, Src::Same(0)]
                            } else {
                                vec![sa, sb]
                            }
                        }
                        // (b, y)
                        Arith::Div => vec![src(*b, ca || cb), Src::Tape],
                        // (a, b)
                        Arith::Rem => vec![src(*a, cb), src(*b, ca || cb)],
                        Arith::Add | Arith::Sub => continue,
                    }
                }
                Inst::Method {
                    out, recv, args, ..
                } if self.active(*out) => {
                    // A primitive's partials may not tie an unsuffixed literal to the float type,
                    // so literals stay on the tape here; parameters have their own type.
                    let typed = |v: Value| match src(v, true) {
                        Src::Literal(_) => Src::Tape,
                        other => other,
                    };
                    let mut layout = vec![typed(*recv)];
                    layout.extend(args.iter().map(|a| typed(*a)));
                    layout.push(Src::Tape);
                    layout
                }
                // The index, unless the reverse sweep can compute it again.
                Inst::Index { out, index, .. } if self.active(*out) => {
                    vec![index_src(&defs, *index)]
                }
                Inst::IndexAssign { var, index, .. } if self.act.var(*var) => {
                    vec![index_src(&defs, *index)]
                }
                _ => continue,
            };
            let out = match inst {
                Inst::Arith { out, .. }
                | Inst::Method { out, .. }
                | Inst::Index { out, .. }
                | Inst::IndexAssign { id: out, .. } => *out,
                _ => unreachable!(),
            };
            if !layout
                .iter()
                .any(|f| matches!(f, Src::Tape | Src::Elem { .. }))
            {
                self.recorded.retain(|v| *v != out);
            }
            self.layouts.insert(out.0, layout);
        }
        if !self.has_returns() {
            self.plan_shared_indices(&self.func.body, false);
        }
    }

    /// Finds the reads `p[i]` of a `&[T]` parameter whose index goes on the tape, followed in the
    /// same block, with only reads and arithmetic between, by a multiplication that keeps the
    /// element: the multiplication keeps `i` instead and reads `p[i]` again (`p` cannot be
    /// written), and the read's own record goes. The reverse sweep of the multiplication runs
    /// just before that of the read, in the same scope, so the index it binds is there for the
    /// read. Not where the reverse sweep may not be live (a function with `return`s, a loop
    /// body an exit can leave), whose instructions are guarded one by one, each in a scope of
    /// its own.
    fn plan_shared_indices(&mut self, b: &'a Block, exits: bool) {
        for (pos, inst) in b.insts.iter().enumerate() {
            match inst {
                Inst::Block { block, .. } => self.plan_shared_indices(block, exits),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    self.plan_shared_indices(then_block, exits);
                    self.plan_shared_indices(else_block, exits);
                }
                Inst::Loop { body, .. } => {
                    self.plan_shared_indices(body, exits || loop_mode(body) != LoopMode::Plain);
                }
                Inst::Index {
                    out,
                    var,
                    ident,
                    index,
                } if !exits
                    && matches!(
                        self.layouts.get(&out.0).map(Vec::as_slice),
                        Some([Src::Tape])
                    )
                    && self.func.params.iter().any(|p| p.var == *var)
                    && self.func.vars[var.0 as usize]
                        .ty
                        .as_ref()
                        .and_then(crate::lower::slice_of)
                        .is_some_and(|(mutable, _)| !mutable) =>
                {
                    for later in &b.insts[pos + 1..] {
                        match later {
                            Inst::Arith {
                                out: m,
                                op: Arith::Mul,
                                a,
                                b: bb,
                                ..
                            } if a == out || bb == out => {
                                let k = usize::from(a != out);
                                let name = hyg(&format!("__j{}", out.0));
                                if let Some(layout) = self.layouts.get_mut(&m.0)
                                    && matches!(layout[k], Src::Tape)
                                {
                                    layout[k] = Src::Elem {
                                        ident: ident.clone(),
                                        index: *index,
                                        name: name.clone(),
                                    };
                                    self.layouts.insert(out.0, vec![Src::Inline(quote!(#name))]);
                                    self.recorded.retain(|v| v != out);
                                }
                                break;
                            }
                            // Nothing between writes a variable or leaves the block.
                            Inst::Read { .. }
                            | Inst::Const { .. }
                            | Inst::Index { .. }
                            | Inst::Arith { .. }
                            | Inst::Neg { .. }
                            | Inst::Inactive { .. }
                            | Inst::Method { .. }
                            | Inst::Cast { .. } => {}
                            _ => break,
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Finds the plain `for` loops over `start..end` (or `..=`) whose `start` the reverse sweep
    /// can compute again: it reads only parameters the function never assigns and enclosing
    /// such loops' variables (told apart by variable, not by name). The reverse sweep binds the
    /// variable of such a loop again, under a name of its own.
    fn plan_replays(
        &mut self,
        b: &Block,
        stable: &HashSet<u32>,
        enclosing: &mut Vec<Var>,
        loop_vars: &mut HashSet<u32>,
    ) {
        for inst in &b.insts {
            match inst {
                Inst::Block { block, .. } => self.plan_replays(block, stable, enclosing, loop_vars),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    self.plan_replays(then_block, stable, enclosing, loop_vars);
                    self.plan_replays(else_block, stable, enclosing, loop_vars);
                }
                Inst::Loop { head, body } => {
                    let mut pushed = false;
                    if let crate::ir::LoopHead::For {
                        var: Some(var),
                        start: Some((start, reads)),
                        ..
                    } = head
                        && loop_mode(body) == LoopMode::Plain
                        && reads
                            .iter()
                            .all(|r| stable.contains(&r.0) || enclosing.contains(r))
                    {
                        // The start with each enclosing loop variable under its reverse name.
                        let renames: Vec<(String, Ident)> = reads
                            .iter()
                            .filter(|r| enclosing.contains(r))
                            .map(|r| {
                                (
                                    self.func.vars[r.0 as usize].ident.to_string(),
                                    replay_ident(*r),
                                )
                            })
                            .collect();
                        let start = rename(start, &renames);
                        enclosing.push(*var);
                        pushed = true;
                        loop_vars.insert(var.0);
                        self.replayed
                            .insert(std::ptr::from_ref(inst), (replay_ident(*var), start));
                    }
                    self.plan_replays(body, stable, enclosing, loop_vars);
                    if pushed {
                        enclosing.pop();
                    }
                }
                _ => {}
            }
        }
    }

    /// The fields of `out`'s record that go on the tape.
    fn taped(&self, out: Value, values: Vec<TokenStream>) -> Vec<TokenStream> {
        match self.layouts.get(&out.0) {
            Some(layout) => values
                .into_iter()
                .zip(layout)
                .filter(|(_, f)| matches!(f, Src::Tape | Src::Elem { .. }))
                .map(|(v, _)| v)
                .collect(),
            None => values,
        }
    }

    /// Field `k` of `out`'s record in the reverse sweep: from the popped tuple `r`, or written
    /// again.
    fn field(&self, out: Value, k: usize, r: &Ident) -> TokenStream {
        let Some(layout) = self.layouts.get(&out.0) else {
            let idx = syn::Index::from(k);
            return quote!(#r.#idx);
        };
        match &layout[k] {
            Src::Tape => {
                let idx = syn::Index::from(Self::tape_pos(layout, k));
                quote!(#r.#idx)
            }
            Src::Elem { ident, name, .. } => quote!(#ident[#name]),
            Src::Inline(tokens) => tokens.clone(),
            Src::Same(j) => self.field(out, *j, r),
            Src::Literal(tokens) => {
                let krate = self.krate;
                let g = hyg("__g");
                quote!(#krate::__private::typed_as(#g, #tokens))
            }
            Src::Unused => quote!(::core::unreachable!()),
        }
    }

    /// The position on the tape of field `k` of a record laid out as `layout`.
    fn tape_pos(layout: &[Src], k: usize) -> usize {
        layout[..k]
            .iter()
            .filter(|f| matches!(f, Src::Tape | Src::Elem { .. }))
            .count()
    }

    /// Binds the indices that `out`'s record keeps for elements (`Src::Elem`), from the popped
    /// tuple `r`.
    fn bind_elems(&self, out: Value, r: &Ident) -> TokenStream {
        let Some(layout) = self.layouts.get(&out.0) else {
            return TokenStream::new();
        };
        let mut ts = TokenStream::new();
        for (k, f) in layout.iter().enumerate() {
            if let Src::Elem { name, .. } = f {
                let idx = syn::Index::from(Self::tape_pos(layout, k));
                ts.extend(quote!(let #name = #r.#idx;));
            }
        }
        ts
    }

    /// Whether `out`'s instruction keeps a record.
    fn keeps(&self, out: Value) -> bool {
        self.recorded.contains(&out)
    }

    fn has(&self, v: Value) -> bool {
        self.contributed.contains(&v.0)
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
            params.push(quote!(#m #ident: #ty));
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
        let value = hyg("__value");
        let fwd_label = syn::Lifetime {
            apostrophe: Span::mixed_site(),
            ident: hyg("__fwd"),
        };

        // Reverse sweep.
        let mut decls = Vec::new();
        let mut values: Vec<u32> = self.contributed.iter().copied().collect();
        values.sort_unstable();
        for v in values {
            let b = b_ident(Value(v));
            decls.push(quote!(let mut #b = #krate::__private::Adj::default();));
        }
        let mut vars: Vec<u32> = self.var_contributed.iter().copied().collect();
        vars.sort_unstable();
        for v in vars {
            if self.is_slice(Var(v)) {
                continue;
            }
            let x = x_ident(Var(v));
            decls.push(quote!(let mut #x = #krate::__private::Adj::default();));
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
        let seed = func
            .body
            .result
            .filter(|r| self.contributed.contains(&r.0))
            .map(|r| {
                let b = b_ident(r);
                let seed = hyg("__seed");
                self.guard(quote! {
                    if let ::core::option::Option::Some(#seed) = #adjoint {
                        #krate::__private::acc(&mut #b, #seed);
                    }
                })
            });
        let rev_body = self.reverse_block(&func.body);

        quote! {
            #[allow(unused_variables, unused_mut, unused_parens, unused_assignments, unreachable_code, non_snake_case, clippy::all, clippy::pedantic, clippy::nursery)]
            fn #name(
                #(#params,)*
                #tape: &mut #krate::__private::Tape,
                #adjoint: ::core::option::Option<<#ret as #krate::__private::Differentiable>::Tangent>,
                #joint: bool,
            ) -> (::core::option::Option<#ret>, (#(#tangent_types,)*)) {
                #(#items)*
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
                    return (#value, (#(#zeros,)*));
                }
                #tape.note_high_water();
                #(#fit_bars)*
                #(#decls)*
                #live_decl
                #seed
                #rev_body
                (#value, (#(#adjoints_out,)*))
            }
        }
    }

    /// `code` runs only while the reverse sweep is live (after the return point it started from).
    fn guard(&self, code: TokenStream) -> TokenStream {
        if self.guarded() {
            let live = hyg("__live");
            quote!(if #live { #code })
        } else {
            code
        }
    }

    fn p(&self, v: Value, al: &Aliases) -> TokenStream {
        match al.0.get(&v.0) {
            Some(ts) => ts.clone(),
            None => {
                let id = v_ident(v);
                quote!(#id)
            }
        }
    }

    /// Reverse mode tells variables apart by name; rustc, by name and macro context. Each binding
    /// declares a zero-sized witness of its number, named after the variable with the variable's
    /// own span, and each read or write checks that the witness rustc finds is that of the
    /// variable the macro means: where two contexts share a name, that is a compile error
    /// instead of an adjoint routed to the wrong variable.
    fn witness_ident(name: &Ident) -> Ident {
        Ident::new(&format!("__ad_w_{}", name.unraw()), name.span())
    }

    fn binding_witness(&self, var: Var) -> TokenStream {
        let krate = self.krate;
        let w = Self::witness_ident(&self.func.vars[var.0 as usize].ident);
        let k = var.0 as usize;
        quote!(let #w = #krate::__private::Binding::<#k>;)
    }

    fn binding_check(&self, var: Var, at: &Ident) -> TokenStream {
        let krate = self.krate.clone();
        let w = Self::witness_ident(at);
        let k = var.0 as usize;
        let span = at.span();
        let krate_here = crate::expand::respan(&krate, span);
        quote_spanned!(span=> #w.same_as::<#krate_here::__private::Binding<#k>>();)
    }

    /// Keeps what the reverse sweep needs of `out`'s instruction: in its slot, and on the tape
    /// unless both sweeps run in this one call and the instruction runs once (outside loops).
    fn record(&self, out: Value, values: &[TokenStream]) -> TokenStream {
        if !self.keeps(out) {
            return TokenStream::new();
        }
        let values = self.taped(out, values.to_vec());
        let tape = hyg("__tape");
        let s = s_ident(out);
        let r = hyg("__rec");
        let push = if self.in_loop.contains(&out.0) {
            quote!(#tape.push(::core::clone::Clone::clone(&#r));)
        } else {
            let joint = hyg("__joint");
            quote!(if !#joint { #tape.push(::core::clone::Clone::clone(&#r)); })
        };
        quote! {
            let #r = (#(::core::clone::Clone::clone(&#values),)*);
            #push
            #s = ::core::option::Option::Some(#r);
        }
    }

    /// The forward sweep of a block. `decisions` are the enclosing constructs that an exit can
    /// leave, innermost last: an exit records for them what they record when they complete.
    fn forward_block(
        &mut self,
        b: &Block,
        al: &mut Aliases,
        decisions: &[Enclosing],
    ) -> TokenStream {
        let mut out = TokenStream::new();
        for inst in &b.insts {
            out.extend(self.forward_inst(inst, al, decisions));
        }
        out
    }

    fn forward_value_block(
        &mut self,
        b: &Block,
        al: &Aliases,
        decisions: &[Enclosing],
    ) -> TokenStream {
        let mut inner = al.clone();
        let body = self.forward_block(b, &mut inner, decisions);
        let tail = b.result.map(|r| self.p(r, &inner));
        quote!({ #body #tail })
    }

    fn def(out: Value, primal: TokenStream) -> TokenStream {
        let v = v_ident(out);
        quote!(let #v = #primal;)
    }

    fn forward_inst(
        &mut self,
        inst: &Inst,
        al: &mut Aliases,
        decisions: &[Enclosing],
    ) -> TokenStream {
        let krate = self.krate.clone();
        let tape = hyg("__tape");
        match inst {
            Inst::Const { out, tokens } => {
                if crate::forward::is_untyped_number(tokens) {
                    Self::def(*out, tokens.clone())
                } else {
                    al.0.insert(out.0, tokens.clone());
                    TokenStream::new()
                }
            }
            Inst::Opaque { out, tokens, .. } => Self::def(*out, tokens.clone()),
            Inst::Read { out, var, ident } => {
                let check = self.binding_check(*var, ident);
                if self.func.values[out.0 as usize].needs_copy {
                    let mut ts = check;
                    ts.extend(Self::def(*out, quote!(#ident)));
                    ts
                } else {
                    al.0.insert(out.0, quote!(#ident));
                    check
                }
            }
            Inst::Neg { out, a } => {
                let pa = self.p(*a, al);
                Self::def(*out, quote!(-#pa))
            }
            Inst::Arith {
                out,
                op,
                a,
                b,
                op_tokens,
            } => {
                let (pa, pb) = (self.p(*a, al), self.p(*b, al));
                let mut ts = Self::def(*out, quote!(#pa #op_tokens #pb));
                if self.active(*out) {
                    let y = v_ident(*out);
                    match op {
                        Arith::Mul => {
                            // An element kept as its index: the index as the read used it (only
                            // reads and arithmetic since, so it still holds).
                            let mut values = vec![pa, pb];
                            if let Some(layout) = self.layouts.get(&out.0) {
                                for (k, f) in layout.iter().enumerate() {
                                    if let Src::Elem { index, .. } = f {
                                        values[k] = self.p(*index, al);
                                    }
                                }
                            }
                            ts.extend(self.record(*out, &values));
                        }
                        Arith::Rem => ts.extend(self.record(*out, &[pa, pb])),
                        Arith::Div => ts.extend(self.record(*out, &[pb, quote!(#y)])),
                        Arith::Add | Arith::Sub => {}
                    }
                }
                ts
            }
            Inst::Inactive {
                out,
                a,
                b,
                op_tokens,
            } => {
                let (pa, pb) = (self.p(*a, al), self.p(*b, al));
                Self::def(*out, quote!(#pa #op_tokens #pb))
            }
            Inst::Method {
                out,
                method,
                ufcs,
                recv,
                args,
                ..
            } => {
                let pr = self.p(*recv, al);
                let pargs: Vec<TokenStream> = args.iter().map(|a| self.p(*a, al)).collect();
                let primal = crate::prims::call_tokens(ufcs.as_ref(), method, &pr, &pargs);
                let mut ts = Self::def(*out, primal);
                if self.active(*out) {
                    let y = v_ident(*out);
                    let mut rec = vec![pr];
                    rec.extend(pargs);
                    rec.push(quote!(#y));
                    ts.extend(self.record(*out, &rec));
                }
                ts
            }
            Inst::Call {
                out,
                callee,
                args,
                span,
                parens,
            } => {
                let pargs: Vec<TokenStream> = args.iter().map(|a| self.p(*a, al)).collect();
                if !self.active(*out) {
                    let call =
                        crate::lower::plain_call(&self.literals, callee, parens, args, &|a| {
                            self.p(a, al)
                        });
                    return Self::def(*out, call);
                }
                let v = v_ident(*out);
                // Slice parameters are lent to the callee (an output as `&mut *y`, or as `&*y`
                // when passed twice), and the reverse sweep passes them again with their
                // buffers; an output goes again as the copy taken here, since the function may
                // write it after the call. The other arguments are kept before the call takes
                // them, after the copies.
                let copied = self.copied_outputs(args);
                let mut kept_args: Vec<TokenStream> = copied
                    .iter()
                    .map(|var| {
                        let ident = &self.func.vars[var.0 as usize].ident;
                        quote!(#ident.to_vec())
                    })
                    .collect();
                let mut call_args = Vec::new();
                let again = self.call_args.get(&out.0);
                for (i, (a, p)) in args.iter().zip(&pargs).enumerate() {
                    call_args.push(match self.slice_reads.get(&a.0) {
                        Some((var, true)) if self.lent_twice(args, *var) => quote!(&*#p),
                        Some((_, true)) => quote!(#krate::__private::lend(&mut *#p)),
                        Some((_, false)) => p.clone(),
                        None => {
                            if again.is_none_or(|g| g[i].is_none()) {
                                kept_args.push(quote!(::core::clone::Clone::clone(&#p)));
                            }
                            p.clone()
                        }
                    });
                }
                let call = crate::expand::call_site(
                    &krate,
                    &self.caller,
                    *span,
                    "__augmented",
                    quote!(#tape, (#(#call_args,)*)),
                    callee,
                );
                let kept = hyg("__args");
                let mut ts = quote! {
                    let #kept = (#(#kept_args,)*);
                    let #v = #call;
                };
                ts.extend(self.record(*out, &[quote!(#kept), quote!(#v)]));
                ts
            }
            Inst::Cast { out, a, ty } => {
                let pa = self.p(*a, al);
                let mut ts = Self::def(*out, quote!(#pa as #ty));
                if self.active(*out) {
                    ts.extend(self.record(*out, &[pa]));
                }
                ts
            }
            Inst::Tuple { out, elems } => {
                let ps: Vec<TokenStream> = elems.iter().map(|e| self.p(*e, al)).collect();
                Self::def(*out, quote!((#(#ps,)*)))
            }
            Inst::Field { out, a, index } => {
                let pa = self.p(*a, al);
                let mut ts = Self::def(*out, quote!(#pa.#index));
                if self.active(*out) {
                    ts.extend(self.record(*out, &[pa]));
                }
                ts
            }
            Inst::Let { var, init } => {
                let data = &self.func.vars[var.0 as usize];
                let x = &data.ident;
                let m = data.mutable.then(|| quote!(mut));
                let ty = data.ty.as_ref().map(|t| quote!(: #t));
                let pinit = init.map(|v| {
                    let p = self.p(v, al);
                    quote!(= #p)
                });
                let witness = self.binding_witness(*var);
                let kind = self.indexed.contains(&var.0).then(|| {
                    let k = k_ident(*var);
                    match (init, &data.ty) {
                        (Some(_), _) => quote!(#k = ::core::option::Option::Some(#krate::__private::type_of(&#x));),
                        (None, Some(t)) => quote!(#k = ::core::option::Option::Some(::core::marker::PhantomData::<fn() -> #t>);),
                        (None, None) => TokenStream::new(),
                    }
                });
                quote!(let #m #x #ty #pinit; #witness #kind)
            }
            Inst::Assign { ident, value, var } => {
                let p = self.p(*value, al);
                let check = self.binding_check(*var, ident);
                quote!(#check #ident = #p;)
            }
            Inst::Block { out, block } => {
                let body = self.forward_value_block(block, al, decisions);
                match out {
                    Some(o) => Self::def(*o, body),
                    None => quote!(#body;),
                }
            }
            Inst::If {
                out,
                cond,
                then_block,
                else_block,
            } => {
                let n = self.ifs[&std::ptr::from_ref(inst)];
                let c = hyg(&format!("__c{n}"));
                let pc = self.p(*cond, al);
                let mut inner: Vec<Enclosing> = decisions.to_vec();
                inner.push(Enclosing::If(c.clone()));
                let then_b = self.forward_value_block(then_block, al, &inner);
                let else_b = self.forward_value_block(else_block, al, &inner);
                let expr = quote!(if #c #then_b else #else_b);
                let bind = match out {
                    Some(o) => Self::def(*o, expr),
                    None => quote!(#expr;),
                };
                quote! {
                    let #c: bool = #pc;
                    #bind
                    #tape.push(#c);
                }
            }
            Inst::Return { value } => {
                let k = self.returns[&std::ptr::from_ref(inst)];
                let p = self.p(*value, al);
                // What the enclosing constructs record, innermost first, so the outermost is on
                // top; then the return point. A loop left here records this return as the way
                // its last iteration ended, then its trip count.
                let pushes = decisions.iter().rev().map(|e| match e {
                    Enclosing::If(c) => quote!(#tape.push(#c);),
                    Enclosing::Loop { trips, .. } => quote!(#tape.push(#k); #tape.push(#trips);),
                });
                let fwd_label = syn::Lifetime {
                    apostrophe: Span::mixed_site(),
                    ident: hyg("__fwd"),
                };
                quote! {
                    #(#pushes)*
                    #tape.push(#k);
                    break #fwd_label ::core::option::Option::Some(#p);
                }
            }
            // The body's own items stand at the top of the function already.
            Inst::Verbatim { item: true, .. }
                if self.func.body.insts.iter().any(|i| std::ptr::eq(i, inst)) =>
            {
                TokenStream::new()
            }
            Inst::Verbatim { tokens, .. } => tokens.clone(),
            Inst::Index {
                out,
                var,
                ident,
                index,
            } => {
                let check = self.binding_check(*var, ident);
                let i = self.p(*index, al);
                let mut ts = check;
                ts.extend(Self::def(*out, quote!(#ident[#i])));
                if self.active(*out) {
                    ts.extend(self.record(*out, &[i]));
                }
                ts
            }
            Inst::IndexAssign {
                id,
                var,
                ident,
                index,
                value,
            } => {
                let check = self.binding_check(*var, ident);
                let i = self.p(*index, al);
                let p = self.p(*value, al);
                let mut ts = check;
                if self.act.var(*var) {
                    let k = hyg(&format!("__i{}", id.0));
                    ts.extend(quote!(let #k: usize = #i; #ident[#k] = #p;));
                    ts.extend(self.record(*id, &[quote!(#k)]));
                } else {
                    ts.extend(quote!(#ident[#i] = #p;));
                }
                ts
            }
            Inst::Array { out, elems, vec } => {
                let ps: Vec<TokenStream> = elems.iter().map(|e| self.p(*e, al)).collect();
                Self::def(*out, crate::ir::array_tokens(&ps, *vec))
            }
            Inst::Repeat { out, elem, len } => {
                let pe = self.p(*elem, al);
                let n = match len {
                    crate::ir::Len::Vec(n) => self.p(*n, al),
                    crate::ir::Len::Const(_) => TokenStream::new(),
                };
                Self::def(*out, crate::ir::repeat_tokens(&pe, len, &n))
            }
            Inst::Sum {
                out,
                var,
                ident,
                tokens,
                len,
            } => {
                let check = self.binding_check(*var, ident);
                let mut ts = check;
                ts.extend(Self::def(*out, tokens.clone()));
                if self.active(*out) {
                    let n = self.p(*len, al);
                    ts.extend(self.record(*out, &[n]));
                }
                ts
            }
            Inst::Loop { head, body } if loop_mode(body) != LoopMode::Plain => {
                self.forward_exit_loop(inst, head, body, al, decisions)
            }
            Inst::Break | Inst::Continue => {
                let k = self.jumps[&std::ptr::from_ref(inst)];
                // The decisions of the `if`s it leaves, innermost first, then how the iteration
                // ended: on the tape, or, if only the last iteration can end early, in the
                // loop's marker, which goes on the tape after the loop.
                let mut pushes = TokenStream::new();
                for e in decisions.iter().rev() {
                    match e {
                        Enclosing::If(c) => pushes.extend(quote!(#tape.push(#c);)),
                        Enclosing::Loop { marker, .. } => {
                            pushes.extend(match marker {
                                Some(m) => quote!(#m = #k;),
                                None => quote!(#tape.push(#k);),
                            });
                            break;
                        }
                    }
                }
                let jump = if matches!(inst, Inst::Break) {
                    quote!(break;)
                } else {
                    quote!(continue;)
                };
                quote!(#pushes #jump)
            }
            Inst::Loop { head, body } => {
                // The trip count goes on the tape after the loop: the reverse sweep runs the
                // body's reverse that many times, each popping one iteration's records.
                let n = hyg(&format!("__n{}", self.loop_index(inst)));
                let mut inner = al.clone();
                let body = self.forward_block(body, &mut inner, decisions);
                if self.trips.contains_key(&std::ptr::from_ref(inst))
                    && let crate::ir::LoopHead::For { pat, var, iter, .. } = head
                {
                    // The reverse sweep computes the trip count from the range again.
                    let it = self.p(*iter, al);
                    let witness = var.map(|v| self.binding_witness(v));
                    return quote!(for #pat in #it { #witness #body });
                }
                let looped = match head {
                    crate::ir::LoopHead::For { pat, var, iter, .. } => {
                        let it = self.p(*iter, al);
                        let witness = var.map(|v| self.binding_witness(v));
                        quote!(for #pat in #it { #witness #body #n += 1; })
                    }
                    crate::ir::LoopHead::While { cond_block, cond } => {
                        let mut c_al = al.clone();
                        let c_body = self.forward_block(cond_block, &mut c_al, decisions);
                        let c = self.p(*cond, &c_al);
                        quote!(while { #c_body #c } { #body #n += 1; })
                    }
                    crate::ir::LoopHead::Infinite => quote!(loop { #body #n += 1; }),
                };
                quote! {
                    let mut #n: usize = 0;
                    #looped
                    #tape.push(#n);
                }
            }
        }
    }

    /// A number for each loop, for naming its trip count.
    fn loop_index(&self, inst: &Inst) -> u32 {
        self.loops[&std::ptr::from_ref(inst)]
    }

    /// The reverse sweep of a block: its instructions backwards.
    fn reverse_block(&self, b: &Block) -> TokenStream {
        let mut out = TokenStream::new();
        for inst in b.insts.iter().rev() {
            out.extend(self.reverse_inst(inst));
        }
        out
    }

    /// Adds `value` to the adjoint of `target` if it carries one.
    fn acc(&self, target: Value, value: TokenStream) -> TokenStream {
        if self.contributed.contains(&target.0) {
            let krate = self.krate;
            let b = b_ident(target);
            quote!(#krate::__private::acc(&mut #b, #value);)
        } else {
            TokenStream::new()
        }
    }

    /// Runs `body` with `__g` bound to the adjoint of `out`, if it has one.
    fn with_adjoint(&self, out: Value, body: TokenStream) -> TokenStream {
        self.take_adjoint(out, body, quote!(take))
    }

    /// Like `with_adjoint`, for a `body` that only adds `±__g` to adjoints: a zero adjoint adds
    /// zeros there, which change nothing, so a float's adjoint is not tested for zero.
    fn with_adjoint_linear(&self, out: Value, body: TokenStream) -> TokenStream {
        self.take_adjoint(out, body, quote!(take_linear))
    }

    fn take_adjoint(&self, out: Value, body: TokenStream, take: TokenStream) -> TokenStream {
        if !self.contributed.contains(&out.0) || body.is_empty() {
            return TokenStream::new();
        }
        let krate = self.krate;
        let b = b_ident(out);
        let g = hyg("__g");
        quote!(if let ::core::option::Option::Some(#g) = #krate::__private::#take(&mut #b) { #body })
    }

    fn pop_record(&self, out: Value) -> TokenStream {
        let tape = hyg("__tape");
        let s = s_ident(out);
        if self.in_loop.contains(&out.0) {
            quote!(#tape.pop_like(&#s))
        } else {
            let joint = hyg("__joint");
            let kept = hyg("__kept");
            quote! {
                match #s {
                    ::core::option::Option::Some(#kept) if #joint => #kept,
                    _ => #tape.pop_like(&#s),
                }
            }
        }
    }

    fn reverse_inst(&self, inst: &Inst) -> TokenStream {
        let krate = self.krate;
        let g = hyg("__g");
        let r = hyg("__rec");
        let tape = hyg("__tape");
        let code = match inst {
            Inst::Const { .. }
            | Inst::Opaque { .. }
            | Inst::Inactive { .. }
            | Inst::Verbatim { .. }
            | Inst::Let { init: None, .. } => return TokenStream::new(),
            Inst::Read { out, var, .. } => {
                if !self.var_contributed.contains(&var.0) {
                    return TokenStream::new();
                }
                let x = x_ident(*var);
                self.with_adjoint_linear(*out, quote!(#krate::__private::acc(&mut #x, #g);))
            }
            Inst::Index { out, var, .. } | Inst::Sum { out, var, .. } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let pop = self.pop_record(*out);
                let each = matches!(inst, Inst::Sum { .. });
                let at = self.field(*out, 0, &r);
                let body = if self.is_slice(*var) {
                    let bar = bar_ident(*var);
                    let f = if each {
                        quote!(slice_acc_each)
                    } else {
                        quote!(slice_acc_at)
                    };
                    // Linear: a zero adjoint adds zeros to the buffer.
                    self.with_adjoint_linear(*out, quote!(#krate::__private::#f(#bar, #at, #g);))
                } else if self.var_contributed.contains(&var.0) {
                    let (x, k) = (x_ident(*var), k_ident(*var));
                    let f = if each {
                        quote!(acc_each)
                    } else {
                        quote!(acc_at)
                    };
                    self.with_adjoint_linear(
                        *out,
                        quote!(#krate::__private::#f(&mut #x, &#k, #at, #g);),
                    )
                } else {
                    TokenStream::new()
                };
                if self.keeps(*out) {
                    quote!(let #r = #pop; #body)
                } else {
                    body
                }
            }
            Inst::IndexAssign { id, var, value, .. } => {
                if !self.act.var(*var) {
                    return TokenStream::new();
                }
                let pop = self.pop_record(*id);
                let at = self.field(*id, 0, &r);
                let body = if self.is_slice(*var) {
                    let bar = bar_ident(*var);
                    let add = self.acc(*value, quote!(#g));
                    quote! {
                        if let ::core::option::Option::Some(#g) = #krate::__private::slice_take_at(#bar, #at) {
                            #add
                        }
                    }
                } else if self.var_contributed.contains(&var.0) {
                    // The element's adjoint goes to the value stored, and the element before the
                    // store receives nothing from what came after it.
                    let (x, k) = (x_ident(*var), k_ident(*var));
                    let add = self.acc(*value, quote!(#g));
                    quote! {
                        if let ::core::option::Option::Some(#g) = #krate::__private::take_at(&mut #x, &#k, #at) {
                            #add
                        }
                    }
                } else {
                    TokenStream::new()
                };
                if self.keeps(*id) {
                    quote!(let #r = #pop; #body)
                } else {
                    body
                }
            }
            Inst::Array { out, elems, .. } => {
                let mut body = TokenStream::new();
                for (i, e) in elems.iter().enumerate() {
                    if self.contributed.contains(&e.0) {
                        let b = b_ident(*e);
                        body.extend(quote!(#krate::__private::acc_elem(&mut #b, &#g, #i);));
                    }
                }
                self.with_adjoint(*out, body)
            }
            Inst::Repeat { out, elem, .. } => {
                if !self.contributed.contains(&elem.0) {
                    return TokenStream::new();
                }
                let b = b_ident(*elem);
                self.with_adjoint(*out, quote!(#krate::__private::acc_total(&mut #b, &#g);))
            }
            Inst::Neg { out, a } => {
                self.with_adjoint_linear(*out, self.acc(*a, quote!(::core::ops::Neg::neg(#g))))
            }
            Inst::Arith { out, op, a, b, .. } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let s = quote!(#krate::__private::ops::Scalar);
                match op {
                    Arith::Add => {
                        let mut body = self.acc(*a, quote!(#g));
                        body.extend(self.acc(*b, quote!(#g)));
                        self.with_adjoint_linear(*out, body)
                    }
                    Arith::Sub => {
                        let mut body = self.acc(*a, quote!(#g));
                        body.extend(self.acc(*b, quote!(::core::ops::Neg::neg(#g))));
                        self.with_adjoint_linear(*out, body)
                    }
                    Arith::Mul | Arith::Div | Arith::Rem => {
                        let (f0, f1) = (self.field(*out, 0, &r), self.field(*out, 1, &r));
                        let (ca, cb) = match op {
                            Arith::Mul => (quote!(#s::mul_l(#g, #f1)), quote!(#s::mul_r(#f0, #g))),
                            // record: (b, y)
                            Arith::Div => {
                                (quote!(#s::div_l(#g, #f0)), quote!(#s::div_r(#f0, #g, #f1)))
                            }
                            // record: (a, b)
                            _ => (quote!(#s::rem_l(#g, #f1)), quote!(#s::rem_r(#f0, #f1, #g))),
                        };
                        let mut body = self.acc(*a, ca);
                        body.extend(self.acc(*b, cb));
                        let inner = self.with_adjoint(*out, body);
                        if self.keeps(*out) {
                            let pop = self.pop_record(*out);
                            let elems = self.bind_elems(*out, &r);
                            quote!(let #r = #pop; #elems #inner)
                        } else {
                            inner
                        }
                    }
                }
            }
            Inst::Method {
                out,
                prim,
                recv,
                args,
                ..
            } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let partial_fn = Ident::new(prim.name, Span::call_site());
                let path = quote!(#krate::__private::prim::#partial_fn);
                let n_inputs = 1 + args.len();
                let fields: Vec<TokenStream> =
                    (0..=n_inputs).map(|i| self.field(*out, i, &r)).collect();
                let body = match prim.shape {
                    Shape::Unary => {
                        let (x, y) = (&fields[0], &fields[1]);
                        self.acc(*recv, quote!(#path(#x, #y) * #g))
                    }
                    Shape::PowI => {
                        let (x, n, y) = (&fields[0], &fields[1], &fields[2]);
                        self.acc(*recv, quote!(#path(#x, #n, #y) * #g))
                    }
                    Shape::Multi(_) => {
                        let p = hyg("__p");
                        let inputs: Vec<Value> =
                            std::iter::once(*recv).chain(args.iter().copied()).collect();
                        let mut body = quote!(let #p = #path(#(#fields),*););
                        for (i, v) in inputs.iter().enumerate() {
                            let idx = syn::Index::from(i);
                            body.extend(self.acc(*v, quote!(#p.#idx * #g)));
                        }
                        body
                    }
                };
                let pop = self.pop_record(*out);
                let inner = self.with_adjoint(*out, body);
                quote!(let #r = #pop; #inner)
            }
            Inst::Call {
                out,
                callee,
                args,
                span,
                ..
            } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let pop = self.pop_record(*out);
                let b = b_ident(*out);
                // No adjoint: the callee's records are only popped.
                let adjoint = if self.contributed.contains(&out.0) {
                    quote!(#krate::__private::take(&mut #b))
                } else {
                    quote!(::core::option::Option::None)
                };
                let bars = hyg("__bars");
                let mut body = TokenStream::new();
                for (i, a) in args.iter().enumerate() {
                    let idx = syn::Index::from(i);
                    body.extend(self.acc(*a, quote!(#bars.#idx)));
                }
                let backward = if args.iter().any(|a| self.slice_reads.contains_key(&a.0)) {
                    // The arguments again, the slices with their adjoint buffers (an output as
                    // the copy taken at the call); a slice passed twice gets a second buffer,
                    // added to its own after the call.
                    let copied = self.copied_outputs(args);
                    let (mut call_args, mut buffers) = (Vec::new(), Vec::new());
                    let (mut seen, mut extra, mut merge) = (Vec::new(), Vec::new(), Vec::new());
                    for (c, var) in copied.iter().enumerate() {
                        let idx = syn::Index::from(c);
                        let copy = hyg(&format!("__copy{}", var.0));
                        extra.push(quote!(let mut #copy = #r.0.#idx;));
                    }
                    let mut k = copied.len();
                    let again = self.call_args.get(&out.0);
                    for (i, a) in args.iter().enumerate() {
                        match self.slice_reads.get(&a.0) {
                            Some((var, mutable)) => {
                                let ident = &self.func.vars[var.0 as usize].ident;
                                let copy = hyg(&format!("__copy{}", var.0));
                                call_args.push(match mutable {
                                    true if self.lent_twice(args, *var) => quote!(&#copy[..]),
                                    true => quote!(#krate::__private::lend(&mut #copy[..])),
                                    false => quote!(#ident),
                                });
                                let bar = bar_ident(*var);
                                if seen.contains(var) {
                                    let tmp = hyg(&format!("__again{}", merge.len()));
                                    extra.push(quote!(let mut #tmp = #krate::__private::zeros_like(&*#bar);));
                                    merge.push(
                                        quote!(#krate::__private::add_into(&mut *#bar, &#tmp);),
                                    );
                                    buffers.push(quote!(&mut #tmp[..]));
                                } else {
                                    seen.push(*var);
                                    buffers.push(quote!(&mut *#bar));
                                }
                            }
                            None => {
                                match again.and_then(|g| g[i].as_ref()) {
                                    Some(t) => {
                                        call_args.push(quote!(::core::clone::Clone::clone(&#t)))
                                    }
                                    None => {
                                        let idx = syn::Index::from(k);
                                        k += 1;
                                        call_args.push(quote!(#r.0.#idx));
                                    }
                                }
                                buffers.push(quote!(()));
                            }
                        }
                    }
                    let call = crate::expand::call_site(
                        krate,
                        &self.caller,
                        *span,
                        "__backward_into",
                        quote!(#tape, (#(#call_args,)*), (#(#buffers,)*), #r.1, #adjoint),
                        callee,
                    );
                    let got = hyg("__got");
                    quote!({
                        #(#extra)*
                        let #got = #call;
                        #(#merge)*
                        #got
                    })
                } else {
                    // The record again, with the arguments computed again put back in place.
                    let rec = match self.call_args.get(&out.0) {
                        Some(again) => {
                            let mut k = 0;
                            let fields = again.iter().map(|t| match t {
                                Some(t) => quote!(::core::clone::Clone::clone(&#t)),
                                None => {
                                    let idx = syn::Index::from(k);
                                    k += 1;
                                    quote!(#r.0.#idx)
                                }
                            });
                            let fields: Vec<TokenStream> = fields.collect();
                            quote!(((#(#fields,)*), #r.1))
                        }
                        None => quote!(#r),
                    };
                    // Bound once: the call site names the record twice.
                    let full = hyg("__full");
                    let call = crate::expand::call_site(
                        krate,
                        &self.caller,
                        *span,
                        "__backward",
                        quote!(#tape, #full, #adjoint),
                        callee,
                    );
                    quote!({
                        let #full = #rec;
                        #call
                    })
                };
                quote! {
                    let #r = #pop;
                    let #bars = #backward;
                    #body
                }
            }
            Inst::Cast { out, a, ty } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let pop = self.pop_record(*out);
                let body = self.acc(
                    *a,
                    quote!(#krate::__private::ops::cast_adjoint::<_, #ty>(#r.0, #g)),
                );
                let inner = self.with_adjoint(*out, body);
                quote!(let #r = #pop; #inner)
            }
            Inst::Tuple { out, elems } => {
                let mut body = TokenStream::new();
                for (i, e) in elems.iter().enumerate() {
                    let idx = syn::Index::from(i);
                    body.extend(self.acc(*e, quote!(#g.#idx)));
                }
                self.with_adjoint_linear(*out, body)
            }
            Inst::Field { out, a, index } => {
                if !self.active(*out) {
                    return TokenStream::new();
                }
                let pop = self.pop_record(*out);
                let t = hyg("__t");
                let body = if self.contributed.contains(&a.0) {
                    let set = quote! {
                        let mut #t = #krate::__private::zero(&#r.0);
                        #t.#index = #g;
                    };
                    let add = self.acc(*a, quote!(#t));
                    quote!(#set #add)
                } else {
                    TokenStream::new()
                };
                let inner = self.with_adjoint(*out, body);
                quote!(let #r = #pop; #inner)
            }
            Inst::Let { var, init: Some(v) } | Inst::Assign { var, value: v, .. } => {
                if !self.var_contributed.contains(&var.0) {
                    return TokenStream::new();
                }
                let x = x_ident(*var);
                let add = self.acc(*v, quote!(#g));
                quote!(if let ::core::option::Option::Some(#g) = #krate::__private::take_linear(&mut #x) { #add })
            }
            Inst::Block { out, block } => {
                let mut ts = TokenStream::new();
                if let (Some(o), Some(res)) = (out, block.result) {
                    ts.extend(self.with_adjoint_linear(*o, self.acc(res, quote!(#g))));
                }
                // A block's own instructions are guarded one by one.
                let inner = self.reverse_block(block);
                return quote!(#ts { #inner });
            }
            Inst::If {
                out,
                then_block,
                else_block,
                ..
            } => {
                let n = self.ifs[&std::ptr::from_ref(inst)];
                let c = hyg(&format!("__c{n}"));
                let route = |b: &Block| -> TokenStream {
                    match (out, b.result) {
                        (Some(o), Some(res)) if self.contributed.contains(&res.0) => {
                            self.with_adjoint_linear(*o, self.acc(res, quote!(#g)))
                        }
                        // The branch's value has no derivative (a constant) or is never made
                        // (the branch leaves): its adjoint is dropped here, or in a loop it
                        // would reach the value of an earlier iteration.
                        (Some(o), _) if self.contributed.contains(&o.0) => {
                            let b = b_ident(*o);
                            quote!(#krate::__private::take(&mut #b);)
                        }
                        _ => TokenStream::new(),
                    }
                };
                let (rt, re) = (route(then_block), route(else_block));
                let (bt, be) = (
                    self.reverse_block(then_block),
                    self.reverse_block(else_block),
                );
                let body = quote! {
                    let #c: bool = #tape.pop();
                    if #c { #rt #bt } else { #re #be }
                };
                let inside: Vec<u32> = self
                    .exits_in(then_block)
                    .into_iter()
                    .chain(self.exits_in(else_block))
                    .collect();
                if !self.guarded() {
                    return body;
                }
                let live = hyg("__live");
                let exit = hyg("__exit");
                // Entered when the sweep is live, or when it starts at an exit inside.
                return if inside.is_empty() {
                    quote!(if #live { #body })
                } else {
                    quote!(if #live #(|| #exit == #inside)* { #body })
                };
            }
            Inst::Loop { body, .. } if loop_mode(body) != LoopMode::Plain => {
                return self.reverse_exit_loop(body);
            }
            Inst::Break | Inst::Continue => {
                let k = self.jumps[&std::ptr::from_ref(inst)];
                let live = hyg("__live");
                let exit = hyg("__exit");
                return quote! {
                    if #exit == #k {
                        #live = true;
                    }
                };
            }
            Inst::Loop { body, .. } => {
                let n = hyg("__trips");
                let inner = self.reverse_block(body);
                match self.replayed.get(&std::ptr::from_ref(inst)) {
                    // The loop variable again, last iteration first.
                    Some((ident, start)) => {
                        let trips = match self.trips.get(&std::ptr::from_ref(inst)) {
                            Some(range) => {
                                quote!(::core::iter::Iterator::size_hint(&(#range)).0)
                            }
                            None => quote!(#tape.pop()),
                        };
                        quote! {
                        let #n: usize = #trips;
                        for #ident in ((#start)..#krate::__private::offset(#start, #n)).rev() { #inner }
                        }
                    }
                    None => quote! {
                        let #n: usize = #tape.pop();
                        for _ in 0..#n { #inner }
                    },
                }
            }
            Inst::Return { value } => {
                let k = self.returns[&std::ptr::from_ref(inst)];
                let live = hyg("__live");
                let exit = hyg("__exit");
                let adjoint = hyg("__adjoint");
                let seed_value = hyg("__seed");
                let add = self.acc(*value, quote!(#seed_value));
                let seed = quote! {
                    if let ::core::option::Option::Some(#seed_value) = #adjoint { #add }
                };
                return quote! {
                    if #exit == #k {
                        #live = true;
                        #seed
                    }
                };
            }
        };
        if code.is_empty() {
            code
        } else {
            self.guard(code)
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

/// A construct that an exit in the forward sweep leaves.
#[derive(Clone)]
enum Enclosing {
    /// An `if`, with its decision.
    If(Ident),
    /// A loop that an exit can leave, with its trip count, and its marker in `LoopMode::Marker`.
    Loop { trips: Ident, marker: Option<Ident> },
}

/// What the reverse sweep of a loop needs to know of how its iterations ended.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum LoopMode {
    /// No exit leaves the body: every iteration runs to its end; the trip count is enough.
    Plain,
    /// A `break` or `return` can end the last iteration early: one marker for the loop, the id
    /// of that exit or 0.
    Marker,
    /// A `continue` can end any iteration early: one marker per iteration.
    PerIteration,
}

fn loop_mode(body: &Block) -> LoopMode {
    fn visit(b: &Block, nested: bool, mode: &mut LoopMode) {
        for inst in &b.insts {
            match inst {
                Inst::Continue if !nested => *mode = LoopMode::PerIteration,
                Inst::Break if !nested => *mode = (*mode).max(LoopMode::Marker),
                Inst::Return { .. } => *mode = (*mode).max(LoopMode::Marker),
                Inst::Block { block, .. } => visit(block, nested, mode),
                Inst::If {
                    then_block,
                    else_block,
                    ..
                } => {
                    visit(then_block, nested, mode);
                    visit(else_block, nested, mode);
                }
                Inst::Loop { body, .. } => visit(body, true, mode),
                _ => {}
            }
        }
    }
    let mut mode = LoopMode::Plain;
    visit(body, false, &mut mode);
    mode
}

/// Values written in place rather than through a temporary, per scope.
#[derive(Clone, Default)]
struct Aliases(HashMap<u32, TokenStream>);

/// Whether `a` and `b` are provably the same value: two reads of one variable, or of one element
/// at an index the reverse sweep computes again, with only reads and arithmetic between them.
fn same_value(insts: &[&Inst], defs: &HashMap<u32, Src>, a: Value, b: Value) -> bool {
    if a == b {
        return true;
    }
    let def_at = |v: Value| {
        insts.iter().position(|inst| match inst {
            Inst::Read { out, .. } | Inst::Index { out, .. } => *out == v,
            _ => false,
        })
    };
    let (Some(pa), Some(pb)) = (def_at(a), def_at(b)) else {
        return false;
    };
    let same_source = match (insts[pa], insts[pb]) {
        (Inst::Read { var: va, .. }, Inst::Read { var: vb, .. }) => va == vb,
        (
            Inst::Index {
                var: va, index: ia, ..
            },
            Inst::Index {
                var: vb, index: ib, ..
            },
        ) => {
            va == vb
                && match (raw(defs, *ia), raw(defs, *ib)) {
                    (Some(x), Some(y)) => x.to_string() == y.to_string(),
                    _ => false,
                }
        }
        _ => false,
    };
    let (lo, hi) = (pa.min(pb), pa.max(pb));
    same_source
        && insts[lo + 1..hi].iter().all(|inst| {
            matches!(
                inst,
                Inst::Read { .. }
                    | Inst::Const { .. }
                    | Inst::Index { .. }
                    | Inst::Arith { .. }
                    | Inst::Neg { .. }
                    | Inst::Inactive { .. }
            )
        })
}

/// Whether `tokens` are `ident.len()`.
fn is_len_of(tokens: &TokenStream, ident: &Ident) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    matches!(
        tts.as_slice(),
        [TokenTree::Ident(x), TokenTree::Punct(dot), TokenTree::Ident(len), TokenTree::Group(args)]
            if x == ident
                && dot.as_char() == '.'
                && len == "len"
                && args.delimiter() == Delimiter::Parenthesis
                && args.stream().is_empty()
    )
}

/// The most tokens of an expression the reverse sweep computes again instead of keeping its
/// value: a few operations, so that recomputing costs less than a push and a pop.
const INLINE_TOKENS: usize = 40;

/// The number of tokens of `tokens`, counting those inside groups.
fn token_count(tokens: &TokenStream) -> usize {
    tokens
        .clone()
        .into_iter()
        .map(|tt| match tt {
            proc_macro2::TokenTree::Group(g) => 1 + token_count(&g.stream()),
            _ => 1,
        })
        .sum()
}

/// The tokens of a value the reverse sweep can compute again.
fn raw(defs: &HashMap<u32, Src>, v: Value) -> Option<TokenStream> {
    match defs.get(&v.0)? {
        Src::Inline(t) | Src::Literal(t) => Some(t.clone()),
        Src::Tape | Src::Same(_) | Src::Elem { .. } | Src::Unused => None,
    }
}

/// Where the reverse sweep finds an index: written again, or on the tape.
fn index_src(defs: &HashMap<u32, Src>, v: Value) -> Src {
    raw(defs, v).map_or(Src::Tape, Src::Inline)
}

/// The name the reverse sweep binds a replayed loop's variable to.
fn replay_ident(var: Var) -> Ident {
    hyg(&format!("__ri{}", var.0))
}

/// Whether `ty` is a primitive number type, which is `Copy`.
fn is_number_type(ty: &syn::Type) -> bool {
    const NUMBERS: [&str; 14] = [
        "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
        "u128", "usize",
    ];
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| NUMBERS.iter().any(|n| i == n)),
        syn::Type::Paren(p) => is_number_type(&p.elem),
        syn::Type::Group(g) => is_number_type(&g.elem),
        _ => false,
    }
}

/// `tokens` with each identifier replaced by its tokens in `substs`, if every identifier is one
/// of them, or `.len()`: no call, path, cast or macro that could compute something else the
/// second time.
fn substitute(tokens: &TokenStream, substs: &[(String, TokenStream)]) -> Option<TokenStream> {
    use proc_macro2::{Delimiter, Group, TokenTree};
    let tts: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut out = TokenStream::new();
    for (k, tt) in tts.iter().enumerate() {
        match tt {
            TokenTree::Ident(i) => {
                // A method call `receiver.len()`: the `.` follows a name (substituted below) or
                // a group, not another `.` (`0..len()` calls a function named `len`).
                let is_len = i == "len"
                    && k > 1
                    && matches!(&tts[k - 1], TokenTree::Punct(p) if p.as_char() == '.')
                    && matches!(&tts[k - 2], TokenTree::Ident(_) | TokenTree::Group(_))
                    && matches!(tts.get(k + 1), Some(TokenTree::Group(g))
                        if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty());
                if is_len {
                    out.extend([tt.clone()]);
                } else {
                    let name = i.unraw().to_string();
                    let (_, to) = substs.iter().find(|(n, _)| *n == name)?;
                    out.extend(to.clone());
                }
            }
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                // Parentheses after a name only as `.len()`.
                if k > 0
                    && matches!(&tts[k - 1], TokenTree::Ident(i)
                        if i != "len" || !g.stream().is_empty())
                {
                    return None;
                }
                let mut inner = Group::new(g.delimiter(), substitute(&g.stream(), substs)?);
                inner.set_span(g.span());
                out.extend([TokenTree::Group(inner)]);
            }
            TokenTree::Group(_) => return None,
            // `|` too: a closure's parameters are names that must not be substituted.
            TokenTree::Punct(p) if matches!(p.as_char(), ':' | '!' | '#' | '$' | '\'' | '|') => {
                return None;
            }
            _ => out.extend([tt.clone()]),
        }
    }
    Some(out)
}

/// `tokens` with each identifier named in `renames` replaced (not a field, method or path
/// segment after `.` or `::`).
fn rename(tokens: &TokenStream, renames: &[(String, Ident)]) -> TokenStream {
    let tts: Vec<proc_macro2::TokenTree> = tokens.clone().into_iter().collect();
    let mut out = Vec::with_capacity(tts.len());
    for (k, tt) in tts.iter().enumerate() {
        let after_dot = k > 0
            && matches!(&tts[k - 1], proc_macro2::TokenTree::Punct(p) if matches!(p.as_char(), '.' | ':'));
        out.push(match tt {
            proc_macro2::TokenTree::Ident(i) if !after_dot => {
                match renames.iter().find(|(n, _)| i == n) {
                    Some((_, to)) => proc_macro2::TokenTree::Ident(to.clone()),
                    None => tt.clone(),
                }
            }
            proc_macro2::TokenTree::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), rename(&g.stream(), renames));
                inner.set_span(g.span());
                proc_macro2::TokenTree::Group(inner)
            }
            other => other.clone(),
        });
    }
    out.into_iter().collect()
}

/// Whether `tokens` are one literal token.
fn is_number(tokens: &TokenStream) -> bool {
    let mut iter = tokens.clone().into_iter();
    matches!(
        (iter.next(), iter.next()),
        (Some(proc_macro2::TokenTree::Literal(_)), None)
    )
}

//! Layout planning: what each record keeps and what the reverse sweep computes again (the
//! loops it replays: `replay.rs`; the indices shared with a multiplication: `shared_indices.rs`).

use super::*;

impl<'a> Reverse<'a> {
    /// Decides, for each arithmetic and method record, which operands go on the tape; drops the
    /// records that keep nothing.
    pub(super) fn plan_layouts(&mut self) {
        let mut defs: HashMap<u32, Src> = HashMap::new();
        // Reads of a `&Model` parameter, and of its fields: the struct cannot be moved from,
        // so the reverse sweep can read its fields again (a struct held by value may have been
        // moved into a literal's `..s` or a call by then).
        let mut borrowed_reads: std::collections::HashSet<u32> = std::collections::HashSet::new();
        // Locals bound once to such a read.
        let mut borrowed_bound: std::collections::HashSet<u32> = std::collections::HashSet::new();
        let insts = self.func.body.all_insts();
        // What code kept as written may change (a macro may write what it reads).
        let written: HashSet<u32> = insts
            .iter()
            .flat_map(|inst| inst.may_write_reads().iter().map(|v| v.0))
            .collect();
        // A macro defined inside the function may write any variable it sees without naming
        // it where it is called (`k = 0.0` in its body): then any variable may be written.
        let local_macros = insts.iter().any(|inst| {
            matches!(inst, Inst::Verbatim { tokens, item: true, .. }
                if tokens.clone().into_iter().next().is_some_and(|t| t.to_string() == "macro_rules"))
        });
        let written: HashSet<u32> = if local_macros {
            (0..self.func.vars.len() as u32).collect()
        } else {
            written
        };
        let mut assigned: HashSet<u32> = written.clone();
        for inst in &insts {
            if let Inst::Assign { var, .. } | Inst::IndexAssign { var, .. } = inst {
                assigned.insert(var.0);
            }
            // A variable lent to a call that writes it (`&mut v[..]`).
            if let Inst::Call { lent, .. } = inst {
                assigned.extend(lent.iter().filter_map(|l| l.mutable()).map(|v| v.0));
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
        // Reads of an `ad::Const` parameter of a `Copy` kind (a shared slice, a number, an
        // array of numbers), directly or through locals bound once to it: `Copy`, so computed
        // again where a call takes them.
        let copy_const = |t: &syn::Type| {
            crate::lower::const_of(t).is_some_and(|c| {
                crate::lower::slice_of(c).is_some_and(|(m, _)| !m)
                    || is_number_type(c)
                    || matches!(c, syn::Type::Array(a) if is_number_type(&a.elem))
            })
        };
        let (mut const_reads, mut const_bound) = (HashSet::new(), HashSet::new());
        self.plan_replays(&self.func.body, &stable, &mut Vec::new(), &mut loop_vars);
        // A slice or array parameter the function never writes: its elements can be read again.
        let func = self.func;
        let read_again = |var: Var| {
            params.contains(&var.0)
                && !assigned.contains(&var.0)
                && func.vars[var.0 as usize]
                    .ty
                    .as_ref()
                    .is_some_and(crate::lower::read_only_seq)
        };
        let kept = if local_macros {
            kept::Candidates::default()
        } else {
            self.kept_candidates(&read_again)
        };
        let mut finite_vars: HashMap<u32, bool> = HashMap::new();
        let consts: HashMap<u32, &TokenStream> = insts
            .iter()
            .filter_map(|inst| match inst {
                Inst::Const { out, tokens } => Some((out.0, tokens)),
                _ => None,
            })
            .collect();
        for inst in &insts {
            match inst {
                Inst::Const { out, tokens } if finite_float(tokens, false).is_some() => {
                    let nonzero = finite_float(tokens, true).is_some();
                    self.finite.insert(out.0, nonzero);
                }
                // A conversion of such a literal (`T::from_f64(100.0).unwrap()`): as finite, if
                // it is at `f32` too (the literal's suffix aside).
                Inst::Cast {
                    out,
                    a,
                    via: Some(_),
                    ..
                } if self.finite.contains_key(&a.0) => {
                    let narrow = |nonzero: bool| {
                        consts
                            .get(&a.0)
                            .and_then(|t| {
                                t.to_string()
                                    .trim_end_matches("f64")
                                    .trim_end_matches('_')
                                    .parse::<f32>()
                                    .ok()
                            })
                            .is_some_and(|x| x.is_finite() && (!nonzero || x != 0.0))
                    };
                    if narrow(false) {
                        self.finite.insert(out.0, narrow(true));
                    }
                }
                Inst::Let {
                    var,
                    init: Some(init),
                } if !assigned.contains(&var.0) => {
                    if let Some(nonzero) = self.finite.get(&init.0) {
                        finite_vars.insert(var.0, *nonzero);
                    }
                }
                Inst::Read { out, var, .. }
                    if finite_vars.contains_key(&var.0)
                        && !self.func.values[out.0 as usize].needs_copy =>
                {
                    self.finite.insert(out.0, finite_vars[&var.0]);
                }
                _ => {}
            }
            match inst {
                // A number is the same everywhere; a path (a `const`, a `use`d name) is written
                // again only if no block below the body's top level declares an item, which
                // the reverse sweep, standing outside those blocks, would not see.
                Inst::Const { out, tokens } if is_number(tokens) || !nested_items => {
                    defs.insert(out.0, Src::Literal(tokens.clone()));
                }
                // A constant of generic code: a conversion of a value the reverse sweep has
                // (`T::from_f64(100.0).unwrap()`), and an associated constant function of a type
                // parameter or a float type (`T::one()`, `T::PI()`, `f64::epsilon()`), computed
                // again rather than kept.
                Inst::Cast {
                    out,
                    a,
                    ty,
                    via: via @ Some(_),
                } if !self.active(*out) => {
                    if let Some(a) = raw(&defs, *a) {
                        let primal = crate::ir::Conversion::primal(via.as_ref(), &a, ty);
                        defs.insert(out.0, Src::Inline(quote!((#primal))));
                    }
                }
                Inst::Call {
                    out, callee, args, ..
                } if args.is_empty()
                    && !self.active(*out)
                    && crate::generics::names_type_constant(&self.func.generics, callee) =>
                {
                    defs.insert(out.0, Src::Inline(quote!(#callee())));
                }
                // A counter's value, computed again from its start and the iteration.
                Inst::Read { out, .. }
                    if kept.reads.contains_key(&out.0)
                        && !self.func.values[out.0 as usize].needs_copy =>
                {
                    let c = &kept.reads[&out.0];
                    defs.insert(out.0, Src::Inline(quote!(#c)));
                }
                Inst::Read { out, var, ident }
                    if stable.contains(&var.0) && !self.func.values[out.0 as usize].needs_copy =>
                {
                    defs.insert(out.0, Src::Inline(self.func.read_tokens(*var, ident)));
                    if self.func.borrowed(*var) {
                        borrowed_reads.insert(out.0);
                    }
                    if func.vars[var.0 as usize]
                        .ty
                        .as_ref()
                        .is_some_and(copy_const)
                    {
                        const_reads.insert(out.0);
                    }
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
                        if const_reads.contains(&init.0) {
                            const_bound.insert(var.0);
                        }
                        if borrowed_reads.contains(&init.0) {
                            borrowed_bound.insert(var.0);
                        }
                    }
                }
                Inst::Read { out, var, .. }
                    if bound.contains_key(&var.0)
                        && !self.func.values[out.0 as usize].needs_copy =>
                {
                    defs.insert(out.0, bound[&var.0].clone());
                    if const_bound.contains(&var.0) {
                        const_reads.insert(out.0);
                    }
                    if borrowed_bound.contains(&var.0) {
                        borrowed_reads.insert(out.0);
                    }
                }
                // An element of a slice or array parameter the function never writes, at an
                // index the reverse sweep has: read again.
                Inst::Index {
                    out,
                    var,
                    ident,
                    index,
                } if read_again(*var) => {
                    if let Some(i) = raw(&defs, *index) {
                        defs.insert(out.0, Src::Inline(quote!(#ident[#i])));
                        // A struct element is lent again in place, not copied.
                        borrowed_reads.insert(out.0);
                    }
                }
                // A named field of a struct the reverse sweep has (a parameter the function never
                // assigns), and an element of one at an index it has: read again, in place.
                Inst::Field {
                    out,
                    a,
                    index,
                    element: false,
                    ..
                } if self.func.place_field(*out, index)
                    && !self.func.field_copies(*out)
                    && !self.func.clones(*out)
                    && borrowed_reads.contains(&a.0) =>
                {
                    if let Some(Src::Inline(base)) = defs.get(&a.0) {
                        defs.insert(out.0, Src::Inline(quote!((#base).#index)));
                        borrowed_reads.insert(out.0);
                    }
                }
                Inst::FieldIndex { out, a, index, .. }
                    if !self.func.clones(*out) && borrowed_reads.contains(&a.0) =>
                {
                    if let (Some(Src::Inline(base)), Some(i)) = (defs.get(&a.0), raw(&defs, *index))
                    {
                        defs.insert(out.0, Src::Inline(quote!((#base)[#i])));
                        borrowed_reads.insert(out.0);
                    }
                }
                // An element every iteration of a replayed loop reads: kept once per run.
                Inst::Index { out, index, .. } if kept.elems.contains_key(&out.0) => {
                    let varying = &kept.varying[&kept.elems[&out.0]];
                    if let Some(i) = raw(&defs, *index)
                        && !varying.iter().any(|v| kept::mentions(&i, v))
                    {
                        let h = kept::elem_ident(*out);
                        defs.insert(out.0, Src::Inline(quote!(#h)));
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
                        .is_some_and(crate::lower::read_only_seq)
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
                // `x.powi(n)` of a value the reverse sweep has and a literal `n`: computed again
                // (the same operation on the same operands, so the same bits).
                Inst::Method {
                    out,
                    prim,
                    recv,
                    args,
                    method,
                    ufcs: None,
                } if prim.shape == crate::prims::Shape::PowI => {
                    if let Some(Src::Literal(n)) = defs.get(&args[0].0)
                        && let Some(x) = raw(&defs, *recv)
                        && token_count(&x) <= INLINE_TOKENS
                        && matches!(defs.get(&recv.0), Some(Src::Inline(_)))
                    {
                        defs.insert(out.0, Src::Inline(quote!((#x).#method(#n))));
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
        // Reads at the last iteration's index, before a replayed loop's reverse sweep.
        self.plan_last_reads(&defs, &read_again);
        // Code kept as written (a range, a length) that reads only parameters never written,
        // enclosing replayed loops' variables and locals bound once to values the reverse sweep
        // has: written again with those.
        let again = |tokens: &TokenStream, reads: &[Var]| -> Option<TokenStream> {
            let mut subst: Vec<(String, TokenStream)> = Vec::new();
            let ok = reads.iter().all(|r| {
                let name = self.func.vars[r.0 as usize].ident.unraw().to_string();
                if subst.iter().any(|(n, _)| *n == name) || written.contains(&r.0) {
                    return false;
                }

                // A parameter the forward sweep cannot have moved: a number, a slice, an array,
                // a struct read through its reference.
                let kept = self.func.borrowed(*r)
                    || self.func.vars[r.0 as usize].ty.as_ref().is_some_and(|t| {
                        is_number_type(t)
                            || crate::lower::slice_of(t).is_some()
                            || matches!(t, syn::Type::Array(a) if is_number_type(&a.elem))
                            || crate::lower::const_of(t)
                                .is_some_and(|c| crate::lower::slice_of(c).is_some())
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
            if ok { substitute(tokens, &subst) } else { None }
        };
        let opaque = |v: Value| {
            insts.iter().find_map(|i| match i {
                Inst::Opaque {
                    out, tokens, reads, ..
                } if *out == v => Some((tokens, reads)),
                _ => None,
            })
        };
        // Ranges of replayed loops, whose length is then the trip count.
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
            if let Some((tokens, reads)) = opaque(*iter)
                && let Some(range) = again(tokens, reads)
            {
                self.trips.insert(key, range);
            }
        }
        // Lengths of the `vec![..]`s of dense variables, made at the top level, where no loop
        // variable is bound.
        let lengths: Vec<(u32, TokenStream)> = self
            .dense_made
            .iter()
            .filter_map(|(v, len)| {
                let tokens = match len {
                    dense::DenseLen::Count(k) => quote!(#k),
                    dense::DenseLen::Value(n) => raw(&defs, *n).or_else(|| {
                        let (tokens, reads) = opaque(*n)?;
                        again(tokens, reads)
                    })?,
                };
                Some((*v, tokens))
            })
            .collect();
        self.dense_len.extend(lengths);
        // Arguments of calls, but not literals: their type comes from the callee's parameter,
        // which the reverse sweep does not see. Only reads of variables of a number type or
        // an `ad::Const` of a `Copy` kind (or a local bound to one), and elements read by
        // value: the call may have moved anything else. (A `Const` slice could not be kept on
        // the tape in any case.)
        let copied_read = |v: Value| {
            insts.iter().any(|inst| match inst {
                Inst::Read { out, var, .. } => {
                    *out == v
                        && (loop_vars.contains(&var.0)
                            || const_reads.contains(&out.0)
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
            if let Inst::Call {
                out,
                args,
                lent,
                functions,
                ..
            } = inst
                && self.active(*out)
            {
                // A function item in place (a partial application) is no argument of the rule.
                let again: Vec<Option<TokenStream>> = args
                    .iter()
                    .zip(lent)
                    .zip(functions)
                    .map(|((a, lent), function)| match defs.get(&a.0) {
                        Some(Src::Inline(t))
                            if !function
                                && *lent == crate::ir::Lent::No
                                && !self.slice_reads.contains_key(&a.0)
                                && copied_read(*a) =>
                        {
                            Some(t.clone())
                        }
                        // A struct by reference that the reverse sweep has: lent again, not
                        // copied.
                        Some(Src::Inline(t)) if lent.by_ref() && borrowed_reads.contains(&a.0) => {
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
                // Where the record keeps the partial, or the partial reads the value alone,
                // the receiver is not needed.
                Inst::Method { out, prim, .. }
                    if self.active(*out)
                        && (crate::prims::partial_kept(prim.name)
                            || crate::prims::value_only(prim.name)) =>
                {
                    vec![Src::Unused, Src::Tape]
                }
                // `x.powi(n)`: its partial `n x^(n - 1)` needs neither the value nor, when the
                // reverse sweep has it, the integer `n` (an integer literal has its type).
                Inst::Method {
                    out,
                    prim,
                    recv,
                    args,
                    ..
                } if self.active(*out) && prim.shape == crate::prims::Shape::PowI => {
                    let x = match src(*recv, true) {
                        Src::Literal(_) => Src::Tape,
                        other => other,
                    };
                    vec![x, src(args[0], true), Src::Unused]
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
                // With a field's element, the struct's type too, which names the field of its
                // adjoint.
                Inst::IndexAssign {
                    var,
                    index,
                    path,
                    elems,
                    last,
                    ..
                } if self.act.var(*var) => {
                    if path.is_empty() {
                        vec![index_src(&defs, *index)]
                    } else {
                        let mut layout = vec![index_src(&defs, *index), Src::Tape];
                        layout.extend(elems_layout(&defs, elems));
                        if !last.is_empty() {
                            layout.push(Src::Tape);
                        }
                        layout
                    }
                }
                // The index and the field's length, each unless the reverse sweep has it.
                Inst::FieldIndex {
                    out,
                    a,
                    index,
                    root,
                    elems,
                    ..
                } if self.active(*out) => {
                    let len = match defs.get(&a.0) {
                        Some(Src::Inline(base)) if borrowed_reads.contains(&a.0) => {
                            Src::Inline(quote!((#base).len()))
                        }
                        _ => Src::Tape,
                    };
                    let krate = self.krate;
                    let witness = match defs.get(&root.0) {
                        Some(Src::Inline(r)) if borrowed_reads.contains(&root.0) => {
                            Src::Inline(quote!(#krate::__private::type_of(&#r)))
                        }
                        _ => Src::Tape,
                    };
                    let mut layout = vec![index_src(&defs, *index), len, witness];
                    layout.extend(elems_layout(&defs, elems));
                    layout
                }
                _ => continue,
            };
            let out = match inst {
                Inst::Arith { out, .. }
                | Inst::Method { out, .. }
                | Inst::Index { out, .. }
                | Inst::FieldIndex { out, .. }
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
            // Before the shared indices, which name an index inside the loop body: a summed
            // read needs its index, computed again, after the loop.
            if !local_macros {
                self.plan_sums();
            }
            self.plan_shared_indices(&self.func.body, false);
        }
        self.plan_inplace(&defs);
        if !self.has_returns() && !local_macros {
            self.plan_carried(&defs);
        }
        self.prune_kept();
    }

    /// The fields of `out`'s record that go on the tape.
    pub(super) fn taped(&self, out: Value, values: Vec<TokenStream>) -> Vec<TokenStream> {
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
    pub(super) fn field(&self, out: Value, k: usize, r: &Ident) -> TokenStream {
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
            // An integer literal is an operand of integer arithmetic (rustc has no float
            // arithmetic with one), whose adjoint is `NoTangent`: it is typed by the other
            // operand, as written.
            Src::Literal(tokens)
                if syn::parse2::<syn::LitInt>(tokens.clone())
                    .is_ok_and(|l| !matches!(l.suffix(), "f32" | "f64")) =>
            {
                tokens.clone()
            }
            Src::Literal(tokens) => {
                let krate = self.krate;
                let g = hyg("__g");
                quote!(#krate::__private::typed_as(#g, #tokens))
            }
            Src::Unused => quote!(::core::unreachable!()),
        }
    }

    /// The position on the tape of field `k` of a record laid out as `layout`.
    pub(super) fn tape_pos(layout: &[Src], k: usize) -> usize {
        layout[..k]
            .iter()
            .filter(|f| matches!(f, Src::Tape | Src::Elem { .. }))
            .count()
    }

    /// Binds the indices that `out`'s record keeps for elements (`Src::Elem`), from the popped
    /// tuple `r`.
    pub(super) fn bind_elems(&self, out: Value, r: &Ident) -> TokenStream {
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
    pub(super) fn keeps(&self, out: Value) -> bool {
        self.recorded.contains(&out)
    }

    pub(super) fn has(&self, v: Value) -> bool {
        self.contributed.contains(&v.0)
    }
}

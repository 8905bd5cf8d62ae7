//! Local `Vec`s whose adjoint is a buffer of fixed length, like a slice parameter's.
//!
//! The adjoint of a local `Vec` is held as an `Option<Vec>` that grows as elements receive
//! contributions, since in general its length is not known before the first one: a `Vec`
//! declared in a loop may be as long as the iteration makes it, and one assigned whole changes
//! length. Each element it touches then costs a test of the tag and of the length, in the
//! innermost loops of the reverse sweep.
//!
//! A `Vec` made by `vec![..]` in a `let` at the top of the function body, that is never assigned
//! whole, read whole (copied, moved, passed on, returned) or given to code that may write it,
//! keeps the length it was made with until the function returns. Its adjoint is then a plain
//! buffer of that length, made where the reverse sweep starts: the forward sweep notes the
//! length after the `let`, and when the two sweeps run in separate calls (a callee's sweeps, or
//! `vjp` and its pullback), the forward sweep pushes it last and the reverse sweep pops it first.
//! Every index the reverse sweep uses on the buffer is one the forward sweep used on the `Vec`.
//!
//! The same holds for a field of a struct parameter read through its reference (`self.w[i]`
//! of a `&self` method): nothing writes it while the function runs, so its length is that of
//! the field. Its adjoint, added to element by element, is taken out of the struct's adjoint
//! where the reverse sweep starts, as a buffer of the field's length, and added back where it
//! ends: the elements are then added to as a slice parameter's, with no test of the struct's
//! adjoint or of the field's length per element.

use super::*;

impl Reverse<'_> {
    /// The local `Vec`s whose adjoints are buffers (see the module's documentation).
    pub(super) fn plan_dense(&mut self) {
        let func = self.func;
        let insts = func.body.all_insts();
        // A macro defined in the body may assign any variable it sees.
        let local_macros = insts.iter().any(|inst| {
            matches!(inst, Inst::Verbatim { tokens, item: true, .. }
                if tokens.clone().into_iter().next().is_some_and(|t| t.to_string() == "macro_rules"))
        });
        if local_macros {
            return;
        }
        // The `vec![..]`s of the top level, with their lengths.
        let made_as_vec: HashMap<u32, DenseLen> = func
            .body
            .insts
            .iter()
            .filter_map(|inst| match inst {
                Inst::Repeat {
                    out,
                    len: crate::ir::Len::Vec(n),
                    ..
                } => Some((out.0, DenseLen::Value(*n))),
                Inst::Array {
                    out,
                    elems,
                    vec: true,
                } => Some((out.0, DenseLen::Count(elems.len()))),
                _ => None,
            })
            .collect();
        let mut candidates: HashMap<u32, DenseLen> = func
            .body
            .insts
            .iter()
            .filter_map(|inst| match inst {
                Inst::Let {
                    var,
                    init: Some(init),
                } => made_as_vec.get(&init.0).map(|len| (var.0, *len)),
                _ => None,
            })
            .filter(|(v, _)| self.indexed.contains(v) && self.var_contributed.contains(v))
            .collect();
        for inst in &insts {
            match inst {
                Inst::Read { var, .. } | Inst::Assign { var, .. } => {
                    candidates.remove(&var.0);
                }
                // Declared a second time: not the one variable of a top-level `let`.
                Inst::Let { var, .. }
                    if !func.body.insts.iter().any(|i| std::ptr::eq(i, *inst)) =>
                {
                    candidates.remove(&var.0);
                }
                _ => {
                    for v in inst.may_write_reads() {
                        candidates.remove(&v.0);
                    }
                }
            }
        }
        self.dense = candidates.keys().copied().collect();
        self.dense_made = candidates;
    }

    /// Whether the adjoint of `var` is a buffer of fixed length.
    pub(super) fn is_dense(&self, var: Var) -> bool {
        self.dense.contains(&var.0)
    }

    /// The dense variables, in order.
    pub(super) fn dense_vars(&self) -> Vec<Var> {
        let mut vars: Vec<Var> = self.dense.iter().map(|v| Var(*v)).collect();
        vars.sort_unstable_by_key(|v| v.0);
        vars
    }

    /// The dense variables whose length the forward sweep notes, in the order it pushes them.
    fn noted_vars(&self) -> Vec<Var> {
        let mut vars = self.dense_vars();
        vars.retain(|v| !self.dense_len.contains_key(&v.0));
        vars
    }

    /// The slots that hold the lengths, declared before the forward sweep.
    pub(super) fn dense_slots(&self) -> Vec<TokenStream> {
        self.noted_vars()
            .into_iter()
            .map(|v| {
                let n = len_ident(v);
                quote!(let mut #n: usize = 0;)
            })
            .collect()
    }

    /// In the forward sweep, after the `let` of `var`: its length.
    pub(super) fn dense_note(&self, var: Var) -> TokenStream {
        if !self.is_dense(var) || self.dense_len.contains_key(&var.0) {
            return TokenStream::new();
        }
        let n = len_ident(var);
        let x = &self.func.vars[var.0 as usize].ident;
        quote!(#n = #x.len();)
    }

    /// At the end of a forward sweep that runs alone: the lengths, for the reverse sweep that
    /// runs later.
    pub(super) fn dense_push(&self) -> TokenStream {
        let tape = hyg("__tape");
        let ns = self.noted_vars().into_iter().map(len_ident);
        quote!(#(#tape.push(#ns);)*)
    }

    /// Where the reverse sweep starts: the lengths, from the forward sweep of this call or from
    /// the tape, and the buffers.
    pub(super) fn dense_decls(&self) -> TokenStream {
        let (krate, tape, value) = (self.krate, hyg("__tape"), hyg("__value"));
        let mut out = TokenStream::new();
        for v in self.noted_vars().into_iter().rev() {
            let n = len_ident(v);
            out.extend(quote! {
                let #n: usize = if #value.is_some() { #n } else { #tape.pop() };
            });
        }
        for v in self.dense_vars() {
            let (x, k) = (x_ident(v), k_ident(v));
            let n = match self.dense_len.get(&v.0) {
                Some(t) => t.clone(),
                None => {
                    let n = len_ident(v);
                    quote!(#n)
                }
            };
            out.extend(quote!(let mut #x = #krate::__private::dense(&#k, #n);));
        }
        out
    }
}

impl Reverse<'_> {
    /// The fields of struct parameters whose adjoints are buffers (see the module's
    /// documentation): a field of a parameter read through its reference, indexed directly
    /// (`p.w[i]`, not `p.layers[l].w[i]`).
    pub(super) fn plan_dense_fields(&mut self) {
        let func = self.func;
        let mut fields: Vec<(Var, syn::Member)> = Vec::new();
        for inst in func.body.all_insts() {
            let Inst::FieldIndex {
                out,
                root,
                path,
                elems,
                ..
            } = inst
            else {
                continue;
            };
            let Some(var) = self.direct.get(&root.0).copied() else {
                continue;
            };
            let field = match path.as_slice() {
                [field] if elems.is_empty() => field,
                _ => continue,
            };
            if self.act.value(*out)
                && self.var_contributed.contains(&var.0)
                && func.borrowed(var)
                && func.params.iter().any(|p| p.var == var)
                && !fields.iter().any(|(v, f)| *v == var && f == field)
            {
                fields.push((var, field.clone()));
            }
        }
        self.dense_fields = fields;
    }

    /// The buffer of the field a `FieldIndex` reads (`root`, `path`, `elems`), if it has one:
    /// a field of a parameter indexed directly.
    pub(super) fn dense_field_of(
        &self,
        root: Value,
        path: &[syn::Member],
        elems: &[crate::ir::PathElem],
    ) -> Option<Ident> {
        match path {
            [field] if elems.is_empty() => self
                .direct
                .get(&root.0)
                .and_then(|var| self.dense_field(*var, field)),
            _ => None,
        }
    }

    /// The buffer of field `field` of parameter `var`, if it has one.
    pub(super) fn dense_field(&self, var: Var, field: &syn::Member) -> Option<Ident> {
        let k = self
            .dense_fields
            .iter()
            .position(|(v, f)| *v == var && f == field)?;
        Some(hyg(&format!("__xf{}_{k}", var.0)))
    }

    /// Where the reverse sweep starts, after the adjoints are declared: each buffer, taken out
    /// of its struct's adjoint (`__xs` owns it, `__xf` is its elements).
    pub(super) fn dense_field_decls(&self) -> TokenStream {
        let krate = self.krate;
        let mut out = TokenStream::new();
        for (k, (var, field)) in self.dense_fields.iter().enumerate() {
            let (x, read) = (x_ident(*var), self.param_read(*var));
            let own = hyg(&format!("__xs{}_{k}", var.0));
            let buf = self.dense_field(*var, field).expect("a dense field");
            let t = hyg("__t");
            out.extend(quote! {
                let mut #own = #krate::__private::field_out(
                    &mut #x,
                    #krate::__private::type_of(&#read),
                    |#t| &mut #t.#field,
                );
                let #buf = #krate::__private::ElemSeq::dense(&mut #own, (#read.#field).len());
            });
        }
        out
    }

    /// Where the reverse sweep ends: each buffer added back into its struct's adjoint.
    pub(super) fn dense_field_backs(&self) -> TokenStream {
        let krate = self.krate;
        let mut out = TokenStream::new();
        for (k, (var, field)) in self.dense_fields.iter().enumerate() {
            let (x, read) = (x_ident(*var), self.param_read(*var));
            let own = hyg(&format!("__xs{}_{k}", var.0));
            let t = hyg("__t");
            out.extend(quote! {
                #krate::__private::field_back(
                    &mut #x,
                    #krate::__private::type_of(&#read),
                    |#t| &mut #t.#field,
                    #own,
                );
            });
        }
        out
    }

    /// The tokens that read parameter `var` where the reverse sweep runs.
    fn param_read(&self, var: Var) -> TokenStream {
        let ident = &self.func.vars[var.0 as usize].ident;
        self.func.read_tokens(var, ident)
    }
}

/// How a dense variable's `vec![..]` gives its length: `vec![x; n]`, or `vec![a, b, ..]`.
#[derive(Clone, Copy)]
pub(super) enum DenseLen {
    Value(Value),
    Count(usize),
}

/// The length of a dense variable's buffer, noted by the forward sweep.
fn len_ident(var: Var) -> Ident {
    hyg(&format!("__dn{}", var.0))
}

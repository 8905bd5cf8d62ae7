//! Assignments to variables and to elements, plain and compound (`x += ..`).

use super::*;

impl Lower {
    pub(super) fn assign(&mut self, var: Var, ident: Ident, value: Value, out: &mut Vec<Inst>) {
        if self.vars[var.0 as usize]
            .ty
            .as_ref()
            .is_some_and(|t| slice_of(t).is_some())
        {
            self.errors.push(err(&ident, format!("#[differentiable] cannot assign to the slice `{ident}` itself; write its elements (`{ident}[i] = ...`)")));
            return;
        }
        // Variables are told apart by name here; a name written from two macro contexts may
        // stand for two variables, so every pending read of the name copies its value.
        let name = ident.to_string();
        for (read, v) in &self.pending {
            if self.vars[v.0 as usize].ident == name {
                self.values[read.0 as usize].needs_copy = true;
            }
        }
        out.push(Inst::Assign { var, ident, value });
    }

    /// The value `lhs op rhs` of a compound assignment `lhs op= rhs`.
    pub(super) fn compound(
        &mut self,
        b: &syn::ExprBinary,
        lhs: Value,
        rhs: Value,
        out: &mut Vec<Inst>,
    ) -> Value {
        let result = self.value(b.span());
        let op_tokens = compound_base(&b.op);
        match arith_of_compound(&b.op) {
            Some(op) => out.push(Inst::Arith {
                out: result,
                op,
                a: lhs,
                b: rhs,
                op_tokens,
            }),
            None => out.push(Inst::Inactive {
                out: result,
                a: lhs,
                b: rhs,
                op_tokens,
            }),
        }
        result
    }

    /// The struct variable, the path and the index of `s.w[i]` (also `s.at.w[i]`, `self.w[i]`)
    /// written in place: a named field of a variable of a struct type the body names.
    #[allow(clippy::type_complexity)]
    pub(super) fn field_index_target(
        &mut self,
        ix: &syn::ExprIndex,
        out: &mut Vec<Inst>,
    ) -> Option<(
        Var,
        Ident,
        (Vec<syn::Member>, Vec<crate::ir::PathElem>),
        Value,
    )> {
        if matches!(&*ix.index, Expr::Range(_)) {
            return None;
        }
        if self.place_chain(&ix.expr) {
            // Through elements of fields (`n.layers[l].w[j]`): the place read as for an
            // element read, for the path and the elements' indices.
            let (var, ident) = self.chain_var(&ix.expr)?;
            let a = self.expr(&ix.expr, out);
            let steps = self.place_paths.get(&a.0).cloned().unwrap_or_default();
            let index = self.expr(&ix.index, out);
            return Some((var, ident, steps, index));
        }
        if !self.field_is_place(&ix.expr) {
            return None;
        }
        let (var, ident, path) = self.field_place(&ix.expr)?;
        let index = self.expr(&ix.index, out);
        Some((var, ident, (path, Vec::new()), index))
    }

    /// `n.layers[l].b` (also `n.layers[l].at.b`) written: the place of the sequence, the
    /// element's index and the fields of the element, for `place_assign`.
    #[allow(clippy::type_complexity)]
    pub(super) fn element_field_target(
        &mut self,
        left: &Expr,
        out: &mut Vec<Inst>,
    ) -> Option<(
        Var,
        Ident,
        (Vec<syn::Member>, Vec<crate::ir::PathElem>),
        (Value, Vec<syn::Member>),
    )> {
        if !self.place_chain(left) {
            return None;
        }
        let mut last = Vec::new();
        let mut e = left;
        let ix = loop {
            match e {
                Expr::Paren(p) => e = &p.expr,
                Expr::Field(f) => {
                    last.insert(0, f.member.clone());
                    e = &f.base;
                }
                Expr::Index(ix) => break ix,
                _ => return None,
            }
        };
        let (var, ident) = self.chain_var(&ix.expr)?;
        let a = self.expr(&ix.expr, out);
        let steps = self.place_paths.get(&a.0).cloned().unwrap_or_default();
        let index = self.expr(&ix.index, out);
        Some((var, ident, steps, (index, last)))
    }

    /// The local variable at the root of a chain of fields and elements.
    fn chain_var(&mut self, e: &Expr) -> Option<(Var, Ident)> {
        match e {
            Expr::Paren(p) => self.chain_var(&p.expr),
            Expr::Field(f) => self.chain_var(&f.base),
            Expr::Index(ix) => self.chain_var(&ix.expr),
            other => self.local_var(other),
        }
    }

    /// `s.w[i]` read: the element of the field, in place; also through elements of fields on
    /// the way (`s.layers[l].w[i]`). The element is itself a place whose fields are read in
    /// place.
    pub(super) fn field_index(&mut self, ix: &syn::ExprIndex, out: &mut Vec<Inst>) -> Value {
        let a = self.expr(&ix.expr, out);
        let root = self.values[a.0 as usize].root.unwrap_or(a);
        let (path, elems) = self.place_paths.get(&a.0).cloned().unwrap_or_default();
        let index = self.expr(&ix.index, out);
        let v = self.value(ix.span());
        out.push(Inst::FieldIndex {
            out: v,
            a,
            index,
            root,
            path: path.clone(),
            elems: elems.clone(),
        });
        self.values[v.0 as usize].root = Some(root);
        let mut elems = elems;
        elems.push(crate::ir::PathElem {
            after: path.len(),
            index,
            seq: a,
        });
        self.place_paths.insert(v.0, (path, elems));
        v
    }

    /// Whether `e` is a named field reached from a local variable through named fields and
    /// elements of them (`s.layers[l].w`), with at least one element on the way.
    pub(super) fn place_chain(&mut self, e: &Expr) -> bool {
        match e {
            Expr::Paren(p) => self.place_chain(&p.expr),
            Expr::Field(f) if matches!(f.member, syn::Member::Named(_)) => match &*f.base {
                Expr::Index(ix) if !matches!(&*ix.index, Expr::Range(_)) => {
                    matches!(&*ix.expr, Expr::Field(_))
                        && (self.place_chain(&ix.expr)
                            || self.field_place(&ix.expr).is_some_and(|(_, _, path)| {
                                path.iter().all(|m| matches!(m, syn::Member::Named(_)))
                            }))
                }
                base => self.place_chain(base),
            },
            _ => false,
        }
    }

    /// The variable and index of `base[index]`; `None` after reporting an error.
    pub(super) fn index_target(
        &mut self,
        ix: &syn::ExprIndex,
        out: &mut Vec<Inst>,
    ) -> Option<(Var, Ident, Value)> {
        if let Expr::Range(r) = &*ix.index {
            self.errors.push(err(r, "#[differentiable] does not support slicing (`a[i..j]`); index elements one by one (`a[i]`) in a loop over the range"));
            return None;
        }
        let Some((var, ident)) = self.local_var(&ix.expr) else {
            let message = match &*ix.expr {
                Expr::Field(f) => {
                    let (member, base) = (&f.member, &f.base);
                    let show = |e: &dyn quote::ToTokens| {
                        quote!(#e)
                            .to_string()
                            .replace(' ', "")
                            .replace("__ad_self", "self")
                    };
                    let place = show(&ix.expr);
                    match (member, &**base) {
                        // `p.0[i]`: a tuple struct's field.
                        (syn::Member::Unnamed(_), _) => format!("#[differentiable] indexes a field `.0` in place only in a tuple struct whose type the body names (`p: Pair`, `let p: Pair = ..`), not in a plain tuple; work on a local copy, `let mut w = {place}.clone();`, `w[i] = ..;`, and assign it whole: `{place} = w;`"),
                        // `n.layers[l].w[i]`: through an element of a sequence of structs.
                        (_, Expr::Index(outer)) => {
                            let element = show(outer);
                            format!("#[differentiable] does not index a field of an element of a sequence of structs (`{place}[..]`) yet; call a method on the element (`{element}.m(..)` reads its fields in place), or copy the element first, `let mut e = {element}.clone();`, then read or write `e.{}[i]` and put it back if changed: `{element} = e;`", show(member))
                        }
                        _ => format!("#[differentiable] writes an element of a field in place only where the field is a named field of a struct variable whose type the body names (`s.w[i] = ..` with `s: Model`); give the variable its type, or work on a local copy, `let mut w = {place}.clone();`, `w[i] = ..;`, and assign it whole: `{place} = w;`"),
                    }
                }
                _ => "#[differentiable] supports indexing a variable only (a parameter or a `let`); bind the value first: `let row = ...; row[i]`".to_string(),
            };
            self.errors.push(err(&ix.expr, message));
            return None;
        };
        if let Some(view) = self.view_of(var) {
            return Some(self.view_index(&view, &ix.index, out));
        }
        let index = self.expr(&ix.index, out);
        Some((var, ident, index))
    }

    /// An assignment `row[j] = ..` through a slice bound by `let`: an error (a shared slice
    /// cannot be written).
    pub(super) fn assigns_through_view(&mut self, ix: &syn::ExprIndex) -> bool {
        let Some((var, ident)) = self.local_var(&ix.expr) else {
            return false;
        };
        let Some(view) = self.view_of(var) else {
            return false;
        };
        if view.mutable {
            return false;
        }
        let base = &view.base_ident;
        self.errors.push(err(ix, format!("#[differentiable]: `{ident}` is a shared slice of `{base}` and cannot be written; write `{base}` itself (`{base}[start + j] = ..`)")));
        true
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn index_assign(
        &mut self,
        var: Var,
        ident: Ident,
        (path, elems): (Vec<syn::Member>, Vec<crate::ir::PathElem>),
        index: Value,
        value: Value,
        span: Span,
        out: &mut Vec<Inst>,
    ) {
        self.place_assign(
            var,
            ident,
            (path, elems),
            (index, Vec::new()),
            value,
            span,
            out,
        );
    }

    /// `place[index].last = value` (`last` empty: `place[index] = value`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn place_assign(
        &mut self,
        var: Var,
        ident: Ident,
        (path, elems): (Vec<syn::Member>, Vec<crate::ir::PathElem>),
        (index, last): (Value, Vec<syn::Member>),
        value: Value,
        span: Span,
        out: &mut Vec<Inst>,
    ) {
        // An element of a field written in place: the reads of the struct before it (element
        // reads, cloned where they are bound) need no copy of the whole field.
        let name = ident.to_string();
        for (read, v) in &self.pending {
            if path.is_empty() && self.vars[v.0 as usize].ident == name {
                self.values[read.0 as usize].needs_copy = true;
            }
        }
        let id = self.value(span);
        out.push(Inst::IndexAssign {
            id,
            var,
            ident,
            path,
            elems,
            index,
            last,
            value,
        });
    }

    /// `(a, b) = (x, y);` and `(a, b) = t;`: every element is read before any variable is
    /// assigned, then each variable gets its own.
    pub(super) fn tuple_assign(&mut self, a: &syn::ExprAssign, out: &mut Vec<Inst>) {
        let Expr::Tuple(targets) = &*a.left else {
            unreachable!("checked by the caller")
        };
        let mut vars = Vec::new();
        for t in &targets.elems {
            match t {
                Expr::Infer(_) => vars.push(None),
                other => match self.local_var(other) {
                    Some(v) => vars.push(Some(v)),
                    None => {
                        self.errors.push(err(other, "#[differentiable] supports destructuring assignment to local variables and `_` only; bind the result with `let`"));
                        return;
                    }
                },
            }
        }
        let values: Vec<Value> = match &*a.right {
            Expr::Tuple(e) if e.elems.len() == vars.len() => {
                e.elems.iter().map(|x| self.expr(x, out)).collect()
            }
            other => {
                let whole = self.expr(other, out);
                self.values[whole.0 as usize].needs_copy = true;
                (0..vars.len())
                    .map(|i| {
                        let part = self.value(other.span());
                        out.push(Inst::Field {
                            out: part,
                            a: whole,
                            index: syn::Index {
                                index: i as u32,
                                span: other.span(),
                            }
                            .into(),
                            element: false,
                            of: None,
                        });
                        part
                    })
                    .collect()
            }
        };
        for (target, value) in vars.into_iter().zip(values) {
            if let Some((var, ident)) = target {
                self.assign(var, ident, value, out);
            }
        }
    }
}

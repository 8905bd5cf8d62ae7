//! `let` statements and the patterns they bind.

use super::*;

impl Lower {
    pub(super) fn local(&mut self, local: &syn::Local, out: &mut Vec<Inst>) {
        if self.closure_binding(local, out) {
            return;
        }
        let Some(init) = &local.init else {
            let (pat, ty) = split_type(&local.pat);
            match pat {
                Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                    let var = self.new_var(p.ident.clone(), ty.cloned(), p.mutability.is_some());
                    out.push(Inst::Let { var, init: None });
                    self.bind(var);
                }
                other => self.errors.push(err(other, "#[differentiable] supports `let name;` without a value only for a plain name; give the `let` a value")),
            }
            return;
        };
        if let Some((_, els)) = &init.diverge {
            self.let_else(&local.pat, &init.expr, els, out);
            return;
        }
        let (pat, ty) = split_type(&local.pat);
        if self.view_binding(pat, ty, &init.expr, out).is_some() {
            return;
        }
        if let Some(binds) = self.tuple_of_parts(pat, ty, &init.expr, out) {
            for var in binds {
                self.bind(var);
            }
            return;
        }
        let value = match ty.and_then(|ty| self.typed_into(&init.expr, ty, out)) {
            Some(v) => v,
            None => self.expr(&init.expr, out),
        };
        let mut binds = Vec::new();
        self.pattern(pat, ty.cloned(), value, out, &mut binds);
        // `let s = Spring { .. };` (or `Pair(v, x)` of a tuple struct): `s` is a `Spring`.
        let literal = match &*init.expr {
            Expr::Struct(lit) if lit.qself.is_none() => Some(lit.path.clone()),
            Expr::Call(c) => super::calls::tuple_struct_call(c).map(|lit| lit.path),
            _ => None,
        };
        if let ([var], Pat::Ident(_), Some(path)) = (binds.as_slice(), pat, literal) {
            self.struct_types.insert(var.0, syn::parse_quote!(#path));
        }
        for var in binds {
            self.bind(var);
        }
    }

    /// `let (a, b) = (x, y);`: each name bound to its element, evaluated in order before any is
    /// bound, with no tuple between them, so that the reverse sweep sees the elements
    /// themselves (and can compute `param[i]` again instead of keeping the tuple).
    fn tuple_of_parts(
        &mut self,
        pat: &Pat,
        ty: Option<&Type>,
        init: &Expr,
        out: &mut Vec<Inst>,
    ) -> Option<Vec<Var>> {
        let (Pat::Tuple(t), Expr::Tuple(e)) = (pat, init) else {
            return None;
        };
        if t.elems.len() != e.elems.len() || t.elems.iter().any(|p| matches!(p, Pat::Rest(_))) {
            return None;
        }
        let elem_types: Option<Vec<Type>> = match ty {
            Some(Type::Tuple(tt)) if tt.elems.len() == t.elems.len() => {
                Some(tt.elems.iter().cloned().collect())
            }
            Some(_) => return None,
            None => None,
        };
        let values: Vec<Value> = e
            .elems
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let typed = elem_types.as_ref().map(|v| &v[i]);
                match typed.and_then(|ty| self.typed_into(x, ty, out)) {
                    Some(v) => v,
                    None => self.expr(x, out),
                }
            })
            .collect();
        // `let (a, b) = (b, a);`: a read must not see the name bound before it.
        if values.len() > 1 {
            for v in &values {
                self.values[v.0 as usize].needs_copy = true;
            }
        }
        let mut binds = Vec::new();
        for (i, (p, v)) in t.elems.iter().zip(values).enumerate() {
            let elem_ty = elem_types.as_ref().map(|v| v[i].clone());
            self.pattern(p, elem_ty, v, out, &mut binds);
        }
        Some(binds)
    }

    pub(super) fn pattern(
        &mut self,
        pat: &Pat,
        ty: Option<Type>,
        value: Value,
        out: &mut Vec<Inst>,
        binds: &mut Vec<Var>,
    ) {
        match pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                let var = self.new_var(p.ident.clone(), ty, p.mutability.is_some());
                out.push(Inst::Let { var, init: Some(value) });
                binds.push(var);
            }
            Pat::Wild(_) => {}
            Pat::Paren(p) => self.pattern(&p.pat, ty, value, out, binds),
            Pat::Type(t) => self.pattern(&t.pat, Some((*t.ty).clone()), value, out, binds),
            Pat::Tuple(t) => {
                // `let (t, a) = t;` binds `t` before reading `t.1`: read the source from a copy.
                self.values[value.0 as usize].needs_copy = true;
                let elem_types: Option<Vec<Type>> = match &ty {
                    Some(Type::Tuple(tt)) if tt.elems.len() == t.elems.len() => Some(tt.elems.iter().cloned().collect()),
                    _ => None,
                };
                for (i, elem) in t.elems.iter().enumerate() {
                    if let Pat::Rest(r) = elem {
                        self.errors.push(err(r, "#[differentiable] does not support `..` in tuple patterns; name every element (`_` for unused ones)"));
                        continue;
                    }
                    let field = self.value(elem.span());
                    out.push(Inst::Field {
                        out: field,
                        a: value,
                        index: syn::Index { index: i as u32, span: elem.span() }.into(),
                        element: false,
                        of: None,
                    });
                    let elem_ty = elem_types.as_ref().map(|v| v[i].clone());
                    self.pattern(elem, elem_ty, field, out, binds);
                }
            }
            Pat::Slice(s) => {
                // `let [x, y] = p;` (also `[x, y, ..]`): element `k` is `p[k]`.
                self.values[value.0 as usize].needs_copy = true;
                let elem_ty = match &ty {
                    Some(Type::Array(a)) => Some((*a.elem).clone()),
                    _ => None,
                };
                for (i, elem) in s.elems.iter().enumerate() {
                    if let Pat::Rest(r) = elem {
                        if i + 1 != s.elems.len() {
                            self.errors.push(err(r, "#[differentiable] supports `..` in an array pattern only at its end (`let [a, b, ..] = x;`); index the elements after it (`x[x.len() - 1]`)"));
                        }
                        continue;
                    }
                    let part = self.value(elem.span());
                    out.push(Inst::Field {
                        out: part,
                        a: value,
                        index: syn::Index { index: i as u32, span: elem.span() }.into(),
                        element: true,
                        of: None,
                    });
                    self.pattern(elem, elem_ty.clone(), part, out, binds);
                }
            }
            // `let Spring { k, rest: r, .. } = s;`: each named field read as `s.k` is.
            Pat::Struct(ps)
                if ps.qself.is_none()
                    && ps
                        .fields
                        .iter()
                        .all(|f| matches!(f.member, syn::Member::Named(_))) =>
            {
                let of = out.iter().rev().find_map(|i| match i {
                    Inst::Read { out: o, var, .. } if *o == value => Some(*var),
                    _ => None,
                });
                let root = self.values[value.0 as usize].root.or(of.map(|_| value));
                if root.is_some() {
                    self.values[value.0 as usize].place = true;
                }
                // A struct the function holds by reference gives copies of its fields (the
                // user's pattern binds references to them).
                let borrowed = of.is_some_and(|v| self.array_refs.contains(&v));
                for fp in &ps.fields {
                    let field = self.value(fp.span());
                    self.values[field.0 as usize].root = root;
                    self.values[field.0 as usize].clones = borrowed;
                    out.push(Inst::Field {
                        out: field,
                        a: value,
                        index: fp.member.clone(),
                        element: false,
                        of,
                    });
                    self.pattern(&fp.pat, None, field, out, binds);
                }
            }
            other => self.errors.push(err(other, "#[differentiable] supports `let` patterns that are names, `_`, tuples, arrays and structs with named fields of these; destructure in several `let`s")),
        }
    }
}

fn split_type(pat: &Pat) -> (&Pat, Option<&Type>) {
    match pat {
        Pat::Type(t) => (&t.pat, Some(&t.ty)),
        other => (other, None),
    }
}

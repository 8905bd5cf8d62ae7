//! Lowering of an expression to the value it computes: literals, paths, operators, casts,
//! tuples, arrays and indexing here; loops, calls, `break`/`return` and kept code in the files
//! that handle them, and the constructs it cannot differentiate reported at their tokens.

use super::*;

impl Lower {
    pub fn expr(&mut self, e: &Expr, out: &mut Vec<Inst>) -> Value {
        match e {
            Expr::Lit(l) => {
                let v = self.value(l.span());
                out.push(Inst::Const {
                    out: v,
                    tokens: l.to_token_stream(),
                });
                v
            }
            Expr::Path(p) => {
                if p.qself.is_none()
                    && let Some(ident) = p.path.get_ident()
                    && let Some(var) = self.lookup(&ident.to_string())
                {
                    if let Some(view) = self.view_of(var) {
                        let base = &view.base_ident;
                        self.errors.push(err(p, format!("#[differentiable] cannot use `{ident}`, a slice of `{base}` bound by `let`, as a whole value here: index it (`{ident}[j]`), loop over it (`for x in {ident}.iter()`), take `{ident}.len()`, or pass it on as an argument of a call (`f({ident})`)")));
                        return self.dummy(out, p.span());
                    }
                    if self.vars[var.0 as usize]
                        .ty
                        .as_ref()
                        .is_some_and(|t| slice_of(t).is_some())
                    {
                        self.errors.push(err(p, format!("#[differentiable] cannot use the slice `{ident}` as a whole value here: index it (`{ident}[i]`), loop over it (`for v in {ident}.iter()`), take `{ident}.len()`, or pass it on as an argument of a call (`f({ident})`)")));
                        return self.dummy(out, p.span());
                    }
                    let v = self.value(p.span());
                    out.push(Inst::Read {
                        out: v,
                        var,
                        ident: ident.clone(),
                    });
                    self.pending.push((v, var));
                    return v;
                }
                if let Some((ident, _)) = self.closure_named(e) {
                    self.errors.push(err(p, format!("#[differentiable] can call the closure `{ident}` (`{ident}(x)`, also in `.map({ident})`), but not use it as a value: its body is differentiated where it is called; call it, or write it as a named `fn`")));
                    return self.dummy(out, p.span());
                }
                let v = self.value(p.span());
                out.push(Inst::Const {
                    out: v,
                    tokens: p.to_token_stream(),
                });
                v
            }
            Expr::Paren(p) => self.expr(&p.expr, out),
            Expr::Group(g) => self.expr(&g.expr, out),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => {
                    let a = self.expr(&u.expr, out);
                    let v = self.value(u.span());
                    out.push(Inst::Neg { out: v, a });
                    v
                }
                UnOp::Not(_) => self.verbatim(e, out, None),
                UnOp::Deref(_)
                    if self
                        .local_var(&u.expr)
                        .is_some_and(|(var, _)| self.element_vars.contains(&var)) =>
                {
                    self.expr(&u.expr, out)
                }
                // `*a.iter().max_by(..).unwrap()`: the best element, a value in the derivative.
                UnOp::Deref(_) if super::chains::is_best_of_elements(&u.expr) => {
                    self.expr(&u.expr, out)
                }
                _ => {
                    self.errors.push(err(u, "#[differentiable] does not support dereferencing here; pass values, not references"));
                    self.dummy(out, u.span())
                }
            },
            Expr::Binary(b) => {
                if is_compound(&b.op) {
                    self.errors.push(err(b, "#[differentiable] supports compound assignment only as a statement: `x += y;`"));
                    return self.dummy(out, b.span());
                }
                if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) {
                    return self.verbatim(e, out, None);
                }
                let a = self.expr(&b.left, out);
                let c = self.expr(&b.right, out);
                let v = self.value(b.span());
                let op_tokens = b.op.to_token_stream();
                match arith_of(&b.op) {
                    Some(op) => out.push(Inst::Arith {
                        out: v,
                        op,
                        a,
                        b: c,
                        op_tokens,
                    }),
                    None => out.push(Inst::Inactive {
                        out: v,
                        a,
                        b: c,
                        op_tokens,
                    }),
                }
                v
            }
            Expr::Cast(c) => {
                let a = self.expr(&c.expr, out);
                let v = self.value(c.span());
                out.push(Inst::Cast {
                    out: v,
                    a,
                    ty: (*c.ty).clone(),
                    via: None,
                });
                v
            }
            Expr::Tuple(t) => {
                if t.elems.is_empty() {
                    let v = self.value(t.span());
                    out.push(Inst::Const {
                        out: v,
                        tokens: quote!(()),
                    });
                    return v;
                }
                let elems = t.elems.iter().map(|e| self.expr(e, out)).collect();
                let v = self.value(t.span());
                out.push(Inst::Tuple { out: v, elems });
                v
            }
            // A field of a tuple or of a struct (`#[derive(ad::Differentiable)]`): its tangent is
            // the same field of the tangent.
            Expr::Field(f) => {
                let of = self.local_var(&f.base).map(|(var, _)| var);
                let a = self.expr(&f.base, out);
                let v = self.value(f.span());
                // A chain of named fields from a variable is a place read at its end, and so
                // is a tuple struct's field.
                if matches!(f.member, syn::Member::Named(_)) || self.field_is_place(e) {
                    let base = &self.values[a.0 as usize];
                    let root = match base.root {
                        Some(r) => Some(r),
                        None if of.is_some() => Some(a),
                        None => None,
                    };
                    if root.is_some() {
                        self.values[a.0 as usize].place = true;
                        self.values[v.0 as usize].root = root;
                        let (mut path, elems) =
                            self.place_paths.get(&a.0).cloned().unwrap_or_default();
                        path.push(f.member.clone());
                        self.place_paths.insert(v.0, (path, elems));
                    }
                }
                out.push(Inst::Field {
                    out: v,
                    a,
                    index: f.member.clone(),
                    element: false,
                    of,
                });
                v
            }
            Expr::MethodCall(m) => self.method_call(m, out),
            Expr::Call(c) => self.call(c, out),
            _ if maybe_unit(e) => match self.expr_maybe_unit(e, out) {
                Some(v) => v,
                None => {
                    // No value: `()`, or, when every path returns, a value of any type that is
                    // never reached.
                    let tokens = if out.last().is_some_and(diverges) {
                        quote!(::core::unreachable!())
                    } else {
                        quote!(())
                    };
                    let v = self.value(e.span());
                    out.push(Inst::Const { out: v, tokens });
                    v
                }
            },
            // Leaves the expression: its value, never used, may have any type.
            Expr::Break(_) | Expr::Continue(_) => {
                self.stmt_expr(e, out);
                self.dummy(out, e.span())
            }
            Expr::Return(_) | Expr::Assign(_) => {
                self.errors.push(err(
                    e,
                    "#[differentiable] supports this only as a statement of its own",
                ));
                self.dummy(out, e.span())
            }
            Expr::Macro(m) if m.mac.path.is_ident("vec") => self.vec_macro(m, out),
            Expr::Macro(m) => {
                let v = self.value(m.span());
                let reads = self.reads_of(&m.mac.tokens);
                let name = m
                    .mac
                    .path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                let may_write =
                    !READ_ONLY_MACROS.contains(&name.as_str()) || may_write(&m.mac.tokens);
                self.mark_pending(&reads, may_write);
                out.push(Inst::Opaque {
                    out: v,
                    tokens: m.to_token_stream(),
                    reads,
                    may_write,
                    only_inactive: Some(Unsupported::new("a macro call")),
                });
                v
            }
            Expr::ForLoop(_) | Expr::While(_) => {
                self.stmt_expr(e, out);
                let v = self.value(e.span());
                out.push(Inst::Const {
                    out: v,
                    tokens: quote!(()),
                });
                v
            }
            // An element of a chain of named fields from a variable, read in place.
            Expr::Index(ix)
                if !matches!(&*ix.index, Expr::Range(_))
                    && (self.field_is_place(&ix.expr) || self.place_chain(&ix.expr)) =>
            {
                self.field_index(ix, out)
            }
            Expr::Index(ix) => match self.index_target(ix, out) {
                Some((var, ident, index)) => {
                    let v = self.value(ix.span());
                    out.push(Inst::Index {
                        out: v,
                        var,
                        ident,
                        index,
                    });
                    v
                }
                None => self.dummy(out, ix.span()),
            },
            Expr::Array(a) => {
                let elems = a.elems.iter().map(|e| self.expr(e, out)).collect();
                let v = self.value(a.span());
                out.push(Inst::Array {
                    out: v,
                    elems,
                    vec: false,
                });
                v
            }
            Expr::Repeat(r) => {
                let elem = self.expr(&r.expr, out);
                let v = self.value(r.span());
                out.push(Inst::Repeat {
                    out: v,
                    elem,
                    len: crate::ir::Len::Const(r.len.to_token_stream()),
                });
                v
            }
            Expr::Closure(_) => self.verbatim(
                e,
                out,
                Some(Unsupported::with_fix(
                    "a closure",
                    "write it as a named `fn` with #[differentiable] and call that",
                )),
            ),
            // A field lent to a function that writes it (`scale(&mut s.w, k)`).
            Expr::Reference(r)
                if r.mutability.is_some()
                    && (self.field_place(&r.expr).is_some() || self.place_chain(&r.expr)) =>
            {
                let inner = &r.expr;
                let place = quote!(#inner)
                    .to_string()
                    .replace(' ', "")
                    .replace("__ad_self", "self");
                self.errors.push(err(r, format!("#[differentiable] does not lend a struct's field to a function that writes it yet; lend a copy and assign it back: `let mut w = {place}.clone();`, pass `&mut w`, then `{place} = w;`")));
                self.dummy(out, r.span())
            }
            Expr::Reference(_) => self.verbatim(e, out, Some(Unsupported::new("a reference"))),
            Expr::Range(_) => self.verbatim(e, out, Some(Unsupported::new("a range"))),
            Expr::Struct(s) => self.struct_literal(s, out),
            Expr::Unsafe(_) => self.verbatim(e, out, Some(Unsupported::new("an `unsafe` block"))),
            other => {
                self.errors.push(err(other, "#[differentiable] does not support this expression; move it into a function with a #[custom_rule]"));
                self.dummy(out, other.span())
            }
        }
    }
}

impl Lower {
    /// `Path { x: a, y, ..rest }`: each field's value and the rest lowered in the order written.
    pub(super) fn struct_literal(&mut self, s: &syn::ExprStruct, out: &mut Vec<Inst>) -> Value {
        if s.qself.is_some() {
            return self.verbatim(
                &Expr::Struct(s.clone()),
                out,
                Some(Unsupported::new("a struct literal with a qualified path")),
            );
        }
        let fields = s
            .fields
            .iter()
            .map(|f| (f.member.clone(), self.expr(&f.expr, out)))
            .collect();
        let rest = s.rest.as_ref().map(|r| self.expr(r, out));
        let v = self.value(s.span());
        let path = &s.path;
        out.push(Inst::Struct {
            out: v,
            path: quote!(#path),
            fields,
            rest,
        });
        v
    }
}

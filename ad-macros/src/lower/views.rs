//! Slices bound by `let`: `let row = &m[i * n..(i + 1) * n];` of a shared slice parameter or a
//! local `Vec` or array, `let row = &mut m[..];` of a local `Vec` or array or an output slice,
//! and views of views (`let head = &row[..2];`).
//!
//! A view is not a variable of the derivative: its bounds are (hidden `usize` variables made
//! once, where the `let` is), and every use of the view is lowered as a use of the variable it
//! views. `row[j]` reads `m[start + j]` (after checking `j` against the view's length, as the
//! slice would), `row[j] = ..` of a mutable view writes it, `row.iter()` and `for x in row`
//! loop over that range of `m`, `f(row)` lends `&m[start..end]` (`&mut m[start..end]` from a
//! mutable view), and code kept as written (`row.len()`, a range `0..row.len()`, an `assert!`)
//! sees `(&m[start..end])`. Rustc has checked that nothing else uses `m` while a mutable view
//! lives. Anything else (assigning through a shared view, returning a view) is a compile error
//! that says what to write.

use super::*;
use crate::ir::Lent;

/// What a view stands for.
#[derive(Clone)]
pub(super) struct View {
    pub(super) base: Var,
    pub(super) base_ident: Ident,
    pub(super) start: (Var, Ident),
    pub(super) end: (Var, Ident),
    /// Bound as `&mut base[..]`: written through.
    pub(super) mutable: bool,
}

impl Lower {
    /// `let name = &base[range];`: binds `name` as a view, if `base` can be viewed. `None`
    /// (nothing lowered) otherwise.
    pub(super) fn view_binding(
        &mut self,
        pat: &Pat,
        ty: Option<&Type>,
        init: &Expr,
        out: &mut Vec<Inst>,
    ) -> Option<()> {
        let Pat::Ident(p) = pat else { return None };
        if p.by_ref.is_some() || p.subpat.is_some() {
            return None;
        }
        // `let v = w;` of a shared slice parameter, or `let row = &m[..];`, `&mut m[..]`.
        let mutable = matches!(init, Expr::Reference(r) if r.mutability.is_some());
        let sliced = match init {
            Expr::Reference(r) => &*r.expr,
            Expr::Path(_) => {
                let (var, _) = self.local_var(init)?;
                let shared = self.vars[var.0 as usize]
                    .ty
                    .as_ref()
                    .and_then(slice_of)
                    .is_some_and(|(mutable, _)| !mutable);
                if !shared {
                    return None;
                }
                init
            }
            _ => return None,
        };
        let (base_expr, range) = match sliced {
            Expr::Index(ix) => match &*ix.index {
                Expr::Range(rg) => (&*ix.expr, Some(rg)),
                _ => return None,
            },
            other => (other, None),
        };
        let (base, base_ident) = self.local_var(base_expr)?;
        let _ = ty;
        // A view of a view: a view of the variable that one views, at the bounds added.
        if let Some(outer) = self.view_of(base) {
            if mutable && !outer.mutable {
                return None;
            }
            let (start, end) = self.view_part(&outer, range, init.span(), out);
            let var = self.new_var(p.ident.clone(), None, false);
            self.views.insert(
                var.0,
                View {
                    base: outer.base,
                    base_ident: outer.base_ident,
                    start,
                    end,
                    mutable,
                },
            );
            self.bind(var);
            return Some(());
        }
        if !self.viewable(base, mutable) {
            return None;
        }
        let n = self.hidden;
        self.hidden += 1;
        let usize_ty: Type = syn::parse_quote!(usize);
        let (start_value, end_value) = self.range_values(range, init.span(), out, |this, out| {
            let v = this.value(init.span());
            out.push(Inst::Opaque {
                out: v,
                tokens: quote!(#base_ident.len()),
                reads: vec![base],
                may_write: false,
                only_inactive: None,
            });
            v
        });
        let start = self.hidden_usize(&format!("__ad_view_start{n}"), &usize_ty, start_value, out);
        let end = self.hidden_usize(&format!("__ad_view_end{n}"), &usize_ty, end_value, out);
        // The slicing itself, for its bounds check: it panics where the user's would.
        let (s, e) = (&start.1, &end.1);
        out.push(Inst::Verbatim {
            tokens: quote!(let _ = &#base_ident[#s..#e];),
            reads: vec![base, start.0, end.0],
            may_write: false,
            item: false,
        });
        let var = self.new_var(p.ident.clone(), None, false);
        self.views.insert(
            var.0,
            View {
                base,
                base_ident,
                start,
                end,
                mutable,
            },
        );
        self.bind(var);
        Some(())
    }

    /// `view[range]` (all of it without a range): its bounds in the variable the view views,
    /// as hidden variables, after the check the slicing makes (it panics where the user's
    /// would).
    pub(super) fn view_part(
        &mut self,
        view: &View,
        range: Option<&syn::ExprRange>,
        span: Span,
        out: &mut Vec<Inst>,
    ) -> ((Var, Ident), (Var, Ident)) {
        let n = self.hidden;
        self.hidden += 1;
        let usize_ty: Type = syn::parse_quote!(usize);
        let (vs, ve) = (view.start.clone(), view.end.clone());
        let read = |this: &mut Self, (var, ident): &(Var, Ident), out: &mut Vec<Inst>| {
            let v = this.value(span);
            out.push(Inst::Read {
                out: v,
                var: *var,
                ident: ident.clone(),
            });
            v
        };
        // The bounds relative to the view, `0` and its length where the range leaves them out.
        let (relative_start, relative_end) = self.range_values(range, span, out, |this, out| {
            let (s, e) = (read(this, &vs, out), read(this, &ve, out));
            this.index_arith(crate::ir::Arith::Sub, e, s, out)
        });
        let a = self.hidden_usize(
            &format!("__ad_view_from{n}"),
            &usize_ty,
            relative_start,
            out,
        );
        let b = self.hidden_usize(&format!("__ad_view_to{n}"), &usize_ty, relative_end, out);
        let (base_ident, si, ei, ai, bi) = (&view.base_ident, &vs.1, &ve.1, &a.1, &b.1);
        out.push(Inst::Verbatim {
            tokens: quote!(let _ = &(&#base_ident[#si..#ei])[#ai..#bi];),
            reads: vec![view.base, vs.0, ve.0, a.0, b.0],
            may_write: false,
            item: false,
        });
        let s = read(self, &vs, out);
        let ra = read(self, &a, out);
        let start_value = self.index_arith(crate::ir::Arith::Add, s, ra, out);
        let start = self.hidden_usize(
            &format!("__ad_view_start_in{n}"),
            &usize_ty,
            start_value,
            out,
        );
        let s = read(self, &vs, out);
        let rb = read(self, &b, out);
        let end_value = self.index_arith(crate::ir::Arith::Add, s, rb, out);
        let end = self.hidden_usize(&format!("__ad_view_end_in{n}"), &usize_ty, end_value, out);
        (start, end)
    }

    /// The bounds of `range`, the end past the last element: `0` where it has no start, and
    /// what `end` gives where it has no end.
    fn range_values(
        &mut self,
        range: Option<&syn::ExprRange>,
        span: Span,
        out: &mut Vec<Inst>,
        end: impl FnOnce(&mut Self, &mut Vec<Inst>) -> Value,
    ) -> (Value, Value) {
        let start = match range.and_then(|rg| rg.start.as_ref()) {
            Some(s) => self.expr(s, out),
            None => {
                let v = self.value(span);
                out.push(Inst::Const {
                    out: v,
                    tokens: quote!(0usize),
                });
                v
            }
        };
        let end = match range.and_then(|rg| rg.end.as_ref().map(|e| (rg, e))) {
            Some((rg, e)) => {
                let v = self.expr(e, out);
                if matches!(rg.limits, syn::RangeLimits::Closed(_)) {
                    let one = self.value(span);
                    out.push(Inst::Const {
                        out: one,
                        tokens: quote!(1usize),
                    });
                    self.index_arith(crate::ir::Arith::Add, v, one, out)
                } else {
                    v
                }
            }
            None => end(self, out),
        };
        (start, end)
    }

    /// A shared slice parameter, or a local `Vec` or array; for a mutable view an output slice
    /// or a local.
    fn viewable(&self, var: Var, mutable_view: bool) -> bool {
        let data = &self.vars[var.0 as usize];
        match data.ty.as_ref().and_then(slice_of) {
            Some((mutable, _)) => mutable == mutable_view,
            None => {
                !(data.known_inactive
                    || self.array_refs.contains(&var)
                    || data
                        .ty
                        .as_ref()
                        .is_some_and(|t| const_of(t).is_some() || is_float_type(t)))
            }
        }
    }

    fn hidden_usize(
        &mut self,
        name: &str,
        ty: &Type,
        init: Value,
        out: &mut Vec<Inst>,
    ) -> (Var, Ident) {
        let ident = Ident::new(name, Span::mixed_site());
        let var = self.new_var(ident.clone(), Some(ty.clone()), false);
        out.push(Inst::Let {
            var,
            init: Some(init),
        });
        self.bind(var);
        (var, ident)
    }

    /// The view a variable is, if it is one.
    pub(super) fn view_of(&self, var: Var) -> Option<View> {
        self.views.get(&var.0).cloned()
    }

    /// `row[j]` of a view: the viewed variable and the index `start + j`, after a check of `j`
    /// against the view's length.
    pub(super) fn view_index(
        &mut self,
        view: &View,
        index: &Expr,
        out: &mut Vec<Inst>,
    ) -> (Var, Ident, Value) {
        let j = self.expr(index, out);
        let n = self.hidden;
        self.hidden += 1;
        let usize_ty: Type = syn::parse_quote!(usize);
        let (jv, ji) = self.hidden_usize(&format!("__ad_view_at{n}"), &usize_ty, j, out);
        let (s, e) = (&view.start.1, &view.end.1);
        out.push(Inst::Verbatim {
            tokens: quote!(::core::assert!(#ji < #e - #s, "index out of bounds: the len is {} but the index is {}", #e - #s, #ji);),
            reads: vec![jv, view.start.0, view.end.0],
            may_write: false,
            item: false,
        });
        let j = self.value(index.span());
        out.push(Inst::Read {
            out: j,
            var: jv,
            ident: ji,
        });
        let start = self.value(index.span());
        out.push(Inst::Read {
            out: start,
            var: view.start.0,
            ident: view.start.1.clone(),
        });
        let at = self.index_arith(crate::ir::Arith::Add, start, j, out);
        (view.base, view.base_ident.clone(), at)
    }

    /// A view passed on to a call: the viewed variable, lent as the range (to a function that
    /// may write it, from a mutable view).
    pub(super) fn view_lent(
        &mut self,
        view: &View,
        span: Span,
        out: &mut Vec<Inst>,
    ) -> (Var, Ident, Lent) {
        let mut read = |this: &mut Self, (var, ident): &(Var, Ident)| {
            let v = this.value(span);
            out.push(Inst::Read {
                out: v,
                var: *var,
                ident: ident.clone(),
            });
            v
        };
        let start = read(self, &view.start);
        let end = read(self, &view.end);
        let how = if view.mutable {
            self.mark_pending(&[view.base], true);
            Lent::Mut {
                var: view.base,
                start: Some(start),
                end: Some(end),
                inclusive: false,
                bare: false,
            }
        } else {
            Lent::Part {
                start: Some(start),
                end: Some(end),
                inclusive: false,
            }
        };
        (view.base, view.base_ident.clone(), how)
    }

    /// A part of a view passed on to a call (`f(&row[1..])`, `f(&mut row[..2])`): the viewed
    /// variable, lent as that part; mutably only from a mutable view.
    pub(super) fn view_part_lent(
        &mut self,
        view: &View,
        range: Option<&syn::ExprRange>,
        mutable: bool,
        span: Span,
        out: &mut Vec<Inst>,
    ) -> (Var, Ident, Lent) {
        let (start, end) = self.view_part(view, range, span, out);
        let part = View {
            start,
            end,
            mutable: mutable && view.mutable,
            ..view.clone()
        };
        self.view_lent(&part, span, out)
    }

    /// The elements of a view, as a loop's source: `base[start..end]`.
    pub(super) fn view_elements(&mut self, view: &View) -> super::sources::Source {
        let elems = super::sources::Source::Elems(view.base, view.base_ident.clone());
        Self::within_view(view, elems)
    }

    /// The places of a view's elements, `row.iter_mut()` of a view bound with `&mut`: those
    /// of `base[start..end]`.
    pub(super) fn view_places(&mut self, view: &View) -> super::sources::Source {
        let places = super::sources::Source::ElemsMut(view.base, view.base_ident.clone());
        Self::within_view(view, places)
    }

    /// `all`, the elements of the viewed variable, cut to the view: `start` skipped, `end -
    /// start` taken.
    fn within_view(view: &View, all: super::sources::Source) -> super::sources::Source {
        let (s, e) = (&view.start.1, &view.end.1);
        super::sources::Source::Take(
            Box::new(super::sources::Source::Skip(
                Box::new(all),
                quote!((#s)),
                vec![view.start.0],
            )),
            quote!((#e - #s)),
            vec![view.start.0, view.end.0],
        )
    }

    /// Tokens kept as written, with each view written as the slice it stands for.
    pub(super) fn expand_views(&self, tokens: TokenStream) -> TokenStream {
        if self.views.is_empty() {
            return tokens;
        }
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        // After a lone `.` (not the second of `..`): a field or method name.
        let dot = |j: Option<usize>| matches!(j.map(|j| &tts[j]), Some(TokenTree::Punct(p)) if p.as_char() == '.');
        let joint_dot = |j: Option<usize>| {
            matches!(j.map(|j| &tts[j]), Some(TokenTree::Punct(p))
                if p.as_char() == '.' && p.spacing() == proc_macro2::Spacing::Joint)
        };
        let after_dot = |i: usize| {
            let prev = i.checked_sub(1);
            dot(prev) && !joint_dot(prev.and_then(|j| j.checked_sub(1)))
        };
        tts.iter()
            .enumerate()
            .map(|(i, tt)| match tt {
                // A field, method or macro of that name is not the view.
                TokenTree::Ident(_)
                    if after_dot(i)
                        || matches!(tts.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!') =>
                {
                    tt.clone()
                }
                TokenTree::Ident(id) => match self
                    .lookup(&id.to_string())
                    .and_then(|v| self.views.get(&v.0))
                {
                    Some(view) => {
                        let (b, s, e) = (&view.base_ident, &view.start.1, &view.end.1);
                        let mut g = proc_macro2::Group::new(
                            proc_macro2::Delimiter::Parenthesis,
                            quote!(&#b[#s..#e]),
                        );
                        g.set_span(id.span());
                        TokenTree::Group(g)
                    }
                    None => tt.clone(),
                },
                TokenTree::Group(g) => {
                    let mut inner =
                        proc_macro2::Group::new(g.delimiter(), self.expand_views(g.stream()));
                    inner.set_span(g.span());
                    TokenTree::Group(inner)
                }
                other => other.clone(),
            })
            .collect()
    }
}

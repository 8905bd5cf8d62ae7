//! Lowering of `for` and `while` loops: ranges, and loops over elements (`sources.rs` says what
//! they iterate), whose body starts by binding the pattern to the elements at a hidden index.

use super::sources::Source;
use super::*;

impl Lower {
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Inst>) {
        if self.for_over_chain(f, out) {
            return;
        }
        match self.element_source(&f.expr) {
            Some(Ok(src)) => return self.element_loop(f, &src, out),
            Some(Err(e)) => {
                self.errors.push(e);
                return;
            }
            None => {}
        }
        if let Some(lit) = float_range_bound(&f.expr) {
            self.errors.push(err(lit, "#[differentiable] does not support a `for` loop over a range of floats (Rust ranges of floats are not iterators); count with an integer and compute the float from it: `for i in 0..n { let t = t0 + i as f64 * h; .. }`"));
            return;
        }
        // A range of integers may read anything (`0..a.len()`); any other iterator must not
        // yield values that carry a derivative.
        let only_inactive = (!is_integer_range(&f.expr)).then_some(Unsupported::with_fix(
            "a `for` loop over values",
            "loop over integers (`for i in 0..n`) or over the elements of a variable (`for x in a.iter()`)",
        ));
        let iter = self.verbatim(&f.expr, out, only_inactive);
        let start = match &*f.expr {
            Expr::Range(r) if r.end.is_some() => {
                let tokens = r
                    .start
                    .as_ref()
                    .map_or_else(|| quote!(0), |s| s.to_token_stream());
                let reads = self.reads_of(&tokens);
                Some((tokens, reads))
            }
            _ => None,
        };
        self.scopes.push(HashMap::new());
        let mut loop_var = None;
        let pat = match &*f.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() && p.mutability.is_none() => {
                // The loop variable counts integers: it has no derivative.
                let var = self.new_var(p.ident.clone(), None, false);
                self.vars[var.0 as usize].known_inactive = true;
                self.bind(var);
                loop_var = Some(var);
                p.ident.to_token_stream()
            }
            Pat::Wild(w) => w.to_token_stream(),
            other => {
                self.errors.push(err(other, "#[differentiable] supports `for` loops with a plain name or `_` as the loop variable"));
                quote!(_)
            }
        };
        self.enter_loop(f.label.as_ref(), false, false);
        let body = self.block(&f.body);
        let frame = self.leave_loop(out);
        self.scopes.pop();
        out.push(Inst::Loop {
            head: crate::ir::LoopHead::For {
                pat,
                var: loop_var,
                iter,
                start,
            },
            body: Block {
                insts: body.insts,
                result: None,
            },
        });
        self.after_loop(&frame, out);
    }

    /// `for x in a.iter()` and its kin: a loop over a hidden index, whose body starts by binding
    /// the pattern to the elements at that index.
    pub(super) fn element_loop(&mut self, f: &syn::ExprForLoop, src: &Source, out: &mut Vec<Inst>) {
        let mut reads = Vec::new();
        Self::source_vars(src, &mut reads);
        // `x.iter().zip(x.iter().skip(1))` reads `x` once: each variable is named once, so that
        // the reverse sweep can write the length again instead of keeping the trip count.
        let mut seen = Vec::new();
        reads.retain(|v| {
            let first = !seen.contains(v);
            seen.push(*v);
            first
        });
        let len = Self::source_len(src);
        let iter = self.value(f.expr.span());
        out.push(Inst::Opaque {
            out: iter,
            tokens: quote!(0..#len),
            reads,
            may_write: false,
            only_inactive: None,
        });
        self.scopes.push(HashMap::new());
        let ident = Ident::new(&format!("__ad_i{}", self.hidden), Span::mixed_site());
        self.hidden += 1;
        let index = self.new_var(ident.clone(), None, false);
        self.vars[index.0 as usize].known_inactive = true;
        self.bind(index);
        let mut insts = Vec::new();
        let mark = self.places.len();
        self.bind_elements(&f.pat, src, (index, &ident), &mut insts);
        // Elements that stand for places of a variable (`*v` of `iter_mut`, `w[j]` of a
        // window) are read and written there: the body is written so.
        let places = self.places.split_off(mark);
        let rewritten = (!places.is_empty()).then(|| self.rewrite_places(&f.body, &places));
        self.enter_loop(f.label.as_ref(), false, false);
        let body = self.block(rewritten.as_ref().unwrap_or(&f.body));
        let frame = self.leave_loop(out);
        self.scopes.pop();
        insts.extend(body.insts);
        out.push(Inst::Loop {
            head: crate::ir::LoopHead::For {
                pat: ident.to_token_stream(),
                var: Some(index),
                iter,
                start: Some((quote!(0), Vec::new())),
            },
            body: Block {
                insts,
                result: None,
            },
        });
        self.after_loop(&frame, out);
    }

    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile, out: &mut Vec<Inst>) {
        let mut cond_insts = Vec::new();
        let cond = self.condition(&w.cond, "while", &mut cond_insts);
        self.enter_loop(w.label.as_ref(), false, false);
        let body = self.block(&w.body);
        let frame = self.leave_loop(out);
        out.push(Inst::Loop {
            head: crate::ir::LoopHead::While {
                cond_block: Block {
                    insts: cond_insts,
                    result: Some(cond),
                },
                cond,
            },
            body: Block {
                insts: body.insts,
                result: None,
            },
        });
        self.after_loop(&frame, out);
    }

    /// The elements of a variable, or of the range a view stands for.
    pub(super) fn elements(&mut self, var: Var, ident: Ident) -> Source {
        match self.view_of(var) {
            Some(view) => self.view_elements(&view),
            None => Source::Elems(var, ident),
        }
    }

    /// The variable `a` of `a.iter().sum()` (also with `.copied()` or `.cloned()`).
    pub(super) fn summed_var(&mut self, recv: &Expr) -> Option<(Var, Ident)> {
        match recv {
            Expr::MethodCall(m) if m.args.is_empty() && m.turbofish.is_none() => {
                match m.method.to_string().as_str() {
                    "iter" | "into_iter" => self
                        .local_var(&m.receiver)
                        .filter(|(var, _)| self.view_of(*var).is_none()),
                    "copied" | "cloned" => self.summed_var(&m.receiver),
                    _ => None,
                }
            }
            Expr::Paren(p) => self.summed_var(&p.expr),
            _ => None,
        }
    }

    /// `a op b` on indices, written so that the reverse sweep can compute it again.
    pub(super) fn index_arith(
        &mut self,
        op: crate::ir::Arith,
        a: Value,
        b: Value,
        out: &mut Vec<Inst>,
    ) -> Value {
        let op_tokens = match op {
            crate::ir::Arith::Sub => quote!(-),
            crate::ir::Arith::Mul => quote!(*),
            _ => quote!(+),
        };
        let v = self.value(Span::call_site());
        out.push(Inst::Arith {
            out: v,
            op,
            a,
            b,
            op_tokens,
        });
        v
    }

    /// A hidden index variable bound to `value`, in scope for the elements bound after it.
    pub(super) fn hidden_index(&mut self, value: Value, out: &mut Vec<Inst>) -> (Var, Ident) {
        let ident = Ident::new(&format!("__ad_i{}", self.hidden), Span::mixed_site());
        self.hidden += 1;
        let var = self.new_var(ident.clone(), None, false);
        self.vars[var.0 as usize].known_inactive = true;
        out.push(Inst::Let {
            var,
            init: Some(value),
        });
        self.bind(var);
        (var, ident)
    }

    /// Binds the loop pattern to the elements at the hidden index `index`.
    pub(super) fn bind_elements(
        &mut self,
        pat: &Pat,
        src: &Source,
        index: (Var, &Ident),
        out: &mut Vec<Inst>,
    ) {
        let pat = match pat {
            Pat::Paren(p) => &*p.pat,
            other => other,
        };
        if let Pat::Wild(_) = pat {
            return;
        }
        let read_index = |this: &mut Self, out: &mut Vec<Inst>| {
            let v = this.value(Span::call_site());
            out.push(Inst::Read {
                out: v,
                var: index.0,
                ident: index.1.clone(),
            });
            v
        };
        match (src, pat) {
            (Source::Take(inner, ..), _) => self.bind_elements(pat, inner, index, out),
            (Source::Rev(inner), _) => {
                // The element at `len - 1 - i`, as index arithmetic.
                let mut reads = Vec::new();
                Self::source_vars(inner, &mut reads);
                let len = self.value(Span::call_site());
                out.push(Inst::Opaque {
                    out: len,
                    tokens: Self::source_len(inner),
                    reads,
                    may_write: false,
                    only_inactive: None,
                });
                let one = self.value(Span::call_site());
                out.push(Inst::Const {
                    out: one,
                    tokens: quote!(1),
                });
                let last = self.index_arith(crate::ir::Arith::Sub, len, one, out);
                let i = read_index(self, out);
                let j = self.index_arith(crate::ir::Arith::Sub, last, i, out);
                let (var, ident) = self.hidden_index(j, out);
                self.bind_elements(pat, inner, (var, &ident), out);
            }
            (Source::StepBy(inner, k, reads), _) => {
                // The element at `i k`.
                let i = read_index(self, out);
                let step = self.value(Span::call_site());
                out.push(Inst::Opaque {
                    out: step,
                    tokens: k.clone(),
                    reads: reads.clone(),
                    may_write: false,
                    only_inactive: None,
                });
                let j = self.index_arith(crate::ir::Arith::Mul, i, step, out);
                let (var, ident) = self.hidden_index(j, out);
                self.bind_elements(pat, inner, (var, &ident), out);
            }
            (Source::Skip(inner, k, reads), _) => {
                // The elements after the first `k`: at the index plus `k`, in a hidden variable.
                // Written as index arithmetic, which the reverse sweep computes again rather
                // than keeping every element read through it.
                let i = read_index(self, out);
                let count = self.value(Span::call_site());
                let literal = match k.clone().into_iter().collect::<Vec<_>>().as_slice() {
                    [TokenTree::Group(g)]
                        if g.delimiter() == proc_macro2::Delimiter::Parenthesis =>
                    {
                        syn::parse2::<syn::LitInt>(g.stream()).ok()
                    }
                    _ => None,
                };
                out.push(match literal {
                    Some(lit) => Inst::Const {
                        out: count,
                        tokens: lit.to_token_stream(),
                    },
                    None => Inst::Opaque {
                        out: count,
                        tokens: k.clone(),
                        reads: reads.clone(),
                        may_write: false,
                        only_inactive: None,
                    },
                });
                let shifted = self.index_arith(crate::ir::Arith::Add, i, count, out);
                let (var, ident) = self.hidden_index(shifted, out);
                self.bind_elements(pat, inner, (var, &ident), out);
            }
            (Source::ElemsMut(var, ident), _) => {
                self.bind_place(pat, *var, ident, None, index, out)
            }
            (Source::Views(var, ident, kind, k, reads, within), _) => {
                let view = (*kind, k.clone(), reads.clone(), within.as_ref());
                self.bind_place(pat, *var, ident, Some(view), index, out)
            }
            (Source::Elems(var, ident), _) => {
                let (name, by_ref) = match pat {
                    Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (p, true),
                    Pat::Reference(r) if r.mutability.is_none() => {
                        match &*r.pat {
                            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => (p, false),
                            other => {
                                self.errors.push(err(other, "#[differentiable] supports a name or `&name` for an element here"));
                                return;
                            }
                        }
                    }
                    other => {
                        self.errors.push(err(
                            other,
                            "#[differentiable] supports a name, `&name` or `_` for an element here; bind the element to a name and take it apart in the body: `for t in v.iter() { let (a, b) = *t; .. }`",
                        ));
                        return;
                    }
                };
                let i = read_index(self, out);
                let elem = self.value(name.span());
                out.push(Inst::Index {
                    out: elem,
                    var: *var,
                    ident: ident.clone(),
                    index: i,
                });
                let x = self.new_var(name.ident.clone(), None, name.mutability.is_some());
                out.push(Inst::Let {
                    var: x,
                    init: Some(elem),
                });
                if by_ref {
                    self.element_vars.push(x);
                }
                // An element that is a struct: a copy of it (its methods are called on it by
                // its type).
                let elem_ty = self.vars[var.0 as usize]
                    .ty
                    .as_ref()
                    .and_then(crate::forward::types::element_type)
                    .filter(|t| crate::lower::names::struct_type(t, &self.type_params).is_some());
                if let Some(ty) = elem_ty {
                    self.struct_types.insert(x.0, ty);
                    self.values[elem.0 as usize].clones = true;
                }
                self.bind(x);
            }
            (Source::Enumerate(inner), Pat::Tuple(t)) if t.elems.len() == 2 => {
                match &t.elems[0] {
                    Pat::Wild(_) => {}
                    Pat::Ident(p)
                        if p.by_ref.is_none() && p.subpat.is_none() && p.mutability.is_none() =>
                    {
                        let i = read_index(self, out);
                        let x = self.new_var(p.ident.clone(), None, false);
                        self.vars[x.0 as usize].known_inactive = true;
                        out.push(Inst::Let {
                            var: x,
                            init: Some(i),
                        });
                        self.bind(x);
                    }
                    other => self.errors.push(err(
                        other,
                        "#[differentiable] supports a name or `_` for the index of `enumerate`",
                    )),
                }
                self.bind_elements(&t.elems[1], inner, index, out);
            }
            (Source::Zip(a, b), Pat::Tuple(t)) if t.elems.len() == 2 => {
                self.bind_elements(&t.elems[0], a, index, out);
                self.bind_elements(&t.elems[1], b, index, out);
            }
            (_, other) => self.errors.push(err(
                other,
                "#[differentiable] expects a pair `(a, b)` here, as `enumerate` and `zip` yield",
            )),
        }
    }
}

/// A float literal bound of a range (`0.0..x`), which no `for` loop can iterate.
fn float_range_bound(e: &Expr) -> Option<&syn::ExprLit> {
    match e {
        Expr::Paren(p) => float_range_bound(&p.expr),
        Expr::MethodCall(m) => float_range_bound(&m.receiver),
        Expr::Range(r) => [r.start.as_deref(), r.end.as_deref()]
            .into_iter()
            .flatten()
            .find_map(|b| match b {
                Expr::Lit(l) if matches!(l.lit, syn::Lit::Float(_)) => Some(l),
                _ => None,
            }),
        _ => None,
    }
}

/// Whether an expression is a range of integers: `a..b`, `a..=b`, with `.rev()` or
/// `.step_by(k)`.
fn is_integer_range(e: &Expr) -> bool {
    match e {
        Expr::Range(_) => true,
        Expr::Paren(p) => is_integer_range(&p.expr),
        Expr::MethodCall(m) => {
            matches!(m.method.to_string().as_str(), "rev" | "step_by")
                && is_integer_range(&m.receiver)
        }
        _ => false,
    }
}

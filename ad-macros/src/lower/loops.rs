//! Lowering of `for` and `while` loops: ranges, loops over elements and the sources they
//! iterate.

use super::*;

impl Lower {
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop, out: &mut Vec<Inst>) {
        // The label is dropped: only a labelled `break` or `continue` could use it, and those
        // are rejected.
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
        self.loop_depth += 1;
        let body = self.block(&f.body);
        self.loop_depth -= 1;
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
    }

    /// `for x in a.iter()` and its kin: a loop over a hidden index, whose body starts by binding
    /// the pattern to the elements at that index.
    pub(super) fn element_loop(&mut self, f: &syn::ExprForLoop, src: &Source, out: &mut Vec<Inst>) {
        let mut reads = Vec::new();
        Self::source_vars(src, &mut reads);
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
        self.loop_depth += 1;
        let body = self.block(rewritten.as_ref().unwrap_or(&f.body));
        self.loop_depth -= 1;
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
    }

    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile, out: &mut Vec<Inst>) {
        // The label is dropped: only a labelled `break` or `continue` could use it, and those
        // are rejected.
        let mut cond_insts = Vec::new();
        let cond = self.condition(&w.cond, "while", &mut cond_insts);
        self.loop_depth += 1;
        let body = self.block(&w.body);
        self.loop_depth -= 1;
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
    }

    /// The variable `a` of `a.iter().sum()` (also with `.copied()` or `.cloned()`).
    pub(super) fn summed_var(&mut self, recv: &Expr) -> Option<(Var, Ident)> {
        match recv {
            Expr::MethodCall(m) if m.args.is_empty() && m.turbofish.is_none() => {
                match m.method.to_string().as_str() {
                    "iter" | "into_iter" => self.local_var(&m.receiver),
                    "copied" | "cloned" => self.summed_var(&m.receiver),
                    _ => None,
                }
            }
            Expr::Paren(p) => self.summed_var(&p.expr),
            _ => None,
        }
    }

    /// What a `for` loop iterates over, when it is the elements of variables:
    /// `a.iter()`, `&a`, with `.copied()`, `.enumerate()` and `.zip(..)`.
    pub(super) fn element_source(&mut self, e: &Expr) -> Option<Result<Source, syn::Error>> {
        match e {
            Expr::Paren(p) => self.element_source(&p.expr),
            Expr::Reference(r) if r.mutability.is_none() => {
                if let Some(src) = self.range_of_elements(&r.expr) {
                    return Some(Ok(src));
                }
                let (var, ident) = self.local_var(&r.expr)?;
                Some(Ok(Source::Elems(var, ident)))
            }
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                match (name.as_str(), m.args.len()) {
                    ("iter", 0) => {
                        if let Some(src) = self.range_of_elements(&m.receiver) {
                            return Some(Ok(src));
                        }
                        let (var, ident) = self.local_var(&m.receiver)?;
                        Some(Ok(Source::Elems(var, ident)))
                    }
                    ("copied" | "cloned", 0) => self.element_source(&m.receiver),
                    ("into_iter", 0) => {
                        let (var, ident) = self.local_var(&m.receiver)?;
                        Some(Ok(Source::Elems(var, ident)))
                    }
                    ("rev", 0) => Some(
                        self.element_source(&m.receiver)?
                            .map(|s| Source::Rev(Box::new(s))),
                    ),
                    ("skip" | "take" | "step_by", 1) => {
                        let inner = self.element_source(&m.receiver)?;
                        let count = &m.args[0];
                        let tokens = count.to_token_stream();
                        let reads = self.reads_of(&tokens);
                        let count = quote!((#tokens));
                        Some(inner.map(|s| match name.as_str() {
                            "skip" => Source::Skip(Box::new(s), count, reads),
                            "take" => Source::Take(Box::new(s), count, reads),
                            _ => Source::StepBy(Box::new(s), count, reads),
                        }))
                    }
                    ("enumerate", 0) => Some(
                        self.element_source(&m.receiver)?
                            .map(|s| Source::Enumerate(Box::new(s))),
                    ),
                    ("zip", 1) => {
                        let left = self.element_source(&m.receiver)?;
                        let arg = &m.args[0];
                        let right = match self.element_source(arg) {
                            Some(r) => r,
                            None => match self.local_var(arg) {
                                Some((var, ident)) => Ok(Source::Elems(var, ident)),
                                None => Err(err(
                                    arg,
                                    "#[differentiable] can zip with the elements of a variable only: `.zip(b.iter())` or `.zip(&b)`",
                                )),
                            },
                        };
                        Some(
                            left.and_then(|l| right.map(|r| Source::Zip(Box::new(l), Box::new(r)))),
                        )
                    }
                    ("iter_mut", 0) => {
                        let (var, ident) = self.local_var(&m.receiver)?;
                        Some(Ok(Source::ElemsMut(var, ident)))
                    }
                    ("windows" | "chunks" | "chunks_exact", 1) => {
                        let (var, ident) = self.local_var(&m.receiver)?;
                        let kind = match name.as_str() {
                            "windows" => ViewKind::Windows,
                            "chunks" => ViewKind::Chunks,
                            _ => ViewKind::ChunksExact,
                        };
                        let k = m.args[0].to_token_stream();
                        let reads = self.reads_of(&k);
                        Some(Ok(Source::Views(var, ident, kind, quote!((#k)), reads)))
                    }
                    _ => {
                        // An adapter over elements: `a.iter().map(..)`, `.rev()`, `.skip(..)`.
                        if self.element_source(&m.receiver).is_some() {
                            Some(Err(err(
                                &m.method,
                                format!(
                                    "#[differentiable] does not support `.{name}(..)` over elements, in a `for` loop or an iterator chain (it supports `iter`, `iter_mut` (in a `for` loop), `into_iter` (in a `for` loop), `copied`, `cloned`, `windows`, `chunks`, `chunks_exact`, `enumerate`, `zip`, `skip`, `take`, `rev`, `step_by` and slices `a[i..j]`, then `map` and `filter`, consumed by a `for` loop, `sum`, `product`, `fold`, `min_by` or `max_by` with `.unwrap()`, or `collect`); loop over indices instead: `for i in 0..a.len()`"
                                ),
                            )))
                        } else {
                            None
                        }
                    }
                }
            }
            _ => None,
        }
    }

    /// The elements of a range of a variable, `a[lo..hi]`: those after the first `lo`, `hi - lo`
    /// of them (also `a[lo..]`, `a[..hi]`, `a[lo..=hi]`).
    fn range_of_elements(&mut self, e: &Expr) -> Option<Source> {
        let Expr::Index(ix) = e else { return None };
        let Expr::Range(r) = &*ix.index else {
            return None;
        };
        let (var, ident) = self.local_var(&ix.expr)?;
        let mut src = Source::Elems(var, ident.clone());
        let start = r.start.as_ref().map(|s| s.to_token_stream());
        // The range's own length: out of bounds, it panics as the function does.
        let count = quote!(#ident[#r].len());
        let mut reads = self.reads_of(&count);
        reads.push(var);
        src = Source::Take(Box::new(src), count, reads);
        if let Some(s) = start {
            let reads = self.reads_of(&s);
            // Skip first: the count of `take` counts from the start of the range.
            src = match src {
                Source::Take(inner, count, reads_t) => Source::Take(
                    Box::new(Source::Skip(inner, quote!((#s)), reads)),
                    count,
                    reads_t,
                ),
                other => Source::Skip(Box::new(other), quote!((#s)), reads),
            };
        }
        Some(src)
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

    /// The expression that counts the elements a source yields.
    pub(super) fn source_len(src: &Source) -> TokenStream {
        match src {
            Source::Elems(_, ident) | Source::ElemsMut(_, ident) => quote!(#ident.len()),
            // As many as the slice's own iterator yields (`k = 0` panics there, as it does
            // in the function).
            Source::Views(_, ident, kind, k, _) => {
                let method = kind.method();
                quote!(::core::iter::ExactSizeIterator::len(&#ident.#method(#k)))
            }
            Source::Enumerate(inner) => Self::source_len(inner),
            Source::Zip(a, b) => {
                let (la, lb) = (Self::source_len(a), Self::source_len(b));
                quote!(::core::cmp::min(#la, #lb))
            }
            Source::Skip(inner, k, _) => {
                let len = Self::source_len(inner);
                quote!(usize::saturating_sub(#len, #k))
            }
            Source::Take(inner, k, _) => {
                let len = Self::source_len(inner);
                quote!(::core::cmp::min(#len, #k))
            }
            Source::Rev(inner) => Self::source_len(inner),
            // As many as `step_by` yields: the first, then one every `k` (`k = 0` panics, as
            // `step_by(0)` does).
            Source::StepBy(inner, k, _) => {
                let len = Self::source_len(inner);
                quote!(usize::div_ceil(#len, #k))
            }
        }
    }

    pub(super) fn source_vars(src: &Source, vars: &mut Vec<Var>) {
        match src {
            Source::Elems(var, _) | Source::ElemsMut(var, _) => vars.push(*var),
            Source::Views(var, _, _, _, reads) => {
                vars.push(*var);
                vars.extend(reads);
            }
            Source::Enumerate(inner) => Self::source_vars(inner, vars),
            Source::Zip(a, b) => {
                Self::source_vars(a, vars);
                Self::source_vars(b, vars);
            }
            Source::Skip(inner, _, reads)
            | Source::Take(inner, _, reads)
            | Source::StepBy(inner, _, reads) => {
                Self::source_vars(inner, vars);
                vars.extend(reads);
            }
            Source::Rev(inner) => Self::source_vars(inner, vars),
        }
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
            (Source::Views(var, ident, kind, k, reads), _) => {
                let view = (*kind, k.clone(), reads.clone());
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

/// What a `for` loop over elements iterates over.
pub(super) enum Source {
    /// The elements of a variable.
    Elems(Var, Ident),
    Enumerate(Box<Source>),
    Zip(Box<Source>, Box<Source>),
    /// `.skip(k)`: the count `k` as written, and the variables it reads.
    Skip(Box<Source>, TokenStream, Vec<Var>),
    /// `.take(k)`.
    Take(Box<Source>, TokenStream, Vec<Var>),
    /// `.rev()`.
    Rev(Box<Source>),
    /// `.step_by(k)`.
    StepBy(Box<Source>, TokenStream, Vec<Var>),
    /// `.iter_mut()` of a variable: the loop writes its elements through `*v`.
    ElemsMut(Var, Ident),
    /// `.windows(k)`, `.chunks(k)` or `.chunks_exact(k)` of a variable: `k` as written, and the
    /// variables it reads.
    Views(Var, Ident, ViewKind, TokenStream, Vec<Var>),
}

/// The slices of a variable that a loop over views yields.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ViewKind {
    /// `windows(k)`: the `k` elements from each index on.
    Windows,
    /// `chunks(k)`: `k` elements from each multiple of `k`, the last chunk perhaps shorter.
    Chunks,
    /// `chunks_exact(k)`: `k` elements from each multiple of `k`, the rest left out.
    ChunksExact,
}

impl ViewKind {
    pub(super) fn method(self) -> Ident {
        let name = match self {
            ViewKind::Windows => "windows",
            ViewKind::Chunks => "chunks",
            ViewKind::ChunksExact => "chunks_exact",
        };
        Ident::new(name, Span::call_site())
    }
}

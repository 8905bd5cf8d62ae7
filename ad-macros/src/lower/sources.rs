//! What a `for` loop over elements iterates over, and a chain starts from: the elements of a
//! variable (`a.iter()`, `&a`, `a[i..j]`, `iter_mut`, `windows`, `chunks`, `chunks_exact`) and
//! the adapters that pick among them by position (`enumerate`, `zip`, `skip`, `take`, `rev`,
//! `step_by`); how many elements that is, and which variables it reads.

use super::*;

impl Lower {
    /// What a `for` loop iterates over, when it is the elements of variables:
    /// `a.iter()`, `&a`, with `.copied()`, `.enumerate()` and `.zip(..)`.
    pub(super) fn element_source(&mut self, e: &Expr) -> Option<Result<Source, syn::Error>> {
        match e {
            Expr::Paren(p) => self.element_source(&p.expr),
            // `for x in v` with `v: &[T]` a shared slice parameter (or a slice bound by `let`):
            // its elements by reference.
            Expr::Path(_) => {
                let (var, ident) = self.local_var(e)?;
                if let Some(view) = self.view_of(var) {
                    return Some(Ok(self.view_elements(&view)));
                }
                let shared_slice = self.vars[var.0 as usize]
                    .ty
                    .as_ref()
                    .and_then(slice_of)
                    .is_some_and(|(mutable, _)| !mutable);
                shared_slice.then(|| Ok(Source::Elems(var, ident)))
            }
            Expr::Reference(r) if r.mutability.is_none() => {
                if let Some(src) = self.range_of_elements(&r.expr) {
                    return Some(Ok(src));
                }
                let (var, ident) = self.local_var(&r.expr)?;
                Some(Ok(self.elements(var, ident)))
            }
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                match (name.as_str(), m.args.len()) {
                    ("iter", 0) => {
                        if let Some(src) = self.range_of_elements(&m.receiver) {
                            return Some(Ok(src));
                        }
                        let (var, ident) = self.local_var(&m.receiver)?;
                        Some(Ok(self.elements(var, ident)))
                    }
                    ("copied" | "cloned", 0) => self.element_source(&m.receiver),
                    ("into_iter", 0) => {
                        let (var, ident) = self.local_var(&m.receiver)?;
                        Some(Ok(self.elements(var, ident)))
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
                    ("windows" | "chunks" | "chunks_exact", 1)
                        if self
                            .local_var(&m.receiver)
                            .is_some_and(|(var, _)| self.view_of(var).is_some()) =>
                    {
                        // Of a view: the windows or chunks of the part of the variable it views.
                        let (var, _) = self.local_var(&m.receiver)?;
                        let view = self.view_of(var)?;
                        let k = m.args[0].to_token_stream();
                        let reads = self.reads_of(&k);
                        Some(Ok(Source::Views(
                            view.base,
                            view.base_ident.clone(),
                            ViewKind::of(&name),
                            quote!((#k)),
                            reads,
                            Some(Within {
                                start: view.start.clone(),
                                end: view.end.clone(),
                            }),
                        )))
                    }
                    ("iter_mut", 0)
                        if self
                            .local_var(&m.receiver)
                            .is_some_and(|(var, _)| self.view_of(var).is_some()) =>
                    {
                        let (var, ident) = self.local_var(&m.receiver)?;
                        let view = self.view_of(var)?;
                        if !view.mutable {
                            return Some(Err(err(
                                &m.method,
                                format!(
                                    "#[differentiable] cannot write through `{ident}`, a slice bound with `&`: bind it with `&mut` (`let {ident} = &mut ..;`)"
                                ),
                            )));
                        }
                        Some(Ok(self.view_places(&view)))
                    }
                    ("iter_mut", 0) => {
                        let (var, ident) = self.local_var(&m.receiver)?;
                        Some(Ok(Source::ElemsMut(var, ident)))
                    }
                    ("windows" | "chunks" | "chunks_exact", 1) => {
                        let (var, ident) = self.local_var(&m.receiver)?;
                        let k = m.args[0].to_token_stream();
                        let reads = self.reads_of(&k);
                        Some(Ok(Source::Views(
                            var,
                            ident,
                            ViewKind::of(&name),
                            quote!((#k)),
                            reads,
                            None,
                        )))
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

    /// The expression that counts the elements a source yields.
    pub(super) fn source_len(src: &Source) -> TokenStream {
        match src {
            Source::Elems(_, ident) | Source::ElemsMut(_, ident) => quote!(#ident.len()),
            // As many as the slice's own iterator yields (`k = 0` panics there, as it does
            // in the function).
            Source::Views(_, ident, kind, k, _, within) => {
                let method = kind.method();
                match within {
                    None => quote!(::core::iter::ExactSizeIterator::len(&#ident.#method(#k))),
                    Some(w) => {
                        let (s, e) = (&w.start.1, &w.end.1);
                        quote!(::core::iter::ExactSizeIterator::len(&#ident[#s..#e].#method(#k)))
                    }
                }
            }
            Source::Enumerate(inner) => Self::source_len(inner),
            Source::Zip(a, b) => {
                let (la, lb) = (Self::source_len(a), Self::source_len(b));
                // Zipped with itself shifted (`x.iter().zip(x.iter().skip(1))`): the shorter is
                // known, and the optimiser sees that every index is in bounds.
                let (ta, tb) = (la.to_string(), lb.to_string());
                match (Self::shortened(b), Self::shortened(a)) {
                    _ if ta == tb => la,
                    (Some(base), _) if Self::source_len(base).to_string() == ta => lb,
                    (_, Some(base)) if Self::source_len(base).to_string() == tb => la,
                    _ => quote!(::core::cmp::min(#la, #lb)),
                }
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

    /// The source that `src` skips elements of (`base.skip(k)`, also `base.skip(k).take(m)`):
    /// `src` is no longer than it.
    fn shortened(src: &Source) -> Option<&Source> {
        match src {
            Source::Skip(inner, ..) => Some(inner),
            Source::Take(inner, ..) => Self::shortened(inner).or(Some(inner)),
            _ => None,
        }
    }

    pub(super) fn source_vars(src: &Source, vars: &mut Vec<Var>) {
        match src {
            Source::Elems(var, _) | Source::ElemsMut(var, _) => vars.push(*var),
            Source::Views(var, _, _, _, reads, within) => {
                vars.push(*var);
                vars.extend(reads);
                if let Some(w) = within {
                    vars.extend([w.start.0, w.end.0]);
                }
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
    /// variables it reads; of the part of it that a view stands for, if `Within`.
    Views(Var, Ident, ViewKind, TokenStream, Vec<Var>, Option<Within>),
}

/// The part `start..end` of a variable that a view (`let row = &m[a..b];`) stands for: the
/// hidden variables that hold its bounds.
pub(super) struct Within {
    pub(super) start: (Var, Ident),
    pub(super) end: (Var, Ident),
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
    /// Of the method's name, `windows`, `chunks` or `chunks_exact`.
    fn of(name: &str) -> ViewKind {
        match name {
            "windows" => ViewKind::Windows,
            "chunks" => ViewKind::Chunks,
            _ => ViewKind::ChunksExact,
        }
    }

    pub(super) fn method(self) -> Ident {
        let name = match self {
            ViewKind::Windows => "windows",
            ViewKind::Chunks => "chunks",
            ViewKind::ChunksExact => "chunks_exact",
        };
        Ident::new(name, Span::call_site())
    }
}

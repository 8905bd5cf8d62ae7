//! Loop elements that stand for places of a variable rather than for values: `v` of
//! `for v in a.iter_mut()`, written and read as `*v`, and `w` of `for w in a.windows(k)` (also
//! `chunks(k)`, `chunks_exact(k)`), read as `w[j]`, measured as `w.len()` and looped over as
//! `w.iter()`. The loop's body is written again with the places themselves, `a[i]` and
//! `a[start + j]`, which the rest of the pipeline differentiates as any indexed read and write.
//! Any other use of such an element is a compile error at the use: it would need a reference,
//! which the derivative does not have.

use super::sources::{ViewKind, Within};
use super::*;

/// An element name and the place it stands for.
pub(super) struct Place {
    name: String,
    /// The variable the element is part of, as written at the loop.
    array: Ident,
    kind: PlaceKind,
}

enum PlaceKind {
    /// `*v` is `array[index]`.
    Elem(Ident),
    /// `w[j]` is `array[start + j]`, `w.len()` is `len`.
    View {
        start: Ident,
        len: Ident,
        what: &'static str,
    },
}

impl Lower {
    /// Binds a loop pattern to the place of the element at the hidden index `index` of the
    /// variable `array`: with `view`, to the window or chunk starting there.
    pub(super) fn bind_place(
        &mut self,
        pat: &Pat,
        var: Var,
        array: &Ident,
        view: Option<(ViewKind, TokenStream, Vec<Var>, Option<&Within>)>,
        index: (Var, &Ident),
        out: &mut Vec<Inst>,
    ) {
        let name = match pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() && p.mutability.is_none() => {
                &p.ident
            }
            other => {
                let what = if view.is_some() {
                    "a window or chunk"
                } else {
                    "an element of `iter_mut`"
                };
                self.errors.push(err(
                    other,
                    format!("#[differentiable] binds {what} to a plain name only (`for v in ..`); take it apart in the body"),
                ));
                return;
            }
        };
        let kind = match view {
            None => PlaceKind::Elem(index.1.clone()),
            Some((kind, k, reads, within)) => {
                let i = self.value(Span::call_site());
                out.push(Inst::Read {
                    out: i,
                    var: index.0,
                    ident: index.1.clone(),
                });
                let count = self.value(Span::call_site());
                out.push(Inst::Opaque {
                    out: count,
                    tokens: k.clone(),
                    reads: reads.clone(),
                    may_write: false,
                    only_inactive: Some(Unsupported::with_fix(
                        "a window or chunk length that carries a derivative",
                        "give the length as an integer",
                    )),
                });
                // Windows start at each index, chunks at each multiple of their length; of a
                // view, from the view's start on.
                let mut start = match kind {
                    ViewKind::Windows => i,
                    _ => self.index_arith(crate::ir::Arith::Mul, i, count, out),
                };
                if let Some(w) = within {
                    let first = self.value(Span::call_site());
                    out.push(Inst::Read {
                        out: first,
                        var: w.start.0,
                        ident: w.start.1.clone(),
                    });
                    start = self.index_arith(crate::ir::Arith::Add, first, start, out);
                }
                let (start_var, start) = self.hidden_index(start, out);
                // The length: `k`, but what is left for the last of `chunks`.
                let mut len_reads = reads;
                len_reads.extend([var, start_var]);
                let len_tokens = match (kind, within) {
                    (ViewKind::Chunks, None) => {
                        quote!(::core::cmp::min(#k, #array.len() - #start))
                    }
                    (ViewKind::Chunks, Some(w)) => {
                        let (end_var, end) = &w.end;
                        len_reads.push(*end_var);
                        quote!(::core::cmp::min(#k, #end - #start))
                    }
                    _ => k,
                };
                let len_value = self.value(Span::call_site());
                out.push(Inst::Opaque {
                    out: len_value,
                    tokens: len_tokens,
                    reads: len_reads,
                    may_write: false,
                    only_inactive: None,
                });
                let (_, len) = self.hidden_index(len_value, out);
                let what = match kind {
                    ViewKind::Windows => "a window of `windows`",
                    ViewKind::Chunks => "a chunk of `chunks`",
                    ViewKind::ChunksExact => "a chunk of `chunks_exact`",
                };
                PlaceKind::View { start, len, what }
            }
        };
        self.places.push(Place {
            name: name.to_string(),
            array: array.clone(),
            kind,
        });
    }

    /// The body of a loop with its element names replaced by the places they stand for.
    /// After an error there, an empty body: the body as written would only add errors that
    /// follow from the first.
    pub(super) fn rewrite_places(&mut self, body: &syn::Block, places: &[Place]) -> syn::Block {
        let errors = self.errors.len();
        let tokens = self.rewrite_tokens(body.to_token_stream(), places);
        if self.errors.len() > errors {
            return syn::parse_quote!({});
        }
        syn::parse2(tokens).unwrap_or_else(|e| {
            self.errors.push(e);
            syn::parse_quote!({})
        })
    }

    fn rewrite_tokens(&mut self, tokens: TokenStream, places: &[Place]) -> TokenStream {
        let tts: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out: Vec<TokenTree> = Vec::with_capacity(tts.len());
        let mut i = 0;
        let place_at = |k: usize| match tts.get(k) {
            Some(TokenTree::Ident(id)) => places.iter().find(|p| id == p.name.as_str()),
            _ => None,
        };
        while i < tts.len() {
            let tt = &tts[i];
            // A name right after `.` (a field or method), `'` (a label) or `::` is not the
            // element.
            let punct = |k: Option<usize>| match k.map(|k| &tts[k]) {
                Some(TokenTree::Punct(p)) => Some((p.as_char(), p.spacing())),
                _ => None,
            };
            let (before, two_before) = (punct(i.checked_sub(1)), punct(i.checked_sub(2)));
            let after_path = match (two_before, before) {
                // `..w` and `..=w` are ranges.
                (Some(('.', proc_macro2::Spacing::Joint)), Some(('.', _))) => false,
                (_, Some(('.' | '\'', _))) => true,
                (Some((':', proc_macro2::Spacing::Joint)), Some((':', _))) => true,
                _ => false,
            };
            match tt {
                TokenTree::Punct(p)
                    if p.as_char() == '*'
                        && !super::verbatim::is_operand(i.checked_sub(1).map(|j| &tts[j]))
                        && place_at(i + 1)
                            .is_some_and(|pl| matches!(pl.kind, PlaceKind::Elem(_))) =>
                {
                    let place = place_at(i + 1).expect("checked");
                    let PlaceKind::Elem(index) = &place.kind else {
                        unreachable!()
                    };
                    let span = tts[i + 1].span();
                    let mut array = place.array.clone();
                    array.set_span(span);
                    let mut group = proc_macro2::Group::new(
                        proc_macro2::Delimiter::Bracket,
                        index.to_token_stream(),
                    );
                    group.set_span(span);
                    out.push(TokenTree::Ident(array));
                    out.push(TokenTree::Group(group));
                    i += 2;
                }
                TokenTree::Ident(id) if !after_path && place_at(i).is_some() => {
                    let place = place_at(i).expect("checked");
                    match &place.kind {
                        PlaceKind::Elem(_) => {
                            self.errors.push(err(id, format!("#[differentiable] reads and writes an element of `iter_mut` as `*{id}` only (`*{id} = ..`, `*{id} += ..`, `.. *{id} ..`); write `*{id}`, or loop over indices: `for i in 0..a.len() {{ a[i] = ..; }}`")));
                            i += 1;
                        }
                        PlaceKind::View { start, len, what } => {
                            let mut array = place.array.clone();
                            array.set_span(id.span());
                            let next = tts.get(i + 1);
                            let method = match (next, tts.get(i + 2), tts.get(i + 3)) {
                                (
                                    Some(TokenTree::Punct(dot)),
                                    Some(TokenTree::Ident(m)),
                                    Some(TokenTree::Group(g)),
                                ) if dot.as_char() == '.'
                                    && g.delimiter() == proc_macro2::Delimiter::Parenthesis
                                    && g.stream().is_empty() =>
                                {
                                    Some(m.to_string())
                                }
                                _ => None,
                            };
                            match (next, method.as_deref()) {
                                (Some(TokenTree::Group(g)), _)
                                    if g.delimiter() == proc_macro2::Delimiter::Bracket =>
                                {
                                    let j = self.rewrite_tokens(g.stream(), places);
                                    let mut group = proc_macro2::Group::new(
                                        proc_macro2::Delimiter::Bracket,
                                        quote!(#start + (#j)),
                                    );
                                    group.set_span(g.span());
                                    out.push(TokenTree::Ident(array));
                                    out.push(TokenTree::Group(group));
                                    i += 2;
                                }
                                (_, Some("len")) => {
                                    // The hidden name keeps its own span: hygiene decides
                                    // what it names.
                                    out.push(TokenTree::Ident(len.clone()));
                                    i += 4;
                                }
                                (_, Some("iter")) => {
                                    out.extend(quote!(#array[#start..#start + #len].iter()));
                                    i += 4;
                                }
                                _ => {
                                    self.errors.push(err(id, format!("#[differentiable] reads {what} as `{id}[j]`, `{id}.len()` or `{id}.iter()` only; write one of those, or loop over indices: `for i in 0..a.len()`")));
                                    i += 1;
                                }
                            }
                        }
                    }
                }
                TokenTree::Group(g) => {
                    let mut inner = proc_macro2::Group::new(
                        g.delimiter(),
                        self.rewrite_tokens(g.stream(), places),
                    );
                    inner.set_span(g.span());
                    out.push(TokenTree::Group(inner));
                    i += 1;
                }
                other => {
                    out.push(other.clone());
                    i += 1;
                }
            }
        }
        out.into_iter().collect()
    }
}

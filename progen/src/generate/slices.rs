//! Slices: arrays, `Vec`s and slices lent to callees that take `&[f64]` (whole or in part),
//! views bound by `let` (`let row = &m[i * k..(i + 1) * k];`), and `&[f64; N]` parameters.

use super::*;

impl Gen<'_> {
    /// What can be lent as a `&[f64]` of `n` elements: a slice or view of that length as it
    /// is, or a part of a slice parameter or a local array or `Vec` long enough.
    pub(super) fn slice_sources(&self, n: usize) -> Vec<AVar> {
        self.arrays
            .iter()
            .filter(|a| match a.kind {
                AKind::Slice => a.len >= n,
                AKind::View => a.len == n && !self.out_views.contains(&a.name),
                AKind::LocalArr | AKind::LocalVec => a.len >= n,
                _ => false,
            })
            .cloned()
            .collect()
    }

    pub(super) fn slice_arg(&mut self, n: usize) -> Option<Arg> {
        let c = self.slice_sources(n);
        if c.is_empty() {
            return None;
        }
        let a = self.rng.pick(&c).clone();
        let local = matches!(a.kind, AKind::LocalArr | AKind::LocalVec);
        Some(
            if a.kind == AKind::View || (a.len == n && !local && self.rng.chance(0.5)) {
                Arg::Name(a.name)
            } else if a.len == n {
                let p = if local && self.rng.chance(0.5) {
                    Part::Whole
                } else if self.rng.chance(0.5) {
                    Part::Full
                } else {
                    Part::Range(0, n)
                };
                Arg::Part(a.name, p, false)
            } else if self.rng.chance(0.3) {
                Arg::Part(a.name, Part::To(n), false)
            } else {
                let lo = self.rng.below(a.len - n + 1);
                Arg::Part(a.name, Part::Range(lo, lo + n), false)
            },
        )
    }

    /// What can be lent as a `&mut [f64]` of `n` elements to a callee that adds at most
    /// `need` to each (its `out_spent`): an output slice of this function, whole or in part, or
    /// a local array or `Vec` (or a `mut` parameter) long enough with that much room; none
    /// that a `for` or a view borrows. To a `&mut [f64; N]` (`array`): an array of `n`
    /// elements whole, a local or a `mut` parameter, or an output of this function declared so.
    pub(super) fn out_sources(&self, n: usize, need: f64, array: bool) -> Vec<AVar> {
        self.arrays
            .iter()
            .enumerate()
            .filter(|(i, a)| {
                // The binding in scope of its name.
                self.arrays.iter().rposition(|v| v.name == a.name) == Some(*i)
                    && a.writable()
                    && a.len >= n
                    && (!array || (a.len == n && !self.const_arrays.contains(&a.name)))
                    && match a.kind {
                        AKind::Out => !array || self.out_arrays.contains(&a.name),
                        AKind::LocalArr | AKind::Arr => {
                            a.cap - a.base - a.spent >= need * self.execs
                        }
                        AKind::LocalVec | AKind::Vec | AKind::MutView => {
                            !array && a.cap - a.base - a.spent >= need * self.execs
                        }
                        _ => false,
                    }
            })
            .map(|(_, a)| a.clone())
            .collect()
    }

    /// An argument for a `&mut [f64]` parameter of `n` elements (see `out_sources`): an output
    /// slice passed on as it is, or `&mut v`, `&mut v[..]`, `&mut v[lo..hi]`, `&mut v[..hi]`.
    pub(super) fn out_arg(&mut self, n: usize, need: f64, array: bool) -> Option<Arg> {
        let c = self.out_sources(n, need, array);
        if c.is_empty() {
            return None;
        }
        // A local rather than this function's output, where there is one: the output is
        // passed on in most functions that have one already.
        let locals: Vec<AVar> = c.iter().filter(|a| a.kind != AKind::Out).cloned().collect();
        let views: Vec<AVar> = c
            .iter()
            .filter(|a| a.kind == AKind::MutView)
            .cloned()
            .collect();
        let a = if !views.is_empty() && self.rng.chance(0.6) {
            self.rng.pick(&views).clone()
        } else if !locals.is_empty() && self.rng.chance(0.7) {
            self.rng.pick(&locals).clone()
        } else {
            self.rng.pick(&c).clone()
        };
        // A mutable view is passed on as an output slice is (`&mut row` would be a
        // `&mut &mut [f64]`).
        let output = matches!(a.kind, AKind::Out | AKind::MutView);
        if array {
            // As it is: a slice of it would not be a `&mut [f64; N]`.
            return Some(if output {
                Arg::Name(a.name)
            } else {
                Arg::Part(a.name, Part::Whole, true)
            });
        }
        Some(if a.len == n {
            if output && self.rng.chance(0.5) {
                Arg::Name(a.name)
            } else {
                // `&mut out` of an output slice would be a `&mut &mut [f64]`.
                let p = if !output && self.rng.chance(0.4) {
                    Part::Whole
                } else if self.rng.chance(0.5) {
                    Part::Full
                } else {
                    Part::Range(0, n)
                };
                Arg::Part(a.name, p, true)
            }
        } else if self.rng.chance(0.3) {
            Arg::Part(a.name, Part::To(n), true)
        } else {
            let lo = self.rng.below(a.len - n + 1);
            Arg::Part(a.name, Part::Range(lo, lo + n), true)
        })
    }

    /// `let row = &a[lo..hi];` of a slice parameter or a local array or `Vec`, at literal
    /// bounds or at `i * k..(i + 1) * k`; the local is not written while the view lives.
    pub(super) fn let_view(&mut self, out: &mut Vec<Stmt>) {
        let c: Vec<AVar> = self
            .arrays
            .iter()
            .filter(|a| {
                a.len >= 2
                    && matches!(
                        a.kind,
                        AKind::Slice
                            | AKind::LocalArr
                            | AKind::LocalVec
                            | AKind::View
                            | AKind::MutView
                    )
            })
            .cloned()
            .collect();
        if c.is_empty() {
            return;
        }
        let a = self.rng.pick(&c).clone();
        self.let_view_of(a, out);
    }

    /// `let row = &a[lo..hi];` of `a`.
    pub(super) fn let_view_of(&mut self, a: AVar, out: &mut Vec<Stmt>) {
        let (lo, hi, k) = self.view_bounds(&a);
        let name = self.fresh("row");
        if self.out_views.contains(&a.name) {
            self.out_views.push(name.clone());
        }
        if a.kind != AKind::Slice {
            let at = self.arrays.iter().rposition(|v| v.name == a.name).unwrap();
            self.views
                .push((self.arrays.len(), a.name.clone(), self.arrays[at].locked));
            self.arrays[at].locked = true;
        }
        self.arrays.push(AVar {
            name: name.clone(),
            kind: AKind::View,
            active: a.active,
            len: k,
            cap: a.cap,
            base: a.cap,
            spent: 0.0,
            locked: true,
            param_mut: false,
        });
        out.push(Stmt::LetView {
            name,
            arr: a.name,
            lo,
            hi,
        });
    }

    /// The bounds of a view of `a` and its length: literals, or `i * k..(i + 1) * k`.
    fn view_bounds(&mut self, a: &AVar) -> (IE, IE, usize) {
        let k = self.rng.range(2, a.len);
        let rows: Vec<IVar> = self
            .ints
            .iter()
            .filter(|i| (i.hi + 1) * k <= a.len)
            .cloned()
            .collect();
        let (lo, hi) = if !rows.is_empty() && self.rng.chance(0.5) {
            let i = self.rng.pick(&rows).clone();
            let lo = IE::Mul(Box::new(IE::Var(i.name.clone())), Box::new(IE::Lit(k)));
            let next = IE::Add(Box::new(IE::Var(i.name)), Box::new(IE::Lit(1)));
            (lo, IE::Mul(Box::new(next), Box::new(IE::Lit(k))))
        } else {
            let s = self.rng.below(a.len - k + 1);
            (IE::Lit(s), IE::Lit(s + k))
        };
        (lo, hi, k)
    }

    /// `let row = &mut a[lo..hi];` of a local array or `Vec`, a `mut` parameter or an output,
    /// then statements that write it (at least once), read it, lend it to callees that write
    /// it, loop over it and view it again; `a` is out of scope until they end, and then has
    /// what the view spent of its budget.
    pub(super) fn let_mut_view(&mut self, out: &mut Vec<Stmt>) {
        let c: Vec<usize> = (0..self.arrays.len())
            .filter(|&i| {
                let a = &self.arrays[i];
                a.len >= 2
                    && a.writable()
                    && a.kind != AKind::MutView
                    && !self.const_arrays.contains(&a.name)
                    && self.arrays.iter().rposition(|v| v.name == a.name) == Some(i)
            })
            .collect();
        if c.is_empty() {
            return;
        }
        let at = *self.rng.pick(&c);
        let a = self.arrays[at].clone();
        let (lo, hi, k) = self.view_bounds(&a);
        let name = self.fresh("row");
        if a.kind == AKind::Out {
            self.out_views.push(name.clone());
        }
        let parent = self.arrays.remove(at);
        let view = AVar {
            name: name.clone(),
            kind: AKind::MutView,
            active: false,
            len: k,
            cap: a.cap,
            base: a.base,
            spent: a.spent,
            locked: false,
            param_mut: false,
        };
        self.arrays.push(view.clone());
        // The scope of the body (see `block`).
        let marks = (self.floats.len(), self.arrays.len(), self.ints.len());
        let (views, closures, opts) = (self.views.len(), self.closures.len(), self.opts.clone());
        let modes = self.modes.len();
        let (svars, farrs) = (self.svars.len(), self.farrs.len());
        let mut body = Vec::new();
        self.assign_elem_of(view.clone(), &mut body);
        // Most of the time one of the other uses of a mutable view, then anything.
        match self.rng.weighted(&[2, 2, 2, 2, 2]) {
            0 => self.for_iter_mut_of(view, &mut body),
            1 => self.call_stmt_writing(&mut body, true),
            2 => self.let_view_of(view, &mut body),
            3 => self.for_windows(&mut body, view, None),
            _ => {}
        }
        let n = self.rng.range(1, 3);
        body.extend(self.block(n));
        while self.views.len() > views {
            let (_, viewed, locked) = self.views.pop().unwrap();
            if let Some(v) = self.arrays.iter_mut().rev().find(|v| v.name == viewed) {
                v.locked = locked;
            }
        }
        self.floats.truncate(marks.0);
        self.arrays.truncate(marks.1);
        self.ints.truncate(marks.2);
        self.closures.truncate(closures);
        self.opts = opts;
        self.modes.truncate(modes);
        self.svars.truncate(svars);
        self.farrs.truncate(farrs);
        let view = self.arrays.pop().unwrap();
        debug_assert!(view.kind == AKind::MutView);
        let mut parent = parent;
        if parent.kind == AKind::Out {
            self.out_spent += view.spent - parent.spent;
        }
        parent.spent = view.spent;
        parent.active = false;
        self.arrays.insert(at, parent);
        out.push(Stmt::LetMutView {
            name,
            arr: a.name,
            lo,
            hi,
            body,
        });
    }

    /// `p[i]` of a `&[f64; N]` parameter.
    pub(super) fn arr_ref_read(&mut self) -> Option<(FE, f64)> {
        if self.arr_refs.is_empty() {
            return None;
        }
        let (p, n) = self.rng.pick(&self.arr_refs).clone();
        let idx = self.index(n);
        Some((FE::Index(p, Box::new(idx)), PARAM_CAP))
    }
}

impl Gen<'_> {
    /// Whether `e` surely carries a derivative: it reads an active float or an element of an
    /// active array through operations that pass a derivative on. What may not (a call, a
    /// chain, a closure, a step such as `floor`, a float turned into an integer) counts as
    /// inactive; `also` names more active floats (a closure's parameter).
    pub(super) fn is_active(&self, e: &FE, also: &[String]) -> bool {
        let name_active = |n: &String| also.contains(n) || self.active.contains(n);
        let arr_active = |n: &String| {
            self.arrays
                .iter()
                .rev()
                .find(|a| &a.name == n)
                .is_some_and(|a| a.active)
                || self.arr_refs.iter().any(|r| &r.0 == n)
        };
        let go = |x: &FE| self.is_active(x, also);
        match e {
            FE::Var(n) | FE::Deref(n) | FE::Field(n, _) => name_active(n),
            FE::Index(n, _) => arr_active(n),
            FE::Neg(a) | FE::Rem(a, _) | FE::Powi(a, _) | FE::WithLit(_, a, _) => go(a),
            FE::Clamp(a, ..) | FE::PowiVar(a, _) => go(a),
            FE::Unary { name, arg, .. } => {
                !matches!(
                    *name,
                    "signum" | "floor" | "ceil" | "round" | "round_ties_even" | "trunc"
                ) && go(arg)
            }
            FE::Bin(_, a, b) | FE::Binary(_, a, b) => go(a) || go(b),
            FE::MulAdd(a, b, c) => go(a) || go(b) || go(c),
            FE::If(_, a, b) | FE::MatchBool(_, a, b) => go(a) || go(b),
            FE::Match(_, arms) => arms.iter().any(|(_, x)| go(x)),
            FE::Block(_, _, v) => go(v),
            FE::MatchPair { first, second, .. } => go(first) || go(second),
            FE::MatchOpt { some, none, .. } => go(some) || go(none),
            FE::Lit(_)
            | FE::ConstF(_)
            | FE::FromInt(_)
            | FE::Call(..)
            | FE::Named(_)
            | FE::ConstItem(_)
            | FE::Chain(_)
            | FE::Unwrap(..)
            | FE::Method(_)
            | FE::CallClosure(..) => false,
        }
    }

    /// Whether the items a chain collects surely carry a derivative.
    pub(super) fn chain_active(&self, c: &Chain) -> bool {
        let arr = |n: &String| self.arrays.iter().rev().any(|a| &a.name == n && a.active);
        let mut active = match &c.source {
            Source::Iter { arr: a, .. } | Source::Enumerate(a) | Source::Windows(a, ..) => arr(a),
            Source::Zip(a, b) => arr(a) && arr(b),
        };
        for a in &c.adapters {
            if let Adapter::Map(names, body) = a {
                let also: &[String] = if active { names } else { &[] };
                active = self.is_active(body, also);
            }
        }
        active
    }

    /// Notes a float local as active if what it is bound to is.
    pub(super) fn note_active(&mut self, name: &str, init: &FE) {
        if self.is_active(init, &[]) {
            self.active.push(name.to_string());
        }
    }
}

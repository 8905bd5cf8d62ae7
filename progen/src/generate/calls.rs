//! Calls of earlier functions of the batch: which callee this scope can fill, its arguments,
//! and calls as statements.

use super::*;

impl Gen<'_> {
    /// A call of an earlier function whose parameters this scope can fill.
    pub(super) fn call_expr(&mut self, d: usize) -> Option<(FE, f64)> {
        let idx = self.callee(true)?;
        let callee = &self.funcs[idx];
        let args = self.args(&callee.params.clone(), d)?;
        let callee = &self.funcs[idx];
        Some((FE::Call(callee.name.clone(), args), callee.ret_bound))
    }

    /// An earlier function that returns a value (`value`) or any; none with `&mut` outputs in
    /// an expression (a borrow there may clash with a read of the same output).
    pub(super) fn callee(&mut self, value: bool) -> Option<usize> {
        let candidates: Vec<usize> = (0..self.funcs.len())
            .filter(|&i| {
                let f = &self.funcs[i];
                // A generic function calls generic functions (at its `T`); the others call
                // functions of their float type and generic ones at it.
                (if self.generic {
                    f.generic
                } else {
                    f.generic || f.single == self.single
                }) && (!value || (f.returns && !f.pair))
                    && (!f.pair || f.pair_shape == Shape::Tuple)
                    && f.params.iter().all(|p| match p.ty {
                        Ty::F | Ty::U(_) | Ty::Pair | Ty::Bool | Ty::Char | Ty::I32(..) => true,
                        Ty::Vec(_) => false,
                        Ty::Out(n) => !value && self.array_for(AKind::Out, n, true).is_some(),
                        Ty::Slice(n) => !self.slice_sources(n).is_empty(),
                        Ty::Arr(n) => {
                            self.array_for(AKind::Arr, n, false).is_some()
                                || self.arr_refs.iter().any(|r| r.1 == n)
                        }
                        // The README: a reference to an array is not passed on to another
                        // function (`f(&q)` does not compile: E0277 "the trait bound `&[f64]:
                        // Differentiable` is not satisfied" in the expansion).
                        Ty::ArrRef(_) => false,
                        Ty::FnArg(_) => !self.fn_items().is_empty(),
                        Ty::ConstSlice(n) => self.array_for(AKind::ConstSlice, n, false).is_some(),
                        Ty::ConstF => self.floats.iter().any(|v| matches!(v.read, FE::ConstF(_))),
                    })
                    && f.params
                        .iter()
                        .filter(|p| matches!(p.ty, Ty::Out(_)))
                        .count()
                        <= 1
            })
            .collect();
        // Functions that take a function are checked only through their callers: call them
        // more often.
        let taking: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| self.funcs[i].takes_fn())
            .collect();
        if !taking.is_empty() && self.rng.chance(0.3) {
            Some(*self.rng.pick(&taking))
        } else if candidates.is_empty() {
            None
        } else {
            Some(*self.rng.pick(&candidates))
        }
    }

    /// The functions of the batch that can be passed as a function `f64 -> f64` of any form
    /// (see `Ty::FnArg`): one float parameter, a float result (a generated derivative or rules
    /// only).
    pub(super) fn fn_items(&self) -> Vec<usize> {
        (0..self.funcs.len())
            .filter(|&i| {
                let f = &self.funcs[i];
                f.single == self.single
                    && !f.generic
                    && f.returns
                    && !f.pair
                    && f.params.len() == 1
                    && f.params[0].ty == Ty::F
            })
            .collect()
    }

    pub(super) fn array_for(&self, kind: AKind, len: usize, write: bool) -> Option<String> {
        self.arrays
            .iter()
            .filter(|a| {
                a.len == len
                    && (a.kind == kind || (kind == AKind::Arr && a.kind == AKind::LocalArr))
                    && (!write || !a.locked)
            })
            .map(|a| a.name.clone())
            .next_back()
    }

    pub(super) fn args(&mut self, params: &[Param], d: usize) -> Option<Vec<Arg>> {
        let mut args = Vec::new();
        for p in params {
            args.push(match p.ty {
                Ty::F => Arg::F(self.fe_capped(d, PARAM_CAP).0),
                Ty::U(hi) => Arg::U(self.index(hi + 1)),
                Ty::Slice(n) => self.slice_arg(n)?,
                Ty::Arr(n) => {
                    let refs: Vec<String> = self
                        .arr_refs
                        .iter()
                        .filter(|r| r.1 == n)
                        .map(|r| r.0.clone())
                        .collect();
                    if !refs.is_empty() && self.rng.chance(0.5) {
                        Arg::Raw(format!("*{}", self.rng.pick(&refs)))
                    } else {
                        Arg::Name(self.array_for(AKind::Arr, n, false)?)
                    }
                }
                Ty::ArrRef(_) => return None,
                Ty::FnArg(_) => {
                    let items = self.fn_items();
                    Arg::FnItem(self.funcs[*self.rng.pick(&items)].name.clone())
                }
                Ty::ConstSlice(n) => Arg::Name(self.array_for(AKind::ConstSlice, n, false)?),
                Ty::Out(n) => Arg::Name(self.array_for(AKind::Out, n, true)?),
                Ty::ConstF => {
                    let names: Vec<String> = self
                        .floats
                        .iter()
                        .filter_map(|v| match &v.read {
                            FE::ConstF(n) => Some(n.clone()),
                            _ => None,
                        })
                        .collect();
                    Arg::Name(self.rng.pick(&names).clone())
                }
                Ty::Vec(_) => return None,
                Ty::Pair => Arg::Pair(
                    self.fe_capped(d, PARAM_CAP).0,
                    self.fe_capped(d, PARAM_CAP).0,
                ),
                Ty::Bool => Arg::Bool(self.cond(d.min(1))),
                Ty::Char => Arg::Raw(format!("{:?}", self.rng.pick(&['a', 'b', 'c']))),
                Ty::I32(lo, hi) => Arg::Raw(format!(
                    "{}",
                    lo + self.rng.below((hi - lo + 1) as usize) as i32
                )),
            });
        }
        Some(args)
    }

    /// A call for its outputs, or a value bound by `let`.
    pub(super) fn call_stmt(&mut self, out: &mut Vec<Stmt>) {
        // A call for its outputs, or a value bound by `let`.
        let Some(idx) = self.callee(false) else {
            return;
        };
        let params = self.funcs[idx].params.clone();
        let Some(args) = self.args(&params, 1) else {
            return;
        };
        let f = &self.funcs[idx];
        let (name, returns, spent) = (f.name.clone(), f.returns, f.out_spent);
        let pair = f.pair;
        // The callee's increments land in this function's output.
        for a in &args {
            if let Arg::Name(n) = a
                && let Some(av) = self.arrays.iter_mut().find(|v| &v.name == n)
                && av.kind == AKind::Out
            {
                av.spent += spent * self.execs;
                self.out_spent += spent * self.execs;
            }
        }
        if pair {
            let (a, b) = (self.fresh("t"), self.fresh("t"));
            for n in [&a, &b] {
                self.floats.push(FVar {
                    name: n.clone(),
                    read: FE::Var(n.clone()),
                    cap: RET_CAP,
                    base: RET_CAP,
                    spent: 0.0,
                    mutable: false,
                });
            }
            out.push(Stmt::LetCallPair(a, b, name, args));
        } else if returns {
            let t = self.fresh("t");
            self.floats.push(FVar {
                name: t.clone(),
                read: FE::Var(t.clone()),
                cap: RET_CAP,
                base: RET_CAP,
                spent: 0.0,
                mutable: false,
            });
            out.push(Stmt::Let {
                name: t,
                mutable: false,
                typed: true,
                init: FE::Call(name, args),
            });
        } else {
            out.push(Stmt::Call(name, args));
        }
    }
}

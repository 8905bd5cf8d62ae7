//! Calls of earlier functions of the batch: which callee this scope can fill, its arguments,
//! and calls as statements.

use super::*;

impl Gen<'_> {
    /// A call of an earlier function whose parameters this scope can fill.
    pub(super) fn call_expr(&mut self, d: usize) -> Option<(FE, f64)> {
        let idx = self.callee(true, false)?;
        let callee = &self.funcs[idx];
        let args = self.args(&callee.params.clone(), d, 0.0)?;
        let callee = &self.funcs[idx];
        Some((FE::Call(callee.name.clone(), args), callee.ret_bound))
    }

    /// An earlier function that returns a value (`value`) or any; none with `&mut` outputs in
    /// an expression (a borrow there may clash with a read of the same output). With
    /// `writing`, one that writes a `&mut [f64]`.
    pub(super) fn callee(&mut self, value: bool, writing_only: bool) -> Option<usize> {
        // Methods are called on a receiver (`Gen::method_call`).
        let candidates: Vec<usize> = (0..self.funcs.len())
            .filter(|&i| {
                self.can_call(i, value)
                    && !(value && self.funcs[i].ret_opt)
                    && self.funcs[i].method.is_none()
                    && self.funcs[i].ret_struct.is_none()
            })
            .collect();
        self.pick_callee(candidates, writing_only)
    }

    /// An earlier function returning `Option<f64>`, to call in an expression.
    pub(super) fn opt_callee(&mut self) -> Option<usize> {
        let candidates: Vec<usize> = (0..self.funcs.len())
            .filter(|&i| {
                self.can_call(i, true) && self.funcs[i].ret_opt && self.funcs[i].method.is_none()
            })
            .collect();
        (!candidates.is_empty()).then(|| *self.rng.pick(&candidates))
    }

    /// Whether this scope can fill the parameters of function `i` (see `callee`).
    pub(super) fn can_call(&self, i: usize, value: bool) -> bool {
        {
            {
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
                        Ty::Out(n) if p.array => {
                            !value && !self.out_sources(n, f.out_spent, true).is_empty()
                        }
                        Ty::F
                        | Ty::U(_)
                        | Ty::Pair
                        | Ty::Bool
                        | Ty::Char
                        | Ty::I32(..)
                        | Ty::OptF => true,
                        Ty::Vec(_) => false,
                        Ty::Out(n) => !value && !self.out_sources(n, f.out_spent, false).is_empty(),
                        Ty::Slice(n) => !self.slice_sources(n).is_empty(),
                        Ty::Arr(n) => {
                            self.array_arg_for(n, p.generic_len).is_some()
                                || self.arr_refs.iter().any(|r| r.1 == n)
                        }
                        // The README: a reference to an array is not passed on to another
                        // function (`f(&q)` does not compile: E0277 "the trait bound `&[f64]:
                        // Differentiable` is not satisfied" in the expansion).
                        Ty::ArrRef(_) => false,
                        Ty::FnArg(_) => !self.fn_items().is_empty(),
                        Ty::ConstSlice(n) => self.array_for(AKind::ConstSlice, n, false).is_some(),
                        Ty::ConstF => self.floats.iter().any(|v| matches!(v.read, FE::ConstF(_))),
                        // The receiver of a method: see `Gen::method_call`.
                        Ty::Struct(..) if p.name == "self" => true,
                        Ty::Struct(k, by_ref) => self.struct_fillable(k, by_ref),
                    })
                    && f.params
                        .iter()
                        .filter(|p| matches!(p.ty, Ty::Out(_)))
                        .count()
                        <= 1
            }
        }
    }

    fn pick_callee(&mut self, candidates: Vec<usize>, writing_only: bool) -> Option<usize> {
        // Functions that take a function are checked only through their callers: call them
        // more often.
        let taking: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| self.funcs[i].takes_fn())
            .collect();
        // Those that write a `&mut [f64]`: lent a local (`&mut v[lo..hi]`) or an output.
        let writing: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| {
                self.funcs[i]
                    .params
                    .iter()
                    .any(|p| matches!(p.ty, Ty::Out(_)))
            })
            .collect();
        // Those that take a struct by reference: lent one of the scope (`f(&s)`, `f(r)`).
        let lent: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| {
                self.funcs[i]
                    .params
                    .iter()
                    .any(|p| matches!(p.ty, Ty::Struct(_, true)))
            })
            .collect();
        if writing_only {
            return (!writing.is_empty()).then(|| *self.rng.pick(&writing));
        }
        if !taking.is_empty() && self.rng.chance(0.3) {
            Some(*self.rng.pick(&taking))
        } else if !lent.is_empty() && self.rng.chance(0.4) {
            Some(*self.rng.pick(&lent))
        } else if !writing.is_empty() && self.rng.chance(0.5) {
            Some(*self.rng.pick(&writing))
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
                    && f.method.is_none()
                    && f.ret_struct.is_none()
                    && f.returns
                    && !f.pair
                    && !f.ret_opt
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

    /// An array of `n` elements to pass by value: to a `[f64; N]` of the callee's const `N`
    /// any, to a `[f64; n]` one whose type is not this function's `[f64; N]`.
    fn array_arg_for(&self, n: usize, generic_len: bool) -> Option<String> {
        self.arrays
            .iter()
            .filter(|a| {
                a.len == n
                    && matches!(a.kind, AKind::Arr | AKind::LocalArr)
                    && (generic_len || !self.const_arrays.contains(&a.name))
            })
            .map(|a| a.name.clone())
            .next_back()
    }

    /// Arguments for `params`; `need` is what the callee adds to its output at most.
    pub(super) fn args(&mut self, params: &[Param], d: usize, need: f64) -> Option<Vec<Arg>> {
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
                        Arg::Name(self.array_arg_for(n, p.generic_len)?)
                    }
                }
                Ty::ArrRef(_) => return None,
                Ty::FnArg(_) => {
                    let items = self.fn_items();
                    Arg::FnItem(self.funcs[*self.rng.pick(&items)].name.clone())
                }
                Ty::ConstSlice(n) => Arg::Name(self.array_for(AKind::ConstSlice, n, false)?),
                Ty::Out(n) => self.out_arg(n, need, p.array)?,
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
                Ty::OptF => Arg::Opt(self.opt_expr(d, PARAM_CAP)),
                Ty::Char => Arg::Raw(format!("{:?}", self.rng.pick(&['a', 'b', 'c']))),
                Ty::Struct(k, by_ref) => Arg::Struct(self.struct_arg(k, by_ref, d)?),
                Ty::I32(lo, hi) => Arg::Raw(format!(
                    "{}",
                    lo + self.rng.below((hi - lo + 1) as usize) as i32
                )),
            });
        }
        // A bare `None` argument where no other argument tells the macro the float type does
        // not compile (E0282 "type annotations needed" on `None`, for a callee
        // `fn f4(o0: Option<f64>, x0: f64)`: `f4(None, 0.5)`, `f4(None, n as f64)`,
        // `f4(None, k.0)` and `f5(None)` fail, `f4(None, -x0)`, `f4(None, x0.sin())` and
        // `f5(Some(0.5))` compile; plain Rust takes them all), so it is left out there.
        let typed = args
            .iter()
            .any(|a| matches!(a, Arg::F(e) if self.tells_type(e)));
        for a in args.iter_mut() {
            if !typed && matches!(a, Arg::Opt(OE::None)) {
                *a = Arg::Opt(OE::Some(self.fe_capped(d, PARAM_CAP).0));
            }
        }
        Some(args)
    }

    /// Whether `e` is arithmetic or float methods of a float parameter, whose type the macro
    /// knows.
    fn tells_type(&self, e: &FE) -> bool {
        match e {
            FE::Var(n) => self.float_params.contains(n),
            FE::Neg(a)
            | FE::Rem(a, _)
            | FE::Powi(a, _)
            | FE::WithLit(_, a, _)
            | FE::Clamp(a, ..)
            | FE::PowiVar(a, _) => self.tells_type(a),
            FE::Unary { arg, .. } => self.tells_type(arg),
            FE::Bin(_, a, b) | FE::Binary(_, a, b) => self.tells_type(a) || self.tells_type(b),
            FE::MulAdd(a, b, c) => self.tells_type(a) || self.tells_type(b) || self.tells_type(c),
            _ => false,
        }
    }

    /// Whether one argument of a call to `name` reads a variable that another lends mutably,
    /// which rustc rejects with or without the macro (E0499, E0502, E0503: `f(&mut v, v[0])`,
    /// `f(&v, &mut v[1..])`, `f(out, out[0])`).
    fn clashes(&self, name: &str, args: &[Arg]) -> bool {
        let printer = crate::print::Printer::new(crate::print::Flavor::Ad, self.funcs);
        let output = |n: &String| {
            self.arrays
                .iter()
                .rev()
                .find(|v| &v.name == n)
                .is_some_and(|v| matches!(v.kind, AKind::Out | AKind::MutView))
        };
        args.iter().enumerate().any(|(i, a)| {
            let lent = match a {
                Arg::Part(n, _, true) => n,
                Arg::Name(n) if output(n) => n,
                _ => return false,
            };
            args.iter().enumerate().any(|(j, b)| {
                j != i && {
                    let text = printer.fe(&FE::Call(name.to_string(), vec![b.clone()]));
                    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == lent)
                }
            })
        })
    }

    /// Whether a local array or `Vec` can be lent to a callee that writes it.
    pub(super) fn lendable(&self) -> bool {
        self.arrays
            .iter()
            .any(|a| matches!(a.kind, AKind::LocalArr | AKind::LocalVec) && a.writable())
    }

    /// A call for its outputs, or a value bound by `let`; with `writing`, of a function that
    /// writes a `&mut [f64]`.
    pub(super) fn call_stmt_writing(&mut self, out: &mut Vec<Stmt>, writing: bool) {
        let Some(idx) = self.callee(false, writing) else {
            return;
        };
        let params = self.funcs[idx].params.clone();
        let need = self.funcs[idx].out_spent;
        let Some(args) = self.args(&params, 1, need) else {
            return;
        };
        if self.clashes(&self.funcs[idx].name.clone(), &args) {
            return;
        }
        let f = &self.funcs[idx];
        let (name, returns, spent) = (f.name.clone(), f.returns, f.out_spent);
        let pair = f.pair;
        let ret_opt = f.ret_opt;
        // The callee's increments land in what it writes: this function's output, or a local
        // (which may no longer carry a derivative: the callee may overwrite it).
        for a in &args {
            let (Arg::Name(n) | Arg::Part(n, _, true)) = a else {
                continue;
            };
            let Some(av) = self.arrays.iter_mut().rev().find(|v| &v.name == n) else {
                continue;
            };
            match av.kind {
                AKind::Out => {
                    av.spent += spent * self.execs;
                    self.out_spent += spent * self.execs;
                }
                // Its variable's (and the function's, for an output) when the view ends.
                AKind::MutView => av.spent += spent * self.execs,
                AKind::LocalArr | AKind::LocalVec | AKind::Arr | AKind::Vec
                    if matches!(a, Arg::Part(..)) =>
                {
                    av.spent += spent * self.execs;
                    av.active = false;
                }
                _ => {}
            }
        }
        let triple = self.funcs[idx].tail3.is_some();
        if ret_opt {
            let o = self.fresh("o");
            self.opts.push(OVar {
                name: o.clone(),
                cap: RET_CAP,
                some: false,
            });
            out.push(Stmt::LetOptE(o, OE::Call(name, args)));
        } else if pair {
            let names: Vec<String> = (0..if triple { 3 } else { 2 })
                .map(|_| self.fresh("t"))
                .collect();
            for n in &names {
                self.floats.push(FVar {
                    name: n.clone(),
                    read: FE::Var(n.clone()),
                    cap: RET_CAP,
                    base: RET_CAP,
                    spent: 0.0,
                    mutable: false,
                });
            }
            out.push(Stmt::LetCallTuple(names, name, args));
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

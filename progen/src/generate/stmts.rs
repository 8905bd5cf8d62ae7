//! Statements: blocks and their scopes, `let`s, assignments within their budgets, `if`,
//! `match`, early returns, assertions and items.

use super::*;

impl Gen<'_> {
    pub(super) fn block(&mut self, n: usize) -> Vec<Stmt> {
        let marks = (self.floats.len(), self.arrays.len(), self.ints.len());
        let closures = self.closures.len();
        let (svars, farrs) = (self.svars.len(), self.farrs.len());
        // Options bound in the block go, and what it learnt of the others (`let .. else`) too.
        let (opts, modes) = (self.opts.clone(), self.modes.len());
        let mut out = Vec::new();
        for _ in 0..n {
            if self.size_left == 0 {
                break;
            }
            self.size_left -= 1;
            self.stmt(&mut out);
        }
        self.floats.truncate(marks.0);
        while let Some((at, viewed, locked)) = self.views.last().cloned()
            && at >= marks.1
        {
            self.views.pop();
            if let Some(v) = self.arrays.iter_mut().rev().find(|v| v.name == viewed) {
                v.locked = locked;
            }
        }
        self.arrays.truncate(marks.1);
        self.ints.truncate(marks.2);
        self.closures.truncate(closures);
        self.opts = opts;
        self.modes.truncate(modes);
        self.svars.truncate(svars);
        self.farrs.truncate(farrs);
        out
    }

    pub(super) fn nested(&mut self, n: usize) -> Vec<Stmt> {
        self.depth += 1;
        let b = self.block(n);
        self.depth -= 1;
        b
    }

    pub(super) fn stmt(&mut self, out: &mut Vec<Stmt>) {
        let in_loop = !self.loops.is_empty();
        let deep = self.depth >= 3;
        let weights = [
            8,                                     // let
            3,                                     // let mut accumulator
            2,                                     // let idx
            2,                                     // let array
            6,                                     // assign / compound
            5,                                     // element assign
            if deep { 0 } else { 4 },              // if
            if deep { 0 } else { 5 },              // for
            if deep { 0 } else { 2 },              // while
            if deep { 0 } else { 2 },              // loop
            if deep { 0 } else { 1 },              // let loop
            if deep { 0 } else { 2 },              // counter
            if in_loop { 3 } else { 0 },           // break / continue
            2,                                     // return
            3,                                     // call statement
            1,                                     // let pair / sum / assert
            if deep { 0 } else { 1 },              // match statement
            1,                                     // const item / println
            if deep { 0 } else { 1 },              // labelled block
            1,                                     // destructuring
            if deep { 0 } else { 1 },              // if let / let else
            if deep { 0 } else { 1 },              // while let
            1,                                     // collect
            1,                                     // closure
            1,                                     // array map
            if deep { 0 } else { 1 },              // iter_mut
            2,                                     // view
            if self.lendable() { 3 } else { 0 },   // a local lent to a callee that writes it
            if deep { 0 } else { 2 },              // mutable view
            1,                                     // a Mode chosen from an integer
            if self.structs_ok() { 3 } else { 0 }, // a struct bound by `let`
        ];
        match self.rng.weighted(&weights) {
            0 => {
                let (e, b) = self.fe(3);
                let (e, b) = self.squash(e, b, 16.0);
                let name = self.fresh("t");
                self.note_active(&name, &e);
                self.floats.push(FVar {
                    name: name.clone(),
                    read: FE::Var(name.clone()),
                    cap: b,
                    base: b,
                    spent: 0.0,
                    mutable: false,
                });
                out.push(Stmt::Let {
                    name,
                    mutable: false,
                    typed: self.rng.chance(0.5),
                    init: e,
                });
            }
            1 => {
                let (e, b) = if self.rng.chance(0.4) {
                    (FE::Lit(0.0), 0.0)
                } else {
                    self.fe_capped(2, BASE_CAP)
                };
                let name = self.fresh("s");
                self.note_active(&name, &e);
                self.floats.push(FVar {
                    name: name.clone(),
                    read: FE::Var(name.clone()),
                    cap: BASE_CAP + ACC_BUDGET,
                    base: BASE_CAP.max(b),
                    spent: 0.0,
                    mutable: true,
                });
                out.push(Stmt::Let {
                    name,
                    mutable: true,
                    typed: self.rng.chance(0.5),
                    init: e,
                });
            }
            2 => {
                let hi = self.rng.range(1, 5);
                let ie = self.index(hi + 1);
                let (lo, hi) = irange(&ie, self);
                let name = self.fresh("j");
                self.ints.push(IVar {
                    name: name.clone(),
                    lo,
                    hi,
                });
                out.push(Stmt::LetIdx(name, ie));
            }
            3 => {
                let len = self.rng.range(2, 5);
                let vec = self.rng.chance(0.4);
                let init = if self.rng.chance(0.5) {
                    ArrInit::Fill(self.fe_capped(1, BASE_CAP).0, len)
                } else {
                    ArrInit::List((0..len).map(|_| self.fe_capped(2, BASE_CAP).0).collect())
                };
                let name = self.fresh("l");
                let active = match &init {
                    ArrInit::Fill(e, _) => self.is_active(e, &[]),
                    ArrInit::List(es) => es.iter().all(|e| self.is_active(e, &[])),
                };
                self.arrays.push(AVar {
                    name: name.clone(),
                    active,
                    kind: if vec {
                        AKind::LocalVec
                    } else {
                        AKind::LocalArr
                    },
                    len,
                    cap: BASE_CAP + ACC_BUDGET,
                    base: BASE_CAP,
                    spent: 0.0,
                    locked: false,
                    param_mut: false,
                });
                out.push(Stmt::LetArr { name, vec, init });
            }
            4 => self.assign(out),
            5 if self.rng.chance(0.3) && self.farrs.iter().any(|a| a.mutable) => {
                self.assign_field_elem(out);
            }
            5 => self.assign_elem(out),
            6 => {
                let c = self.cond(2);
                let n = self.rng.range(1, 3);
                let a = self.nested(n);
                let b = if self.rng.chance(0.5) {
                    let n = self.rng.range(1, 2);
                    self.nested(n)
                } else {
                    Vec::new()
                };
                out.push(Stmt::If(c, a, b));
            }
            7 => self.for_loop(out),
            8 => self.while_loop(out),
            9 => self.plain_loop(out),
            10 => self.let_loop(out),
            11 => self.counter_loop(out),
            12 => self.jump(out),
            13 => self.early_return(out),
            14 => self.call_stmt_writing(out, false),
            15 => self.misc_stmt(out),
            16 => self.match_stmt(out),
            17 => self.item_stmt(out),
            18 => self.let_block(out),
            19 => self.destructure(out),
            20 => self.if_let(out),
            21 => self.while_let(out),
            22 => self.let_collect(out),
            23 => self.let_closure(out),
            24 => self.let_arr_map(out),
            25 => self.for_iter_mut(out),
            26 => self.let_view(out),
            27 => self.call_stmt_writing(out, true),
            28 => self.let_mut_view(out),
            30 => self.let_struct(out),
            _ => {
                let name = self.fresh("md");
                let i = self.any_index(1);
                self.modes.push(name.clone());
                out.push(Stmt::LetMode(name, i));
            }
        }
    }

    pub(super) fn pick_array(&mut self, write: bool) -> Option<AVar> {
        let c: Vec<AVar> = self
            .arrays
            .iter()
            .filter(|a| a.kind != AKind::Window && (!write || a.writable()))
            .cloned()
            .collect();
        (!c.is_empty()).then(|| self.rng.pick(&c).clone())
    }

    pub(super) fn pick_mutable(&mut self) -> Option<String> {
        let c: Vec<String> = self
            .floats
            .iter()
            .filter(|v| v.mutable)
            .map(|v| v.name.clone())
            .collect();
        (!c.is_empty()).then(|| self.rng.pick(&c).clone())
    }

    pub(super) fn assign(&mut self, out: &mut Vec<Stmt>) {
        let Some(name) = self.pick_mutable() else {
            return;
        };
        let v = self
            .floats
            .iter()
            .rev()
            .find(|v| v.name == name)
            .unwrap()
            .clone();
        self.without_own_elems(&name.clone(), |g| g.assign_to(name, v, out));
    }

    /// `name op e;` of the mutable float `v`.
    fn assign_to(&mut self, name: String, v: FVar, out: &mut Vec<Stmt>) {
        match self.rng.weighted(&[2, 5, 2, 2, 1]) {
            0 => {
                let (e, _) = self.fe_capped(3, v.base);
                out.push(Stmt::Assign(name, AssignOp::Set, e));
            }
            1 => {
                let (e, b) = self.fe(2);
                let room = (v.cap - v.base - v.spent) / self.execs;
                if room < 0.05 {
                    return;
                }
                let (e, b) = self.squash(e, b, room.min(8.0));
                self.spend(&name, 1.0, b);
                let op = if self.rng.chance(0.5) {
                    AssignOp::Add
                } else {
                    AssignOp::Sub
                };
                out.push(Stmt::Assign(name, op, e));
            }
            2 => {
                let (e, _) = self.fe_capped(2, 1.0);
                out.push(Stmt::Assign(name, AssignOp::Mul, e));
            }
            3 => {
                let (p, _, _) = self.pos(1);
                out.push(Stmt::Assign(name, AssignOp::Div, p));
            }
            _ => {
                let m = *self.rng.pick(&[1.5, 2.0, 0.75]);
                out.push(Stmt::Assign(name, AssignOp::Rem, FE::Lit(m)));
            }
        }
    }

    pub(super) fn assign_elem(&mut self, out: &mut Vec<Stmt>) {
        let Some(a) = self.pick_array(true) else {
            return;
        };
        self.assign_elem_of(a, out);
    }

    /// `a[i] = ..`, `a[i] += ..` within `a`'s budget, `a[i] *= ..` or `a[i] /= ..`.
    pub(super) fn assign_elem_of(&mut self, a: AVar, out: &mut Vec<Stmt>) {
        let mut idx = self.index(a.len);
        // `v[i] += ..` borrows a `Vec` mutably before its index is computed: an index that
        // reads `v` itself does not compile (rustc's own rule, without the macro too).
        let text = crate::print::Printer::new(crate::print::Flavor::Ad, self.funcs).ie(&idx);
        if text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == a.name)
        {
            idx = IE::Lit(self.rng.below(a.len));
        }
        let room = (a.cap - a.base - a.spent) / self.execs;
        let (op, e) = match self.rng.weighted(&[4, 4, 1, 1]) {
            0 => (AssignOp::Set, self.fe_capped(3, a.base).0),
            1 if room >= 0.05 => {
                let (e, b) = self.fe(2);
                let (e, b) = self.squash(e, b, room.min(8.0));
                let v = self
                    .arrays
                    .iter_mut()
                    .rev()
                    .find(|v| v.name == a.name)
                    .unwrap();
                v.spent += b * self.execs;
                if v.kind == AKind::Out {
                    self.out_spent += b * self.execs;
                }
                (AssignOp::Add, e)
            }
            2 => (AssignOp::Mul, self.fe_capped(2, 1.0).0),
            3 => (AssignOp::Div, self.pos(1).0),
            _ => (AssignOp::Set, self.fe_capped(2, a.base).0),
        };
        out.push(Stmt::AssignElem(a.name, idx, op, e));
    }

    /// An early `return` under a condition.
    pub(super) fn early_return(&mut self, out: &mut Vec<Stmt>) {
        let c = self.cond(1);
        let r = self.return_stmt();
        out.push(Stmt::If(c, vec![r], Vec::new()));
    }

    /// `return value;`, `return (a, b);` (or `[a, b]`, `vec![a, b]`), or `return;` in a
    /// function returning `()`.
    pub(super) fn return_stmt(&mut self) -> Stmt {
        if let Some(k) = self.ret_struct
            && let Some(v) = self.struct_value(k, 2)
        {
            Stmt::ReturnStruct(v)
        } else if self.ret_opt {
            Stmt::ReturnOpt(self.opt_expr(2, RET_CAP))
        } else if self.pair {
            let n = if self.triple { 3 } else { 2 };
            Stmt::ReturnTuple((0..n).map(|_| self.fe_capped(2, RET_CAP).0).collect())
        } else if self.returns {
            Stmt::Return(Some(self.fe_capped(2, RET_CAP).0))
        } else {
            Stmt::Return(None)
        }
    }

    /// A `let` of a pair or a triple (also nested), a sum, or an assertion.
    pub(super) fn misc_stmt(&mut self, out: &mut Vec<Stmt>) {
        match self.rng.below(4) {
            3 => {
                let mut names = Vec::new();
                let mut inits = Vec::new();
                let mut caps = Vec::new();
                for _ in 0..3 {
                    let (e, b) = self.fe_capped(2, 8.0);
                    names.push(self.fresh("t"));
                    inits.push(e);
                    caps.push(b);
                }
                for (n, &c) in names.iter().zip(&caps) {
                    self.floats.push(FVar {
                        name: n.clone(),
                        read: FE::Var(n.clone()),
                        cap: c,
                        base: c,
                        spent: 0.0,
                        mutable: false,
                    });
                }
                let nested = self.rng.chance(0.5);
                out.push(Stmt::LetTriple {
                    names,
                    inits,
                    nested,
                });
            }
            0 => {
                let (a, ab) = self.fe_capped(2, 8.0);
                let (b, bb) = self.fe_capped(2, 8.0);
                let (x, y) = (self.fresh("t"), self.fresh("t"));
                for (n, c) in [(&x, ab), (&y, bb)] {
                    self.floats.push(FVar {
                        name: n.clone(),
                        read: FE::Var(n.clone()),
                        cap: c,
                        base: c,
                        spent: 0.0,
                        mutable: false,
                    });
                }
                out.push(Stmt::LetPair(x, y, a, b));
            }
            // `a.iter().sum()` needs `T: Sum`, which `Float` does not give.
            1 if !self.generic => {
                let Some(a) = self.pick_array(false) else {
                    return;
                };
                let name = self.fresh("t");
                self.floats.push(FVar {
                    name: name.clone(),
                    read: FE::Var(name.clone()),
                    cap: a.cap * a.len as f64,
                    base: a.cap * a.len as f64,
                    spent: 0.0,
                    mutable: false,
                });
                out.push(Stmt::LetSum(name, a.name));
            }
            _ => {
                let outer = self.in_macro;
                self.in_macro = true;
                let (e, _) = self.receiver(2, 1e3);
                self.in_macro = outer;
                out.push(Stmt::Assert(e, self.rng.chance(0.5)));
            }
        }
    }

    /// A `match` on an integer, a pair of integers or a `Mode` as a statement.
    pub(super) fn match_stmt(&mut self, out: &mut Vec<Stmt>) {
        let (scrutinee, pats) = self.scrutinee(1, false);
        let mut arms = Vec::new();
        for p in pats {
            let k = self.rng.range(1, 2);
            arms.push((p, self.nested(k)));
        }
        out.push(Stmt::Match(scrutinee, arms));
    }

    /// What a `match` examines and its arms' patterns, the last of which catches what the
    /// others leave: an integer (with literal, `|`, range and, with `guard`, guard patterns),
    /// a pair of integers (tuple patterns with `_` inside), or a `Mode`.
    pub(super) fn scrutinee(&mut self, d: usize, guard: bool) -> (Scrut, Vec<Pat>) {
        let kind = self
            .rng
            .weighted(&[4, 2, if self.modes.is_empty() { 0 } else { 3 }]);
        match kind {
            1 => {
                let (a, b) = (self.any_index(d), self.any_index(d));
                let mut pats = Vec::new();
                for k in 0..self.rng.range(1, 3) {
                    let part =
                        |g: &mut Self, wild: bool| match g.rng.below(if wild { 4 } else { 3 }) {
                            0 => Pat::Lit(g.rng.below(3)),
                            1 => Pat::Range(1, 3),
                            2 => Pat::Or(0, 2),
                            _ => Pat::Wild,
                        };
                    // The first has a `_` inside, beside a pattern that tests.
                    let (x, y) = if k == 0 && self.rng.chance(0.5) {
                        (Pat::Wild, part(self, false))
                    } else if k == 0 {
                        (part(self, false), Pat::Wild)
                    } else {
                        (part(self, true), part(self, true))
                    };
                    pats.push(Pat::Tuple(Box::new(x), Box::new(y)));
                }
                pats.push(if self.rng.chance(0.5) {
                    Pat::Wild
                } else {
                    Pat::Tuple(Box::new(Pat::Wild), Box::new(Pat::Wild))
                });
                (Scrut::Pair(a, b), pats)
            }
            2 => {
                let m = self.rng.pick(&self.modes).clone();
                let mut order = [0, 1, 2];
                for i in (1..3).rev() {
                    let j = self.rng.below(i + 1);
                    order.swap(i, j);
                }
                let split = self.rng.range(1, 2);
                let mut pats = vec![Pat::Modes(order[..split].to_vec())];
                if self.rng.chance(0.5) {
                    pats.push(Pat::Wild);
                } else {
                    pats.push(Pat::Modes(order[split..].to_vec()));
                }
                (Scrut::Mode(m), pats)
            }
            _ => {
                let scrutinee = self.any_index(d);
                let all = [Pat::Lit(0), Pat::Or(1, 2), Pat::Range(3, 5)];
                let n = self.rng.range(1, 3);
                let mut pats = all[..n].to_vec();
                // A guard of leaves, or of expressions one level deep (chains among them).
                if guard && self.rng.chance(0.3) {
                    let depth = self.rng.below(2);
                    pats.push(Pat::Guard(Box::new(self.cond(depth))));
                }
                pats.push(Pat::Wild);
                (Scrut::Int(scrutinee), pats)
            }
        }
    }

    /// A `const` item, or a `println!` that never runs.
    pub(super) fn item_stmt(&mut self, out: &mut Vec<Stmt>) {
        // No `println!` in a generic function (`Float` does not give `Debug`).
        if self.generic || self.rng.chance(0.7) {
            let x = *self.rng.pick(&[0.5, 1.5, 0.75, 2.0]);
            self.counter += 1;
            let name = format!("C{}", self.counter);
            self.floats.push(FVar {
                name: name.clone(),
                read: FE::ConstItem(name.clone()),
                cap: x,
                base: x,
                spent: 0.0,
                mutable: false,
            });
            out.push(Stmt::Const(name, x));
        } else {
            // Kept as it is by the macro; never runs, so the output stays readable.
            let outer = self.in_macro;
            self.in_macro = true;
            let (e, _) = self.fe(1);
            self.in_macro = outer;
            let never = Cond::I(Cmp::Gt, IE::Lit(0), IE::Lit(1));
            out.push(Stmt::If(never, vec![Stmt::Print(e)], Vec::new()));
        }
    }

    /// `(a, b) = (e1, e2);`, `(a, b) = (b, a);`, or `let [x, y, ..] = arr;`.
    pub(super) fn destructure(&mut self, out: &mut Vec<Stmt>) {
        if self.rng.chance(0.5) {
            // Of locals: not of a struct's fields (`(s.x, t) = ..`, which the README does not
            // list).
            let (Some(a), Some(b)) = (self.pick_mutable(), self.pick_mutable()) else {
                return;
            };
            if a.contains('.') || b.contains('.') {
                return;
            }
            if a == b {
                return;
            }
            let get =
                |g: &Gen, n: &str| g.floats.iter().rev().find(|v| v.name == n).unwrap().clone();
            let (va, vb) = (get(self, &a), get(self, &b));
            // A swap mixes the two budgets; outside loops it runs once, and each variable
            // then holds at most what the larger of the two held.
            if self.loops.is_empty() && self.rng.chance(0.5) {
                let m = (va.base + va.spent).max(vb.base + vb.spent);
                if m > va.cap || m > vb.cap {
                    return;
                }
                for v in self.floats.iter_mut().rev() {
                    if v.name == a || v.name == b {
                        v.spent = v.spent.max(m - v.base);
                    }
                }
                out.push(Stmt::AssignPair(a.clone(), b.clone(), va.read, vb.read));
            } else {
                let (x, _) = self.fe_capped(2, va.base);
                let (y, _) = self.fe_capped(2, vb.base);
                out.push(Stmt::AssignPair(a, b, x, y));
            }
            return;
        }
        let mut arrays: Vec<(String, usize, f64, bool)> = self
            .arrays
            .iter()
            // Not an array of the const length `N`: a pattern needs the length.
            .filter(|a| {
                matches!(a.kind, AKind::Arr | AKind::LocalArr)
                    && !self.const_arrays.contains(&a.name)
            })
            .map(|a| (a.name.clone(), a.len, a.cap, false))
            .collect();
        // `let [x, y] = *p;` of a `&[f64; N]`.
        arrays.extend(
            self.arr_refs
                .iter()
                .map(|(p, n)| (p.clone(), *n, PARAM_CAP, true)),
        );
        if arrays.is_empty() {
            return;
        }
        let (arr, len, cap, deref) = self.rng.pick(&arrays).clone();
        let n = self.rng.range(1, len);
        let names: Vec<String> = (0..n).map(|_| self.fresh("d")).collect();
        for name in &names {
            self.floats.push(FVar {
                name: name.clone(),
                read: FE::Var(name.clone()),
                cap,
                base: cap,
                spent: 0.0,
                mutable: false,
            });
        }
        out.push(Stmt::LetArrPat {
            names,
            rest: n < len || self.rng.chance(0.3),
            arr,
            deref,
        });
    }

    /// An `Option<usize>` or an `Option` of a float (whose `Some` carries a derivative) bound
    /// by `let`, or an `Option<f64>` in scope (a parameter, a call's result), then taken apart
    /// by `if let Some(k) = o { .. }`, by `let Some(k) = o else { leave };`, or tested by
    /// `if o.is_some() { .. }` inside which `o.unwrap()` reads it.
    pub(super) fn if_let(&mut self, out: &mut Vec<Stmt>) {
        let existing: Vec<OVar> = self.opts.iter().filter(|o| !o.some).cloned().collect();
        let (opt, float, cap, range) = if !existing.is_empty() && self.rng.chance(0.5) {
            let o = self.rng.pick(&existing).clone();
            (o.name, true, o.cap, (0, 0))
        } else {
            let opt = self.fresh("o");
            let c = self.cond(1);
            let float = self.rng.chance(0.5);
            let mut range = (0, 0);
            let mut cap = 0.0;
            let init = if float {
                let (e, b) = self.fe_capped(2, BASE_CAP);
                cap = b;
                OptInit::Float(e)
            } else {
                let hi = self.rng.range(1, 4);
                let ie = self.index(hi + 1);
                range = irange(&ie, self);
                OptInit::Index(ie)
            };
            out.push(Stmt::LetOpt(opt.clone(), c, init));
            if float {
                self.opts.push(OVar {
                    name: opt.clone(),
                    cap,
                    some: false,
                });
            }
            (opt, float, cap, range)
        };
        let var = self.fresh(if float { "s" } else { "k" });
        // The name `Some` binds: a float with the bound of the value, or an index.
        let bind = |g: &mut Self, var: &String| {
            if float {
                g.floats.push(FVar {
                    name: var.clone(),
                    read: FE::Var(var.clone()),
                    cap,
                    base: cap,
                    spent: 0.0,
                    mutable: false,
                });
            } else {
                g.ints.push(IVar {
                    name: var.clone(),
                    lo: range.0,
                    hi: range.1,
                });
            }
        };
        // Known to be `Some` (or not any more, after the `then` block).
        let name = opt.clone();
        let mark = move |g: &mut Self, some: bool| {
            if let Some(o) = g.opts.iter_mut().rev().find(|o| o.name == name) {
                o.some = some;
            }
        };
        let inner = self.loops.last().cloned();
        // `let .. else` must leave: by a `return` (of a value, a pair, or none), or a
        // `break`/`continue` of the loop around.
        let leave = if inner.is_none() || self.rng.chance(0.5) {
            Some(self.return_stmt())
        } else {
            match inner {
                Some(l) if !l.block && l.value_break => {
                    Some(Stmt::Break(Some(self.fe_capped(1, BASE_CAP).0)))
                }
                Some(l) if !l.block => Some(if self.rng.chance(0.5) {
                    Stmt::Continue
                } else {
                    Stmt::Break(None)
                }),
                _ => None,
            }
        };
        if let Some(els) = leave.filter(|_| self.rng.chance(0.4)) {
            out.push(Stmt::LetElse {
                opt,
                var: var.clone(),
                els: Box::new(els),
            });
            bind(self, &var);
            // Until the end of the block, `opt` is `Some` (`block` forgets it after).
            mark(self, true);
            return;
        }
        // `if o.is_some() { .. o.unwrap() .. }`.
        let test = float && self.rng.chance(0.3);
        if !test {
            bind(self, &var);
        }
        mark(self, true);
        let n = self.rng.range(1, 2);
        let mut then = self.nested(n);
        // A float bound from `Some` is read at once, most of the time: into a mutable float.
        if float
            && self.rng.chance(0.7)
            && let Some(name) = self.pick_mutable()
        {
            let base = self
                .floats
                .iter()
                .rev()
                .find(|v| v.name == name)
                .map_or(1.0, |v| v.base);
            let read = if test {
                FE::Unwrap(opt.clone(), self.rng.chance(0.4))
            } else {
                FE::Var(var.clone())
            };
            let (e, _) = self.squash(read, cap, base);
            then.insert(0, Stmt::Assign(name, AssignOp::Set, e));
        }
        mark(self, false);
        match (test, float) {
            (true, _) => {}
            (false, true) => drop(self.floats.pop()),
            (false, false) => drop(self.ints.pop()),
        }
        let els = if self.rng.chance(0.5) {
            self.nested(1)
        } else {
            Vec::new()
        };
        if test {
            out.push(Stmt::If(Cond::IsSome(opt, true), then, els));
        } else {
            out.push(Stmt::IfLet {
                opt,
                var,
                then,
                els,
            });
        }
    }
}

//! Loops: `for` over ranges and arrays, `while`, `loop`, `loop` with a value, counters, and
//! the `break`s and `continue`s inside them; each loop multiplies the executions of its body.

use super::*;

impl Gen<'_> {
    pub(super) fn loop_body(
        &mut self,
        trips: f64,
        value_break: bool,
        label: Option<String>,
    ) -> Vec<Stmt> {
        self.loops.push(LoopCtx {
            value_break,
            label,
            block: false,
        });
        let saved = self.execs;
        self.execs *= trips;
        let n = self.rng.range(1, 4);
        let body = self.nested(n);
        self.execs = saved;
        self.loops.pop();
        body
    }

    /// A label for a loop, now and then: the jumps inside may leave it from further in.
    fn maybe_label(&mut self) -> Option<String> {
        self.rng.chance(0.25).then(|| self.fresh("lp"))
    }

    fn push_labelled(out: &mut Vec<Stmt>, label: Option<String>, s: Stmt) {
        out.push(match label {
            Some(l) => Stmt::Labelled(l, Box::new(s)),
            None => s,
        });
    }

    pub(super) fn for_loop(&mut self, out: &mut Vec<Stmt>) {
        let label = self.maybe_label();
        let iter = self.rng.chance(0.4);
        if iter
            && self.rng.chance(0.25)
            && let Some(a) = self.pick_array(false)
            && a.len >= 2
        {
            self.for_windows(out, a, label);
            return;
        }
        if iter && let Some(a) = self.pick_array(false) {
            {
                let mark = (self.floats.len(), self.ints.len());
                let locked_before = a.locked;
                let lock = |g: &mut Gen, name: &str, on: bool| {
                    if let Some(v) = g.arrays.iter_mut().rev().find(|v| v.name == name) {
                        v.locked = on;
                    }
                };
                let elem = self.fresh("e");
                let mut b_locked_before = false;
                let kind = match self.rng.below(4) {
                    0 => {
                        let idx = self.fresh("i");
                        self.ints.push(IVar {
                            name: idx.clone(),
                            lo: 0,
                            hi: a.len - 1,
                        });
                        ForKind::Enumerate {
                            idx,
                            elem: elem.clone(),
                            arr: a.name.clone(),
                        }
                    }
                    1 => {
                        let b = self.pick_array(false).unwrap();
                        let y = self.fresh("e");
                        if b.active {
                            self.active.push(y.clone());
                        }
                        self.floats.push(FVar {
                            name: y.clone(),
                            read: FE::Var(y.clone()),
                            cap: b.cap,
                            base: b.cap,
                            spent: 0.0,
                            mutable: false,
                        });
                        b_locked_before = b.locked;
                        lock(self, &b.name, true);
                        ForKind::Zip {
                            x: elem.clone(),
                            a: a.name.clone(),
                            y,
                            b: b.name.clone(),
                        }
                    }
                    _ => {
                        let slice_like = matches!(
                            a.kind,
                            AKind::Slice
                                | AKind::Out
                                | AKind::ConstSlice
                                | AKind::View
                                | AKind::MutView
                        );
                        let forms: &[IterForm] = if slice_like {
                            &[IterForm::RefPat, IterForm::Copied, IterForm::Deref]
                        } else {
                            &[
                                IterForm::RefPat,
                                IterForm::Copied,
                                IterForm::Borrow,
                                IterForm::Deref,
                            ]
                        };
                        ForKind::Iter {
                            elem: elem.clone(),
                            arr: a.name.clone(),
                            form: *self.rng.pick(forms),
                        }
                    }
                };
                let read = match &kind {
                    ForKind::Iter {
                        form: IterForm::Deref,
                        ..
                    } => FE::Deref(elem.clone()),
                    _ => FE::Var(elem.clone()),
                };
                if a.active {
                    self.active.push(elem.clone());
                }
                self.floats.push(FVar {
                    name: elem,
                    read,
                    cap: a.cap,
                    base: a.cap,
                    spent: 0.0,
                    mutable: false,
                });
                lock(self, &a.name, true);
                let body = self.loop_body(a.len as f64, false, label.clone());
                lock(self, &a.name, locked_before);
                if let ForKind::Zip { b, .. } = &kind {
                    let b = b.clone();
                    // Unlocked only if no loop around this one iterates over it too.
                    lock(self, &b, b_locked_before);
                    // `a` may be `b`; restore its own state last.
                    lock(self, &a.name, locked_before);
                }
                self.floats.truncate(mark.0);
                self.ints.truncate(mark.1);
                Self::push_labelled(out, label, Stmt::For(kind, body));
                return;
            }
        }
        let var = self.fresh("i");
        // The bounds: literals, a length, or an index parameter.
        let (lo, hi_ie, hi_val) = match self.rng.below(4) {
            0 if self
                .arrays
                .iter()
                .any(|a| a.kind != AKind::Window || a.len >= 2) =>
            {
                let c: Vec<AVar> = self
                    .arrays
                    .iter()
                    .filter(|a| a.kind != AKind::Window || a.len >= 2)
                    .cloned()
                    .collect();
                let a = self.rng.pick(&c).clone();
                (0, IE::Len(a.name), a.len)
            }
            1 => {
                let n = self.ints.iter().find(|i| i.lo == 0 && i.hi <= 4).cloned();
                match n {
                    Some(n) => (0, IE::Var(n.name), n.hi),
                    None => (1, IE::Lit(3), 3),
                }
            }
            _ => {
                let lo = self.rng.range(0, 1);
                let hi = self.rng.range(lo + 1, 5);
                (lo, IE::Lit(hi), hi)
            }
        };
        let inclusive = self.rng.chance(0.15) && matches!(hi_ie, IE::Lit(_));
        let rev = !inclusive && self.rng.chance(0.2);
        let step = if !rev && !inclusive && self.rng.chance(0.15) {
            2
        } else {
            1
        };
        let top = if inclusive { hi_val } else { hi_val.max(1) - 1 };
        let trips = (top + 1).saturating_sub(lo).max(1);
        self.ints.push(IVar {
            name: var.clone(),
            lo,
            hi: top.max(lo),
        });
        let body = self.loop_body(trips as f64, false, label.clone());
        self.ints.pop();
        let kind = ForKind::Range {
            var,
            lo: IE::Lit(lo),
            hi: hi_ie,
            inclusive,
            rev,
            step,
        };
        Self::push_labelled(out, label, Stmt::For(kind, body));
    }

    /// `for w in a.windows(k) { .. w[j] .. }` (or `chunks`, `chunks_exact`); `a` is not
    /// written while the loop borrows it.
    pub(super) fn for_windows(&mut self, out: &mut Vec<Stmt>, a: AVar, label: Option<String>) {
        let kind = *self.rng.pick(&["windows", "chunks", "chunks_exact"]);
        let k = self.rng.range(1, a.len.min(3));
        let (trips, win) = match kind {
            "windows" => (a.len - k + 1, k),
            // The last chunk may be shorter: only its first element is read.
            "chunks" => (a.len.div_ceil(k), 1),
            _ => (a.len / k, k),
        };
        let var = self.fresh("w");
        let at = self.arrays.iter().rposition(|v| v.name == a.name).unwrap();
        let locked = self.arrays[at].locked;
        self.arrays[at].locked = true;
        let mark = self.arrays.len();
        self.arrays.push(AVar {
            name: var.clone(),
            kind: AKind::Window,
            len: win,
            cap: a.cap,
            base: a.cap,
            spent: 0.0,
            locked: true,
            param_mut: false,
            active: false,
        });
        let mut body = self.loop_body(trips as f64, false, label.clone());
        // The window's reason to be: an element of it read into a mutable float.
        if let Some(acc) = self.pick_mutable() {
            let j = self.rng.below(win);
            let read = FE::Index(var.clone(), Box::new(IE::Lit(j)));
            let (w, wb) = self.fe_capped(1, 1.0);
            if self.spend(&acc, trips as f64, a.cap * wb) {
                body.insert(
                    0,
                    Stmt::Assign(acc, AssignOp::Add, bin(BinOp::Mul, read, w)),
                );
            }
        }
        self.arrays.truncate(mark);
        self.arrays[at].locked = locked;
        let kind = ForKind::Windows {
            var,
            arr: a.name,
            kind,
            k,
        };
        Self::push_labelled(out, label, Stmt::For(kind, body));
    }

    /// A `while` loop with an integer guard, and a float condition or none.
    pub(super) fn while_loop(&mut self, out: &mut Vec<Stmt>) {
        let trips = self.rng.range(1, 4);
        let guard = self.fresh("g");
        let cond = self.rng.chance(0.6).then(|| self.cond(1));
        let label = self.maybe_label();
        let body = self.loop_body(trips as f64, false, label.clone());
        let s = Stmt::While {
            guard,
            trips,
            cond,
            body,
        };
        Self::push_labelled(out, label, s);
    }

    /// A `loop` left by its guard.
    pub(super) fn plain_loop(&mut self, out: &mut Vec<Stmt>) {
        let trips = self.rng.range(1, 4);
        let guard = self.fresh("g");
        let label = self.maybe_label();
        let body = self.loop_body(trips as f64, false, label.clone());
        Self::push_labelled(out, label, Stmt::Loop { guard, trips, body });
    }

    /// A `let v = loop { .. }` whose `break`s carry values.
    pub(super) fn let_loop(&mut self, out: &mut Vec<Stmt>) {
        let trips = self.rng.range(1, 4);
        let guard = self.fresh("g");
        let (fallback, _) = self.fe_capped(1, BASE_CAP);
        let label = self.maybe_label();
        let mut body = self.loop_body(trips as f64, true, label.clone());
        // At least one `break value` before the guard's.
        let c = self.cond(1);
        let (v, _) = self.fe_capped(1, BASE_CAP);
        let at = self.rng.below(body.len() + 1);
        body.insert(at, Stmt::If(c, vec![Stmt::Break(Some(v))], Vec::new()));
        let name = self.fresh("r");
        self.floats.push(FVar {
            name: name.clone(),
            read: FE::Var(name.clone()),
            cap: BASE_CAP,
            base: BASE_CAP,
            spent: 0.0,
            mutable: false,
        });
        out.push(Stmt::LetLoop {
            name,
            label,
            guard,
            trips,
            body,
            fallback,
        });
    }

    /// A counter advanced by one after each iteration and read as an index.
    pub(super) fn counter_loop(&mut self, out: &mut Vec<Stmt>) {
        let Some(a) = self.pick_array(false) else {
            return;
        };
        let start = self.rng.below(a.len - 1);
        let step = self.rng.range(1, 2);
        let trips = (a.len - 1 - start) / step + 1;
        let idx = self.fresh("idx");
        let var = self.fresh("i");
        self.ints.push(IVar {
            name: idx.clone(),
            lo: start,
            hi: start + step * (trips - 1),
        });
        self.ints.push(IVar {
            name: var.clone(),
            lo: 0,
            hi: trips - 1,
        });
        let mut body = self.loop_body(trips as f64, false, None);
        // The counter's reason to be: an element read at it.
        if let Some(acc) = self.pick_mutable() {
            let read = FE::Index(a.name.clone(), Box::new(IE::Var(idx.clone())));
            let (w, wb) = self.fe_capped(1, 1.0);
            let inc = self.spend(&acc, trips as f64, a.cap * wb);
            if inc {
                body.insert(
                    0,
                    Stmt::Assign(acc, AssignOp::Add, bin(BinOp::Mul, read, w)),
                );
            }
        }
        self.ints.pop();
        self.ints.pop();
        out.push(Stmt::Counter {
            idx,
            start,
            step,
            var,
            trips,
            body,
        });
    }

    /// A `break` or `continue` under a condition: unlabelled, of the innermost loop, or to a
    /// labelled loop or block around it (with a value out of a `loop` or block that has one).
    pub(super) fn jump(&mut self, out: &mut Vec<Stmt>) {
        let c = self.cond(1);
        let inner = self.loops.last().unwrap().clone();
        let targets: Vec<LoopCtx> = self
            .loops
            .iter()
            .filter(|l| l.label.is_some())
            .cloned()
            .collect();
        // Right inside a labelled block an unlabelled `break` has no loop to leave.
        let s = if !targets.is_empty() && (inner.block || self.rng.chance(0.4)) {
            let t = self.rng.pick(&targets).clone();
            let l = t.label.unwrap();
            if t.value_break {
                let (v, _) = self.fe_capped(1, BASE_CAP);
                Stmt::BreakTo(l, Some(v))
            } else if self.rng.chance(0.5) {
                Stmt::BreakTo(l, None)
            } else {
                Stmt::ContinueTo(l)
            }
        } else if inner.value_break {
            let (v, _) = self.fe_capped(1, BASE_CAP);
            Stmt::Break(Some(v))
        } else if self.rng.chance(0.5) {
            Stmt::Break(None)
        } else {
            Stmt::Continue
        };
        out.push(Stmt::If(c, vec![s], Vec::new()));
    }

    /// `let v = 'label: { body; tail };` with at least one `break 'label value` in its body.
    pub(super) fn let_block(&mut self, out: &mut Vec<Stmt>) {
        let label = self.fresh("lb");
        self.loops.push(LoopCtx {
            value_break: true,
            label: Some(label.clone()),
            block: true,
        });
        let n = self.rng.range(1, 3);
        let mut body = self.nested(n);
        self.loops.pop();
        let c = self.cond(1);
        let (v, _) = self.fe_capped(1, BASE_CAP);
        let at = self.rng.below(body.len() + 1);
        body.insert(
            at,
            Stmt::If(c, vec![Stmt::BreakTo(label.clone(), Some(v))], Vec::new()),
        );
        let (tail, _) = self.fe_capped(2, BASE_CAP);
        let name = self.fresh("r");
        self.floats.push(FVar {
            name: name.clone(),
            read: FE::Var(name.clone()),
            cap: BASE_CAP,
            base: BASE_CAP,
            spent: 0.0,
            mutable: false,
        });
        out.push(Stmt::LetBlock {
            name,
            label,
            body,
            tail,
        });
    }

    /// `while let Some(k) = (if g < trips { Some(g) } else { None }) { g += 1; .. }`.
    pub(super) fn while_let(&mut self, out: &mut Vec<Stmt>) {
        let trips = self.rng.range(1, 4);
        let guard = self.fresh("g");
        let var = self.fresh("k");
        let label = self.maybe_label();
        self.ints.push(IVar {
            name: var.clone(),
            lo: 0,
            hi: trips - 1,
        });
        let body = self.loop_body(trips as f64, false, label.clone());
        self.ints.pop();
        let s = Stmt::WhileLet {
            guard,
            trips,
            var,
            body,
        };
        Self::push_labelled(out, label, s);
    }
}

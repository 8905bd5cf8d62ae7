//! Iterator chains and closures: chains over arrays consumed by `sum`, `product`, `fold`,
//! `max_by`/`min_by` or `collect`, closures bound by `let` and called, `array.map(..)`, and
//! `for v in a.iter_mut()`.
//!
//! A chain's bound is its item count times its items' bound: the counts are known (a `filter`
//! only lowers them), and every `map` squashes its result. `max_by`/`min_by` and the folds
//! that start at an infinity need an item, so their chains have no `filter` and at least one.

use super::*;

/// A chain under construction: its items' kind, how many there are at most, their bound, and
/// whether a `filter` may have left none.
struct Built {
    chain: Chain,
    items: Item,
    count: usize,
    bound: f64,
    maybe_empty: bool,
}

impl Gen<'_> {
    /// Runs `f` with the scope of a closure: no chains or closures inside.
    fn in_closure_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = self.in_closure;
        self.in_closure = true;
        let r = f(self);
        self.in_closure = outer;
        r
    }

    /// The body of a closure over the names the pattern binds for `item` (of arrays of `len`
    /// elements bounded by `cap`), squashed into `t`.
    fn closure_body(
        &mut self,
        item: Item,
        names: &[String],
        len: usize,
        cap: f64,
        d: usize,
        t: f64,
    ) -> (FE, f64) {
        let marks = (self.floats.len(), self.arrays.len(), self.ints.len());
        let float = |g: &mut Gen, n: &String| {
            g.floats.push(FVar {
                name: n.clone(),
                read: FE::Var(n.clone()),
                cap,
                base: cap,
                spent: 0.0,
                mutable: false,
            })
        };
        let read = match item {
            Item::Ref | Item::Val => {
                float(self, &names[0]);
                FE::Var(names[0].clone())
            }
            Item::Pair => {
                float(self, &names[0]);
                float(self, &names[1]);
                FE::Var(names[1].clone())
            }
            Item::Idx => {
                self.ints.push(IVar {
                    name: names[0].clone(),
                    lo: 0,
                    hi: len - 1,
                });
                float(self, &names[1]);
                FE::Var(names[1].clone())
            }
            Item::Win => {
                self.arrays.push(AVar {
                    name: names[0].clone(),
                    kind: AKind::Window,
                    active: false,
                    len,
                    cap,
                    base: cap,
                    spent: 0.0,
                    locked: true,
                    param_mut: false,
                });
                FE::Index(names[0].clone(), Box::new(IE::Lit(0)))
            }
        };
        let (e, b) = self.in_closure_scope(|g| g.fe(d));
        // A typed result, so that the items have a type the consumer can name.
        let (e, b) = if e.has_typed_leaf() {
            (e, b)
        } else {
            (bin(BinOp::Add, read, e), b + cap)
        };
        let r = self.squash(e, b, t);
        self.floats.truncate(marks.0);
        self.arrays.truncate(marks.1);
        self.ints.truncate(marks.2);
        r
    }

    fn readable(&self) -> Vec<AVar> {
        self.arrays
            .iter()
            .filter(|a| a.kind != AKind::Window)
            .cloned()
            .collect()
    }

    /// A chain without its consumer; `filter` says whether a `filter` may go in, `t` bounds
    /// the results of its `map`s.
    fn chain_start(&mut self, d: usize, filter: bool, t: f64) -> Option<Built> {
        let arrays = self.readable();
        if arrays.is_empty() {
            return None;
        }
        let a = self.rng.pick(&arrays).clone();
        let (source, count, win) = match self.rng.weighted(&[3, 3, 1, 1, 2]) {
            0 => (
                Source::Iter {
                    arr: a.name.clone(),
                    owned: None,
                },
                a.len,
                0,
            ),
            1 => (
                Source::Iter {
                    arr: a.name.clone(),
                    owned: Some(*self.rng.pick(&["copied", "cloned"])),
                },
                a.len,
                0,
            ),
            2 => (Source::Enumerate(a.name.clone()), a.len, 0),
            3 => {
                let b = self.rng.pick(&arrays).clone();
                (
                    Source::Zip(a.name.clone(), b.name.clone()),
                    a.len.min(b.len),
                    0,
                )
            }
            _ => {
                let kind = *self.rng.pick(&["windows", "chunks", "chunks_exact"]);
                let k = self.rng.range(1, a.len.min(3));
                let (count, win) = match kind {
                    "windows" => (a.len - k + 1, k),
                    // The last chunk may be shorter: only its first element is read.
                    "chunks" => (a.len.div_ceil(k), 1),
                    _ => (a.len / k, k),
                };
                (Source::Windows(a.name.clone(), kind, k), count, win)
            }
        };
        let mut b = Built {
            items: source.item(),
            chain: Chain {
                source,
                adapters: Vec::new(),
                consumer: Consumer::Sum,
            },
            count,
            bound: a.cap,
            maybe_empty: false,
        };
        let cap = match &b.chain.source {
            Source::Zip(_, y) => a.cap.max(arrays.iter().find(|v| &v.name == y).unwrap().cap),
            _ => a.cap,
        };
        // The macro takes the adapters that move through the source (`rev`, `skip`, `take`,
        // `step_by`) right after it, then `map`s and `filter`s.
        for _ in 0..self.rng.range(0, 2) {
            match self.rng.weighted(&[2, 2, 2, 1]) {
                0 => b.chain.adapters.push(Adapter::Rev),
                1 if b.count > 1 => {
                    let k = self.rng.range(1, b.count - 1);
                    b.count -= k;
                    b.chain.adapters.push(Adapter::Skip(k));
                }
                2 => {
                    let k = self.rng.range(1, b.count.max(1));
                    b.count = b.count.min(k);
                    b.chain.adapters.push(Adapter::Take(k));
                }
                _ => {
                    b.count = b.count.div_ceil(2);
                    b.chain.adapters.push(Adapter::StepBy(2));
                }
            }
        }
        // Tuples and windows are taken apart by a `map` first.
        if matches!(b.items, Item::Idx | Item::Pair | Item::Win) {
            let names: Vec<String> = match b.items {
                Item::Win => vec![self.fresh("w")],
                Item::Idx => vec![self.fresh("i"), self.fresh("v")],
                _ => vec![self.fresh("v"), self.fresh("v")],
            };
            let len = if b.items == Item::Win { win } else { a.len };
            let (body, bb) = self.closure_body(b.items, &names, len, cap, d, t);
            b.chain.adapters.push(Adapter::Map(names, body));
            b.items = Item::Val;
            b.bound = bb;
        }
        for _ in 0..self.rng.range(0, 2) {
            if filter && self.rng.chance(0.4) {
                let v = self.fresh("v");
                self.floats.push(FVar {
                    name: v.clone(),
                    read: FE::Var(v.clone()),
                    cap: b.bound,
                    base: b.bound,
                    spent: 0.0,
                    mutable: false,
                });
                let c = self.in_closure_scope(|g| g.cond(0));
                self.floats.pop();
                b.maybe_empty = true;
                b.chain.adapters.push(Adapter::Filter(v, c));
            } else {
                let v = self.fresh("v");
                let (body, bb) =
                    self.closure_body(b.items, std::slice::from_ref(&v), 1, b.bound, d, t);
                b.chain.adapters.push(Adapter::Map(vec![v], body));
                b.items = Item::Val;
                b.bound = bb;
            }
        }
        Some(b)
    }

    /// Ends `b` with a `map` into `[-t, t]` unless its items are floats already bounded so.
    fn end_with_map(&mut self, b: &mut Built, d: usize, t: f64) {
        if b.items == Item::Val && b.bound <= t {
            return;
        }
        let v = self.fresh("v");
        let (body, bb) = self.closure_body(b.items, std::slice::from_ref(&v), 1, b.bound, d, t);
        b.chain.adapters.push(Adapter::Map(vec![v], body));
        b.items = Item::Val;
        b.bound = bb;
    }

    /// A chain consumed into a float.
    pub(super) fn chain_expr(&mut self, d: usize) -> (FE, f64) {
        let consumer = self.rng.weighted(&[4, 2, 2, 2, 1]);
        // Products of items up to 1.2: at most 1.2^5.
        let t = if consumer == 1 { 1.2 } else { BASE_CAP };
        let Some(mut b) = self.chain_start(d.min(2), consumer != 3 && consumer != 4, t) else {
            return self.leaf();
        };
        let bound = match consumer {
            0 => b.bound * b.count as f64,
            1 => {
                self.end_with_map(&mut b, d.min(2), 1.2);
                b.chain.consumer = Consumer::Product;
                b.bound.max(1.0).powi(b.count as i32)
            }
            2 => {
                let init = *self.rng.pick(&[0.0, 0.5, 1.0]);
                let (acc, var) = (self.fresh("acc"), self.fresh("v"));
                let (g, gb) = self.closure_body(
                    b.items,
                    std::slice::from_ref(&var),
                    1,
                    b.bound,
                    d.min(2),
                    2.0,
                );
                b.chain.consumer = Consumer::Fold {
                    init,
                    acc: acc.clone(),
                    var,
                    body: bin(BinOp::Add, FE::Var(acc), g),
                };
                init + gb * b.count as f64
            }
            _ if b.count == 0 || b.maybe_empty => b.bound * b.count as f64,
            k => {
                // `max_by`, `min_by` and `f64::max` take floats.
                let t = b.bound.max(BASE_CAP);
                self.end_with_map(&mut b, d.min(2), t);
                let max = self.rng.chance(0.5);
                b.chain.consumer = if k == 3 {
                    Consumer::Best {
                        max,
                        form: self.rng.below(3) as u8,
                    }
                } else {
                    Consumer::FoldBest { max }
                };
                b.bound
            }
        };
        (FE::Chain(Box::new(b.chain)), bound)
    }

    /// `let mut v: Vec<f64> = chain.collect();`, a local `Vec` of the chain's items.
    pub(super) fn let_collect(&mut self, out: &mut Vec<Stmt>) {
        if self.generic {
            return;
        }
        let Some(mut b) = self.chain_start(2, false, BASE_CAP) else {
            return;
        };
        if b.count < 2 {
            return;
        }
        self.end_with_map(&mut b, 2, BASE_CAP);
        let name = self.fresh("l");
        let active = self.chain_active(&b.chain);
        self.arrays.push(AVar {
            name: name.clone(),
            active,
            kind: AKind::LocalVec,
            len: b.count,
            cap: BASE_CAP + ACC_BUDGET,
            base: BASE_CAP,
            spent: 0.0,
            locked: false,
            param_mut: false,
        });
        out.push(Stmt::LetCollect(name, b.chain));
    }

    /// `let h = |u: f64| body;`, capturing only what nothing assigns while it lives.
    pub(super) fn let_closure(&mut self, out: &mut Vec<Stmt>) {
        let saved = (self.floats.clone(), self.arrays.clone(), self.ints.clone());
        let structs = self.hide_mutable_structs();
        self.floats.retain(|v| !v.mutable);
        self.arrays
            .retain(|a| !a.writable() && !a.param_mut && a.kind != AKind::Window);
        // Counters (`idx`) are advanced by the loops around them.
        self.ints.retain(|i| !i.name.starts_with("idx"));
        let (name, param) = (self.fresh("h"), self.fresh("u"));
        self.floats.push(FVar {
            name: param.clone(),
            read: FE::Var(param.clone()),
            cap: PARAM_CAP,
            base: PARAM_CAP,
            spent: 0.0,
            mutable: false,
        });
        let (e, b) = self.in_closure_scope(|g| g.fe(2));
        let (e, b) = if e.has_typed_leaf() {
            (e, b)
        } else {
            (bin(BinOp::Mul, FE::Var(param.clone()), e), b * PARAM_CAP)
        };
        let (body, bound) = self.squash(e, b, BASE_CAP);
        (self.floats, self.arrays, self.ints) = saved;
        (self.svars, self.farrs) = structs;
        self.closures.push((name.clone(), bound));
        out.push(Stmt::LetClosure { name, param, body });
    }

    /// `let mut m = arr.map(|v| body);` of an array.
    pub(super) fn let_arr_map(&mut self, out: &mut Vec<Stmt>) {
        let arrays: Vec<AVar> = self
            .arrays
            .iter()
            // `.map` of a local array bound without a type (`let l = [x; 2];`) is rejected by
            // the macro ("does not support this method call that reads `l`"; with
            // `let l: [f64; 2]` it compiles), so only array parameters are mapped:
            //
            //     #[ad::differentiable]
            //     fn g1(x: f64) -> f64 { let l = [x; 2]; let m = l.map(|v| 2.0 * v); m[0] }
            .filter(|a| a.kind == AKind::Arr)
            .cloned()
            .collect();
        if arrays.is_empty() {
            return;
        }
        let a = self.rng.pick(&arrays).clone();
        let param = self.fresh("v");
        let (body, _) = self.closure_body(
            Item::Val,
            std::slice::from_ref(&param),
            1,
            a.cap,
            2,
            BASE_CAP,
        );
        let name = self.fresh("l");
        if self.const_arrays.contains(&a.name) {
            self.const_arrays.push(name.clone());
        }
        let active = self.is_active(&body, std::slice::from_ref(&param));
        self.arrays.push(AVar {
            name: name.clone(),
            active,
            kind: AKind::LocalArr,
            len: a.len,
            cap: BASE_CAP + ACC_BUDGET,
            base: BASE_CAP,
            spent: 0.0,
            locked: false,
            param_mut: false,
        });
        out.push(Stmt::LetArrMap {
            name,
            arr: a.name,
            param,
            body,
        });
    }

    /// `for v in a.iter_mut() { *v = ..; *v += ..; }`: what it assigns does not read `a`,
    /// which the loop borrows.
    pub(super) fn for_iter_mut(&mut self, out: &mut Vec<Stmt>) {
        let Some(a) = self.pick_array(true) else {
            return;
        };
        self.for_iter_mut_of(a, out);
    }

    /// `for v in a.iter_mut() { .. }` of `a`.
    pub(super) fn for_iter_mut_of(&mut self, a: AVar, out: &mut Vec<Stmt>) {
        let at = self.arrays.iter().rposition(|v| v.name == a.name).unwrap();
        let saved = self.arrays.clone();
        self.arrays.retain(|v| v.name != a.name);
        let var = self.fresh("v");
        let mut ops = Vec::new();
        let mut spent = 0.0;
        for _ in 0..self.rng.range(1, 2) {
            let room = (a.cap - a.base - a.spent - spent) / self.execs;
            match self.rng.weighted(&[3, 3, 1]) {
                0 => ops.push((AssignOp::Set, self.fe_capped(2, a.base).0)),
                1 if room >= 0.05 => {
                    let (e, b) = self.fe(2);
                    let (e, b) = self.squash(e, b, room.min(8.0));
                    spent += b * self.execs;
                    ops.push((AssignOp::Add, e));
                }
                _ => ops.push((AssignOp::Mul, self.fe_capped(2, 1.0).0)),
            }
        }
        self.arrays = saved;
        self.arrays[at].spent += spent;
        if a.kind == AKind::Out {
            self.out_spent += spent;
        }
        out.push(Stmt::ForIterMut {
            var,
            arr: a.name,
            ops,
        });
    }
}

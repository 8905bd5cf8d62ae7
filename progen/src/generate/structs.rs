//! Structs and methods: the struct types of a batch (`#[derive(ad::Differentiable)]`, named or
//! tuple structs, with float, array, `Vec`, integer and nested struct fields), struct parameters by value and by
//! reference, their fields read (`s.x`, `s.inner.x`, `s.w[i]` in place, `s.n` as an integer)
//! and written (`s.x = ..` of a `mut` one), struct literals (also `S0 { x: .., ..s.clone() }`,
//! and `..s` in a result), clones and calls bound by `let`, structs passed on (`f(&s)`, `f(r)`,
//! `f(s.clone())`, `f(S0 { .. })`) and returned, and calls of the methods of the batch
//! (`s.m(x)`, `S0::m(&s, x)`, and a method taking `self` on a copy: `{ let c: S0 = s.clone();
//! c.m(x) }`).
//!
//! Programs of the supported language that `ad` gets wrong or does not compile are left out,
//! each where it would be generated, with a comment that shows it (the README lists them).
//!
//! Every float of a struct stays within `PARAM_CAP`, whatever made it: literals squash their
//! fields into it and writes of fields keep it (`=` of a squashed value, `*=` by at most 1,
//! `/=` by at least 1, `%`), so a struct is passed on whole to callees, which take their
//! parameters in that bound.

use super::*;

/// The struct types of the batch of `seed`: two or three, each with one to three floats, and
/// now and then an array, a `Vec`, an integer (which makes the derive write a companion
/// tangent type) and a field of an earlier struct type. A function of the seed alone, so that
/// the generator, the harness and the shrinker see the same types.
pub fn struct_defs(seed: u64) -> Vec<StructDef> {
    let mut rng = Rng::new(seed ^ 0x7374_7275_6374_7321);
    let count = rng.range(2, 3);
    let mut defs: Vec<StructDef> = Vec::new();
    for k in 0..count {
        let mut fields = Vec::new();
        for name in &["x", "y", "z"][..rng.range(1, 3)] {
            fields.push((name.to_string(), FieldTy::F));
        }
        if rng.chance(0.7) {
            fields.push(("w".to_string(), FieldTy::Arr(rng.range(2, 4))));
        }
        if rng.chance(0.6) {
            fields.push(("v".to_string(), FieldTy::Vec(rng.range(2, 4))));
        }
        if rng.chance(0.4) {
            fields.push(("n".to_string(), FieldTy::U(rng.range(1, 3))));
        }
        if k > 0 && rng.chance(0.5) {
            fields.push(("inner".to_string(), FieldTy::Struct(rng.below(k))));
        }
        for i in (1..fields.len()).rev() {
            let j = rng.below(i + 1);
            fields.swap(i, j);
        }
        // Now and then a tuple struct, its fields named by position.
        let tuple = rng.chance(0.3);
        if tuple {
            for (i, f) in fields.iter_mut().enumerate() {
                f.0 = i.to_string();
            }
        }
        defs.push(StructDef { fields, tuple });
    }
    defs
}

impl Gen<'_> {
    /// Structs are generated in functions over `f64` only (not over `f32`, not generic).
    pub(super) fn structs_ok(&self) -> bool {
        !self.generic && !self.single && !self.structs.is_empty()
    }

    /// In a condition (of an `if`, a `while`, a guard, `total_cmp`) or in the arguments of
    /// `assert!` and `println!`, where the macro keeps the expression as it is and refuses a
    /// method called with `.` on a receiver declared `mut` ("cannot keep this as it is: it may
    /// change `st`", since the method may take `&mut self`; item 23 of the README, which is
    /// Rust's rule too where the method does), so receivers there are not `mut`.
    fn kept_as_is(&self) -> bool {
        self.in_cond || self.in_macro
    }

    /// Brings struct `path` of type `def` into scope, with its fields; `elems`: its array and
    /// `Vec` fields are read in place (`s.w[i]`).
    pub(super) fn bind_struct(
        &mut self,
        path: &str,
        def: usize,
        is_ref: bool,
        mutable: bool,
        active: bool,
        elems: bool,
    ) {
        self.svars.push(SVar {
            path: path.to_string(),
            def,
            is_ref,
            mutable,
            top: !path.contains('.'),
        });
        for (name, ty) in self.structs[def].fields.clone() {
            let p = format!("{path}.{name}");
            match ty {
                FieldTy::F => {
                    if active {
                        self.active.push(p.clone());
                    }
                    self.floats.push(FVar {
                        name: p.clone(),
                        read: FE::Var(p),
                        cap: PARAM_CAP,
                        base: PARAM_CAP,
                        spent: 0.0,
                        mutable,
                    });
                }
                FieldTy::Arr(len) | FieldTy::Vec(len) if elems => self.farrs.push(FArr {
                    path: p,
                    len,
                    vec: matches!(ty, FieldTy::Vec(_)),
                    mutable,
                }),
                FieldTy::Arr(_) | FieldTy::Vec(_) => {}
                FieldTy::U(hi) => self.ints.push(IVar { name: p, lo: 0, hi }),
                FieldTy::Struct(j) => self.bind_struct(&p, j, false, mutable, active, elems),
            }
        }
    }

    /// `s.w[i]`, an element of an array or `Vec` field in scope read in place, also in a
    /// function with a `const` item (which was item 35 of the README).
    pub(super) fn field_elem_read(&mut self) -> Option<(FE, f64)> {
        if self.farrs.is_empty() {
            return None;
        }
        let a = self.rng.pick(&self.farrs).clone();
        let idx = self.index(a.len);
        Some((FE::Index(a.path, Box::new(idx)), PARAM_CAP))
    }

    /// `st.w[i] = ..` or `st.w[i] *= ..`, an element of an array or `Vec` field of a struct
    /// whose fields are written, written in place: a value within `PARAM_CAP`, or a factor of
    /// at most 1 in magnitude, so that every element stays within the bound its reads assume.
    pub(super) fn assign_field_elem(&mut self, out: &mut Vec<Stmt>) {
        let c: Vec<FArr> = self.farrs.iter().filter(|a| a.mutable).cloned().collect();
        if c.is_empty() {
            return;
        }
        let a = self.rng.pick(&c).clone();
        let mut idx = self.index(a.len);
        // rustc's own rule: `v[i] op= ..` with an index that reads `v`.
        let text = crate::print::Printer::new(crate::print::Flavor::Ad, self.funcs).ie(&idx);
        if text.contains(&a.path) {
            idx = IE::Lit(self.rng.below(a.len));
        }
        let (op, e) = if self.rng.chance(0.7) {
            (AssignOp::Set, self.fe_capped(3, PARAM_CAP).0)
        } else {
            (AssignOp::Mul, self.fe_capped(2, 1.0).0)
        };
        out.push(Stmt::AssignElem(a.path, idx, op, e));
    }

    /// A literal of struct `def`, its floats within `PARAM_CAP`; now and then with the fields
    /// it does not give from a struct of the type in scope.
    pub(super) fn struct_lit(&mut self, def: usize, d: usize) -> SLit {
        self.struct_lit_moving(def, d, false)
    }

    /// A struct literal; with `last`, the function's result, after which nothing reads the
    /// base: `..s` of a struct held by value, moved.
    fn struct_lit_moving(&mut self, def: usize, d: usize, last: bool) -> SLit {
        let sd = self.structs[def].clone();
        let bases: Vec<SVar> = self
            .svars
            .iter()
            .filter(|v| v.def == def)
            .cloned()
            .collect();
        // A clone, `..s.clone()`, but in the result: `S0 { x, ..s }` of a struct that is not
        // `Copy` moves `s`'s tangent in the derivative, so that a later use of `s` does not
        // compile (E0382 "use of moved value: `__d_s`" at the attribute, for `let t = P { x,
        // ..s }; t.x + s.y` with `struct P { x: f64, y: f64 }`; plain Rust copies the floats
        // and moves nothing).
        let movable: Vec<SVar> = bases
            .iter()
            .filter(|v| last && v.top && !v.is_ref)
            .cloned()
            .collect();
        let p = if movable.is_empty() { 0.6 } else { 0.9 };
        let base = (!bases.is_empty() && self.rng.chance(p)).then(|| {
            if !movable.is_empty() && self.rng.chance(0.8) {
                SArg::Place(self.rng.pick(&movable).path.clone())
            } else {
                SArg::Clone(self.rng.pick(&bases).path.clone())
            }
        });
        let mut fields = Vec::new();
        if base.is_some() {
            // Beside a base, some fields given, with or without a derivative (finding 24:
            // a field given a constant once kept the base's tangent); the other fields come
            // from the base.
            for (name, ty) in &sd.fields {
                match ty {
                    FieldTy::F if self.rng.chance(0.6) => {
                        let (e, b) = self.fe(d);
                        let (e, _) = self.squash(e, b, PARAM_CAP);
                        fields.push((name.clone(), FInit::F(e)));
                    }
                    FieldTy::U(hi) if self.rng.chance(0.4) => {
                        fields.push((name.clone(), FInit::U(self.index(hi + 1))));
                    }
                    FieldTy::F | FieldTy::U(_) => {}
                    _ if self.rng.chance(0.3) => {
                        let init = self.field_init(*ty, d);
                        fields.push((name.clone(), init));
                    }
                    _ => {}
                }
            }
        }
        let base = if fields.is_empty() { None } else { base };
        if base.is_none() {
            for (name, ty) in &sd.fields {
                let init = self.field_init(*ty, d);
                fields.push((name.clone(), init));
            }
        }
        // In any order.
        for i in (1..fields.len()).rev() {
            let j = self.rng.below(i + 1);
            fields.swap(i, j);
        }
        SLit { def, fields, base }
    }

    /// The result of a function returning struct `def` (see `struct_lit_moving`).
    pub(super) fn struct_result(&mut self, def: usize) -> Option<SArg> {
        if self.rng.chance(0.7) {
            let lit = self.struct_lit_moving(def, 2, true);
            return Some(SArg::Lit(Box::new(lit)));
        }
        self.struct_value(def, 2)
    }

    fn field_init(&mut self, ty: FieldTy, d: usize) -> FInit {
        match ty {
            FieldTy::F => FInit::F(self.fe_capped(d, PARAM_CAP).0),
            FieldTy::Arr(n) | FieldTy::Vec(n) => {
                let vec = matches!(ty, FieldTy::Vec(_));
                let same: Vec<String> = self
                    .farrs
                    .iter()
                    .filter(|a| a.len == n && a.vec == vec)
                    .map(|a| a.path.clone())
                    .collect();
                if !same.is_empty() && self.rng.chance(0.3) {
                    let p = self.rng.pick(&same).clone();
                    // An array is `Copy`: `s.w` or `s.w.clone()`; a `Vec` is cloned.
                    return FInit::Of(p, vec || self.rng.chance(0.5));
                }
                let d = d.min(1);
                let init = if self.rng.chance(0.4) {
                    ArrInit::Fill(self.fe_capped(d, PARAM_CAP).0, n)
                } else {
                    ArrInit::List((0..n).map(|_| self.fe_capped(d, PARAM_CAP).0).collect())
                };
                FInit::Arr(init, vec)
            }
            FieldTy::U(hi) => FInit::U(self.index(hi + 1)),
            FieldTy::Struct(j) => match self.struct_value(j, d.saturating_sub(1)) {
                Some(a) => FInit::S(a),
                None => FInit::S(SArg::Lit(Box::new(self.struct_lit(j, 0)))),
            },
        }
    }

    /// A struct of type `def` by value: a clone of one in scope, a call of a function that
    /// returns one, or a literal.
    pub(super) fn struct_value(&mut self, def: usize, d: usize) -> Option<SArg> {
        let c: Vec<String> = self
            .svars
            .iter()
            .filter(|v| v.def == def)
            .map(|v| v.path.clone())
            .collect();
        if d > 0 && self.rng.chance(0.25) {
            let callees = self.struct_callees(def);
            if !callees.is_empty() {
                let i = *self.rng.pick(&callees);
                let params = self.funcs[i].params.clone();
                if let Some(args) = self.args(&params, d - 1, 0.0) {
                    return Some(SArg::Call(self.funcs[i].name.clone(), args));
                }
            }
        }
        if !c.is_empty() && self.rng.chance(0.5) {
            Some(SArg::Clone(self.rng.pick(&c).clone()))
        } else {
            Some(SArg::Lit(Box::new(self.struct_lit(def, d))))
        }
    }

    /// Whether `struct_arg` can fill a parameter of struct `def`.
    pub(super) fn struct_fillable(&self, def: usize, by_ref: bool) -> bool {
        if !self.structs_ok() {
            return false;
        }
        if by_ref {
            self.svars.iter().any(|v| v.def == def)
        } else {
            true
        }
    }

    /// An argument for a parameter of struct `def`: by reference a struct variable in scope
    /// or a field of one (`&s`, `&s.inner`, or `r` of a `&S` parameter as it is), by value a
    /// clone or a literal.
    pub(super) fn struct_arg(&mut self, def: usize, by_ref: bool, d: usize) -> Option<SArg> {
        if !by_ref {
            return self.struct_value(def, d);
        }
        let c: Vec<SVar> = self
            .svars
            .iter()
            .filter(|v| v.def == def)
            .cloned()
            .collect();
        if c.is_empty() {
            return None;
        }
        let v = self.rng.pick(&c).clone();
        Some(if v.is_ref {
            SArg::Place(v.path)
        } else {
            SArg::Ref(v.path)
        })
    }

    /// Whether a method of struct `def` taking `&self` (`by_ref`) or `self` has a receiver
    /// here (see `method_call`).
    fn receiver_ok(&self, def: usize, by_ref: bool) -> bool {
        let any = self.svars.iter().any(|v| v.def == def);
        if by_ref {
            any
        } else {
            self.struct_fillable(def, false)
        }
    }

    /// The functions of the batch (not methods) this scope can call that return struct
    /// `def`.
    fn struct_callees(&self, def: usize) -> Vec<usize> {
        (0..self.funcs.len())
            .filter(|&i| {
                let f = &self.funcs[i];
                f.method.is_none() && f.ret_struct == Some(def) && self.can_call(i, true)
            })
            .collect()
    }

    /// The methods of the batch this scope can call (see `method_call`) that return a float
    /// (`ret` `None`) or struct `ret`.
    fn methods_returning(&self, ret: Option<usize>) -> Vec<usize> {
        if !self.structs_ok() {
            return Vec::new();
        }
        (0..self.funcs.len())
            .filter(|&i| {
                let f = &self.funcs[i];
                let Some(def) = f.method else {
                    return false;
                };
                let by_ref = matches!(f.params[0].ty, Ty::Struct(_, true));
                f.ret_struct == ret && self.receiver_ok(def, by_ref) && self.can_call(i, true)
            })
            .collect()
    }

    fn method_callees(&self) -> Vec<usize> {
        self.methods_returning(None)
    }

    pub(super) fn can_call_method(&self) -> bool {
        !self.method_callees().is_empty()
    }

    /// The receiver of a call of a method of struct `def` and the form of the call (`copy`:
    /// of a method taking `self`, on a copy bound in a block).
    fn method_receiver(
        &mut self,
        def: usize,
        by_ref: bool,
        d: usize,
        copy: bool,
    ) -> Option<(SArg, MForm)> {
        let recvs: Vec<SVar> = self
            .svars
            .iter()
            .filter(|v| v.def == def)
            .cloned()
            .collect();
        let dottable: Vec<SVar> = recvs
            .iter()
            .filter(|v| !v.mutable || !self.kept_as_is())
            .cloned()
            .collect();
        let dot = !dottable.is_empty();
        if by_ref {
            return if dot && self.rng.chance(0.7) {
                let v = self.rng.pick(&dottable).clone();
                Some((SArg::Place(v.path), MForm::Dot))
            } else if !recvs.is_empty() {
                let v = self.rng.pick(&recvs).clone();
                let recv = if v.is_ref {
                    SArg::Place(v.path)
                } else {
                    SArg::Ref(v.path)
                };
                Some((recv, MForm::Path))
            } else {
                None
            };
        }
        if copy && dot && self.rng.chance(0.5) {
            let v = self.rng.pick(&dottable).clone();
            return Some((SArg::Place(v.path), MForm::Copy(self.fresh("cp"))));
        }
        let recv = self.struct_value(def, d.min(1))?;
        Some((recv, MForm::Path))
    }

    /// A call of a method of the batch: `s.m(x)` (also on a field, `s.inner.m(x)`) or
    /// `S0::m(&s, x)` of a method taking `&self`; of one taking `self`, on a copy (`{ let c:
    /// S0 = s.clone(); c.m(x) }`) or by path on a clone or a literal (`S0::m(s.clone(), x)`).
    pub(super) fn method_call(&mut self, d: usize) -> Option<(FE, f64)> {
        let c = self.method_callees();
        if c.is_empty() {
            return None;
        }
        let i = *self.rng.pick(&c);
        let bound = self.funcs[i].ret_bound;
        let call = self.method_call_of(i, d, true)?;
        Some((FE::Method(Box::new(call)), bound))
    }

    /// A call of method `i` (see `method_call`).
    fn method_call_of(&mut self, i: usize, d: usize, copy: bool) -> Option<MCall> {
        let f = &self.funcs[i];
        let (name, def) = (f.name.clone(), f.method.unwrap());
        let by_ref = matches!(f.params[0].ty, Ty::Struct(_, true));
        let params = f.params[1..].to_vec();
        let (recv, form) = self.method_receiver(def, by_ref, d, copy)?;
        let args = self.args(&params, d, 0.0)?;
        Some(MCall {
            name,
            def,
            recv,
            args,
            form,
        })
    }

    /// `let st: S0 = S0 { .. };` (or without the type), or `let st: S0 = s.clone();`, now and
    /// then `mut`, its fields then written.
    pub(super) fn let_struct(&mut self, out: &mut Vec<Stmt>) {
        if !self.structs_ok() {
            return;
        }
        let def = self.rng.below(self.structs.len());
        let clones: Vec<String> = self
            .svars
            .iter()
            .filter(|v| v.def == def)
            .map(|v| v.path.clone())
            .collect();
        // A struct a method returns (`let st: S0 = s.moved(x);`).
        let methods = self.methods_returning(Some(def));
        // A `let` without a type names the struct's type only by a literal.
        let (init, typed) = if !methods.is_empty() && self.rng.chance(0.4) {
            let i = *self.rng.pick(&methods);
            let Some(call) = self.method_call_of(i, 2, false) else {
                return;
            };
            (SArg::Method(Box::new(call)), true)
        } else if !self.struct_callees(def).is_empty() && self.rng.chance(0.3) {
            let Some(v) = self.struct_value(def, 2) else {
                return;
            };
            let typed = !matches!(v, SArg::Lit(_)) || self.rng.chance(0.5);
            (v, typed)
        } else if !clones.is_empty() && self.rng.chance(0.3) {
            (SArg::Clone(self.rng.pick(&clones).clone()), true)
        } else {
            let lit = self.struct_lit(def, 2);
            (SArg::Lit(Box::new(lit)), self.rng.chance(0.5))
        };
        let name = self.fresh("st");
        // Only a struct bound with a type is written: `let mut s = P { x: x0, y: x0 }; let t:
        // f64 = s.x.sin(); s.y = 0.75;` does not compile under the macro (E0282 "type
        // annotations needed" at the attribute; with `let mut s: P` it does, and so does a
        // write before the read).
        let mutable = typed && self.rng.chance(0.35);
        out.push(Stmt::LetStruct {
            name: name.clone(),
            def,
            typed,
            mutable,
            init,
        });
        // An element of a field of a struct bound without a type is not read in place:
        // `let t = A { x, w: [x, 1.0] }; t.w[0]` does not compile under the macro (E0282
        // "type annotations needed" at the attribute; with `let t: A` it does, and so does
        // `t.x` or a method of `t`).
        self.bind_struct(&name, def, false, mutable, false, typed);
    }

    /// Runs `f` with the array and `Vec` fields of the struct `field` belongs to out of scope
    /// (for the right side of a write of a field): `t.x += t.w[1];` does not compile under
    /// the macro (E0282 "type annotations needed" at the attribute, and with a `Vec` field
    /// E0382 "use of partially moved value"; also `t.x = t.w[1] * 2.0;` and `t.x +=
    /// t.inner.w[1];`), where `t.x += u.w[1];` of another struct, `let k = t.w[1]; t.x += k;`
    /// and `t.x += t.y;` compile.
    pub(super) fn without_own_elems<T>(
        &mut self,
        field: &str,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let Some((top, _)) = field.split_once('.') else {
            return f(self);
        };
        let prefix = format!("{top}.");
        let saved = self.farrs.clone();
        self.farrs.retain(|a| !a.path.starts_with(&prefix));
        let r = f(self);
        self.farrs = saved;
        r
    }

    /// Hides the structs whose fields are written from a closure bound by `let` (it would
    /// borrow them while they are written); returns what to restore.
    pub(super) fn hide_mutable_structs(&mut self) -> (Vec<SVar>, Vec<FArr>) {
        let saved = (self.svars.clone(), self.farrs.clone());
        self.svars.retain(|v| !v.mutable);
        self.farrs.retain(|a| !a.mutable);
        saved
    }
}

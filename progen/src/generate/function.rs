//! A function as a whole: its signature, its parameters in scope, its body, its result, and
//! the writes of its outputs.

use super::*;

impl Gen<'_> {
    /// A random signature: `rule` functions take 1 to 3 floats; the others mix every kind of
    /// parameter.
    pub fn signature(&mut self, rule: bool) -> (Vec<Param>, bool) {
        let mut params = Vec::new();
        // Now and then `f64 -> f64`, to be passed to the functions that take a function.
        if !rule && self.method.is_none() && self.rng.chance(0.06) {
            params.push(Param {
                name: "x0".into(),
                ty: Ty::F,
                mutable: false,
                array: false,
                generic_len: false,
            });
            return (params, true);
        }
        let nf = if rule {
            self.rng.range(1, 3)
        } else {
            self.rng.range(0, 3)
        };
        for k in 0..nf {
            params.push(Param {
                name: format!("x{k}"),
                ty: Ty::F,
                mutable: false,
                array: false,
                generic_len: false,
            });
        }
        if rule {
            return (params, true);
        }
        let len = |r: &mut Rng| r.range(2, 5);
        // Structs only in functions over `f64`.
        let s = if self.structs_ok() { 0.18 } else { 0.0 };
        let extras: [(f64, &str); 16] = [
            (0.5, "w"),
            (0.3, "y"),
            (0.25, "n"),
            (0.25, "q"),
            (0.15, "v"),
            (0.25, "c"),
            (0.2, "k"),
            (0.15, "p"),
            (0.1, "b"),
            (0.08, "h"),
            (0.12, "z"),
            (0.12, "r"),
            (0.15, "g"),
            (0.15, "o"),
            (s, "s"),
            (s / 4.0, "u"),
        ];
        for (p, prefix) in extras {
            if self.rng.chance(p) {
                let ty = match prefix {
                    "w" => Ty::Slice(len(self.rng)),
                    "y" => Ty::Out(len(self.rng)),
                    "n" => Ty::U(self.rng.range(1, 4)),
                    "q" => Ty::Arr(len(self.rng)),
                    "v" => Ty::Vec(len(self.rng)),
                    "c" => Ty::ConstSlice(len(self.rng)),
                    "p" => Ty::Pair,
                    "b" => Ty::Bool,
                    "h" => Ty::Char,
                    "z" => Ty::I32(-2, 3),
                    "r" => Ty::ArrRef(len(self.rng)),
                    "g" => Ty::FnArg(self.rng.below(3) as u8),
                    "o" => Ty::OptF,
                    "s" | "u" => {
                        Ty::Struct(self.rng.below(self.structs.len()), self.rng.chance(0.5))
                    }
                    _ => Ty::ConstF,
                };
                params.push(Param {
                    name: format!("{prefix}0"),
                    ty,
                    mutable: false,
                    array: false,
                    generic_len: false,
                });
            }
        }
        if self.generic {
            // Floats, slices, outputs, arrays, pairs, and what carries no float.
            params.retain(|p| {
                matches!(
                    p.ty,
                    Ty::F
                        | Ty::U(_)
                        | Ty::Slice(_)
                        | Ty::Out(_)
                        | Ty::Arr(_)
                        | Ty::Pair
                        | Ty::Bool
                        | Ty::OptF
                )
            });
        }
        if params.iter().any(|p| matches!(p.ty, Ty::FnArg(_))) {
            // A function that takes a function is checked only through its callers, which
            // pass no `Vec`s: it takes none.
            params.retain(|p| !matches!(p.ty, Ty::Vec(_)));
        }
        if params.iter().all(|p| {
            matches!(
                p.ty,
                Ty::U(_) | Ty::ConstF | Ty::Bool | Ty::Char | Ty::I32(..) | Ty::FnArg(_) | Ty::OptF
            )
        }) {
            params.insert(
                0,
                Param {
                    name: "x0".into(),
                    ty: Ty::F,
                    mutable: false,
                    array: false,
                    generic_len: false,
                },
            );
        }
        // ad takes functions of up to 16 arguments: most have a few, some 9 to 16 (more
        // floats), the others at most 8.
        if self.rng.chance(0.06) {
            let total = self.rng.range(9, 16);
            let mut k = nf;
            while params.len() < total {
                if params.iter().any(|p| p.name == format!("x{k}")) {
                    k += 1;
                    continue;
                }
                params.push(Param {
                    name: format!("x{k}"),
                    ty: Ty::F,
                    mutable: false,
                    array: false,
                    generic_len: false,
                });
                k += 1;
            }
            params.truncate(16);
        } else {
            params.truncate(8);
        }
        // Shuffle, so no kind always comes first.
        for i in (1..params.len()).rev() {
            let j = self.rng.below(i + 1);
            params.swap(i, j);
        }
        // A method: its receiver first, and parameters its callers can fill in an
        // expression (no outputs, `Vec`s or references to arrays), no function (a type
        // parameter, and the macro does not differentiate generic methods); it returns a
        // float or a struct.
        if let Some(k) = self.method {
            params.retain(|p| {
                !matches!(p.ty, Ty::Out(_) | Ty::Vec(_) | Ty::ArrRef(_) | Ty::FnArg(_))
            });
            params.insert(
                0,
                Param {
                    name: "self".into(),
                    ty: Ty::Struct(k, self.rng.chance(0.65)),
                    mutable: false,
                    array: false,
                    generic_len: false,
                },
            );
            params.truncate(16);
            return (params, true);
        }
        let has_out = params.iter().any(|p| matches!(p.ty, Ty::Out(_)));
        let returns = !has_out || self.rng.chance(0.5);
        (params, returns)
    }

    pub fn function(
        &mut self,
        name: String,
        params: Vec<Param>,
        returns: bool,
        pair: bool,
    ) -> Func {
        self.returns = returns;
        self.pair = pair;
        // Some parameters are assigned: what the reverse sweep may compute again from a
        // parameter depends on whether the function writes it.
        let mut params = params;
        for p in params.iter_mut() {
            if matches!(p.ty, Ty::F | Ty::Arr(_) | Ty::Vec(_)) && self.rng.chance(0.2) {
                p.mutable = true;
            }
            // A struct by value whose fields the function writes (`mut s0: S0`).
            if matches!(p.ty, Ty::Struct(_, false)) && p.name != "self" && self.rng.chance(0.3) {
                p.mutable = true;
            }
            // Some outputs are references to arrays, `&mut [f64; N]`.
            if matches!(p.ty, Ty::Out(_)) && self.rng.chance(0.3) {
                p.array = true;
            }
        }
        // Some functions over `f64` are generic over the length of their arrays of one length
        // (`fn f<const N: usize>(q: [f64; N])`); not those that take a function.
        let arr_len = params.iter().find_map(|p| match p.ty {
            Ty::Arr(n) => Some(n),
            _ => None,
        });
        if let Some(n) = arr_len
            && !self.generic
            && self.method.is_none()
            && !params.iter().any(|p| matches!(p.ty, Ty::FnArg(_)))
            && self.rng.chance(0.3)
        {
            for p in params.iter_mut() {
                p.generic_len = p.ty == Ty::Arr(n);
            }
        }
        self.const_arrays = params
            .iter()
            .filter(|p| p.generic_len)
            .map(|p| p.name.clone())
            .collect();
        self.out_arrays = params
            .iter()
            .filter(|p| p.array)
            .map(|p| p.name.clone())
            .collect();
        self.shape = *self.rng.pick(&[Shape::Tuple, Shape::Array, Shape::Vec]);
        if self.triple {
            self.shape = Shape::Tuple;
        }
        for p in &params {
            if p.ty == Ty::F {
                self.float_params.push(p.name.clone());
            }
            if matches!(p.ty, Ty::F | Ty::Pair) {
                self.active.push(p.name.clone());
            }
            match p.ty {
                Ty::F => self.floats.push(FVar {
                    name: p.name.clone(),
                    read: FE::Var(p.name.clone()),
                    cap: if p.mutable {
                        BASE_CAP + 20.0
                    } else {
                        PARAM_CAP
                    },
                    base: if p.mutable { BASE_CAP } else { PARAM_CAP },
                    spent: 0.0,
                    mutable: p.mutable,
                }),
                Ty::ConstF => self.floats.push(FVar {
                    name: p.name.clone(),
                    read: FE::ConstF(p.name.clone()),
                    cap: PARAM_CAP,
                    base: PARAM_CAP,
                    spent: 0.0,
                    mutable: false,
                }),
                Ty::Pair => {
                    for k in 0..2 {
                        self.floats.push(FVar {
                            name: format!("{}.{k}", p.name),
                            read: FE::Field(p.name.clone(), k),
                            cap: PARAM_CAP,
                            base: PARAM_CAP,
                            spent: 0.0,
                            mutable: false,
                        })
                    }
                }
                Ty::Bool => self.flags.push(p.name.clone()),
                Ty::OptF => self.opts.push(OVar {
                    name: p.name.clone(),
                    cap: PARAM_CAP,
                    some: false,
                }),
                Ty::ArrRef(n) => self.arr_refs.push((p.name.clone(), n)),
                Ty::FnArg(_) => self.fn_params.push(p.name.clone()),
                Ty::Char => self.chars.push(p.name.clone()),
                Ty::I32(..) => self.exponents.push(p.name.clone()),
                Ty::U(hi) => self.ints.push(IVar {
                    name: p.name.clone(),
                    lo: 0,
                    hi,
                }),
                // `self` of a method too: `&self` is passed on as it is.
                Ty::Struct(k, by_ref) => {
                    self.bind_struct(&p.name, k, by_ref, p.mutable, true, true)
                }
                Ty::Slice(n) | Ty::Out(n) | Ty::Arr(n) | Ty::Vec(n) | Ty::ConstSlice(n) => {
                    let kind = match p.ty {
                        Ty::Slice(_) => AKind::Slice,
                        Ty::Out(_) => AKind::Out,
                        Ty::Arr(_) => AKind::Arr,
                        Ty::Vec(_) => AKind::Vec,
                        _ => AKind::ConstSlice,
                    };
                    let out = kind == AKind::Out;
                    self.arrays.push(AVar {
                        name: p.name.clone(),
                        kind,
                        len: n,
                        cap: if out {
                            BASE_CAP + ACC_BUDGET
                        } else if p.mutable {
                            BASE_CAP + 20.0
                        } else {
                            PARAM_CAP
                        },
                        param_mut: p.mutable,
                        active: kind != AKind::ConstSlice,
                        base: BASE_CAP,
                        spent: 0.0,
                        locked: false,
                    })
                }
            }
        }
        let n = self.rng.range(2, 6);
        let mut body = self.block(n);
        let tail_opt = self.ret_opt.then(|| self.opt_expr(3, RET_CAP));
        let tail_struct = self.ret_struct.and_then(|k| self.struct_result(k));
        let tail = if returns && !self.ret_opt && self.ret_struct.is_none() {
            let (e, b) = self.fe(3);
            Some(self.squash(e, b, RET_CAP).0)
        } else {
            None
        };
        let tail2 = pair.then(|| self.fe_capped(3, RET_CAP).0);
        let tail3 = (pair && self.triple).then(|| self.fe_capped(3, RET_CAP).0);
        // A function with outputs writes them at least once.
        for p in &params {
            if let Ty::Out(len) = p.ty
                && self.rng.chance(0.7)
            {
                let idx = IE::Lit(self.rng.below(len));
                let (e, b) = self.fe(2);
                let e = self.squash(e, b, BASE_CAP).0;
                body.push(Stmt::AssignElem(p.name.clone(), idx, AssignOp::Set, e));
            }
        }
        Func {
            name,
            module: 0,
            order: 0,
            params,
            returns,
            body,
            tail,
            tail2,
            tail3,
            ret_opt: self.ret_opt,
            tail_opt,
            pair,
            pair_shape: self.shape,
            single: self.single,
            generic: self.generic,
            deriv: Deriv::Generated,
            ret_bound: RET_CAP,
            out_spent: self.out_spent,
            method: self.method,
            grouped: false,
            ret_struct: self.ret_struct,
            tail_struct,
        }
    }
}

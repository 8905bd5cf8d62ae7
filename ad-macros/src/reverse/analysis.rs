//! The analysis `Reverse::new` runs before anything is emitted: which adjoints receive
//! contributions (a backward flow from the result and the returns), which instructions push a
//! record, and the numbering of `if`s, loops and exits.

use super::*;

impl Reverse<'_> {
    /// One pass of the backward flow of adjoints; whether anything changed.
    pub(super) fn flow(&mut self, b: &Block) -> bool {
        let before = (self.contributed.len(), self.var_contributed.len());
        for inst in b.insts.iter().rev() {
            match inst {
                Inst::Read { out, var, .. } => {
                    if self.has(*out) && self.act.var(*var) {
                        self.var_contributed.insert(var.0);
                    }
                }
                Inst::Neg { out, a }
                | Inst::Field { out, a, .. }
                | Inst::Cast { out, a, .. }
                | Inst::Wrap { out, a }
                | Inst::Payload { out, a, .. } => {
                    if self.has(*out) {
                        self.contribute(*a);
                    }
                }
                Inst::Arith { out, a, b, .. } => {
                    if self.has(*out) {
                        self.contribute(*a);
                        self.contribute(*b);
                    }
                }
                Inst::Method {
                    out,
                    recv,
                    args,
                    prim,
                    ..
                } => {
                    if self.has(*out) {
                        self.contribute(*recv);
                        if prim.shape != Shape::PowI {
                            for a in args {
                                self.contribute(*a);
                            }
                        }
                    }
                }
                // A call's reverse sweep always runs (it pops the callee's records) and gives
                // its arguments adjoints, zero if the call's value has none.
                // A local lent mutably has its adjoint in place: the callee's buffer.
                Inst::Call {
                    out, args, lent, ..
                } => {
                    if self.active(*out) {
                        for (a, how) in args.iter().zip(lent) {
                            match how.mutable() {
                                Some(var) => {
                                    self.var_contributed.insert(var.0);
                                }
                                None => self.contribute(*a),
                            }
                        }
                    }
                }
                Inst::Tuple { out, elems } => {
                    if self.has(*out) {
                        for e in elems {
                            self.contribute(*e);
                        }
                    }
                }
                Inst::SetField { out, a, value, .. } => {
                    if self.has(*out) {
                        self.contribute(*a);
                        self.contribute(*value);
                    }
                }
                Inst::Struct {
                    out, fields, rest, ..
                } => {
                    if self.has(*out) {
                        for (_, v) in fields {
                            self.contribute(*v);
                        }
                        if let Some(r) = rest {
                            self.contribute(*r);
                        }
                    }
                }
                Inst::Let { var, init: Some(v) } | Inst::Assign { var, value: v, .. } => {
                    if self.var_contributed.contains(&var.0) {
                        self.contribute(*v);
                    }
                }
                Inst::Block { out, block } => {
                    if let (Some(o), Some(r)) = (out, block.result)
                        && self.has(*o)
                    {
                        self.contribute(r);
                    }
                    self.flow(block);
                }
                Inst::If {
                    out,
                    then_block,
                    else_block,
                    ..
                } => {
                    if let Some(o) = out
                        && self.has(*o)
                    {
                        for r in [then_block.result, else_block.result].into_iter().flatten() {
                            self.contribute(r);
                        }
                    }
                    self.flow(then_block);
                    self.flow(else_block);
                }
                Inst::Loop { body, .. } => {
                    self.flow(body);
                }
                Inst::Index { out, var, .. } | Inst::Sum { out, var, .. } => {
                    if self.has(*out) && self.act.var(*var) {
                        self.var_contributed.insert(var.0);
                    }
                }
                Inst::IndexAssign { var, value, .. } => {
                    if self.var_contributed.contains(&var.0) {
                        self.contribute(*value);
                    }
                }
                Inst::FieldIndex { out, a, .. } => {
                    if self.has(*out) {
                        self.contribute(*a);
                    }
                }
                Inst::Array { out, elems, .. } => {
                    if self.has(*out) {
                        for e in elems {
                            self.contribute(*e);
                        }
                    }
                }
                Inst::Repeat { out, elem, .. } => {
                    if self.has(*out) {
                        self.contribute(*elem);
                    }
                }
                Inst::Return { value } => self.contribute(*value),
                Inst::Break | Inst::Continue => {}
                Inst::Const { .. }
                | Inst::Opaque { .. }
                | Inst::Inactive { .. }
                | Inst::Let { init: None, .. }
                | Inst::Verbatim { .. } => {}
            }
        }
        before != (self.contributed.len(), self.var_contributed.len())
    }

    pub(super) fn contribute(&mut self, v: Value) {
        if self.active(v) && !self.slice_reads.contains_key(&v.0) {
            self.contributed.insert(v.0);
        }
    }

    /// Finds which adjoints receive contributions, which instructions record, the return points
    /// and the `if`s.
    pub(super) fn scan(&mut self, b: &Block) {
        for inst in &b.insts {
            match inst {
                Inst::Read { out, var, .. } => {
                    if self.active(*out) && self.act.var(*var) {
                        self.var_contributed.insert(var.0);
                    }
                }
                Inst::Neg { out, a }
                | Inst::Field { out, a, .. }
                | Inst::Wrap { out, a }
                | Inst::Payload { out, a, .. } => {
                    if self.active(*out) {
                        self.contribute(*a);
                        // A named field of a struct of a declared type keeps nothing.
                        if let Inst::Field { index, of, .. } = inst
                            && self.func.declared_struct(*out, index, *of).is_none()
                        {
                            self.note_record(*out);
                        }
                    }
                }
                Inst::Arith { out, op, a, b, .. } => {
                    if self.active(*out) {
                        self.contribute(*a);
                        self.contribute(*b);
                        if matches!(op, Arith::Mul | Arith::Div | Arith::Rem) {
                            self.note_record(*out);
                        }
                    }
                }
                Inst::Method {
                    out,
                    recv,
                    args,
                    prim,
                    ..
                } => {
                    if self.active(*out) {
                        self.contribute(*recv);
                        if prim.shape != Shape::PowI {
                            for a in args {
                                self.contribute(*a);
                            }
                        }
                        self.note_record(*out);
                    }
                }
                Inst::Call {
                    out, args, lent, ..
                } => {
                    if self.active(*out) {
                        for (a, how) in args.iter().zip(lent) {
                            match how.mutable() {
                                Some(var) => {
                                    self.var_contributed.insert(var.0);
                                    self.indexed.insert(var.0);
                                }
                                None => self.contribute(*a),
                            }
                        }
                        self.note_record(*out);
                    }
                }
                Inst::Cast { out, a, .. } => {
                    if self.active(*out) {
                        self.contribute(*a);
                        self.note_record(*out);
                    }
                }
                Inst::Tuple { out, elems } => {
                    if self.active(*out) {
                        for e in elems {
                            self.contribute(*e);
                        }
                    }
                }
                Inst::SetField { out, a, value, .. } => {
                    if self.active(*out) {
                        self.contribute(*a);
                        self.contribute(*value);
                    }
                }
                Inst::Struct {
                    out, fields, rest, ..
                } => {
                    if self.active(*out) {
                        for (_, v) in fields {
                            self.contribute(*v);
                        }
                        if let Some(r) = rest {
                            self.contribute(*r);
                        }
                    }
                }
                Inst::Let { var, init: Some(v) } | Inst::Assign { var, value: v, .. } => {
                    if self.act.var(*var) {
                        self.contribute(*v);
                    }
                }
                Inst::Block { out, block } => {
                    self.scan(block);
                    if let (Some(o), Some(r)) = (out, block.result)
                        && self.active(*o)
                    {
                        self.contribute(r);
                    }
                }
                Inst::If {
                    out,
                    then_block,
                    else_block,
                    ..
                } => {
                    let n = self.ifs.len() as u32;
                    self.ifs.insert(std::ptr::from_ref(inst), n);
                    self.scan(then_block);
                    self.scan(else_block);
                    if let Some(o) = out
                        && self.active(*o)
                    {
                        for r in [then_block.result, else_block.result].into_iter().flatten() {
                            self.contribute(r);
                        }
                    }
                }
                Inst::Loop { head, body } => {
                    let n = self.loops.len() as u32;
                    self.loops.insert(std::ptr::from_ref(inst), n);
                    self.depth += 1;
                    if let crate::ir::LoopHead::While { cond_block, .. } = head {
                        self.scan(cond_block);
                    }
                    self.scan(body);
                    self.depth -= 1;
                }
                Inst::Index { out, var, .. } | Inst::Sum { out, var, .. } => {
                    if self.active(*out) {
                        self.var_contributed.insert(var.0);
                        self.indexed.insert(var.0);
                        self.note_record(*out);
                    }
                }
                Inst::FieldIndex { out, a, .. } => {
                    if self.active(*out) {
                        self.contribute(*a);
                        self.note_record(*out);
                    }
                }
                Inst::IndexAssign {
                    id,
                    var,
                    path,
                    value,
                    ..
                } => {
                    if self.act.var(*var) {
                        self.contribute(*value);
                        if path.is_empty() {
                            self.indexed.insert(var.0);
                        }
                        self.note_record(*id);
                    }
                }
                Inst::Array { out, elems, .. } => {
                    if self.active(*out) {
                        for e in elems {
                            self.contribute(*e);
                        }
                    }
                }
                Inst::Repeat { out, elem, .. } => {
                    if self.active(*out) {
                        self.contribute(*elem);
                    }
                }
                Inst::Return { value } => {
                    let k = self.next_exit();
                    self.returns.insert(std::ptr::from_ref(inst), k);
                    self.contribute(*value);
                }
                Inst::Break | Inst::Continue => {
                    let k = self.next_exit();
                    self.jumps.insert(std::ptr::from_ref(inst), k);
                }
                Inst::Const { .. }
                | Inst::Opaque { .. }
                | Inst::Inactive { .. }
                | Inst::Let { init: None, .. }
                | Inst::Verbatim { .. } => {}
            }
        }
    }

    fn note_record(&mut self, out: Value) {
        self.recorded.push(out);
        if self.depth > 0 {
            self.in_loop.insert(out.0);
        }
    }
}

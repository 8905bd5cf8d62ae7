//! What a generated reverse derivative returns: `Swept`, `Tupled` and the `Sweep` trait over them.

/// What a generated reverse derivative of one argument returns: the value when it ran the
/// forward sweep alone, the argument's adjoint when it ran a reverse sweep (a joint call writes
/// the value through its last argument).
///
/// One field in each variant: for a float function of a float the result then comes back in
/// two registers. A tuple of an `Option` of the value and the adjoints is returned through
/// memory, and each call between differentiable functions waited for that store and load in
/// both sweeps. With more arguments the adjoints do not fit in registers either way, and the
/// derivative returns [`Tupled`], where for a float value the adjoints start 16 bytes in, as
/// before `Swept`: callers read them in pairs, and at 8 bytes in (in a `Swept`) a pair could
/// span two of the callee's stores, which stalls the load.
#[doc(hidden)]
pub enum Swept<R, G> {
    /// The forward sweep's value.
    Value(R),
    /// The arguments' adjoints.
    Gradient(G),
}

/// What a generated reverse derivative of no argument or of two or more returns: the value if
/// it ran the forward sweep alone, and the arguments' adjoints (zeros after a forward sweep).
#[doc(hidden)]
pub type Tupled<R, G> = (Option<R>, G);

/// The results of generated reverse derivatives, built by generated code and read by the
/// dispatch as a [`Swept`].
#[doc(hidden)]
pub trait Sweep<R, G>: Sized {
    /// The result of the forward sweep alone, which always has a value.
    fn forward(value: Option<R>, zeros: G) -> Self;
    /// The result of a reverse sweep. The value, if the forward sweep ran too, goes to `out`
    /// now or in [`into_swept`](Self::into_swept).
    fn reverse(out: &mut Option<R>, value: Option<R>, gradient: G) -> Self;
    /// The result as a [`Swept`], the value of a joint call in `out`: `forward_alone` tells
    /// which sweep ran.
    fn into_swept(self, forward_alone: bool, out: &mut Option<R>) -> Swept<R, G>;
}

impl<R, G> Sweep<R, G> for Swept<R, G> {
    #[inline(always)]
    fn forward(value: Option<R>, _zeros: G) -> Self {
        match value {
            Some(value) => Swept::Value(value),
            None => out_of_step(),
        }
    }
    #[inline(always)]
    fn reverse(out: &mut Option<R>, value: Option<R>, gradient: G) -> Self {
        *out = value;
        Swept::Gradient(gradient)
    }
    #[inline(always)]
    fn into_swept(self, _forward_alone: bool, _out: &mut Option<R>) -> Swept<R, G> {
        self
    }
}

impl<R, G> Sweep<R, G> for Tupled<R, G> {
    #[inline(always)]
    fn forward(value: Option<R>, zeros: G) -> Self {
        (value, zeros)
    }
    /// The value stays in the tuple: the callee writes nothing through `out`.
    #[inline(always)]
    fn reverse(_out: &mut Option<R>, value: Option<R>, gradient: G) -> Self {
        (value, gradient)
    }
    #[inline(always)]
    fn into_swept(self, forward_alone: bool, out: &mut Option<R>) -> Swept<R, G> {
        match self {
            (Some(value), _) if forward_alone => Swept::Value(value),
            (value, gradient) => {
                if value.is_some() {
                    *out = value;
                }
                Swept::Gradient(gradient)
            }
        }
    }
}

impl<R, G> Swept<R, G> {
    /// The value of a forward sweep.
    #[inline(always)]
    pub fn value(self) -> R {
        match self {
            Swept::Value(value) => value,
            Swept::Gradient(_) => out_of_step(),
        }
    }

    /// The adjoints of a reverse sweep.
    #[inline(always)]
    pub fn gradient(self) -> G {
        match self {
            Swept::Gradient(gradient) => gradient,
            Swept::Value(_) => out_of_step(),
        }
    }
}

#[cold]
#[inline(never)]
fn out_of_step() -> ! {
    panic!("ad: a generated reverse derivative returned what the other sweep returns")
}

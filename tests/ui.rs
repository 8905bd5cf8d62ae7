//! Compile-fail tests: each file in `ui-tests/` makes one mistake, and its `.stderr` is the
//! error the user reads.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("ui-tests/*.rs");
}

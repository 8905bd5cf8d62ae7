//! The linker pitfall: `ad-test-logistic-rules` is a dependency of this package, but this test
//! binary never names it, so the linker leaves it out and its rule for `logistic` is absent. The
//! missing-rule message says how to fix that. `test_linking_referenced.rs` is the same with the
//! crate named.

#[test]
fn rules_of_a_crate_nothing_references_are_absent_and_the_message_says_why() {
    let err = ad::try_jvp(ad_test_special::logistic, (0.0,), (1.0,)).unwrap_err();
    let ad::Error::MissingRule { function, .. } = &err else {
        panic!("expected a missing rule, got {err:?}");
    };
    assert_eq!(function, "ad_test_special::logistic");
    let text = err.to_string();
    assert!(
        text.contains(
            "if its rule lives in a crate that nothing else references, add `use that_crate as _;`"
        ),
        "{text}"
    );
    assert!(
        ad::rules::list()
            .iter()
            .all(|r| r.function != "ad_test_special::logistic")
    );
}

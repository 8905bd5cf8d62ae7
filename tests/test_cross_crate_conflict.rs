//! Two crates give `#[custom_rule]`s for the same function and mode: the conflict is reported
//! with both locations, by `jvp`, `try_jvp` and `ad::rules::check`, and no rule is picked.

use ad_test_rival_rules as _;
use ad_test_stable_rules as _;

#[test]
fn rules_from_two_crates_for_one_function_conflict() {
    let err = ad::try_jvp(ad_test_model::neuron, (1.0, 2.0, 0.5), (1.0, 0.0, 0.0)).unwrap_err();
    let ad::Error::Conflict {
        function, rules, ..
    } = &err
    else {
        panic!("expected a conflict, got {err:?}");
    };
    assert_eq!(function, "ad_test_model::activation");
    let mut names: Vec<&str> = rules.iter().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "ad_test_rival_rules::rival_activation_jvp",
            "ad_test_stable_rules::activation_jvp"
        ]
    );
    let mut files: Vec<&str> = rules.iter().map(|(_, l)| l.file).collect();
    files.sort_unstable();
    assert_eq!(
        files,
        [
            "tests/crates/rival-rules/src/lib.rs",
            "tests/crates/stable-rules/src/lib.rs"
        ]
    );
    let text = err.to_string();
    for (name, location) in rules {
        assert!(text.contains(&format!("`{name}` at {location}")), "{text}");
    }
    let reported = ad::rules::check();
    assert!(reported.contains(&err), "{reported:#?}");
    let panic = std::panic::catch_unwind(|| ad::jvp(ad_test_model::activation, (0.0,), (1.0,)))
        .expect_err("jvp must not pick one of the rules");
    assert_eq!(panic.downcast_ref::<String>(), Some(&text));
}

//! The fix for the linker pitfall of `test_linking_unreferenced.rs`: naming the rules crate once
//! links it, and its rule is found.

use ad_test_logistic_rules as _;

#[test]
fn naming_the_crate_links_its_rules() {
    // logistic'(0) = 1/4, logistic'(2) = s (1 - s)
    assert_eq!(
        ad::jvp(ad_test_special::logistic, (0.0,), (1.0,)),
        (0.5, 0.25)
    );
    let s = ad_test_special::logistic(2.0);
    assert_eq!(
        ad::jvp(ad_test_special::logistic, (2.0,), (1.0,)).1,
        s * (1.0 - s)
    );
    let origins: Vec<ad::Origin> = ad::rules::list()
        .into_iter()
        .filter(|r| r.function == "ad_test_special::logistic")
        .map(|r| r.origin)
        .collect();
    assert_eq!(origins, [ad::Origin::Custom]);
}

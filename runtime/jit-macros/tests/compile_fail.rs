//! The messages of constructs outside the GPU subset, as the user sees them.

#[test]
fn unsupported_constructs_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

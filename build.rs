//! Tells the end-to-end tests whether PostgreSQL is configured, so that the
//! PostgreSQL variant of each test is compiled as `#[ignore]` (and reported as
//! ignored, never as passed) when `BOARD_TEST_POSTGRES_URL` is not set.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(board_test_postgres)");
    println!("cargo::rerun-if-env-changed=BOARD_TEST_POSTGRES_URL");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("BOARD_TEST_POSTGRES_URL").is_ok_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=board_test_postgres");
    }
}

//! Tells the end-to-end tests whether PostgreSQL is configured, so that the
//! PostgreSQL variant of each test is compiled as `#[ignore]` (and reported as
//! ignored, never as passed) when `BOARD_TEST_POSTGRES_URL` is not set; the
//! same for the object-store variants (`on_every_store!`) and `BOARD_TEST_S3_URL`,
//! for the single sign-on tests and `BOARD_TEST_OIDC_URL`, and for the e-mail tests
//! (`on_both_backends_with_mail!`) and `BOARD_TEST_SMTP_URL`.
//! The build script of every package whose tests use `on_both_backends!`
//! (the root, board-core, board-server and board-cli name this file as `build`).

fn main() {
    // board-server embeds its UI's files (src/ui.rs): a change to any of
    // them, or a new file, builds it again.
    if std::env::var("CARGO_PKG_NAME").as_deref() == Ok("board-server") {
        println!("cargo::rerun-if-changed=ui");
    }
    println!("cargo::rustc-check-cfg=cfg(board_test_postgres)");
    println!("cargo::rustc-check-cfg=cfg(board_test_s3)");
    println!("cargo::rustc-check-cfg=cfg(board_test_smtp)");
    // The e-mail tests (`on_both_backends_with_mail!`): the SMTP server
    // .ci/smtp-server runs, and the folder it writes messages to.
    println!("cargo::rerun-if-env-changed=BOARD_TEST_SMTP_URL");
    if std::env::var("BOARD_TEST_SMTP_URL").is_ok_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=board_test_smtp");
    }
    println!("cargo::rerun-if-env-changed=BOARD_TEST_S3_URL");
    if std::env::var("BOARD_TEST_S3_URL").is_ok_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=board_test_s3");
    }
    // The single sign-on tests' OpenID provider (`.ci/oidc-provider`).
    println!("cargo::rustc-check-cfg=cfg(board_test_oidc)");
    println!("cargo::rerun-if-env-changed=BOARD_TEST_OIDC_URL");
    if std::env::var("BOARD_TEST_OIDC_URL").is_ok_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=board_test_oidc");
    }
    // Only the variable: cargo reruns a build script whose source changed anyway.
    println!("cargo::rerun-if-env-changed=BOARD_TEST_POSTGRES_URL");
    if std::env::var("BOARD_TEST_POSTGRES_URL").is_ok_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=board_test_postgres");
    }
}

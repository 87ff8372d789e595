//! A Rust `Subscription` checks its own actor's access: it ends once the
//! session's token is revoked, without any server around it.

use std::time::Duration;

use board_core::{Actor, Board, Name, Options, Role};

#[tokio::test]
async fn a_subscription_ends_when_its_token_is_revoked() {
    let dir = std::env::temp_dir().join(format!("board-sub-{}", cuid2::create_id()));
    let mut options = Options::new(format!("sqlite://{}/s.db", dir.display()));
    options.files_dir = dir.join("files");
    let board = Board::open_with(options).await.unwrap();
    let ws = board
        .admin()
        .create_workspace(&Name::parse("Team").unwrap())
        .await
        .unwrap();
    let ana = board
        .admin()
        .create_account(&Name::parse("ana").unwrap())
        .await
        .unwrap();
    board
        .admin()
        .add_member(&ws.id, &ana.id, Role::Viewer)
        .await
        .unwrap();
    let issued = board.admin().create_token(&ana.id, None).await.unwrap();
    let actor = board.authenticate(&issued.token).await.unwrap();
    let mut sub = board.subscribe(&actor, &ws.id, None).await.unwrap();
    sub.recheck_every(Duration::from_millis(100));

    // Still allowed: nothing to read, and no error, for a while.
    let quiet = tokio::time::timeout(Duration::from_millis(350), sub.next()).await;
    assert!(
        quiet.is_err(),
        "no event and no end while the token is valid"
    );

    board.admin().revoke_token(&issued.id).await.unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(5), sub.next())
        .await
        .expect("the subscription notices the revocation at its next check");
    assert!(ended.is_err(), "a revoked session's subscription ends");

    // The operator's subscription never ends for access.
    let mut operator = board
        .subscribe(&Actor::Operator, &ws.id, None)
        .await
        .unwrap();
    operator.recheck_every(Duration::from_millis(50));
    let quiet = tokio::time::timeout(Duration::from_millis(200), operator.next()).await;
    assert!(quiet.is_err());
    board.close().await;
    std::fs::remove_dir_all(&dir).ok();
}

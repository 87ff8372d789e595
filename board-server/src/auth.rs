//! Credentials: `Authorization: Bearer <token>` or the `board_session` cookie.
//! The filter only collects them; handlers turn them into an `Actor` first thing,
//! so 401 comes before every other check.

use board_core::{Actor, Board, Error};
use warp::Filter;

/// The credential a request carried, not yet checked.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    authorization: Option<String>,
    cookie: Option<String>,
}

/// Collects the credential of a request; never rejects.
pub fn credentials(
) -> impl Filter<Extract = (Credentials,), Error = std::convert::Infallible> + Clone {
    warp::header::optional::<String>("authorization")
        .and(warp::cookie::optional::<String>("board_session"))
        .map(|authorization, cookie| Credentials {
            authorization,
            cookie,
        })
        .or(warp::any().map(Credentials::default))
        .unify()
}

impl Credentials {
    /// The actor behind the credential. The header wins over the cookie; a
    /// header that is not `Bearer <token>` is 401 whatever the cookie says.
    pub async fn actor(&self, board: &Board) -> Result<Actor, Error> {
        let token = match (&self.authorization, &self.cookie) {
            (Some(h), _) => {
                let (scheme, token) = h.trim().split_once(' ').ok_or(Error::Unauthenticated)?;
                if !scheme.eq_ignore_ascii_case("bearer") {
                    return Err(Error::Unauthenticated);
                }
                token.trim()
            }
            (None, Some(c)) => c.as_str(),
            (None, None) => return Err(Error::Unauthenticated),
        };
        board.authenticate(token).await
    }
}

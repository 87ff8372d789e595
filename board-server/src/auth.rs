//! Credentials: `Authorization: Bearer <token>` or the `board_session` cookie.
//! [`Credentials::from_headers`] only collects them; handlers turn them into an `Actor` first thing,
//! so 401 comes before every other check.

use board_core::{Actor, Board, Error};
use warp::http::header::{AUTHORIZATION, COOKIE};
use warp::http::HeaderMap;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "board_session";

/// The credential a request carried, not yet checked.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    authorization: Option<String>,
    cookie: Option<String>,
}

impl Credentials {
    /// The credential the headers carry: `Authorization`, and the
    /// `board_session` cookie (the first one, in any `Cookie` header).
    pub fn from_headers(headers: &HeaderMap) -> Credentials {
        let authorization = headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let cookie = headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                (name == SESSION_COOKIE).then(|| value.to_string())
            });
        Credentials {
            authorization,
            cookie,
        }
    }

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

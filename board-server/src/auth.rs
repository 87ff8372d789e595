//! Credentials: `Authorization: Bearer <token>` or the `board_session` cookie.
//! [`Credentials::from_headers`] only collects them; handlers turn them into an `Actor` first thing,
//! so 401 comes before every other check.

use board_core::{Actor, Bearer, Board, Error};
use warp::http::header::{AUTHORIZATION, COOKIE};
use warp::http::HeaderMap;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "board_session";

/// The value of the first `board_session` cookie of the `Cookie` headers.
/// The one reading of the cookie: the credential, and the cross-origin check
/// of [`crate::browser`], which so refuses exactly the writes the cookie would
/// authenticate. Name and value are trimmed of white space, as a browser
/// trims them (RFC 6265 §5.2).
pub(crate) fn session_cookie(headers: &HeaderMap) -> Option<&str> {
    cookie(headers, SESSION_COOKIE)
}

/// The value of the first cookie `name` of the `Cookie` headers, trimmed.
pub(crate) fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            (key.trim() == name).then(|| value.trim())
        })
}

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
        Credentials {
            authorization,
            cookie: session_cookie(headers).map(str::to_string),
        }
    }

    /// The actor behind the credential (one statement:
    /// [`Board::authenticate_bearer`]).
    pub async fn actor(&self, board: &Board) -> Result<Actor, Error> {
        board.authenticate_bearer(&self.bearer()?).await
    }

    /// The bearer token the credential carries, parsed, not yet checked (the
    /// fused reads of board-core check it). The header wins over the cookie;
    /// a header that is not `Bearer <token>` is 401 whatever the cookie says,
    /// as is a token that is not well formed.
    pub fn bearer(&self) -> Result<Bearer, Error> {
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
        Bearer::parse(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookies(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(COOKIE, v.parse().unwrap());
        }
        headers
    }

    #[test]
    fn the_session_cookie_is_the_first_of_its_name() {
        assert_eq!(session_cookie(&cookies(&[])), None);
        assert_eq!(session_cookie(&cookies(&["a=1; b=2"])), None);
        assert_eq!(session_cookie(&cookies(&["board_sessionx=1"])), None);
        assert_eq!(
            session_cookie(&cookies(&["a=1; board_session=brd_x; board_session=brd_y"])),
            Some("brd_x")
        );
        assert_eq!(
            session_cookie(&cookies(&["a=1", " board_session = brd_x "])),
            Some("brd_x")
        );
    }
}

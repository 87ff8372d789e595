//! The client's address behind reverse proxies (the sign-in throttle and the
//! logs count by it).
//!
//! - Without `--trust-proxy` or `--trusted-proxies`: the connection's peer.
//! - With `--trust-proxy` (the peer is a proxy that appends the address it
//!   sees to `X-Forwarded-For`, as nginx's `$proxy_add_x_forwarded_for` does):
//!   the right-most entry of the last `X-Forwarded-For` header. Every entry to
//!   its left came from the client, which can write anything there.
//! - With `--trusted-proxies CIDR,…` (which implies `--trust-proxy`): the
//!   header counts only when the peer is one of those proxies; entries are read
//!   from the right and skipped while they are trusted proxies too; the first
//!   one that is not is the client.
//!
//! An entry that is not an IP address (`not-an-ip`, a port, an empty entry) is
//! never used: the answer is then the peer. So a client can never choose the
//! address it is counted under.

use std::net::IpAddr;
use std::str::FromStr;

use ipnet::IpNet;
use warp::http::HeaderMap;

/// The proxies whose `X-Forwarded-For` is believed (`--trusted-proxies`):
/// networks in CIDR notation, or single addresses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses a comma-separated list (empty: none) of `ADDRESS/PREFIX`
    /// networks (`10.0.0.0/8`, `fd00::/8`) or single addresses (`127.0.0.1`).
    pub fn parse(list: &str) -> Result<Self, String> {
        list.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                IpNet::from_str(s)
                    .or_else(|_| IpAddr::from_str(s).map(IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| {
                        format!(
                            "{s:?} is not a network or an address: give ADDRESS/PREFIX or \
                             ADDRESS, comma-separated, e.g. 127.0.0.1/32,10.0.0.0/8,::1"
                        )
                    })
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    /// Whether no proxy is listed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `ip` is one of the listed proxies.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }
}

/// What the server believes of proxies: `--trust-proxy` and `--trusted-proxies`.
#[derive(Debug, Clone, Copy)]
pub struct Trust<'a> {
    /// `--trust-proxy`: the peer is a proxy that appends to `X-Forwarded-For`.
    pub trust_proxy: bool,
    /// `--trusted-proxies`: only these peers are believed (implies the above).
    pub proxies: &'a TrustedProxies,
}

impl Trust<'_> {
    /// Whether the headers a proxy sets (`X-Forwarded-For`,
    /// `X-Forwarded-Proto`) are believed from this peer.
    pub fn believes(&self, peer: Option<IpAddr>) -> bool {
        match self.proxies.is_empty() {
            true => self.trust_proxy,
            false => peer.is_some_and(|p| self.proxies.contains(p)),
        }
    }

    /// The client's address (see the module doc); `None` when neither the
    /// header nor the peer gives one.
    pub fn client(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> Option<IpAddr> {
        let peer = peer.map(|p| p.to_canonical());
        if !self.believes(peer) {
            return peer;
        }
        let Some(last) = headers.get_all("x-forwarded-for").iter().next_back() else {
            return peer;
        };
        let Ok(list) = last.to_str() else {
            return peer;
        };
        let mut found = None;
        for entry in list.rsplit(',') {
            let Ok(ip) = IpAddr::from_str(entry.trim()) else {
                return peer;
            };
            let ip = ip.to_canonical();
            found = Some(ip);
            if !self.proxies.contains(ip) {
                break;
            }
        }
        found.or(peer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warp::http::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn xff(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn proxies_parse_networks_and_addresses_and_refuse_the_rest() {
        let p = TrustedProxies::parse(" 10.0.0.0/8, 127.0.0.1 ,fd00::/8,,::1").unwrap();
        assert!(p.contains(ip("10.200.3.4")));
        assert!(p.contains(ip("127.0.0.1")));
        assert!(!p.contains(ip("127.0.0.2")));
        assert!(p.contains(ip("fd12::1")));
        assert!(p.contains(ip("::1")));
        assert!(
            p.contains(ip("::ffff:10.1.1.1")),
            "a mapped address is its IPv4"
        );
        assert!(!p.contains(ip("11.0.0.1")));
        assert!(TrustedProxies::parse("").unwrap().is_empty());
        assert_eq!(
            TrustedProxies::parse("10.1.2.3/8").unwrap(),
            TrustedProxies::parse("10.0.0.0/8").unwrap()
        );
        for bad in [
            "10.0.0.0/33",
            "not-a-net",
            "10.0.0.0/",
            "10.0.0/8",
            "::1/129",
            "1.2.3.4:80",
        ] {
            let err = TrustedProxies::parse(&format!("127.0.0.1,{bad}")).unwrap_err();
            assert!(err.contains(bad) && err.contains("ADDRESS/PREFIX"), "{err}");
        }
    }

    #[test]
    fn a_bad_flag_is_refused_with_the_entry_named() {
        use clap::Parser;
        let parse = |arg: &str| crate::Config::try_parse_from(["board-server", arg]);
        let err = parse("--trusted-proxies=10.0.0.0/8,nope")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"nope\"") && err.contains("ADDRESS/PREFIX"),
            "{err}"
        );
        let config = parse("--trusted-proxies=10.0.0.0/8").unwrap();
        assert!(!config.trust_proxy, "the list alone implies it");
        assert!(config.trust().believes(Some(ip("10.1.1.1"))));
        assert!(!config.trust().believes(Some(ip("127.0.0.1"))));
    }

    #[test]
    fn trust_proxy_takes_the_right_most_entry_of_the_last_header() {
        let none = TrustedProxies::default();
        let trust = Trust {
            trust_proxy: true,
            proxies: &none,
        };
        let peer = Some(ip("127.0.0.1"));
        let client = |h: &[&str]| trust.client(peer, &xff(h));
        assert_eq!(client(&["6.6.6.6, 1.2.3.4"]), Some(ip("1.2.3.4")));
        assert_eq!(client(&["1.2.3.4"]), Some(ip("1.2.3.4")));
        assert_eq!(
            client(&["6.6.6.6", "7.7.7.7, 1.2.3.4"]),
            Some(ip("1.2.3.4"))
        );
        assert_eq!(client(&["1.2.3.4", "not-an-ip"]), peer);
        assert_eq!(client(&["1.2.3.4, not-an-ip"]), peer);
        assert_eq!(client(&[&"a".repeat(5000)]), peer);
        assert_eq!(client(&["1.2.3.4:80"]), peer);
        assert_eq!(client(&[""]), peer);
        assert_eq!(client(&[]), peer);
        assert_eq!(client(&[" 2001:db8::1 "]), Some(ip("2001:db8::1")));
        let off = Trust {
            trust_proxy: false,
            proxies: &none,
        };
        assert_eq!(off.client(peer, &xff(&["1.2.3.4"])), peer);
    }

    #[test]
    fn trusted_proxies_are_skipped_from_the_right_and_only_they_are_believed() {
        let proxies = TrustedProxies::parse("127.0.0.1,10.0.0.0/8").unwrap();
        let trust = Trust {
            trust_proxy: false,
            proxies: &proxies,
        };
        let proxy = Some(ip("127.0.0.1"));
        let h = xff(&["6.6.6.6, 1.2.3.4, 10.0.0.7, 10.0.0.8"]);
        assert_eq!(trust.client(proxy, &h), Some(ip("1.2.3.4")));
        let stranger = Some(ip("9.9.9.9"));
        assert_eq!(trust.client(stranger, &h), stranger, "not a trusted peer");
        assert!(!trust.believes(stranger) && !trust.believes(None));
        assert_eq!(
            trust.client(Some(ip("::ffff:127.0.0.1")), &h),
            Some(ip("1.2.3.4"))
        );
        let garbage = xff(&["1.2.3.4, not-an-ip, 10.0.0.7"]);
        assert_eq!(trust.client(proxy, &garbage), proxy);
        let all = xff(&["10.0.0.9, 10.0.0.7"]);
        assert_eq!(trust.client(proxy, &all), Some(ip("10.0.0.9")));
    }
}

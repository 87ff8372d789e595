//! Where a webhook may deliver (api.md §18): an `http` or `https` URL whose
//! host resolves only to public addresses. Loopback, private, shared,
//! link-local, benchmarking, IETF-protocol, reserved, broadcast, multicast,
//! unique-local and unspecified addresses (and the IPv6 forms that reach such
//! an IPv4 address: mapped, compatible, SIIT, NAT64, 6to4), Teredo and
//! NAT64's local-use prefix are refused, unless the installation allows private targets
//! (`--webhook-allow-private`). The check runs at creation, on a change of
//! `url`, and again at every delivery, where the connection goes to the very
//! addresses that passed ([`Resolver`]): no DNS answer given between the
//! check and the connection (rebinding) and no redirect reaches inside.
//!
//! A URL is `http` or `https` with a host, at most 2000 characters. The host is resolved here
//! (`tokio::net::lookup_host`; an address literal is itself), and the target is refused when
//! any of its addresses is refused: an IPv4 address reached through an IPv6 form is judged as
//! that IPv4 address. At delivery the client's DNS resolver is this same check
//! ([`Resolver`]): reqwest connects only to the addresses it returned, so a name that answers
//! a public address to the check and a private one to the connection cannot reach inside. No
//! proxy is used (`no_proxy` in `deliver.rs`): a proxy would resolve the name itself.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::Url;

use crate::error::{Error, Result, Rule};

/// A webhook URL as accepted by the schema: `http` or `https`, with a host.
pub(crate) fn parse_url(text: &str) -> std::result::Result<Url, String> {
    let url = Url::parse(text.trim())
        .map_err(|e| format!("not a URL ({e}): give http://host/path or https://host/path"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "the scheme {:?} is not accepted: give an http or https URL",
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("the URL has no host".into());
    }
    if text.len() > 2000 {
        return Err("a webhook URL is at most 2000 characters".into());
    }
    Ok(url)
}

/// Why an address is not a public one, or `None` when it is.
pub(crate) fn private_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => v4_kind(v4),
            None => v6_kind(v6),
        },
    }
}

/// The IPv4 address an IPv6 address reaches, for the forms that carry one in
/// its last 32 bits: IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
/// `::a.b.c.d` (deprecated), SIIT's IPv4-translated `::ffff:0:a.b.c.d` and
/// NAT64's well-known prefix `64:ff9b::/96`. (6to4 carries it in bits 16–47:
/// see [`v6_kind`].)
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let seg = ip.segments();
    let last = Ipv4Addr::new(
        (seg[6] >> 8) as u8,
        seg[6] as u8,
        (seg[7] >> 8) as u8,
        seg[7] as u8,
    );
    match seg[..6] {
        [0, 0, 0, 0, 0, 0xffff] | [0, 0, 0, 0, 0xffff, 0] | [0x64, 0xff9b, 0, 0, 0, 0] => {
            Some(last)
        }
        [0, 0, 0, 0, 0, 0] if !ip.is_loopback() && !ip.is_unspecified() => Some(last),
        _ => None,
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    if ip.is_unspecified() || a == 0 {
        Some("unspecified")
    } else if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        // 10/8, 172.16/12, 192.168/16.
        Some("private")
    } else if a == 100 && (64..128).contains(&b) {
        // 100.64/10, carrier-grade NAT.
        Some("shared")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if a == 198 && (b == 18 || b == 19) {
        // 198.18/15, network device benchmarking (RFC 2544).
        Some("benchmarking")
    } else if a == 192 && b == 0 && c == 0 {
        // 192.0.0/24, IETF protocol assignments (DS-Lite, NAT64 discovery, …).
        Some("IETF-protocol")
    } else if ip.is_broadcast() {
        Some("broadcast")
    } else if ip.is_multicast() {
        Some("multicast")
    } else if a >= 240 {
        Some("reserved")
    } else {
        None
    }
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    let seg = ip.segments();
    let first = seg[0];
    if ip.is_unspecified() {
        Some("unspecified")
    } else if ip.is_loopback() {
        Some("loopback")
    } else if first & 0xfe00 == 0xfc00 {
        Some("unique-local")
    } else if first & 0xffc0 == 0xfe80 {
        Some("link-local")
    } else if first & 0xffc0 == 0xfec0 {
        // Deprecated site-local: private in practice.
        Some("private")
    } else if ip.is_multicast() {
        Some("multicast")
    } else if first == 0x2001 && seg[1] == 0 {
        // Teredo, 2001::/32: the IPv4 address it reaches is obfuscated and
        // may be any; refused whole.
        Some("Teredo")
    } else if first == 0x64 && seg[1] == 0xff9b && seg[2] == 1 {
        // 64:ff9b:1::/48, NAT64 for local use (RFC 8215): where the local
        // translator puts the IPv4 address depends on its prefix length, so
        // no address in it is known to reach a public one; refused whole.
        Some("NAT64 local-use")
    } else if first == 0x2002 {
        // 6to4: the embedded IPv4 address decides.
        v4_kind(Ipv4Addr::new(
            (seg[1] >> 8) as u8,
            seg[1] as u8,
            (seg[2] >> 8) as u8,
            seg[2] as u8,
        ))
    } else {
        None
    }
}

/// The refusal of a target.
fn refused(message: String) -> Error {
    Error::rule(Rule::WebhookTarget, message)
}

/// Checks `addrs` (the addresses `host` resolved to): every one must be public
/// unless `allow_private`. Returns them.
fn check_addrs(host: &str, addrs: Vec<SocketAddr>, allow_private: bool) -> Result<Vec<SocketAddr>> {
    if addrs.is_empty() {
        return Err(refused(format!("the host {host:?} resolves to no address")));
    }
    if !allow_private {
        if let Some((addr, kind)) = addrs
            .iter()
            .find_map(|a| private_kind(a.ip()).map(|k| (a, k)))
        {
            return Err(refused(format!(
                "the host {host:?} resolves to {}, a {kind} address: a webhook delivers \
                 only to public addresses (--webhook-allow-private or BOARD_WEBHOOK_ALLOW_PRIVATE=true lifts this)",
                addr.ip()
            )));
        }
    }
    Ok(addrs)
}

/// Resolves the URL's host (an address literal is itself) and checks every
/// address it gives: 422 `WEBHOOK_TARGET` for a host that resolves to none
/// or to one that is not public (unless `allow_private`).
pub(crate) async fn check(url: &Url, allow_private: bool) -> Result<Vec<SocketAddr>> {
    let port = url.port_or_known_default().unwrap_or(80);
    let host = url.host_str().unwrap_or_default();
    let addrs = resolve(host, port).await?;
    check_addrs(host, addrs, allow_private)
}

async fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    match tokio::net::lookup_host((bare, port)).await {
        Ok(addrs) => Ok(addrs.collect()),
        Err(e) => Err(refused(format!("the host {host:?} does not resolve: {e}"))),
    }
}

/// The delivery client's resolver: it resolves a name itself, refuses it
/// when an address is not public (unless allowed), and hands the client the
/// addresses it checked, which the client then connects to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resolver {
    /// Private targets allowed (`--webhook-allow-private`).
    pub(crate) allow_private: bool,
}

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow = self.allow_private;
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs = resolve(&host, 0).await?;
            let checked = check_addrs(&host, addrs, allow)?;
            let out: reqwest::dns::Addrs = Box::new(checked.into_iter());
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> Option<&'static str> {
        private_kind(s.parse().unwrap())
    }

    #[test]
    fn ipv4_classes() {
        for (ip, want) in [
            ("127.0.0.1", Some("loopback")),
            ("127.255.1.2", Some("loopback")),
            ("10.0.0.1", Some("private")),
            ("172.16.0.1", Some("private")),
            ("172.31.255.255", Some("private")),
            ("192.168.1.1", Some("private")),
            ("100.64.0.1", Some("shared")),
            ("100.127.255.255", Some("shared")),
            ("198.18.0.1", Some("benchmarking")),
            ("198.19.255.255", Some("benchmarking")),
            ("192.0.0.8", Some("IETF-protocol")),
            ("192.0.0.170", Some("IETF-protocol")),
            ("198.17.255.255", None),
            ("198.20.0.1", None),
            ("192.0.1.1", None),
            ("192.0.2.1", None),
            ("169.254.169.254", Some("link-local")),
            ("0.0.0.0", Some("unspecified")),
            ("0.1.2.3", Some("unspecified")),
            ("255.255.255.255", Some("broadcast")),
            ("224.0.0.1", Some("multicast")),
            ("240.0.0.1", Some("reserved")),
            ("8.8.8.8", None),
            ("172.32.0.1", None),
            ("100.128.0.1", None),
            ("192.169.0.1", None),
            ("93.184.216.34", None),
        ] {
            assert_eq!(kind(ip), want, "{ip}");
        }
    }

    #[test]
    fn ipv6_classes() {
        for (ip, want) in [
            ("::1", Some("loopback")),
            ("::", Some("unspecified")),
            ("fc00::1", Some("unique-local")),
            ("fd12:3456::1", Some("unique-local")),
            ("fe80::1", Some("link-local")),
            ("febf::1", Some("link-local")),
            ("fec0::1", Some("private")),
            ("ff02::1", Some("multicast")),
            ("2001::1", Some("Teredo")),
            ("2001:0:4136:e378:8000:63bf:3fff:fdd2", Some("Teredo")),
            ("64:ff9b:1::a9fe:a9fe", Some("NAT64 local-use")),
            ("64:ff9b:1:ffff::808:808", Some("NAT64 local-use")),
            ("2001:1::1", None),
            ("2606:4700::1111", None),
            ("2001:db8::1", None),
        ] {
            assert_eq!(kind(ip), want, "{ip}");
        }
    }

    #[test]
    fn mapped_and_embedded_ipv4_forms_are_the_ipv4_address() {
        for (ip, want) in [
            ("::ffff:127.0.0.1", Some("loopback")),
            ("::ffff:7f00:1", Some("loopback")),
            ("::ffff:10.1.2.3", Some("private")),
            ("::ffff:169.254.1.1", Some("link-local")),
            ("::ffff:0.0.0.0", Some("unspecified")),
            ("::127.0.0.1", Some("loopback")),
            ("::192.168.0.1", Some("private")),
            ("2002:7f00:1::", Some("loopback")),
            ("2002:c0a8:101::1", Some("private")),
            ("64:ff9b::a9fe:a9fe", Some("link-local")),
            ("64:ff9b::127.0.0.1", Some("loopback")),
            ("64:ff9b::10.0.0.1", Some("private")),
            ("64:ff9b::198.18.0.1", Some("benchmarking")),
            ("::ffff:0:169.254.169.254", Some("link-local")),
            ("::ffff:0:7f00:1", Some("loopback")),
            ("::ffff:0:192.0.0.1", Some("IETF-protocol")),
            ("::ffff:100.64.0.1", Some("shared")),
            ("2002:c612:1::", Some("benchmarking")),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::808:808", None),
            ("::ffff:0:808:808", None),
            ("2002:808:808::", None),
        ] {
            assert_eq!(kind(ip), want, "{ip}");
        }
    }

    #[test]
    fn urls_need_http_and_a_host() {
        assert!(parse_url("https://example.com/hook").is_ok());
        assert!(parse_url("http://[::1]:8080/").is_ok());
        assert!(parse_url("ftp://example.com/").is_err());
        assert!(parse_url("file:///etc/passwd").is_err());
        assert!(parse_url("not a url").is_err());
        assert!(parse_url(&format!("https://e.com/{}", "a".repeat(2000))).is_err());
    }

    #[tokio::test]
    async fn literals_and_names_are_checked() {
        let check_of = |s: &str| {
            let url = parse_url(s).unwrap();
            async move { check(&url, false).await }
        };
        for url in [
            "http://127.0.0.1/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://10.0.0.1/",
            "http://localhost/",
            "http://0.0.0.0/",
        ] {
            match check_of(url).await {
                Err(Error::Rule(Rule::WebhookTarget, _)) => {}
                other => panic!("{url}: {other:?}"),
            }
        }
        assert!(check_of("http://93.184.216.34/").await.is_ok());
        let url = parse_url("http://127.0.0.1:9/").unwrap();
        assert_eq!(
            check(&url, true).await.unwrap(),
            vec!["127.0.0.1:9".parse().unwrap()]
        );
    }
}

//! Where a fetch may go. The CLI fetches for its own user and goes anywhere; a server fetches
//! for its clients and must not become their way into the machine's own network, so it may
//! be held to public addresses — loopback, private, link-local (cloud metadata at
//! 169.254.169.254), shared, multicast and reserved ones refused, on the addresses a name
//! resolves to, for every request and every redirect — and to git's network transports.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};

/// What fetches (web crawls, git clones and pulls) may do. The default is the CLI's:
/// anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FetchPolicy {
    /// Git only over http(s) and ssh: no `file://`, `git://` or remote helpers (`ext::`).
    /// Local repositories given as paths are the caller's to allow.
    pub network_only: bool,
    /// Public addresses only, checked after name resolution and on every redirect.
    pub public_only: bool,
}

impl FetchPolicy {
    /// A server's policy: network transports only, and public addresses only unless its
    /// operator allows private ones.
    pub fn server(allow_private: bool) -> FetchPolicy {
        FetchPolicy {
            network_only: true,
            public_only: !allow_private,
        }
    }
}

/// What a refused fetch says to do instead.
pub const PRIVATE_HINT: &str = "this server fetches public addresses only (start lore serve \
    with --allow-private-fetch to allow others, or add the store with the CLI)";

/// Why `ip` is not a public address, or `None` when it is.
pub fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => non_public_v4(v4),
        IpAddr::V6(v6) => non_public_v6(v6),
    }
}

fn non_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let why = if ip.is_loopback() {
        "a loopback address"
    } else if ip.is_private() {
        "a private address"
    } else if ip.is_link_local() {
        "a link-local address"
    } else if a == 0 {
        "an unspecified address"
    } else if a == 100 && (b & 0xc0) == 64 {
        "a shared (carrier-grade NAT) address"
    } else if a == 192 && b == 0 && c == 0 {
        "a reserved address"
    } else if a == 198 && (b & 0xfe) == 18 {
        "a benchmarking address"
    } else if ip.is_documentation() {
        "a documentation address"
    } else if ip.is_multicast() {
        "a multicast address"
    } else if a >= 240 {
        "a reserved address"
    } else {
        return None;
    };
    Some(why)
}

fn non_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    if ip.is_loopback() {
        return Some("a loopback address");
    }
    if ip.is_unspecified() {
        return Some("an unspecified address");
    }
    // An IPv4 address inside an IPv6 one is judged as itself: mapped (::ffff:a.b.c.d),
    // compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if s[..5] == [0; 5] && (s[5] == 0xffff || s[5] == 0) {
        return non_public_v4(embedded(s[6], s[7]));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return non_public_v4(embedded(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return non_public_v4(embedded(s[1], s[2]));
    }
    let why = if s[0] & 0xffc0 == 0xfe80 {
        "a link-local address"
    } else if s[0] & 0xffc0 == 0xfec0 {
        "a site-local address"
    } else if s[0] & 0xfe00 == 0xfc00 {
        "a unique local (private) address"
    } else if s[0] & 0xff00 == 0xff00 {
        "a multicast address"
    } else if s[0] == 0x2001 && s[1] == 0x0db8 {
        "a documentation address"
    } else if s[0] == 0x2001 && s[1] == 0 {
        "a Teredo tunnel address"
    } else if s[0] == 0x64 && s[1] == 0xff9b {
        "a local-use NAT64 address"
    } else if s[..4] == [0x100, 0, 0, 0] {
        "a discard address"
    } else {
        return None;
    };
    Some(why)
}

/// The refusal of a fetch from `host`, which resolved to the non-public `ip`.
pub(crate) fn refusal(host: &str, ip: IpAddr, why: &str) -> String {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host == ip.to_string() {
        format!("{host} is {why}; {PRIVATE_HINT}")
    } else {
        format!("{host} resolves to {ip}, {why}; {PRIVATE_HINT}")
    }
}

/// The addresses `host:port` resolves to (an IP literal, with or without brackets, is
/// itself), when each one is public; otherwise the refusal naming the first that is not.
/// Names that do not resolve are an error too.
pub fn resolve_public(host: &str, port: u16) -> Result<Vec<SocketAddr>, String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => (bare, port)
            .to_socket_addrs()
            .map_err(|e| format!("cannot resolve {bare}: {e}"))?
            .collect(),
    };
    if addrs.is_empty() {
        return Err(format!("{bare} resolves to no address"));
    }
    if let Some((addr, why)) = addrs
        .iter()
        .find_map(|a| non_public(a.ip()).map(|why| (a, why)))
    {
        return Err(refusal(host, addr.ip(), why));
    }
    Ok(addrs)
}

/// Splits an authority (`user@host:port`, `[v6]:port`) into its host and port, with
/// `default` when it has none; `None` when the port is not a number or the host is empty.
pub(crate) fn host_port(authority: &str, default: u16) -> Option<(String, u16)> {
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(rest) = hostport.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None if after.is_empty() => default,
            None => return None,
        };
        (format!("[{v6}]"), port)
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), p.parse().ok()?),
            None => (hostport.to_string(), default),
        }
    };
    (!host.is_empty() && host != "[]").then_some((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_public() {
        for ip in [
            "127.0.0.1",
            "127.9.9.9",
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "0.1.2.3",
            "100.64.0.1",
            "192.0.0.8",
            "198.18.0.1",
            "192.0.2.1",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fec0::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::1",
            "2002:7f00:1::",
            "2001::1",
            "100::1",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert!(non_public(ip).is_some(), "{ip} passed as public");
        }
        for ip in [
            "1.1.1.1",
            "93.184.216.34",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "2002:808:808::",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert_eq!(non_public(ip), None, "{ip}");
        }
    }

    #[test]
    fn names_are_judged_by_what_they_resolve_to() {
        let err = resolve_public("localhost", 80).unwrap_err();
        assert!(
            err.contains("localhost resolves to") && err.contains("loopback"),
            "{err}"
        );
        assert!(err.contains("--allow-private-fetch"), "{err}");
        let err = resolve_public("169.254.169.254", 80).unwrap_err();
        assert!(err.starts_with("169.254.169.254 is a link-local"), "{err}");
        assert!(
            resolve_public("[::1]", 80)
                .unwrap_err()
                .contains("loopback")
        );
        assert_eq!(
            resolve_public("93.184.216.34", 443).unwrap(),
            ["93.184.216.34:443".parse().unwrap()]
        );
    }

    #[test]
    fn authorities_split_into_host_and_port() {
        for (authority, want) in [
            ("example.com", Some(("example.com", 80))),
            ("git@example.com:2222", Some(("example.com", 2222))),
            ("[::1]:8080", Some(("[::1]", 8080))),
            ("[::1]", Some(("[::1]", 80))),
            ("h:x", None),
            ("", None),
            ("[::1]x", None),
        ] {
            let got = host_port(authority, 80);
            assert_eq!(
                got.as_ref().map(|(h, p)| (h.as_str(), *p)),
                want,
                "{authority}"
            );
        }
    }
}

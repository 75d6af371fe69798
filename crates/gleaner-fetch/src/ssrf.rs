//! The SSRF guard: gleaner never connects to a loopback, private, link-local, CGNAT,
//! multicast, unspecified, documentation or cloud-metadata address unless the config
//! explicitly allows its range (tests and the demo allow `127.0.0.0/8` only).
//!
//! Two holes a naive guard leaves (shared/CRATES.md): a URL whose host is an IP literal
//! never reaches the DNS resolver, so [`check_url_host`] checks the parsed host itself,
//! in every form the WHATWG URL parser accepts (`0x7f.1`, `2130706433`, `[::ffff:7f00:1]`
//! all parse to loopback); and DNS rebinding, which [`GuardedResolver`] closes by
//! handing the HTTP client only addresses it has checked, so the connection goes to the
//! address that was checked. `std::net::IpAddr::is_global` is still unstable, hence our
//! own table of IANA special-purpose blocks.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use url::{Host, Url};

/// Why an address is not public.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    /// 0.0.0.0/8, `::`.
    Unspecified,
    /// 127.0.0.0/8, `::1`.
    Loopback,
    /// 10/8, 172.16/12, 192.168/16, fc00::/7.
    Private,
    /// 169.254/16 (includes 169.254.169.254), fe80::/10.
    LinkLocal,
    /// 100.64/10 (carrier-grade NAT; includes 100.100.100.200).
    SharedCgnat,
    /// 224/4, ff00::/8.
    Multicast,
    /// 240/4 and the broadcast address.
    Reserved,
    /// 192.0.0/24, 198.18/15, documentation ranges, 2001:db8::/32, 100::/64.
    SpecialPurpose,
    /// A cloud metadata address, named separately so the refusal says so.
    CloudMetadata,
}

impl AddressClass {
    /// A short name for messages.
    pub fn as_str(self) -> &'static str {
        match self {
            AddressClass::Unspecified => "unspecified",
            AddressClass::Loopback => "loopback",
            AddressClass::Private => "private",
            AddressClass::LinkLocal => "link-local",
            AddressClass::SharedCgnat => "carrier-grade NAT",
            AddressClass::Multicast => "multicast",
            AddressClass::Reserved => "reserved",
            AddressClass::SpecialPurpose => "special-purpose",
            AddressClass::CloudMetadata => "cloud metadata",
        }
    }
}

/// Classifies an IPv4 address; `None` means public.
fn classify_v4(ip: Ipv4Addr) -> Option<AddressClass> {
    let o = ip.octets();
    let in_net = |net: &str| net.parse::<Ipv4Net>().is_ok_and(|n| n.contains(&ip));
    Some(match o {
        [169, 254, 169, 254] | [100, 100, 100, 200] | [192, 0, 0, 192] => {
            AddressClass::CloudMetadata
        }
        [0, ..] => AddressClass::Unspecified,
        [127, ..] => AddressClass::Loopback,
        [10, ..] => AddressClass::Private,
        [172, b, ..] if (16..32).contains(&b) => AddressClass::Private,
        [192, 168, ..] => AddressClass::Private,
        [169, 254, ..] => AddressClass::LinkLocal,
        [100, b, ..] if (64..128).contains(&b) => AddressClass::SharedCgnat,
        [a, ..] if (224..240).contains(&a) => AddressClass::Multicast,
        [a, ..] if a >= 240 => AddressClass::Reserved,
        _ if in_net("192.0.0.0/24")
            || in_net("192.0.2.0/24")
            || in_net("198.18.0.0/15")
            || in_net("198.51.100.0/24")
            || in_net("203.0.113.0/24") =>
        {
            AddressClass::SpecialPurpose
        }
        _ => return None,
    })
}

/// The IPv4 address embedded in an IPv6 form that reaches IPv4 hosts: IPv4-mapped
/// (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4
/// (`2002::/16`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..6] == [0, 0, 0, 0, 0, 0] && !(s[6] == 0 && s[7] <= 1) {
        return Some(tail);
    }
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        return Some(tail);
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8));
    }
    None
}

/// Classifies an IPv6 address; `None` means public.
fn classify_v6(ip: Ipv6Addr) -> Option<AddressClass> {
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let in_net = |net: &str| net.parse::<Ipv6Net>().is_ok_and(|n| n.contains(&ip));
    Some(if ip.is_unspecified() {
        AddressClass::Unspecified
    } else if ip.is_loopback() {
        AddressClass::Loopback
    } else if in_net("fd00:ec2::254/128") {
        AddressClass::CloudMetadata
    } else if in_net("fc00::/7") {
        AddressClass::Private
    } else if in_net("fe80::/10") || in_net("fec0::/10") {
        AddressClass::LinkLocal
    } else if ip.is_multicast() {
        AddressClass::Multicast
    } else if in_net("2001:db8::/32") || in_net("100::/64") || in_net("2001::/23") {
        AddressClass::SpecialPurpose
    } else {
        return None;
    })
}

/// Classifies an address; `None` means public.
pub fn classify(ip: IpAddr) -> Option<AddressClass> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

/// A refused target, with the reason in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("refused to connect to `{address}`: a {} address (SSRF guard); allow its range in `[network] allow` only for tests", .class.as_str())]
pub struct SsrfRefusal {
    /// The refused address.
    pub address: IpAddr,
    /// Why it is not public.
    pub class: AddressClass,
}

/// Which addresses may be connected to: public ones, plus explicitly allowed ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressPolicy {
    allow: Vec<IpNet>,
}

impl AddressPolicy {
    /// Public addresses only (production).
    pub fn public_only() -> AddressPolicy {
        AddressPolicy { allow: Vec::new() }
    }

    /// Public addresses plus these ranges.
    pub fn allowing(allow: Vec<IpNet>) -> AddressPolicy {
        AddressPolicy { allow }
    }

    /// Checks one address. An IPv4-mapped IPv6 address is checked as its IPv4 form
    /// against the allow-list too.
    pub fn check(&self, ip: IpAddr) -> Result<(), SsrfRefusal> {
        let Some(class) = classify(ip) else { return Ok(()) };
        let v4 = match ip {
            IpAddr::V6(v6) => embedded_v4(v6).map(IpAddr::V4),
            IpAddr::V4(_) => None,
        };
        let allowed = self
            .allow
            .iter()
            .any(|net| net.contains(&ip) || v4.is_some_and(|v4| net.contains(&v4)));
        if allowed && class != AddressClass::CloudMetadata {
            return Ok(());
        }
        Err(SsrfRefusal { address: ip, class })
    }
}

/// Checks a URL's host when it is an IP literal (those never reach the resolver). A
/// domain name returns `Ok`: its addresses are checked by [`GuardedResolver`].
pub fn check_url_host(policy: &AddressPolicy, url: &Url) -> Result<(), SsrfRefusal> {
    match url.host() {
        Some(Host::Ipv4(v4)) => policy.check(IpAddr::V4(v4)),
        Some(Host::Ipv6(v6)) => policy.check(IpAddr::V6(v6)),
        _ => Ok(()),
    }
}

/// A DNS resolver for reqwest that returns only addresses the policy allows, so the
/// client connects to an address that was checked (no DNS-rebinding window).
#[derive(Debug, Clone)]
pub struct GuardedResolver {
    policy: Arc<AddressPolicy>,
}

impl GuardedResolver {
    /// A resolver enforcing `policy`.
    pub fn new(policy: Arc<AddressPolicy>) -> GuardedResolver {
        GuardedResolver { policy }
    }
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let policy = Arc::clone(&self.policy);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let resolved: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let mut first_refusal = None;
            let allowed: Vec<SocketAddr> = resolved
                .into_iter()
                .filter(|addr| match policy.check(addr.ip()) {
                    Ok(()) => true,
                    Err(refusal) => {
                        first_refusal.get_or_insert(refusal);
                        false
                    }
                })
                .collect();
            match (allowed.is_empty(), first_refusal) {
                (true, Some(refusal)) => {
                    Err(Box::new(refusal) as Box<dyn std::error::Error + Send + Sync>)
                }
                _ => Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(url: &str) -> Option<AddressClass> {
        let url = Url::parse(url).expect("test URLs parse");
        check_url_host(&AddressPolicy::public_only(), &url).err().map(|r| r.class)
    }

    #[test]
    fn every_loopback_spelling_is_refused() {
        for url in [
            "http://127.0.0.1/",
            "http://127.1/",
            "http://0x7f.1/",
            "http://0x7f000001/",
            "http://2130706433/",
            "http://017700000001/",
            "http://127.000.000.001/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[0:0:0:0:0:ffff:127.0.0.1]/",
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::7f00:1]/",
            "http://[2002:7f00:1::]/",
        ] {
            assert_eq!(refused(url), Some(AddressClass::Loopback), "{url}");
        }
    }

    #[test]
    fn private_link_local_cgnat_multicast_and_metadata_are_refused() {
        let cases = [
            ("http://10.1.2.3/", AddressClass::Private),
            ("http://172.16.0.1/", AddressClass::Private),
            ("http://172.31.255.255/", AddressClass::Private),
            ("http://192.168.1.1/", AddressClass::Private),
            ("http://[fd12:3456::1]/", AddressClass::Private),
            ("http://169.254.1.1/", AddressClass::LinkLocal),
            ("http://[fe80::1]/", AddressClass::LinkLocal),
            ("http://100.64.0.1/", AddressClass::SharedCgnat),
            ("http://224.0.0.1/", AddressClass::Multicast),
            ("http://[ff02::1]/", AddressClass::Multicast),
            ("http://0.0.0.0/", AddressClass::Unspecified),
            ("http://[::]/", AddressClass::Unspecified),
            ("http://255.255.255.255/", AddressClass::Reserved),
            ("http://169.254.169.254/latest/meta-data/", AddressClass::CloudMetadata),
            ("http://[::ffff:169.254.169.254]/", AddressClass::CloudMetadata),
            ("http://[fd00:ec2::254]/", AddressClass::CloudMetadata),
            ("http://100.100.100.200/", AddressClass::CloudMetadata),
            ("http://192.0.2.1/", AddressClass::SpecialPurpose),
            ("http://198.18.0.1/", AddressClass::SpecialPurpose),
            ("http://[2001:db8::1]/", AddressClass::SpecialPurpose),
        ];
        for (url, class) in cases {
            assert_eq!(refused(url), Some(class), "{url}");
        }
    }

    #[test]
    fn public_addresses_and_names_pass() {
        for url in [
            "http://93.184.215.14/",
            "http://[2606:4700::1111]/",
            "http://172.32.0.1/",
            "http://example.org/",
        ] {
            assert_eq!(refused(url), None, "{url}");
        }
    }

    #[test]
    fn allow_list_opens_only_its_range_and_never_metadata() {
        let policy = AddressPolicy::allowing(vec!["127.0.0.0/8".parse().unwrap()]);
        assert!(policy.check("127.0.3.7".parse().unwrap()).is_ok());
        assert!(policy.check("::ffff:127.0.0.1".parse().unwrap()).is_ok());
        assert!(policy.check("10.0.0.1".parse().unwrap()).is_err());
        assert!(policy.check("::1".parse().unwrap()).is_err(), "::1 is not in 127.0.0.0/8");
        let wide = AddressPolicy::allowing(vec!["0.0.0.0/0".parse().unwrap()]);
        assert!(wide.check("169.254.169.254".parse().unwrap()).is_err());
    }

    #[test]
    fn refusal_message_says_what_and_what_to_do() {
        let err = AddressPolicy::public_only().check("10.0.0.1".parse().unwrap()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "refused to connect to `10.0.0.1`: a private address (SSRF guard); allow its range in `[network] allow` only for tests"
        );
    }
}

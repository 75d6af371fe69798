//! Signed requests: HTTP Message Signatures (RFC 9421) with Ed25519, as the Web Bot Auth
//! drafts profile them (draft-meunier-webbotauth-httpsig-protocol, and the key directory
//! of draft-meunier-webbotauth-httpsig-directory).
//!
//! Every request the [`crate::Client`] sends carries, when `[identity]` is configured:
//! - `Signature-Agent: "https://bot.example.org/"` — the origin whose
//!   `/.well-known/http-message-signatures-directory` lists the public keys;
//! - `Signature-Input: sig1=("@authority" "signature-agent");created=…;expires=…;keyid="…";alg="ed25519";nonce="…";tag="web-bot-auth"`
//!   — `keyid` is the key's JWK thumbprint (RFC 7638), `expires` at most 60 s after
//!   `created`, a fresh random nonce each time;
//! - `Signature: sig1=:…:` — the Ed25519 signature of the signature base (RFC 9421 §2.5).
//!
//! The signature is made when the request is sent, never when its budget was reserved,
//! so a long wait for a site's gap can never send an expired signature.
//!
//! Written here rather than taken from a crate: the signing side is about forty lines of
//! string building over `aws-lc-rs` (already the TLS backend's crypto, so no new crypto
//! code is linked in), and the HTTP-signature crates on the registry either pull a
//! second HTTP stack or do not implement the Web Bot Auth profile's parameters.

use std::fmt::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use aws_lc_rs::signature::{Ed25519KeyPair, KeyPair};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use gleaner_config::identity::IdentitySettings;
use url::Url;

/// The `tag` of a request signature.
pub const REQUEST_TAG: &str = "web-bot-auth";
/// The `tag` of the key directory's own response signature.
pub const DIRECTORY_TAG: &str = "http-message-signatures-directory";
/// The key directory's media type.
pub const DIRECTORY_MEDIA_TYPE: &str = "application/http-message-signatures-directory+json";
/// The key directory's path on the agent's origin.
pub const DIRECTORY_PATH: &str = "/.well-known/http-message-signatures-directory";

/// Why a key could not be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SigningError {
    /// The text is not a PEM `PRIVATE KEY` block.
    #[error(
        "{source_name} is not a PEM private key (expected `-----BEGIN PRIVATE KEY-----`); write one with `gleaner identity new --out FILE`"
    )]
    NotPem {
        /// The file or variable.
        source_name: String,
    },
    /// The PEM holds something other than an Ed25519 PKCS#8 key.
    #[error(
        "{source_name} is not an Ed25519 PKCS#8 key: only Ed25519 is used for Web Bot Auth; write one with `gleaner identity new --out FILE`"
    )]
    NotEd25519 {
        /// The file or variable.
        source_name: String,
    },
    /// A key named in the config was not loaded.
    #[error("{source_name} was not loaded")]
    NotLoaded {
        /// The file or variable.
        source_name: String,
    },
    /// The system's random source failed.
    #[error("the system random source failed")]
    Random,
}

/// The three headers of one signed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureHeaders {
    /// `Signature-Agent`, an sf-string.
    pub signature_agent: String,
    /// `Signature-Input`.
    pub signature_input: String,
    /// `Signature`.
    pub signature: String,
}

struct Key {
    pair: Ed25519KeyPair,
    x: String,
    thumbprint: String,
    not_before: Option<SystemTime>,
    not_after: Option<SystemTime>,
}

impl Key {
    fn valid_at(&self, now: SystemTime) -> bool {
        self.not_before.is_none_or(|t| t <= now) && self.not_after.is_none_or(|t| now < t)
    }
}

/// Signs requests with the configured keys. Build one per process and share it.
pub struct Signer {
    keys: Vec<Key>,
    agent: String,
    validity: Duration,
    rng: SystemRandom,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the private keys.
        f.debug_struct("Signer")
            .field("agent", &self.agent)
            .field("keyids", &self.thumbprints())
            .finish()
    }
}

impl Signer {
    /// The signer of a loaded `[identity]` (see `Settings::load_identity_keys`).
    pub fn new(identity: &IdentitySettings) -> Result<Signer, SigningError> {
        let mut keys = Vec::new();
        for spec in &identity.keys {
            let source_name = spec.source.to_string();
            let pem = spec
                .pem
                .as_ref()
                .ok_or(SigningError::NotLoaded { source_name: source_name.clone() })?;
            let der = pem_private_key(pem.expose())
                .ok_or(SigningError::NotPem { source_name: source_name.clone() })?;
            let pair = Ed25519KeyPair::from_pkcs8(&der)
                .map_err(|_| SigningError::NotEd25519 { source_name })?;
            let x = URL_SAFE_NO_PAD.encode(pair.public_key().as_ref());
            keys.push(Key {
                thumbprint: jwk_thumbprint(&x),
                x,
                pair,
                not_before: spec.not_before,
                not_after: spec.not_after,
            });
        }
        Ok(Signer {
            keys,
            agent: format!("\"{}\"", identity.agent),
            validity: identity.validity,
            rng: SystemRandom::new(),
        })
    }

    /// The key ids (JWK thumbprints) of every configured key, in config order.
    pub fn thumbprints(&self) -> Vec<String> {
        self.keys.iter().map(|k| k.thumbprint.clone()).collect()
    }

    /// The key that signs at `now`: the valid one that started last.
    fn current(&self, now: SystemTime) -> Option<&Key> {
        self.keys
            .iter()
            .filter(|k| k.valid_at(now))
            .max_by_key(|k| k.not_before.unwrap_or(UNIX_EPOCH))
    }

    /// The key id that signs at `now`, if any key is valid then.
    pub fn current_keyid(&self, now: SystemTime) -> Option<&str> {
        self.current(now).map(|k| k.thumbprint.as_str())
    }

    /// The headers for a request to `url` sent at `now`; `None` when no key is valid.
    pub fn sign_request(&self, url: &Url, now: SystemTime) -> Option<SignatureHeaders> {
        let key = self.current(now)?;
        let created = unix(now);
        let nonce = self.nonce()?;
        let params = format!(
            "(\"@authority\" \"signature-agent\");created={created};expires={};keyid=\"{}\";alg=\"ed25519\";nonce=\"{nonce}\";tag=\"{REQUEST_TAG}\"",
            created + self.validity.as_secs(),
            key.thumbprint
        );
        let base = signature_base(
            &[("\"@authority\"", &authority(url)), ("\"signature-agent\"", &self.agent)],
            &params,
        );
        let sig = STANDARD.encode(key.pair.sign(base.as_bytes()).as_ref());
        Some(SignatureHeaders {
            signature_agent: self.agent.clone(),
            signature_input: format!("sig1={params}"),
            signature: format!("sig1=:{sig}:"),
        })
    }

    /// The key directory (a JWKS) at `now`: every key not yet expired, with its validity.
    pub fn directory(&self, now: SystemTime) -> serde_json::Value {
        let keys: Vec<serde_json::Value> = self
            .keys
            .iter()
            .filter(|k| k.not_after.is_none_or(|t| now < t))
            .map(|k| {
                let mut jwk = serde_json::json!({
                    "kty": "OKP", "crv": "Ed25519", "x": k.x, "kid": k.thumbprint,
                    "use": "sig", "alg": "EdDSA",
                });
                if let Some(t) = k.not_before {
                    jwk["nbf"] = unix(t).into();
                }
                if let Some(t) = k.not_after {
                    jwk["exp"] = unix(t).into();
                }
                jwk
            })
            .collect();
        serde_json::json!({ "keys": keys })
    }

    /// `Signature-Input` and `Signature` for the directory's own response to a request for
    /// `authority` (the directory draft: one signature per published key, each covering
    /// the request's `@authority`, tag `http-message-signatures-directory`).
    pub fn sign_directory_response(
        &self,
        authority: &str,
        now: SystemTime,
    ) -> Option<(String, String)> {
        let created = unix(now);
        let (mut inputs, mut sigs) = (Vec::new(), Vec::new());
        for (i, key) in self.keys.iter().filter(|k| k.valid_at(now)).enumerate() {
            let nonce = self.nonce()?;
            let params = format!(
                "(\"@authority\";req);created={created};expires={};keyid=\"{}\";alg=\"ed25519\";nonce=\"{nonce}\";tag=\"{DIRECTORY_TAG}\"",
                created + self.validity.as_secs(),
                key.thumbprint
            );
            let base = signature_base(&[("\"@authority\";req", authority)], &params);
            let sig = STANDARD.encode(key.pair.sign(base.as_bytes()).as_ref());
            inputs.push(format!("sig{}={params}", i + 1));
            sigs.push(format!("sig{}=:{sig}:", i + 1));
        }
        (!inputs.is_empty()).then(|| (inputs.join(", "), sigs.join(", ")))
    }

    fn nonce(&self) -> Option<String> {
        let mut bytes = [0u8; 32];
        self.rng.fill(&mut bytes).ok()?;
        Some(STANDARD.encode(bytes))
    }
}

/// A fresh Ed25519 key as PKCS#8 PEM, with its key id (JWK thumbprint).
pub fn generate_pem() -> Result<(String, String), SigningError> {
    let doc =
        Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).map_err(|_| SigningError::Random)?;
    let pair = Ed25519KeyPair::from_pkcs8(doc.as_ref()).map_err(|_| SigningError::Random)?;
    let thumbprint = jwk_thumbprint(&URL_SAFE_NO_PAD.encode(pair.public_key().as_ref()));
    let b64 = STANDARD.encode(doc.as_ref());
    let mut pem = String::from("-----BEGIN PRIVATE KEY-----\n");
    for chunk in b64.as_bytes().chunks(64) {
        pem.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        pem.push('\n');
    }
    pem.push_str("-----END PRIVATE KEY-----\n");
    Ok((pem, thumbprint))
}

/// The RFC 7638 thumbprint of an Ed25519 public key given as its JWK `x` (base64url):
/// SHA-256 of `{"crv":"Ed25519","kty":"OKP","x":"…"}`, base64url without padding.
pub fn jwk_thumbprint(x: &str) -> String {
    let canonical = format!("{{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"{x}\"}}");
    URL_SAFE_NO_PAD
        .encode(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, canonical.as_bytes()))
}

/// RFC 9421 §2.2.3 `@authority`: the host, lower-cased, with the port unless it is the
/// scheme's default.
pub fn authority(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

/// RFC 9421 §2.5: one line per covered component (`identifier: value`), then the
/// `"@signature-params"` line, joined by `\n` with no trailing newline.
pub fn signature_base(components: &[(&str, &str)], params: &str) -> String {
    let mut base = String::new();
    for (id, value) in components {
        let _ = writeln!(base, "{id}: {value}");
    }
    let _ = write!(base, "\"@signature-params\": {params}");
    base
}

/// The DER bytes of the first `PRIVATE KEY` PEM block (RFC 7468 §10), or `None`.
fn pem_private_key(text: &str) -> Option<Vec<u8>> {
    let start = text.find("-----BEGIN PRIVATE KEY-----")? + "-----BEGIN PRIVATE KEY-----".len();
    let end = start + text[start..].find("-----END PRIVATE KEY-----")?;
    let b64: String = text[start..end].chars().filter(|c| !c.is_ascii_whitespace()).collect();
    STANDARD.decode(b64).ok()
}

fn unix(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_config::Secret;
    use gleaner_config::identity::{KeySource, KeySpec};

    /// RFC 9421 Appendix B.1.4, `test-key-ed25519`.
    const RFC_KEY: &str = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n";

    fn signer(pem: &str) -> Signer {
        Signer::new(&IdentitySettings {
            agent: Url::parse("https://bot.example.org/").unwrap(),
            validity: Duration::from_secs(60),
            keys: vec![KeySpec {
                source: KeySource::Env("K".into()),
                not_before: None,
                not_after: None,
                pem: Some(Secret::new(pem)),
            }],
        })
        .unwrap()
    }

    #[test]
    fn rfc9421_b26_ed25519_vector_is_reproduced_exactly() {
        // RFC 9421 Appendix B.2.6: the signature base, and the (deterministic) Ed25519
        // signature of it under test-key-ed25519.
        let params = "(\"date\" \"@method\" \"@path\" \"@authority\" \"content-type\" \"content-length\");created=1618884473;keyid=\"test-key-ed25519\"";
        let base = signature_base(
            &[
                ("\"date\"", "Tue, 20 Apr 2021 02:07:55 GMT"),
                ("\"@method\"", "POST"),
                ("\"@path\"", "/foo"),
                ("\"@authority\"", "example.com"),
                ("\"content-type\"", "application/json"),
                ("\"content-length\"", "18"),
            ],
            params,
        );
        assert_eq!(
            base,
            "\"date\": Tue, 20 Apr 2021 02:07:55 GMT\n\"@method\": POST\n\"@path\": /foo\n\"@authority\": example.com\n\"content-type\": application/json\n\"content-length\": 18\n\"@signature-params\": (\"date\" \"@method\" \"@path\" \"@authority\" \"content-type\" \"content-length\");created=1618884473;keyid=\"test-key-ed25519\""
        );
        let s = signer(RFC_KEY);
        let sig = STANDARD.encode(s.keys[0].pair.sign(base.as_bytes()).as_ref());
        assert_eq!(
            sig,
            "wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw=="
        );
    }

    #[test]
    fn rfc7638_thumbprint_of_the_rfc_test_key() {
        let s = signer(RFC_KEY);
        // The public key of RFC 9421 B.1.4, and its thumbprint as the Web Bot Auth draft gives it.
        assert_eq!(s.keys[0].x, "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs");
        assert_eq!(s.thumbprints(), ["poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"]);
    }

    #[test]
    fn a_request_signature_names_the_profile_and_is_fresh() {
        let s = signer(RFC_KEY);
        let url = Url::parse("http://127.0.0.1:8080/events/?a=1").unwrap();
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let a = s.sign_request(&url, now).unwrap();
        let b = s.sign_request(&url, now).unwrap();
        assert_eq!(a.signature_agent, "\"https://bot.example.org/\"");
        assert!(a.signature_input.starts_with(
            "sig1=(\"@authority\" \"signature-agent\");created=1800000000;expires=1800000060;keyid=\"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U\";alg=\"ed25519\";nonce=\""
        ));
        assert!(a.signature_input.ends_with(";tag=\"web-bot-auth\""));
        assert_ne!(a.signature_input, b.signature_input, "a fresh nonce each time");
        assert_eq!(authority(&url), "127.0.0.1:8080");
        assert_eq!(authority(&Url::parse("https://EXAMPLE.com:443/x").unwrap()), "example.com");
    }

    #[test]
    fn rotation_signs_with_the_newest_valid_key_and_publishes_the_unexpired() {
        let (old, _) = generate_pem().unwrap();
        let (new, new_id) = generate_pem().unwrap();
        let t = |s| Some(UNIX_EPOCH + Duration::from_secs(s));
        let spec = |pem: &str, nbf, exp| KeySpec {
            source: KeySource::Env("K".into()),
            not_before: nbf,
            not_after: exp,
            pem: Some(Secret::new(pem)),
        };
        let s = Signer::new(&IdentitySettings {
            agent: Url::parse("https://bot.example.org/").unwrap(),
            validity: Duration::from_secs(60),
            keys: vec![spec(&old, t(0), t(2000)), spec(&new, t(1000), None)],
        })
        .unwrap();
        let at = |s| UNIX_EPOCH + Duration::from_secs(s);
        assert_eq!(s.current_keyid(at(500)), Some(s.thumbprints()[0].as_str()));
        assert_eq!(s.current_keyid(at(1500)), Some(new_id.as_str()));
        assert_eq!(s.directory(at(1500))["keys"].as_array().unwrap().len(), 2);
        assert_eq!(s.directory(at(2500))["keys"].as_array().unwrap().len(), 1);
        let (input, sig) = s.sign_directory_response("bot.example.org", at(1500)).unwrap();
        assert!(input.contains("sig2=") && sig.contains("sig2=:"), "{input}");
        assert!(input.contains("tag=\"http-message-signatures-directory\""));
    }

    #[test]
    fn bad_keys_are_refused_with_what_to_do() {
        let bad = |pem: &str| {
            Signer::new(&IdentitySettings {
                agent: Url::parse("https://bot.example.org/").unwrap(),
                validity: Duration::from_secs(60),
                keys: vec![KeySpec {
                    source: KeySource::File("k.pem".into()),
                    not_before: None,
                    not_after: None,
                    pem: Some(Secret::new(pem)),
                }],
            })
            .unwrap_err()
            .to_string()
        };
        assert!(bad("hello").contains("gleaner identity new"));
        assert!(
            bad("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----").contains("Ed25519")
        );
    }
}

//! An independent verifier of Web Bot Auth request signatures, from the sites' side.
//!
//! Written from the text of RFC 9421 (§2.1 components, §2.3 signature parameters, §2.5 the
//! signature base, §3.2 verifying) and the Web Bot Auth protocol draft, without using
//! gleaner's own signer: it parses what arrived in the ledger, rebuilds the signature base
//! from the request as the site received it (the `Host` header, the headers as sent), and
//! checks the Ed25519 signature with a different implementation (`ed25519-compact`, pure
//! Rust; gleaner signs with `aws-lc-rs`), against the public keys of a JWKS key directory.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ed25519_compact::{PublicKey, Signature};

use crate::LedgerEntry;

/// What a verified signature said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The key id that signed.
    pub keyid: String,
    /// `created`, Unix seconds.
    pub created: u64,
    /// `expires`, Unix seconds.
    pub expires: u64,
    /// The nonce.
    pub nonce: String,
    /// The covered component identifiers, as serialized.
    pub components: Vec<String>,
}

/// One parsed member of `Signature-Input`.
struct Input {
    label: String,
    /// The serialized inner list and parameters (`("@authority" …);created=…`).
    serialized: String,
    components: Vec<(String, String)>,
    params: Vec<(String, String)>,
}

/// Verifies the signature on one ledger entry against a key directory (`{"keys": [JWK…]}`).
/// `authority_override` replaces the `@authority` the site saw (a negative control: a
/// tampered authority must fail).
pub fn verify_entry(
    entry: &LedgerEntry,
    directory: &serde_json::Value,
    authority_override: Option<&str>,
) -> Result<Verified, String> {
    let input = entry.signature_input.as_deref().ok_or("no Signature-Input")?;
    let signature = entry.signature.as_deref().ok_or("no Signature")?;
    let inputs = parse_inputs(input)?;
    let input = inputs.first().ok_or("empty Signature-Input")?;
    let sig_b64 = parse_signature(signature, &input.label)?;
    let param = |k: &str| input.params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    if param("tag") != Some("web-bot-auth") {
        return Err(format!("tag is {:?}, not web-bot-auth", param("tag")));
    }
    if param("alg").is_some_and(|a| a != "ed25519") {
        return Err("alg is not ed25519".into());
    }
    let keyid = param("keyid").ok_or("no keyid")?.to_owned();
    let created: u64 = param("created").ok_or("no created")?.parse().map_err(|_| "bad created")?;
    let expires: u64 = param("expires").ok_or("no expires")?.parse().map_err(|_| "bad expires")?;
    let nonce = param("nonce").ok_or("no nonce")?.to_owned();
    if expires <= created || expires - created > 60 {
        return Err(format!("validity {created}..{expires} is not within 60 s"));
    }
    for needed in ["\"@authority\"", "\"signature-agent\""] {
        if !input.components.iter().any(|(id, params)| id == needed && params.is_empty()) {
            return Err(format!("{needed} is not covered"));
        }
    }
    let mut base = String::new();
    for (id, params) in &input.components {
        let value = match id.as_str() {
            "\"@authority\"" => authority_override
                .map(str::to_owned)
                .or_else(|| entry.host.as_deref().map(str::to_ascii_lowercase))
                .ok_or("no Host")?,
            "\"@method\"" => entry.method.clone(),
            "\"@path\"" => entry.path.clone(),
            "\"@scheme\"" => "http".to_owned(),
            "\"signature-agent\"" => {
                entry.signature_agent.as_deref().ok_or("no Signature-Agent")?.trim().to_owned()
            }
            "\"user-agent\"" => entry.user_agent.clone().ok_or("no User-Agent")?,
            other => return Err(format!("component {other} is not supported by this verifier")),
        };
        base.push_str(&format!("{id}{params}: {value}\n"));
    }
    base.push_str(&format!("\"@signature-params\": {}", input.serialized));
    let key = directory["keys"]
        .as_array()
        .and_then(|keys| keys.iter().find(|k| k["kid"] == keyid.as_str()))
        .ok_or_else(|| format!("keyid {keyid} is not in the directory"))?;
    if key["kty"] != "OKP" || key["crv"] != "Ed25519" {
        return Err("the directory's key is not an Ed25519 OKP key".into());
    }
    let x = URL_SAFE_NO_PAD
        .decode(key["x"].as_str().ok_or("key without x")?)
        .map_err(|_| "x is not base64url")?;
    let public = PublicKey::from_slice(&x).map_err(|_| "x is not a 32-byte public key")?;
    let sig = STANDARD.decode(sig_b64).map_err(|_| "the signature is not base64")?;
    let sig = Signature::from_slice(&sig).map_err(|_| "the signature is not 64 bytes")?;
    public.verify(base.as_bytes(), &sig).map_err(|_| "the signature does not verify".to_owned())?;
    Ok(Verified {
        keyid,
        created,
        expires,
        nonce,
        components: input.components.iter().map(|(id, p)| format!("{id}{p}")).collect(),
    })
}

/// RFC 8941 dictionary of inner lists, as far as signatures use it: `label=("a" "b";p);k=v, …`.
fn parse_inputs(text: &str) -> Result<Vec<Input>, String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let eq = rest.find('=').ok_or("a member without =")?;
        let label = rest[..eq].trim().to_owned();
        let body = &rest[eq + 1..];
        if !body.starts_with('(') {
            return Err("Signature-Input member is not an inner list".into());
        }
        let close = body.find(')').ok_or("unclosed inner list")?;
        let components = parse_items(&body[1..close])?;
        // Parameters run until a top-level comma (quoted strings may hold commas).
        let mut end = close + 1;
        let mut quoted = false;
        for (i, c) in body[close + 1..].char_indices() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => {
                    end = close + 1 + i;
                    break;
                }
                _ => {}
            }
            end = close + 1 + i + c.len_utf8();
        }
        let serialized = body[..end].trim().to_owned();
        let params = parse_params(&body[close + 1..end])?;
        out.push(Input { label, serialized, components, params });
        rest = body[end..].trim_start_matches(',').trim();
    }
    Ok(out)
}

fn parse_items(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut items = Vec::new();
    for item in text.split_whitespace() {
        let (id, params) = match item.find(';') {
            Some(i) => (&item[..i], &item[i..]),
            None => (item, ""),
        };
        if !(id.starts_with('"') && id.ends_with('"') && id.len() >= 2) {
            return Err(format!("component {id} is not a string"));
        }
        items.push((id.to_owned(), params.to_owned()));
    }
    Ok(items)
}

fn parse_params(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut params = Vec::new();
    for p in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = p.split_once('=').unwrap_or((p, "?1"));
        let v = v.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(v);
        params.push((k.to_owned(), v.to_owned()));
    }
    Ok(params)
}

fn parse_signature<'a>(text: &'a str, label: &str) -> Result<&'a str, String> {
    for member in text.split(',') {
        let member = member.trim();
        if let Some(v) = member.strip_prefix(label).and_then(|m| m.strip_prefix('=')) {
            return v
                .strip_prefix(':')
                .and_then(|v| v.strip_suffix(':'))
                .ok_or_else(|| "the signature is not a byte sequence".to_owned());
        }
    }
    Err(format!("no signature labelled {label}"))
}

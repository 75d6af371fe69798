//! `gleaner identity`: a key is written once, owner-only, and its directory printed; a bad
//! key is refused before any request (exit 2, naming the file).

use crate::util::gleaner;

const BOT: &str = "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n";

#[test]
fn identity_new_writes_a_private_key_once_and_show_prints_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("bot.pem");
    let key_arg = key.to_str().unwrap();
    let made = gleaner(&["identity", "new", "--out", key_arg], "");
    assert_eq!(made.code, Some(0), "{}", made.stderr);
    let keyid = made
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("keyid: "))
        .expect("the key id is printed")
        .to_owned();
    assert_eq!(keyid.len(), 43, "a base64url SHA-256 thumbprint: {keyid}");
    let pem = std::fs::read_to_string(&key).unwrap();
    assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&key).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // Never over an existing key.
    let again = gleaner(&["identity", "new", "--out", key_arg], "");
    assert_eq!(again.code, Some(2), "{}", again.stderr);
    assert_eq!(std::fs::read_to_string(&key).unwrap(), pem);

    let config = dir.path().join("gleaner.toml");
    std::fs::write(&config, format!("{BOT}\n[identity]\nkey_file = \"bot.pem\"\n")).unwrap();
    let shown = gleaner(&["--config", config.to_str().unwrap(), "identity", "show"], "");
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    let jwks: serde_json::Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(jwks["keys"][0]["kid"], keyid.as_str());
    assert_eq!(jwks["keys"][0]["kty"], "OKP");
    assert!(jwks["keys"][0].get("d").is_none(), "never the private part");
    let body = pem.lines().nth(1).unwrap();
    assert!(!shown.stdout.contains(body) && !shown.stderr.contains(body));
    let check = gleaner(&["config", "check", config.to_str().unwrap()], "");
    assert_eq!(check.code, Some(0), "{}", check.stderr);
}

#[test]
fn a_key_that_cannot_sign_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.pem"), "not a key").unwrap();
    let config = dir.path().join("gleaner.toml");
    for (identity, names) in [
        ("key_file = \"bad.pem\"", "bad.pem"),
        ("key_file = \"missing.pem\"", "missing.pem"),
        ("key_env = \"GLEANER_TEST_UNSET_SIGNING_KEY\"", "GLEANER_TEST_UNSET_SIGNING_KEY"),
    ] {
        std::fs::write(&config, format!("{BOT}\n[identity]\n{identity}\n")).unwrap();
        let check = gleaner(&["config", "check", config.to_str().unwrap()], "");
        assert_eq!(check.code, Some(2), "{identity}: {}", check.stderr);
        assert!(check.stderr.contains(names), "{identity}: {}", check.stderr);
        assert!(check.stderr.contains("gleaner identity new"), "{}", check.stderr);
    }
}

//! `gleaner identity`: the keys that sign every request (Web Bot Auth, `[identity]`).
//!
//! - `gleaner identity new --out FILE` writes a fresh Ed25519 key (PKCS#8 PEM, readable by
//!   its owner only) and prints its key id, the JWK thumbprint sites will see in `keyid`;
//! - `gleaner identity show` prints the key directory the server publishes at
//!   `/.well-known/http-message-signatures-directory`, from the configured keys.
//!
//! The private key is never printed, logged or written anywhere but `--out`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};
use clap::Subcommand;
use gleaner_fetch::signing::{Signer, generate_pem};

use crate::BadInput;

/// The `identity` subcommands.
#[derive(Debug, Subcommand)]
pub enum IdentityCommand {
    /// Write a fresh Ed25519 signing key and print its key id.
    New {
        /// Where to write the PKCS#8 PEM key (refused if the file exists).
        #[arg(long)]
        out: PathBuf,
    },
    /// Print the key directory (JWKS) of the configured `[identity]`.
    Show,
}

/// Runs an `identity` subcommand.
pub fn run(command: IdentityCommand, config: &Path) -> Result<()> {
    match command {
        IdentityCommand::New { out } => {
            let keyid = write_new_key(&out)?;
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "wrote {} (keep it private)", out.display())?;
            writeln!(stdout, "keyid: {keyid}")?;
            writeln!(
                stdout,
                "add to gleaner.toml:\n\n[identity]\nkey_file = \"{}\"",
                out.display()
            )?;
            Ok(())
        }
        IdentityCommand::Show => {
            let settings = crate::cmd::config::load(config)?;
            let identity = settings.identity.as_ref().ok_or_else(|| {
                BadInput(format!(
                    "`{}` has no `[identity]`: requests are not signed\nhint: `gleaner identity new --out keys/bot.pem`, then `[identity] key_file = \"keys/bot.pem\"`",
                    config.display()
                ))
            })?;
            let signer = Signer::new(identity).map_err(|e| BadInput(e.to_string()))?;
            let now = SystemTime::now();
            let mut stdout = std::io::stdout().lock();
            writeln!(stdout, "{}", serde_json::to_string_pretty(&signer.directory(now))?)?;
            match signer.current_keyid(now) {
                Some(k) => eprintln!(
                    "signing now with keyid {k}; directory at {}",
                    identity.directory_url()
                ),
                None => {
                    eprintln!("warning: no configured key is valid now: requests go out unsigned")
                }
            }
            Ok(())
        }
    }
}

/// Writes a fresh key to `out` (never over an existing file; owner-only on Unix) and
/// returns its key id.
pub fn write_new_key(out: &Path) -> Result<String> {
    let (pem, keyid) = generate_pem().context("failed to generate a key")?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(out).map_err(|e| {
        BadInput(format!("cannot create `{}`: {e}\nhint: choose a new file; an existing key is never overwritten", out.display()))
    })?;
    file.write_all(pem.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("failed to write `{}`", out.display()))?;
    Ok(keyid)
}

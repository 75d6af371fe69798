//! Helpers to run the built `gleaner` binary.

use std::io::Write;
use std::process::{Command, Stdio};

/// What a finished `gleaner` run printed and returned.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: Option<i32>,
}

/// Runs `gleaner` with `args`, feeding `stdin`, and waits for it.
pub fn gleaner(args: &[&str], stdin: &str) -> Run {
    gleaner_with_env(args, stdin, &[])
}

/// Runs the binary like [`gleaner`], with extra environment variables (an API key, say).
pub fn gleaner_with_env(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gleaner binary starts");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    }
}

/// Writes `contents` to a new temporary file and returns it (deleted on drop).
pub fn temp_file(contents: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(contents).unwrap();
    file
}

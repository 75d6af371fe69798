//! `gleaner config check`.

use crate::util::{gleaner, temp_file};

#[test]
fn reference_example_is_valid() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/gleaner.toml");
    let run = gleaner(&["config", "check", example], "");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "user-agent:        ExampleBot/1.0 (+https://example.org/bot; bot@example.org)"
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("quiet hours [08:00-09:00, 14:00-15:00]"), "{}", run.stdout);
}

#[test]
fn global_config_flag_is_used_when_no_file_is_given() {
    let file = temp_file(
        b"[bot]\ntoken = \"X\"\ninfo_url = \"https://x.example/bot\"\noperator = \"X\"\n",
    );
    let run = gleaner(&["--config", file.path().to_str().unwrap(), "config", "check"], "");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

#[test]
fn invalid_file_is_exit_2_with_line_and_key() {
    let file = temp_file(b"[bot]\ntoken = \"X\"\ninfo_url = \"https://x.example/bot\"\noperator = \"X\"\n\n[politeness]\ngap = \"never\"\n");
    let run = gleaner(&["config", "check", file.path().to_str().unwrap()], "");
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains(":7:7: `politeness.gap`: `never` is not a duration"),
        "{}",
        run.stderr
    );
}

#[test]
fn missing_file_is_exit_2_with_a_hint() {
    let run = gleaner(&["--config", "/nonexistent/gleaner.toml", "config", "check"], "");
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("`/nonexistent/gleaner.toml`"), "{}", run.stderr);
    assert!(run.stderr.contains("hint:"), "{}", run.stderr);
}

#[test]
fn every_seed_profile_is_valid() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/profiles");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let run = gleaner(&["config", "check", path.to_str().unwrap()], "");
            assert_eq!(run.code, Some(0), "{}: {}", path.display(), run.stderr);
            checked += 1;
        }
    }
    assert_eq!(checked, 4, "UGYBot, AubeActuBot, CIXTRA-Bot and FestroBot");
}

#[test]
fn seed_profiles_keep_their_pages_numbers() {
    let profile = |name: &str| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/profiles/").to_owned() + name
    };
    let run = gleaner(&["config", "check", &profile("aubeactubot.toml")], "");
    assert!(
        run.stdout.contains("AubeActuBot/1.0 (+https://aubeactu.fr/robot; contact@aubeactu.fr)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("quiet hours [08:00-09:00, 14:00-15:00], per pass Some(5), per hour Some(12), per day Some(60)"), "{}", run.stdout);
    let run = gleaner(&["config", "check", &profile("festrobot.toml")], "");
    assert!(
        run.stdout.contains("user-agent:        FestroBot/1.0 (+https://festro.com/crawler)\n"),
        "{}",
        run.stdout
    );
    let run = gleaner(&["config", "check", &profile("ugybot.toml")], "");
    assert!(run.stdout.contains("event-page: jitter 150ms..450ms"), "{}", run.stdout);
    assert!(run.stdout.contains("methods:           GET, HEAD"), "{}", run.stdout);
}

#[test]
fn config_check_says_which_copy_shares_the_budgets_and_hides_the_password() {
    let file = temp_file(
        b"[bot]\ntoken = \"X\"\ninfo_url = \"https://x.example/bot\"\noperator = \"X\"\n\n[store]\nurl = \"postgres://gleaner:s3cret@db.internal:5432/gleaner\"\nschema = \"staging\"\npoliteness_namespace = \"public\"\n",
    );
    let run = gleaner(&["config", "check", file.path().to_str().unwrap()], "");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "copy `staging` sharing every site's budget with the copies of namespace `public`"
        ),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("s3cret"), "{}", run.stdout);
    // The same keys on SQLite are an error with the line and a hint.
    let sqlite = temp_file(
        b"[bot]\ntoken = \"X\"\ninfo_url = \"https://x.example/bot\"\noperator = \"X\"\n\n[store]\nschema = \"staging\"\n",
    );
    let run = gleaner(&["config", "check", sqlite.path().to_str().unwrap()], "");
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains(":7:") && run.stderr.contains("need PostgreSQL"), "{}", run.stderr);
}

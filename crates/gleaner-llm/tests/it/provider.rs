//! The provider's contract: structured output, tokens, retries, deadlines, allow-list.

use std::time::Duration;

use gleaner_llm::{Provider, ProviderError};
use serde_json::json;

use crate::mock::{Mock, Scripted};
use crate::settings;

fn schema() -> serde_json::Value {
    json!({ "type": "object", "properties": { "translation": { "type": "string" } } })
}

#[tokio::test]
async fn asks_for_json_schema_output_at_temperature_zero_and_reports_tokens() {
    let mock = Mock::start(vec![Scripted::content(r#"{"translation":"Jazz night"}"#)]).await;
    let s = settings(&mock.base, "127.0.0.1/32", "", "off", false);
    let provider = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap();
    let answer = provider.chat("system text", "user text", "translation", &schema()).await.unwrap();
    assert_eq!(answer.content, r#"{"translation":"Jazz night"}"#);
    assert_eq!(
        (answer.usage.prompt_tokens, answer.usage.completion_tokens, answer.attempts),
        (100, 20, 1)
    );
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r["model"], "test-model");
    assert_eq!(r["temperature"], 0);
    assert_eq!(r["response_format"]["type"], "json_schema");
    assert_eq!(r["response_format"]["json_schema"]["name"], "translation");
    assert_eq!(r["response_format"]["json_schema"]["schema"], schema());
    assert_eq!(r["messages"][0]["role"], "system");
    assert_eq!(r["messages"][1]["content"], "user text");
    assert!(mock.headers(0).get("authorization").is_none(), "no key configured, none sent");
}

#[tokio::test]
async fn sends_the_api_key_from_the_named_variable() {
    let mock = Mock::start(vec![Scripted::content("{}")]).await;
    let text = format!(
        "[bot]\ntoken = \"t\"\nversion = \"1\"\ninfo_url = \"https://x.example/bot\"\noperator = \"o\"\n\
         [[infrastructure]]\nname = \"m\"\nurl = \"{}\"\nallow = [\"127.0.0.1/32\"]\napi_key_env = \"TEST_LLM_KEY\"\n\
         [llm]\nendpoint = \"m\"\nmodel = \"test-model\"\n",
        mock.base
    );
    let s = gleaner_config::parse(&text, "t.toml").unwrap();
    let missing = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap_err();
    assert!(
        matches!(missing, ProviderError::MissingKey(ref v) if v == "TEST_LLM_KEY"),
        "{missing}"
    );
    let env = |v: &str| (v == "TEST_LLM_KEY").then(|| "sk-test".to_owned());
    let provider = Provider::connect(s.llm.as_ref().unwrap(), &env).await.unwrap();
    provider.chat("s", "u", "x", &schema()).await.unwrap();
    assert_eq!(mock.headers(0).get("authorization").unwrap(), "Bearer sk-test");
}

#[tokio::test]
async fn retries_429_and_5xx_honouring_retry_after() {
    let mock = Mock::start(vec![
        Scripted::status(429, Some("1")),
        Scripted::status(503, None),
        Scripted::content(r#"{"translation":"ok"}"#),
    ])
    .await;
    let s = settings(&mock.base, "127.0.0.1/32", "", "off", false);
    let provider = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap();
    let answer = provider.chat("s", "u", "translation", &schema()).await.unwrap();
    assert_eq!(answer.attempts, 3);
    assert_eq!(mock.requests().len(), 3);
}

#[tokio::test]
async fn gives_up_when_retry_after_is_longer_than_allowed_or_retries_run_out() {
    let mock = Mock::start(vec![Scripted::status(429, Some("3600"))]).await;
    let s = settings(&mock.base, "127.0.0.1/32", "", "off", false);
    let provider = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap();
    let e = provider.chat("s", "u", "translation", &schema()).await.unwrap_err();
    assert_eq!(e, ProviderError::WaitTooLong(Duration::from_secs(3600)));
    assert_eq!(mock.requests().len(), 1, "no retry after a refused wait");

    let mock = Mock::start(vec![Scripted::status(500, Some("0"))]).await;
    let s = settings(&mock.base, "127.0.0.1/32", "max_retries = 2", "off", false);
    let provider = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap();
    let e = provider.chat("s", "u", "translation", &schema()).await.unwrap_err();
    assert!(matches!(e, ProviderError::Status { status: 500, .. }), "{e}");
    assert_eq!(mock.requests().len(), 3, "one request and two retries");

    let mock = Mock::start(vec![Scripted::status(400, None)]).await;
    let s = settings(&mock.base, "127.0.0.1/32", "", "off", false);
    let provider = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap();
    assert!(provider.chat("s", "u", "translation", &schema()).await.is_err());
    assert_eq!(mock.requests().len(), 1, "a 400 is not retried");
}

#[tokio::test]
async fn a_slow_answer_fails_at_the_endpoints_deadline() {
    let mock = Mock::start(vec![Scripted::content("{}").after(Duration::from_secs(6))]).await;
    let s = settings(&mock.base, "127.0.0.1/32", "", "off", false);
    let provider = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap();
    let e = provider.chat("s", "u", "translation", &schema()).await.unwrap_err();
    assert!(matches!(e, ProviderError::Transport(_)), "{e}");
    assert!(e.is_transient());
    assert_eq!(mock.requests().len(), 1, "the request was sent, and not repeated");
}

#[tokio::test]
async fn an_endpoint_outside_its_allow_list_is_refused_before_any_request() {
    let mock = Mock::start(vec![Scripted::content("{}")]).await;
    let s = settings(&mock.base, "10.0.0.0/8", "", "off", false);
    let e = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap_err();
    let message = e.to_string();
    assert!(matches!(e, ProviderError::NotAllowed { .. }), "{message}");
    assert!(
        message.contains("127.0.0.1")
            && message.contains("10.0.0.0/8")
            && message.contains("allow"),
        "{message}"
    );
    // The same endpoint, allowed, is reached (positive control).
    let s = settings(&mock.base, "127.0.0.0/8", "", "off", false);
    let provider = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap();
    provider.chat("s", "u", "x", &schema()).await.unwrap();
    assert_eq!(mock.requests().len(), 1);

    // A name that resolves outside the list is refused too.
    let text = "[bot]\ntoken = \"t\"\nversion = \"1\"\ninfo_url = \"https://x.example/bot\"\noperator = \"o\"\n\
         [[infrastructure]]\nname = \"m\"\nurl = \"http://localhost:9/v1/\"\nallow = [\"10.0.0.0/8\"]\n\
         [llm]\nendpoint = \"m\"\nmodel = \"x\"\n";
    let s = gleaner_config::parse(text, "t.toml").unwrap();
    let e = Provider::connect(s.llm.as_ref().unwrap(), &|_| None).await.unwrap_err();
    assert!(matches!(e, ProviderError::NotAllowed { .. } | ProviderError::Resolve { .. }), "{e}");
}

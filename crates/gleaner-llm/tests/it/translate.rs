//! Translation: detected language, the cache, English left alone, failures retried later,
//! rights.

use gleaner_event::EventIdentity;
use gleaner_llm::STEP_TRANSLATION;
use url::Url;

use crate::mock::{Mock, Scripted};
use crate::{event, llm, settings};

fn page(n: u32) -> Url {
    Url::parse(&format!("http://127.0.0.1:9/agenda/{n}.html")).unwrap()
}

#[tokio::test]
async fn titles_are_translated_once_and_the_cache_serves_the_same_text() {
    let mock = Mock::start(vec![
        Scripted::content(r#"{"translation":"Great jazz night"}"#),
        Scripted::content(r#"{"translation":"The best musicians of the city on stage"}"#),
    ])
    .await;
    let s = settings(&mock.base, "127.0.0.1/32", "", "off", true);
    let (llm, store) = llm(&s).await;
    let source = &s.sources[0];
    let a = event("Büyük caz gecesi", Some("Şehrin en iyi müzisyenleri sahnede, kaçırmayın"));
    llm.stored(source, &page(1), EventIdentity(1), &a, true).await;
    assert_eq!(mock.requests().len(), 2, "title and description");
    let user = mock.requests()[0]["messages"][1]["content"].as_str().unwrap().to_owned();
    assert!(user.contains("`tr`") && user.contains("<<<TEXT>>>\nBüyük caz gecesi\n"), "{user}");
    // A second event with the same title, on a page declaring Turkish (a short title
    // alone is too little for the detector): from the cache, no request.
    let turkish_page = r#"<html lang="tr"><body><h1>Büyük caz gecesi</h1></body></html>"#;
    llm.read_page(source, &page(2), &[], turkish_page, None, true, Vec::new()).await;
    let b = event("Büyük caz gecesi", None);
    llm.stored(source, &page(2), EventIdentity(2), &b, true).await;
    assert_eq!(mock.requests().len(), 2);
    let translations = store.translations.lock().unwrap().clone();
    assert_eq!(translations.len(), 2);
    let t1 = &translations[&1];
    assert_eq!(t1[0].english, "Great jazz night");
    assert_eq!(t1[0].lang, "tr");
    assert_eq!(t1[1].english, "The best musicians of the city on stage");
    assert_eq!(translations[&2][0].text_hash, t1[0].text_hash);
    assert_eq!(store.steps.lock().unwrap()[&(1, STEP_TRANSLATION)].1, "translate-v1");
}

#[tokio::test]
async fn english_is_left_alone_and_a_failure_leaves_the_event_for_a_later_pass() {
    let mock = Mock::start(vec![Scripted::status(500, Some("0"))]).await;
    let s = settings(&mock.base, "127.0.0.1/32", "max_retries = 0", "off", true);
    let (llm, store) = llm(&s).await;
    let source = &s.sources[0];
    llm.stored(
        source,
        &page(1),
        EventIdentity(1),
        &event("A great jazz night with the best musicians in town", None),
        true,
    )
    .await;
    assert_eq!(mock.requests().len(), 0);
    assert_eq!(store.steps.lock().unwrap()[&(1, STEP_TRANSLATION)].1, "already English");
    let fr = event("Grande soirée de jazz avec les meilleurs musiciens de la ville", None);
    llm.stored(source, &page(2), EventIdentity(2), &fr, false).await;
    assert_eq!(mock.requests().len(), 1, "the model was asked");
    assert!(store.translations.lock().unwrap().is_empty());
    assert!(
        !store.steps.lock().unwrap().contains_key(&(2, STEP_TRANSLATION)),
        "not marked: retried later"
    );
    // Later the model answers: the event seen again unchanged is translated now.
    mock.push(vec![Scripted::content(r#"{"translation":"Great jazz evening"}"#)]);
    llm.stored(source, &page(2), EventIdentity(2), &fr, false).await;
    assert_eq!(store.translations.lock().unwrap()[&2][0].english, "Great jazz evening");
    assert_eq!(store.translations.lock().unwrap()[&2][0].lang, "fr");
}

#[tokio::test]
async fn events_of_a_page_reserving_ai_use_are_not_translated() {
    let mock = Mock::start(vec![Scripted::content(r#"{"translation":"x"}"#)]).await;
    let s = settings(&mock.base, "127.0.0.1/32", "", "off", true);
    let (llm, store) = llm(&s).await;
    let source = &s.sources[0];
    let html =
        r#"<html><head><meta name="robots" content="noai"></head><body>Caz gecesi</body></html>"#;
    let kept = llm
        .read_page(source, &page(1), &[], html, None, true, vec![event("Büyük caz gecesi", None)])
        .await;
    assert_eq!(kept.len(), 1, "the page's own events are kept");
    llm.stored(source, &page(1), EventIdentity(1), &kept[0], true).await;
    assert_eq!(mock.requests().len(), 0);
    assert!(store.translations.lock().unwrap().is_empty());
    assert!(store.audit.lock().unwrap()[0].1.contains("not translated"));
    // Positive control: another page's event is translated.
    let turkish_page = r#"<html lang="tr"><body><h1>Büyük caz gecesi</h1></body></html>"#;
    llm.read_page(source, &page(2), &[], turkish_page, None, true, Vec::new()).await;
    llm.stored(source, &page(2), EventIdentity(2), &event("Büyük caz gecesi", None), true).await;
    assert_eq!(mock.requests().len(), 1);
}

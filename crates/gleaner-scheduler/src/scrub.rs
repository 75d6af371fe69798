//! Secrets out of what is kept (issue 26): a licensed API's response may carry its own
//! key in the addresses it gives (`…/e/1?apikey=KEY`), and an operator may name other
//! secret query parameters (`[network] secret_query_params`, which always includes each
//! licensed source's `key_param`). Every address an event carries is stripped of them
//! before the event reaches the store, so no key is stored, published or exported.

use gleaner_event::Event;
use gleaner_fetch::redirect::strip_params;

/// Removes the secret query parameters `names` from every address of `event`: its own
/// page, its ticket address and its image.
pub fn scrub_event(event: &mut Event, names: &[String]) {
    for url in [&mut event.url, &mut event.ticket_url, &mut event.image_url].into_iter().flatten() {
        strip_params(url, names);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_event::{NormaliseContext, RawEvent, normalise};
    use url::Url;

    fn u(s: &str) -> Option<Url> {
        Some(Url::parse(s).unwrap())
    }

    fn event() -> Event {
        let base = Url::parse("https://venue.example/").unwrap();
        let raw = RawEvent {
            name: Some("Concert".into()),
            start: Some("2027-04-12T19:30".into()),
            ..RawEvent::default()
        };
        normalise(&raw, &NormaliseContext { base_url: &base, default_tz: None }).unwrap().event
    }

    #[test]
    fn every_address_of_an_event_loses_its_key_and_keeps_the_rest() {
        let mut event = Event {
            url: u("https://venue.example/e/1?apikey=SECRET&lang=fr"),
            ticket_url: u("https://tix.example/buy?APIKEY=SECRET"),
            image_url: u("https://img.example/p.jpg?token=T&w=640"),
            ..event()
        };
        scrub_event(&mut event, &["apikey".to_owned(), "token".to_owned()]);
        assert_eq!(event.url, u("https://venue.example/e/1?lang=fr"));
        assert_eq!(event.ticket_url, u("https://tix.example/buy"));
        assert_eq!(event.image_url, u("https://img.example/p.jpg?w=640"));
    }

    #[test]
    fn an_address_without_secrets_is_left_as_it_is() {
        let mut event = Event { url: u("https://venue.example/e/1?a=1&b=2"), ..event() };
        scrub_event(&mut event, &["apikey".to_owned()]);
        assert_eq!(event.url, u("https://venue.example/e/1?a=1&b=2"));
    }
}

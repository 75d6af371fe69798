//! Free tiers: a price text that lets one group in free (`under-12s free`, `enfants
//! gratuit`, `Mitglieder frei`, `socios gratis`, `12 yaş altı ücretsiz`). The event is
//! priced (the lowest price is zero), not free for everyone.

use crate::datetext::fold_diacritics;

/// Words meaning "free", diacritics folded.
const FREE: [&str; 19] = [
    "free",
    "gratuit",
    "gratuite",
    "gratuits",
    "gratuites",
    "gratis",
    "gratuito",
    "gratuita",
    "gratuitos",
    "gratuitas",
    "frei",
    "kostenlos",
    "kostenfrei",
    "ucretsiz",
    "ucretsizdir",
    "liberada",
    "liberado",
    "bedava",
    "libre",
];

/// Beginnings of words naming a group of people, in the five languages (children, the
/// young, members, students, women, seniors, babies; `under`, `moins`, `unter`, `menores`,
/// `yas` before or after an age).
const GROUPS: [&str; 39] = [
    // Spanish `colegiados`, the members of a professional body; `afiliados`, a chamber's
    // or a union's members.
    "colegiad",
    "afiliad",
    "child",
    "kid",
    "under",
    "member",
    "student",
    "women",
    "ladies",
    "senior",
    "bab",
    "infant",
    "toddler",
    "friends",
    "enfant",
    "moins",
    "jusqu",
    "adherent",
    "membre",
    "abonne",
    "etudiant",
    "kinder",
    "kind",
    "jugendlich",
    "mitglied",
    "schuler",
    "studierend",
    "unter",
    "nino",
    "nina",
    "menor",
    "socio",
    "mujer",
    "estudiant",
    "jubilad",
    "bebe",
    "cocuk",
    "uye",
    "ogrenci",
];

/// Words that never name a group even when a group word starts them (`understand`).
const NOT_GROUPS: [&str; 4] = ["understand", "underground", "kindly", "kinda"];

/// Whether a text lets a group in free: a free word within four words before or three after a group word
/// (`Under 12s free`, `free for members`, `Kinder gratis`, `gratuit jusqu'à 16 ans`,
/// `12 yaş altı ücretsiz`, `Mujeres: adhesión liberada`). `Entrée libre` or `free
/// admission` alone name no group.
pub fn states_free_tier(text: &str) -> bool {
    let folded = fold_diacritics(text).to_lowercase();
    // `sin costo`, `sin cargo` (Spanish: at no cost) say free in two words.
    let folded = if folded.contains("sin co") || folded.contains("sin ca") {
        folded.replace("sin costo", "gratis").replace("sin cargo", "gratis")
    } else {
        folded
    };
    // Within one sentence or clause: `Ücretsiz. Çocuklar velileriyle katılabilir.` is free
    // entry, and children come with their parents.
    folded.split([';', '!', '?']).flat_map(|s| s.split(". ")).any(tier_in)
}

fn tier_in(sentence: &str) -> bool {
    let words: Vec<&str> =
        sentence.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.iter().enumerate().any(|(i, w)| {
        FREE.contains(w) && {
            let from = i.saturating_sub(4);
            let to = (i + 4).min(words.len());
            (from..to).any(|j| j != i && is_group(&words, j))
        }
    }) || labelled_tier(sentence)
        || listed_then_free(sentence, &words)
}

/// A short sentence that lists a group first and says free last, after a comma (`Socios
/// de la cooperativa y sus acompañantes, gratis.`, `Members and their guests, free`): the
/// group may be more than four words from the free word.
fn listed_then_free(sentence: &str, words: &[&str]) -> bool {
    (1..=10).contains(&words.len())
        && is_group(words, 0)
        && words.last().is_some_and(|w| FREE.contains(w))
        && sentence
            .trim()
            .trim_end_matches(['.', '!'])
            .rsplit_once(',')
            .is_some_and(|(_, last)| last.split_whitespace().count() == 1)
}

/// Whether the word at `i` names a group of people ([`GROUPS`], `yaş altı`, `U12`).
fn is_group(words: &[&str], i: usize) -> bool {
    let w = words[i];
    (GROUPS.iter().any(|g| w.starts_with(g)) && !NOT_GROUPS.contains(&w))
        // `yaş altı` (under an age) is a group in Turkish; `yas` alone is an age.
        || (w == "yas" && words.get(i + 1).is_some_and(|n| *n == "alti"))
        // `U12`: under twelve.
        || (w.starts_with('u')
            && (2..=3).contains(&w.len())
            && w[1..].chars().all(|c| c.is_ascii_digit()))
}

/// A group labelled before a colon and let in free after it, however long the label
/// (`Niños menores de 12 años acompañados: ingreso libre`, `Socios: entrada gratuita`):
/// one part of a tariff line (between `·`, `,`, `/`), a free word among the first three
/// after the colon.
fn labelled_tier(sentence: &str) -> bool {
    fn words_of(t: &str) -> Vec<&str> {
        t.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect()
    }
    sentence.split(['·', ',', '/', '|', '(', ')']).any(|part| {
        let Some((label, value)) = part.split_once(':') else { return false };
        let label = words_of(label);
        label.len() <= 8
            && (0..label.len()).any(|j| is_group(&label, j))
            && words_of(value).iter().take(3).any(|w| FREE.contains(w))
    })
}

#[cfg(test)]
mod tests {
    use super::states_free_tier;

    #[test]
    fn free_tiers_in_five_languages() {
        for yes in [
            "Socios de la cooperativa y sus acompañantes, gratis.",
            "Under 12s free",
            "$45 with under-14s free",
            "kids 10 & under free",
            "Free for members, $10 for guests",
            "£18 reserved / £12 unreserved / under-18s free",
            "PAF 10 € / 7 € / free under 12",
            "Friends of the Garden free",
            "Adultes Fr. 15.–, enfants gratuit",
            "gratuit jusqu'à 16 ans",
            "abonnés gratuit / non-abonnés 5 $",
            "Kinder frei, Erwachsene € 3,–",
            "Katılım ücreti 150 TL; dernek üyelerine ücretsizdir.",
            "Mitglieder kostenlos",
            "socios gratis / no socios 10 €",
            "Mujeres: adhesión liberada",
            "menores de 5 años gratis",
            "kişi başı 300 TL, 12 yaş altı ücretsiz",
            "Üyelere ücretsiz",
            "öğrenciler ücretsiz",
            "U12 free",
            // A group labelled before a colon, free after it.
            "Niños menores de 12 años acompañados: ingreso libre",
            "Socios: entrada gratuita. No socios: 10 €.",
            "Tribuna General S/ 10.00 · Niños menores de 12: ingreso libre",
            // At no cost, in two words; a chamber's members.
            "Afiliados: sin costo. No afiliados: $40.000",
            "Socios sin cargo, no socios $5.000",
        ] {
            assert!(states_free_tier(yes), "{yes}");
        }
        for no in [
            "Free",
            "Entrée libre",
            "Free admission",
            "Eintritt frei",
            "Giriş ücretsiz",
            "Entrada libre hasta completar aforo",
            "£12, concessions £8",
            "8 €, Kinder 5 €",
            "Free parking for everyone. Children must be accompanied by an adult at all times.",
            "I understand it is free",
            "Ücretsiz, kayıt gerekmez. Çocuklar velileriyle katılabilir.",
            "Entrada: libre",
            "Niños: a partir de 6 años. Entrada libre",
            "Entrada sin costo",
        ] {
            assert!(!states_free_tier(no), "{no}");
        }
    }
}

//! Text into search terms: identifiers split into words (`refundInvoice`, `refund_invoice`,
//! `billing.refund`, `HTTPServer`, `v2api`), lowercased, stop words dropped, each word
//! reduced to a stem (plural and verb endings) so that "refunds", "refunded" and
//! "refunding" meet "refund".

/// Words that carry no meaning for choosing a tool.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "being", "but", "by", "can", "could", "do", "does", "doing", "each", "for", "from",
    "get", "give", "given", "had", "has", "have", "having", "he", "her", "here", "him", "his",
    "how", "i", "if", "in", "into", "is", "it", "its", "just", "let", "like", "may", "me", "might",
    "more", "most", "my", "need", "no", "not", "now", "of", "on", "one", "or", "other", "our",
    "out", "over", "please", "should", "so", "some", "such", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "up", "us", "use", "used",
    "using", "very", "want", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "would", "you", "your",
];

/// The terms of `text`, appended to `out`.
pub(super) fn terms(text: &str, out: &mut Vec<String>) {
    for word in words(text) {
        if word.len() < 2 && !word.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if STOP_WORDS.binary_search(&word.as_str()).is_ok() {
            continue;
        }
        out.push(stem(word));
    }
}

/// The words of `text`, lowercased: split at anything that is not a letter or digit, at a
/// lower-to-upper case change (`refundInvoice`), before the last capital of a run followed
/// by a lowercase letter (`HTTPServer` → `http`, `server`), and between letters and digits.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut word, &mut out);
            continue;
        }
        if let Some(&prev) = i.checked_sub(1).and_then(|j| chars.get(j)) {
            let next = chars.get(i + 1).copied();
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase()
                    && c.is_uppercase()
                    && next.is_some_and(char::is_lowercase))
                || (prev.is_alphabetic() && c.is_numeric())
                || (prev.is_numeric() && c.is_alphabetic());
            if boundary {
                flush(&mut word, &mut out);
            }
        }
        word.extend(c.to_lowercase());
    }
    flush(&mut word, &mut out);
    out.into_iter()
}

fn flush(word: &mut String, out: &mut Vec<String>) {
    if !word.is_empty() {
        out.push(std::mem::take(word));
    }
}

/// A light stem of an English word (lowercase): plural and common verb and adjective
/// endings removed (`invoices` → `invoic`, `refunded` → `refund`, `searching` → `search`),
/// so that forms of one word meet. Short words are kept whole.
fn stem(mut word: String) -> String {
    if word.len() <= 3 || !word.is_ascii() {
        return word;
    }
    for (suffix, replacement, min_stem) in [
        ("ies", "y", 2),
        ("sses", "ss", 2),
        ("ness", "", 3),
        ("ments", "", 3),
        ("ment", "", 3),
        ("ings", "", 3),
        ("ing", "", 3),
        ("ers", "", 3),
        ("er", "", 3),
        ("edly", "", 3),
        ("ed", "", 3),
        ("es", "", 3),
        ("ly", "", 3),
        ("s", "", 3),
    ] {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.len() >= min_stem
            && !(suffix == "s" && (stem.ends_with('s') || stem.ends_with('u')))
        {
            let mut stem = stem.to_owned();
            stem.push_str(replacement);
            // `stopped` → `stop`, `running` → `run`.
            let b = stem.as_bytes();
            if replacement.is_empty()
                && matches!(suffix, "ing" | "ings" | "ed" | "er" | "ers")
                && b.len() >= 2
                && b[b.len() - 1] == b[b.len() - 2]
                && !matches!(b[b.len() - 1], b'l' | b's' | b'z')
            {
                stem.pop();
            }
            word = stem;
            break;
        }
    }
    // `invoice` and `invoic(es)` meet.
    if word.len() > 4 && word.ends_with('e') {
        word.pop();
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        terms(text, &mut out);
        out
    }

    #[test]
    fn stop_words_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn identifiers_split_into_words() {
        let w: Vec<String> = words("billing.refundInvoice HTTPServer get_v2Api x-y").collect();
        assert_eq!(
            w,
            [
                "billing", "refund", "invoice", "http", "server", "get", "v", "2", "api", "x", "y"
            ]
        );
    }

    #[test]
    fn forms_of_a_word_meet() {
        for group in [
            &["refund", "refunds", "refunded", "refunding"][..],
            &["invoice", "invoices"],
            &["search", "searches", "searching", "searched"],
            &["stop", "stopped", "stopping"],
            &["category", "categories"],
            &["weather", "weathers"],
        ] {
            let stems: Vec<String> = group.iter().map(|w| stem((*w).to_owned())).collect();
            assert!(
                stems.windows(2).all(|s| s[0] == s[1]),
                "{group:?}: {stems:?}"
            );
        }
        assert_ne!(stem("class".into()), stem("clas".into()));
    }

    #[test]
    fn queries_keep_what_matters() {
        assert_eq!(all("What is the weather in Paris?"), ["weath", "pari"]);
    }
}

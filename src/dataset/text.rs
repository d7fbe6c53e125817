//! Names and other free text: how long they may be, and which characters never reach
//! a file or a terminal as they are.
//!
//! Names come from club programs and registers the federation does not control. A
//! name holding ESC can recolour or rewrite an officer's terminal when `player` prints
//! it, RLO (U+202E) shows a name backwards in the ranking, NUL cuts it short in some
//! readers, and a 10 MB "name" swells every output it appears in. So the dataset rules
//! refuse a name or text cell with a control or bidirectional-override character, or
//! longer than [`MAX_NAME_CHARS`] / [`MAX_TEXT_CHARS`], naming the row and column; and
//! every CSV, HTML page and terminal line shows such a character, should one come
//! through another way, as `\u{FFFD}` (the replacement character) instead of acting on it.

use std::borrow::Cow;

/// The longest name (member, printed player name) the dataset accepts, in characters.
/// The longest real names are under 60; this leaves room for a pair's two names.
pub const MAX_NAME_CHARS: usize = 200;

/// The longest other text cell (title, club, district, class, team), in characters.
pub const MAX_TEXT_CHARS: usize = 1_000;

/// A character that acts on a terminal or on how text is laid out rather than being
/// shown: the C0 and C1 controls (ESC, BEL, NUL, DEL, …) and the bidirectional
/// marks, embeddings, overrides and isolates (RLO and its kin).
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The name of an unsafe character as a reader would look it up.
fn describe(c: char) -> String {
    let name = match c {
        '\u{0}' => "NUL",
        '\u{7}' => "BEL",
        '\u{8}' => "BS",
        '\t' => "TAB",
        '\n' => "LF",
        '\r' => "CR",
        '\u{1b}' => "ESC",
        '\u{7f}' => "DEL",
        '\u{202E}' => "RLO",
        '\u{202D}' => "LRO",
        '\u{2066}'..='\u{2069}' => "bidi isolate",
        '\u{202A}'..='\u{202C}' | '\u{200E}' | '\u{200F}' | '\u{061C}' => "bidi mark",
        _ => "control character",
    };
    format!("U+{:04X} {name}", u32::from(c))
}

/// Why `text` may not be a name or text cell (`limit` characters at most), or `None`.
///
/// ```
/// use bridgehcp::dataset::text::{check_text, MAX_NAME_CHARS};
/// assert_eq!(check_text("Anna Öberg", MAX_NAME_CHARS), None);
/// assert_eq!(
///     check_text("Ann\u{1b}[2J", MAX_NAME_CHARS).as_deref(),
///     Some("holds U+001B ESC at character 4: control and bidirectional-override characters are not allowed in names and text (fix it in the club's program or the register)")
/// );
/// ```
pub fn check_text(text: &str, limit: usize) -> Option<String> {
    if let Some((at, c)) = text.chars().enumerate().find(|(_, c)| is_unsafe(*c)) {
        return Some(format!(
            "holds {} at character {}: control and bidirectional-override characters are not allowed in names and text (fix it in the club's program or the register)",
            describe(c),
            at + 1
        ));
    }
    // Counting stops at the limit, so a huge cell costs no more than a short one.
    if text.len() > limit && text.chars().nth(limit).is_some() {
        return Some(format!(
            "is longer than {limit} characters ({} bytes); no real name or title is, so this is a broken export",
            text.len()
        ));
    }
    None
}

/// `text` with every unsafe character replaced by U+FFFD, for a CSV cell, an HTML page
/// or a terminal; line breaks are kept when `keep_lines` (a multi-line statement).
///
/// ```
/// use bridgehcp::dataset::text::neutralise;
/// assert_eq!(neutralise("Ann\u{1b}[31m Berg\u{7}", false), "Ann\u{FFFD}[31m Berg\u{FFFD}");
/// assert_eq!(neutralise("a\nb\u{202E}", true), "a\nb\u{FFFD}");
/// assert_eq!(neutralise("Åsa Ödman", false), "Åsa Ödman");
/// ```
pub fn neutralise(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let unsafe_here = |c: char| is_unsafe(c) && !(keep_lines && c == '\n');
    if !text.chars().any(unsafe_here) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if unsafe_here(c) { '\u{FFFD}' } else { c })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_the_audit_found_is_caught() {
        for (c, name) in [
            ('\u{1b}', "ESC"),
            ('\u{202E}', "RLO"),
            ('\u{7}', "BEL"),
            ('\u{0}', "NUL"),
        ] {
            let name_with = format!("Ann{c}Berg");
            let rule = check_text(&name_with, MAX_NAME_CHARS).unwrap_or_default();
            assert!(
                rule.contains(name) && rule.contains("character 4"),
                "{rule}"
            );
            assert_eq!(neutralise(&name_with, false), "Ann\u{FFFD}Berg");
        }
    }

    #[test]
    fn the_length_cap_counts_characters_not_bytes() {
        let at_cap = "Ö".repeat(MAX_NAME_CHARS);
        assert_eq!(check_text(&at_cap, MAX_NAME_CHARS), None);
        let over = "a".repeat(10 * 1024 * 1024);
        let rule = check_text(&over, MAX_NAME_CHARS).unwrap_or_default();
        assert!(
            rule.starts_with("is longer than 200 characters (10485760 bytes)"),
            "{rule}"
        );
    }
}

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

/// A byte table for scanning text a byte at a time: true for every byte that may
/// start an unsafe character ([`is_unsafe`]: the C0 controls, DEL, and the first bytes
/// of the C1 controls (`0xc2`) and of the bidirectional marks (`0xd8`, `0xe2`)) and for
/// the bytes of `marked`, which a format writes otherwise. A writer copies the runs
/// between such bytes whole and looks closer only where the table says.
pub const fn bytes_to_look_at(marked: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    let starts = [0x7f, 0xc2, 0xd8, 0xe2];
    let mut at = 0;
    while at < starts.len() {
        table[starts[at] as usize] = true;
        at += 1;
    }
    let mut at = 0;
    while at < marked.len() {
        table[marked[at] as usize] = true;
        at += 1;
    }
    table
}

/// The bytes of the unsafe character ([`is_unsafe`]) starting at `bytes[0]`, else 0;
/// with `keep_lines`, a line break is not one. Read where [`bytes_to_look_at`] marks a
/// byte: the few unsafe characters beyond ASCII are told from the safe ones sharing
/// their first byte.
pub fn unsafe_width(bytes: &[u8], keep_lines: bool) -> usize {
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    match at(0) {
        b'\n' if keep_lines => 0,
        0..=0x1f | 0x7f => 1,
        // U+0080..U+009F, the C1 controls.
        0xc2 if (0x80..=0x9f).contains(&at(1)) => 2,
        // U+061C, the Arabic letter mark.
        0xd8 if at(1) == 0x9c => 2,
        // U+200E, U+200F, U+202A..U+202E; U+2066..U+2069.
        0xe2 if at(1) == 0x80 && matches!(at(2), 0x8e | 0x8f | 0xaa..=0xae) => 3,
        0xe2 if at(1) == 0x81 && (0xa6..=0xa9).contains(&at(2)) => 3,
        _ => 0,
    }
}

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
    if !has_unsafe(text, keep_lines) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| if unsafe_here(c) { '\u{FFFD}' } else { c })
            .collect(),
    )
}

/// Whether `text` holds an unsafe character ([`is_unsafe`]; a line break only unless
/// `keep_lines`), read from its UTF-8 bytes: the result sheet checks millions of names,
/// nearly all safe and few of them ASCII, and decoding each character to ask was a
/// good part of writing it. The answer is the one asking each character gives.
pub fn has_unsafe(text: &str, keep_lines: bool) -> bool {
    let bytes = text.as_bytes();
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    bytes.iter().enumerate().any(|(i, &b)| match b {
        b'\n' => !keep_lines,
        0..=0x1f | 0x7f => true,
        // U+0080..U+009F, the C1 controls.
        0xc2 => (0x80..=0x9f).contains(&at(i + 1)),
        // U+061C, the Arabic letter mark.
        0xd8 => at(i + 1) == 0x9c,
        // U+200E, U+200F, U+202A..U+202E; U+2066..U+2069.
        0xe2 => match at(i + 1) {
            0x80 => matches!(at(i + 2), 0x8e | 0x8f | 0xaa..=0xae),
            0x81 => (0xa6..=0xa9).contains(&at(i + 2)),
            _ => false,
        },
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_table_marks_the_controls_the_lead_bytes_and_the_format_s_own() {
        let table = bytes_to_look_at(b",\"");
        let marked: Vec<u8> = (0..=255u8).filter(|&b| table[b as usize]).collect();
        // The 32 C0 controls, the two given, DEL, and the lead bytes of the C1
        // controls (U+0080-U+009F), of ALM (U+061C) and of the marks from U+2000 on.
        let mut expected: Vec<u8> = (0x00..0x20).collect();
        expected.extend([b'"', b',', 0x7f, 0xc2, 0xd8, 0xe2]);
        assert_eq!(marked, expected);
        assert_eq!(marked.len(), 38);
        // Every byte of an unsafe character's UTF-8 form starts with a marked byte.
        for c in [
            '\u{1b}', '\u{85}', '\u{61c}', '\u{200e}', '\u{202e}', '\u{2066}',
        ] {
            let mut utf8 = [0; 4];
            assert!(
                table[c.encode_utf8(&mut utf8).as_bytes()[0] as usize],
                "{c:?}"
            );
        }
        assert!(!table[b'a' as usize] && !table[0xc3]);
    }

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
    fn unsafe_characters_are_found_in_the_bytes() {
        // Each unsafe character, and its safe neighbours that share its first bytes.
        for (text, unsafe_one) in [
            ("Åsa Ödman – Bo Ek", false),
            ("a\u{9f}b", true),
            ("a\u{a0}b", false),
            ("\u{7f}", true),
            ("\u{7e}", false),
            ("\u{61c}", true),
            ("\u{61b}", false),
            ("x\u{200e}", true),
            ("x\u{200f}", true),
            ("x\u{2010}", false),
            ("\u{202a}", true),
            ("\u{202e}", true),
            ("\u{202f}", false),
            ("\u{2066}", true),
            ("\u{2069}", true),
            ("\u{206a}", false),
            ("\u{2065}", false),
        ] {
            assert_eq!(has_unsafe(text, false), unsafe_one, "{text:?}");
        }
        assert!(has_unsafe("a\nb", false));
        assert!(!has_unsafe("a\nb", true));
        assert!(has_unsafe("a\nb\r", true));
    }

    proptest::proptest! {
        #[test]
        fn the_bytes_tell_what_the_characters_tell(
            text in "[a-z \u{0}-\u{a0}\u{600}-\u{620}\u{2000}-\u{2070}Å–]{0,12}",
            keep_lines: bool,
        ) {
            let by_char = text.chars().any(|c| is_unsafe(c) && !(keep_lines && c == '\n'));
            proptest::prop_assert_eq!(has_unsafe(&text, keep_lines), by_char);
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

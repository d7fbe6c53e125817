//! The one skeleton of the HTML pages, and the one escaper of their text.
//!
//! Every page (the result sheet, a player's statement, the monthly report, the study)
//! must open from a mail attachment or a shared drive, alone: its head, style and heading
//! are written here once, so the pages read alike and a fix to one reaches all.
//!
//! The pages are maud templates, checked when the crate compiles. Text from the data
//! (names, titles, clubs, file names) enters them only as [`Text`], which escapes with
//! [`escape_into`]: the escaper the hand-written SVG charts use too, so a name shows the
//! same in a table and in a chart, and control and bidirectional-override characters
//! never reach a page. maud's own escaper, which the templates' numbers pass through,
//! leaves those characters and `'` as they are.
//!
//! The result sheet's tables are the exception to the templates: a score of a whole
//! federation prints millions of cells, encoded in parallel a batch of competitions at
//! a time and streamed to the file between [`start`] and [`END`], so they are written
//! as bytes (`report::sheet`), escaped by [`escape_bytes_into`], the same escaper.

use maud::{html, Markup, PreEscaped, Render, DOCTYPE};

/// Shared look of the report pages.
pub const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:72em}\
table{border-collapse:collapse;margin:0.8em 0;font-size:0.9em}\
th,td{border-bottom:1px solid #ddd;padding:0.2em 0.6em;text-align:left}\
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}.note{color:#555;font-size:0.85em}\
svg{display:block;margin:0.5em 0}td:first-child{white-space:nowrap}";

/// The end of every page, after its body.
pub const END: &str = "</body></html>\n";

/// Text from the data, escaped by [`escape_into`] where a template places it.
#[derive(Debug, Clone, Copy)]
pub struct Text<'a>(pub &'a str);

impl Render for Text<'_> {
    fn render_to(&self, out: &mut String) {
        escape_into(out, self.0);
    }
}

/// A table's column headings, a `th` each.
pub fn headings(names: &[&str]) -> Markup {
    html! { @for name in names { th { (Text(name)) } } }
}

/// A whole page: `title` in the head, `heading` at the top of the body, then `body`.
pub fn page(title: &str, style: &str, heading: &str, body: Markup) -> String {
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (Text(title)) }
                style { (PreEscaped(style)) }
            }
            body {
                h1 { (Text(heading)) }
                (body)
            }
        }
    };
    let mut page = page.into_string();
    page.push('\n');
    page
}

/// The page up to its body's content, for a page written a part at a time and closed
/// with [`END`].
pub fn start(title: &str, style: &str, heading: &str) -> String {
    let whole = page(title, style, heading, html! {});
    match whole.strip_suffix(END) {
        Some(start) => start.to_owned(),
        None => whole,
    }
}

/// Escapes text for HTML and SVG; control and bidirectional-override characters are
/// shown as U+FFFD ([`crate::dataset::text`]).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

/// [`escape`], appended to `out`: a page of millions of cells escapes each without a
/// string of its own.
pub fn escape_into(out: &mut String, text: &str) {
    escape_pieces(text, |piece| out.push_str(piece));
}

/// [`escape`], appended to the bytes of a page being written.
pub fn escape_bytes_into(out: &mut Vec<u8>, text: &str) {
    escape_pieces(text, |piece| out.extend_from_slice(piece.as_bytes()));
}

/// The bytes that may start something to change: the five marked-up characters and
/// what may start an unsafe character, which
/// [`crate::dataset::text::unsafe_width`] reads on.
const MAY_CHANGE: [bool; 256] = crate::dataset::text::bytes_to_look_at(b"&<>\"'");

/// `text` escaped, as the pieces to append in turn: the runs between the characters
/// that change are passed whole, read from the bytes in one pass (names are rarely
/// ASCII and rarely hold anything to change).
fn escape_pieces(text: &str, mut push: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut run = 0;
    let mut at = 0;
    while let Some(offset) = bytes[at..].iter().position(|&b| MAY_CHANGE[b as usize]) {
        at += offset;
        let (shown, width) = match bytes[at] {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' => ("&quot;", 1),
            b'\'' => ("&#39;", 1),
            _ => match crate::dataset::text::unsafe_width(&bytes[at..], true) {
                0 => {
                    at += 1;
                    continue;
                }
                width => ("\u{FFFD}", width),
            },
        };
        // `at` starts a character and `at + width` ends one: both are boundaries.
        push(text.get(run..at).unwrap_or_default());
        push(shown);
        at += width;
        run = at;
    }
    push(text.get(run..).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_its_start_its_body_and_the_end() {
        let whole = page("R&D <1>", "p{}", "Åsa's", html! { p { "x" } });
        assert_eq!(
            whole,
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>R&amp;D &lt;1&gt;</title><style>p{}</style></head><body><h1>Åsa&#39;s</h1><p>x</p></body></html>\n"
        );
        let start = start("R&D <1>", "p{}", "Åsa's");
        assert_eq!(format!("{start}<p>x</p>{END}"), whole);
    }

    #[test]
    fn text_in_a_template_escapes_as_the_charts_do() {
        let name = "O'Ek <b>\u{202E}";
        assert_eq!(
            html! { td { (Text(name)) } }.into_string(),
            format!("<td>{}</td>", escape(name))
        );
    }

    #[test]
    fn plain_and_marked_up_text_escape_alike() {
        assert_eq!(escape("Åsa Ödman – B. Ek"), "Åsa Ödman – B. Ek");
        assert_eq!(escape("12 E+W"), "12 E+W");
        assert_eq!(
            escape("<b>\"R&D\" 'x'</b>"),
            "&lt;b&gt;&quot;R&amp;D&quot; &#39;x&#39;&lt;/b&gt;"
        );
        assert_eq!(
            escape("a\tb\u{202E}c\n\u{7f}"),
            "a\u{FFFD}b\u{FFFD}c\n\u{FFFD}"
        );
        let mut out = String::from("<td>");
        escape_into(&mut out, "Bo & Åsa");
        assert_eq!(out, "<td>Bo &amp; Åsa");
    }

    #[test]
    fn runs_between_marked_up_characters_are_copied_whole() {
        // Every character to change, at the start, inside and at the end of a name.
        let mut out = String::from("x");
        escape_into(&mut out, "<Åsa & \"Bo\" O'Ek>");
        assert_eq!(out, "x&lt;Åsa &amp; &quot;Bo&quot; O&#39;Ek&gt;");
        let mut out = String::new();
        escape_into(&mut out, "Ödman – Ek\u{202E}\u{85}'");
        assert_eq!(out, "Ödman – Ek\u{FFFD}\u{FFFD}&#39;");
        // Names needing nothing come back as they are.
        for plain in [
            "Anders Larsson – Karin Sandberg",
            "#300371",
            "Åsa Ödman",
            "",
        ] {
            assert_eq!(escape(plain), plain);
        }
    }

    /// Worked by hand: each marked-up character, the controls (a line break kept), the
    /// bidirectional marks of two and three bytes, and their look-alike neighbours
    /// (`©` after 0xc2, `–` and `€` after 0xe2, `ؠ` after 0xd8), first, last and
    /// side by side.
    #[test]
    fn bytes_escape_as_the_text_does() {
        let cases = [
            ("", ""),
            ("&", "&amp;"),
            ("a<b>c", "a&lt;b&gt;c"),
            ("\"'\"", "&quot;&#39;&quot;"),
            ("\u{0}x\u{1f}\u{7f}", "\u{FFFD}x\u{FFFD}\u{FFFD}"),
            ("Bo\nEk\r", "Bo\nEk\u{FFFD}"),
            ("\u{80}\u{9f}©", "\u{FFFD}\u{FFFD}©"),
            ("\u{61C}\u{620}", "\u{FFFD}\u{620}"),
            (
                "–\u{200E}\u{200F}\u{2010}\u{202A}\u{202E}\u{202F}",
                "–\u{FFFD}\u{FFFD}\u{2010}\u{FFFD}\u{FFFD}\u{202F}",
            ),
            (
                "\u{2065}\u{2066}\u{2069}\u{206A}€",
                "\u{2065}\u{FFFD}\u{FFFD}\u{206A}€",
            ),
            ("Åsa Ödman – Bo & Ek", "Åsa Ödman – Bo &amp; Ek"),
        ];
        for (text, shown) in cases {
            let mut bytes = b"<td>".to_vec();
            escape_bytes_into(&mut bytes, text);
            assert_eq!(bytes, format!("<td>{shown}").into_bytes(), "{text:?}");
            assert_eq!(escape(text), shown, "{text:?}");
        }
    }

    proptest::proptest! {
        /// The one pass over the bytes changes what a walk over the characters would.
        #[test]
        fn bytes_escape_as_each_character_would(text in "(\\PC|\\pC|[<>&\"'\n–©€\u{80}\u{85}\u{9f}\u{61C}\u{620}\u{200E}\u{2010}\u{202E}\u{2066}\u{2069}\u{206A}])*") {
            let by_character: String = text
                .chars()
                .map(|c| match c {
                    c if crate::dataset::text::is_unsafe(c) && c != '\n' => "\u{FFFD}".to_string(),
                    '&' => "&amp;".to_string(),
                    '<' => "&lt;".to_string(),
                    '>' => "&gt;".to_string(),
                    '"' => "&quot;".to_string(),
                    '\'' => "&#39;".to_string(),
                    c => c.to_string(),
                })
                .collect();
            let mut bytes = Vec::new();
            escape_bytes_into(&mut bytes, &text);
            proptest::prop_assert_eq!(String::from_utf8(bytes).unwrap_or_default(), by_character.clone());
            proptest::prop_assert_eq!(escape(&text), by_character);
        }
    }
}

//! The site's addresses and the pieces every page shares.
//!
//! A club links to a member for good, so addresses are made from what does not move:
//! `members/ID.html` from the federation number, `competitions/ID.html` from the
//! competition's identifier and `clubs/NAME.html` from the club's name, each made safe
//! as a file name on any static host (ASCII letters, digits and `-`). Links are relative,
//! so the site reads from its folder as well as from any host.

use maud::{html, Markup, PreEscaped};

use crate::report::page::{self, Text, STYLE};

/// The look of the site: the report pages' style, with tables that scroll sideways on a
/// phone instead of widening the page. On a phone the ranking leaves out its district
/// column (each district has its page), so that the handicap is on the screen.
pub fn style() -> String {
    format!(
        "{STYLE}nav{{margin-bottom:1em}}nav a{{margin-right:1em}}\
.wide{{overflow-x:auto}}form label{{margin-right:1em;display:inline-block}}\
th button{{font:inherit;background:none;border:none;padding:0;cursor:pointer;text-decoration:underline}}\
@media (max-width:40em){{body{{margin:0.6em}}svg{{max-width:100%;height:auto}}\
th,td{{padding:0.2em 0.35em}}#ranking td:nth-child(4),#ranking th:nth-child(4){{display:none}}}}"
    )
}

/// `text` as a file name: ASCII letters and digits kept (lower case), the Nordic and
/// accented letters by their base letter, anything else a `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        let c = match c {
            'å' | 'ä' | 'à' | 'á' | 'â' | 'ã' => 'a',
            'ö' | 'ø' | 'ò' | 'ó' | 'ô' | 'õ' => 'o',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'ü' | 'ù' | 'ú' | 'û' => 'u',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'æ' => 'a',
            'ç' => 'c',
            'ñ' => 'n',
            c if c.is_ascii_alphanumeric() => c,
            _ => '-',
        };
        if c != '-' || !out.ends_with('-') {
            out.push(c);
        }
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() {
        "x".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// A member's page, from the site's root.
pub fn member(id: i64) -> String {
    format!("members/{id}.html")
}

/// A member's page of an earlier year's rated competitions, from the site's root.
pub fn member_year(id: i64, year: i32) -> String {
    format!("members/{id}/{year}.html")
}

/// A competition's page, from the site's root: its identifier as it is where it is
/// already a safe file name (letters, digits, `-` and `_`), case kept.
pub fn competition(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let safe = if safe.trim_matches('-').is_empty() {
        "x".to_owned()
    } else {
        safe
    };
    format!("competitions/{safe}.html")
}

/// A club's page, from the site's root.
pub fn club(name: &str) -> String {
    format!("clubs/{}.html", slug(name))
}

/// A district's page, from the site's root.
pub fn district(name: &str) -> String {
    format!("districts/{}.html", slug(name))
}

/// The month's report, from the site's root.
pub const REPORT: &str = "report.html";

/// A table's column headings, each a header of its column for screen readers.
pub fn cols(names: &[&str]) -> Markup {
    html! { tr { @for name in names { th scope="col" { (Text(name)) } } } }
}

/// A link from a page `depth` folders down to `target` (from the site's root).
pub fn link(depth: usize, target: &str, text: &str) -> Markup {
    let href = format!("{}{target}", "../".repeat(depth));
    html! { a href=(href) { (Text(text)) } }
}

/// A whole page of the site: the shared skeleton, with the way back to the ranking.
pub fn site_page(depth: usize, title: &str, heading: &str, body: Markup) -> String {
    let body = html! {
        nav aria-label="site" {
            (link(depth, "index.html", "National ranking"))
        }
        (body)
    };
    page::page(title, &style(), heading, body)
}

/// An SVG chart placed inline in a page: the namespace, which HTML does not need, is
/// left out, so that no page names an address outside the site.
pub fn inline_svg(svg: &str) -> Markup {
    PreEscaped(svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", ""))
}

/// A number with two decimals, empty when there is none.
pub fn two(value: Option<f64>) -> String {
    value.map(|v| format!("{v:.2}")).unwrap_or_default()
}

/// A signed number with two decimals, empty when there is none.
pub fn signed(value: Option<f64>) -> String {
    value.map(|v| format!("{v:+.2}")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_safe_file_names() {
        assert_eq!(slug("BK Ekbacken"), "bk-ekbacken");
        assert_eq!(slug("Örebro BS / Södra"), "orebro-bs-sodra");
        assert_eq!(slug("K07-20241114-1"), "k07-20241114-1");
        assert_eq!(slug("../"), "x");
        assert_eq!(club("Åby BK"), "clubs/aby-bk.html");
        assert_eq!(member(100083), "members/100083.html");
        assert_eq!(member_year(100083, 2025), "members/100083/2025.html");
        assert_eq!(
            competition("K07-20241114-1"),
            "competitions/K07-20241114-1.html"
        );
        assert_eq!(competition("a/../b c"), "competitions/a----b-c.html");
    }

    #[test]
    fn the_chart_names_no_outside_address() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="1"></svg>"#;
        assert_eq!(inline_svg(svg).into_string(), r#"<svg width="1"></svg>"#);
    }
}

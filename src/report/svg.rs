//! Small charts written as SVG text, for self-contained HTML reports.
//!
//! A report must open from a mail attachment or a shared drive, with no script, no
//! network and no plotting runtime, and the same inputs must give the same bytes. Plain
//! SVG written by hand does all of that in a page of code; a plotting crate would add
//! fonts, backends and a build for no figure we need. Numbers are printed with fixed
//! precision so the output does not depend on float formatting details.

use std::fmt::Write;

use super::page::escape;

/// Colours for series, picked in order (colour-blind friendly, Okabe–Ito).
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
];

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Line,
    /// Line with dots at the points.
    LinePoints,
    /// Small translucent dots (scatter).
    Points,
    /// A step histogram: points are (bin start, height); the last bin is `bin` wide.
    Steps {
        bin_milli: u32,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub color: String,
    pub mark: Mark,
    pub dashed: bool,
    pub points: Vec<(f64, f64)>,
}

impl Series {
    pub fn new(name: impl Into<String>, color: &str, mark: Mark, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            color: color.to_string(),
            mark,
            dashed: false,
            points,
        }
    }
    pub fn dashed(mut self) -> Self {
        self.dashed = true;
        self
    }
}

/// A chart with linear axes.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub width: f64,
    pub height: f64,
    pub series: Vec<Series>,
    /// Fixed ranges; otherwise the data's, padded by 5 %.
    pub x_range: Option<(f64, f64)>,
    pub y_range: Option<(f64, f64)>,
    /// Labels at given x positions (dates, years) instead of numbers.
    pub x_ticks: Option<Vec<(f64, String)>>,
    /// A diagonal y = x (calibration plots).
    pub diagonal: bool,
    /// Lower values at the top: a handicap axis, where lower is better.
    pub y_inverted: bool,
}

impl Chart {
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            width: 640.0,
            height: 360.0,
            series: Vec::new(),
            x_range: None,
            y_range: None,
            x_ticks: None,
            diagonal: false,
            y_inverted: false,
        }
    }
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        return (lo - 1.0, hi + 1.0);
    }
    let pad = (hi - lo) * 0.05;
    (lo - pad, hi + pad)
}

/// About five round tick values covering `lo..hi`.
pub fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return vec![lo];
    }
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let (first, last) = ((lo / step).ceil() as i64, (hi / step + 1e-9).floor() as i64);
    (first..=last)
        .take(20)
        .map(|k| {
            let v = ((k as f64 * step) * 1e9).round() / 1e9;
            if v == 0.0 {
                0.0
            } else {
                v
            }
        })
        .collect()
}

fn number(v: f64) -> String {
    if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else if (v * 10.0).fract().abs() < 1e-9 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The chart as an `<svg>` element.
pub fn render(chart: &Chart) -> String {
    let plot = Plot::of(chart);
    let (w, h) = (chart.width, chart.height);
    let (left, top, pw, ph) = (plot.left, plot.top, plot.width, plot.height);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="11" role="img"><title>{}</title>"#,
        escape(&chart.title)
    );
    let _ = write!(
        s,
        r##"<text x="{left:.1}" y="16" font-size="13" font-weight="bold">{}</text><rect x="{left:.1}" y="{top:.1}" width="{pw:.1}" height="{ph:.1}" fill="none" stroke="#999"/>"##,
        escape(&chart.title)
    );
    plot.axes(&mut s, chart);
    if chart.diagonal {
        plot.diagonal(&mut s);
    }
    let _ = write!(
        s,
        r#"<clipPath id="plot-{:x}"><rect x="{left:.1}" y="{top:.1}" width="{pw:.1}" height="{ph:.1}"/></clipPath><g clip-path="url(#plot-{:x})">"#,
        clip_id(chart),
        clip_id(chart)
    );
    for series in &chart.series {
        plot.marks(&mut s, series);
    }
    s.push_str("</g>");
    for (i, series) in chart.series.iter().enumerate() {
        let y = top + 8.0 + 16.0 * i as f64;
        let x = left + pw + 10.0;
        let _ = write!(
            s,
            r#"<rect x="{x:.1}" y="{:.1}" width="12" height="4" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            y - 4.0,
            escape(&series.color),
            x + 16.0,
            y + 1.0,
            escape(&series.name)
        );
    }
    s.push_str("</svg>");
    s
}

/// The plotting area of a chart and its scales, from data to page coordinates.
struct Plot {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
    /// The chart's whole height, for the x axis' label under the plot.
    chart_height: f64,
    x: (f64, f64),
    y: (f64, f64),
    inverted: bool,
}

impl Plot {
    fn of(chart: &Chart) -> Plot {
        let (left, right, top, bottom) = (60.0, 170.0, 30.0, 45.0);
        let all = || chart.series.iter().flat_map(|s| s.points.iter());
        Plot {
            left,
            top,
            width: chart.width - left - right,
            height: chart.height - top - bottom,
            chart_height: chart.height,
            x: chart.x_range.unwrap_or_else(|| range(all().map(|p| p.0))),
            y: chart.y_range.unwrap_or_else(|| range(all().map(|p| p.1))),
            inverted: chart.y_inverted,
        }
    }

    fn sx(&self, x: f64) -> f64 {
        let (x0, x1) = self.x;
        self.left + (x - x0) / (x1 - x0) * self.width
    }

    fn sy(&self, y: f64) -> f64 {
        let (y0, y1) = self.y;
        let up = (y - y0) / (y1 - y0) * self.height;
        if self.inverted {
            self.top + up
        } else {
            self.top + self.height - up
        }
    }

    /// Grid lines with their tick labels, and the axes' labels.
    fn axes(&self, s: &mut String, chart: &Chart) {
        let (left, top, pw, ph) = (self.left, self.top, self.width, self.height);
        let ((x0, x1), (y0, y1)) = (self.x, self.y);
        for t in ticks(y0, y1) {
            let y = self.sy(t);
            let _ = write!(
                s,
                r##"<line x1="{left:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#eee"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
                left + pw,
                left - 4.0,
                y + 4.0,
                number(t)
            );
        }
        let x_ticks: Vec<(f64, String)> = match &chart.x_ticks {
            Some(t) => t.clone(),
            None => ticks(x0, x1).into_iter().map(|t| (t, number(t))).collect(),
        };
        for (t, label) in x_ticks.iter().filter(|(t, _)| *t >= x0 && *t <= x1) {
            let x = self.sx(*t);
            let _ = write!(
                s,
                r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top:.1}" y2="{:.1}" stroke="#eee"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                top + ph,
                top + ph + 14.0,
                escape(label)
            );
        }
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text><text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
            left + pw / 2.0,
            self.chart_height - 8.0,
            escape(&chart.x_label),
            top + ph / 2.0,
            escape(&chart.y_label)
        );
    }

    /// The diagonal y = x, where it crosses the plot.
    fn diagonal(&self, s: &mut String) {
        let (a, b) = (self.x.0.max(self.y.0), self.x.1.min(self.y.1));
        if a < b {
            let _ = write!(
                s,
                r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#666" stroke-dasharray="4 3"/>"##,
                self.sx(a),
                self.sy(a),
                self.sx(b),
                self.sy(b)
            );
        }
    }

    /// A series' points, lines or steps.
    fn marks(&self, s: &mut String, series: &Series) {
        let dash = if series.dashed {
            r#" stroke-dasharray="6 3""#
        } else {
            ""
        };
        let color = escape(&series.color);
        let point = |(x, y): (f64, f64)| format!("{:.1},{:.1}", self.sx(x), self.sy(y));
        let path: Vec<String> = match series.mark {
            Mark::Points => {
                for (x, y) in &series.points {
                    let _ = write!(
                        s,
                        r#"<circle cx="{:.1}" cy="{:.1}" r="1.6" fill="{color}" fill-opacity="0.35"/>"#,
                        self.sx(*x),
                        self.sy(*y)
                    );
                }
                return;
            }
            Mark::Line | Mark::LinePoints => series.points.iter().map(|p| point(*p)).collect(),
            Mark::Steps { bin_milli } => {
                let bin = f64::from(bin_milli) / 1000.0;
                series
                    .points
                    .iter()
                    .flat_map(|&(x, y)| [point((x, y)), point((x + bin, y))])
                    .collect()
            }
        };
        let _ = write!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1.8"{dash}/>"#,
            path.join(" ")
        );
        if series.mark == Mark::LinePoints {
            for (x, y) in &series.points {
                let _ = write!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{color}"/>"#,
                    self.sx(*x),
                    self.sy(*y)
                );
            }
        }
    }
}

fn clip_id(chart: &Chart) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in chart.title.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(ticks(0.0, 52.0), vec![0.0, 20.0, 40.0]);
        assert_eq!(ticks(-10.0, 10.0), vec![-10.0, -5.0, 0.0, 5.0, 10.0]);
        assert_eq!(ticks(0.3, 0.62), vec![0.3, 0.4, 0.5, 0.6]);
    }

    #[test]
    fn render_places_points_and_escapes_text() {
        let mut c = Chart::new("a <b>", "x", "y");
        c.x_range = Some((0.0, 10.0));
        c.y_range = Some((0.0, 10.0));
        c.series.push(Series::new(
            "s&t",
            PALETTE[0],
            Mark::Points,
            vec![(5.0, 5.0)],
        ));
        let svg = render(&c);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("a &lt;b&gt;") && svg.contains("s&amp;t"));
        assert_eq!(escape("Bo\u{1b}[2J\u{202E}<"), "Bo\u{FFFD}[2J\u{FFFD}&lt;");
        // Plot area 60..470 × 30..315: (5, 5) is at its centre.
        assert!(svg.contains(r#"cx="265.0" cy="172.5""#), "{svg}");
        assert_eq!(render(&c), svg);
    }

    #[test]
    fn an_inverted_axis_puts_low_values_at_the_top() {
        let mut c = Chart::new("handicap", "x", "y");
        c.x_range = Some((0.0, 10.0));
        c.y_range = Some((0.0, 10.0));
        c.series
            .push(Series::new("h", PALETTE[0], Mark::Points, vec![(5.0, 0.0)]));
        // Plot area 30..315 high: 0 is at the bottom, or at the top when inverted; the
        // tick labelled 0 moves with it.
        assert!(render(&c).contains(r#"cy="315.0""#));
        c.y_inverted = true;
        let svg = render(&c);
        assert!(svg.contains(r#"cx="265.0" cy="30.0""#), "{svg}");
        assert!(
            svg.contains(r#"<text x="56.0" y="34.0" text-anchor="end">0</text>"#),
            "{svg}"
        );
    }
}

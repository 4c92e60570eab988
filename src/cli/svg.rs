//! The SVG plot of `ptxmc bench`: time and executions against test size, on
//! a log scale, one line per (family, strategy). Hand-written SVG 1.1: two
//! panels side by side, a legend below.

use std::fmt::Write;

/// One measured point of a series.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The size of the test (the family's N).
    pub size: f64,
    /// Seconds of the check; for a run stopped by the limit, the limit.
    pub time_s: f64,
    /// Complete executions (for a stopped run: those found before the stop).
    pub executions: u64,
    /// Whether the run was stopped by the time limit (or killed).
    pub limited: bool,
}

/// The points of one strategy on one family.
#[derive(Clone, Debug)]
pub struct Series {
    /// The family (or `files`).
    pub family: String,
    /// The strategy (`brute`, `dpor`).
    pub strategy: String,
    /// The points, by increasing size.
    pub points: Vec<Point>,
}

const PANEL_W: f64 = 440.0;
const PANEL_H: f64 = 300.0;
const MARGIN_L: f64 = 70.0;
const MARGIN_T: f64 = 40.0;
const GAP: f64 = 90.0;
const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];
const DASHES: [&str; 5] = ["none", "6 3", "2 3", "8 3 2 3", "12 4"];

/// Escapes text for XML content and attribute values.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A log10 axis over `[lo, hi]`, widened to whole decades.
struct LogAxis {
    lo: f64,
    hi: f64,
}

impl LogAxis {
    fn new(values: impl Iterator<Item = f64>) -> LogAxis {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| v.is_finite() && *v > 0.0) {
            lo = lo.min(v.log10());
            hi = hi.max(v.log10());
        }
        if !lo.is_finite() {
            (lo, hi) = (0.0, 1.0);
        }
        let (lo, mut hi) = (lo.floor(), hi.ceil());
        if hi <= lo {
            hi = lo + 1.0;
        }
        LogAxis { lo, hi }
    }

    /// The y pixel of `v` (clamped to the axis).
    fn y(&self, v: f64) -> f64 {
        let l = if v > 0.0 { v.log10() } else { self.lo };
        let f = ((l - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0);
        MARGIN_T + PANEL_H * (1.0 - f)
    }
}

/// Formats an axis label for the decade `10^e`.
fn decade_label(e: i32, unit_s: bool) -> String {
    if unit_s {
        match e {
            -6 => "1 µs".into(),
            -5 => "10 µs".into(),
            -4 => "100 µs".into(),
            -3 => "1 ms".into(),
            -2 => "10 ms".into(),
            -1 => "100 ms".into(),
            0 => "1 s".into(),
            1 => "10 s".into(),
            2 => "100 s".into(),
            3 => "1000 s".into(),
            _ => format!("1e{e} s"),
        }
    } else if (0..=6).contains(&e) {
        format!("{}", 10u64.pow(e.unsigned_abs()))
    } else {
        format!("1e{e}")
    }
}

/// The plot of `series`; `timeout_s` is the limit the stopped runs reached.
pub fn plot(title: &str, series: &[Series], timeout_s: f64) -> String {
    let (mut xmin, mut xmax) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in series.iter().flat_map(|s| &s.points) {
        xmin = xmin.min(p.size);
        xmax = xmax.max(p.size);
    }
    if !xmin.is_finite() {
        (xmin, xmax) = (0.0, 1.0);
    }
    if xmax <= xmin {
        (xmin, xmax) = (xmin - 1.0, xmax + 1.0);
    }
    let x_of =
        |left: f64, size: f64| left + 10.0 + (PANEL_W - 20.0) * (size - xmin) / (xmax - xmin);
    let time_axis = LogAxis::new(
        series
            .iter()
            .flat_map(|s| &s.points)
            .map(|p| p.time_s)
            .chain(std::iter::once(timeout_s)),
    );
    let exec_axis = LogAxis::new(
        series
            .iter()
            .flat_map(|s| &s.points)
            .map(|p| p.executions.max(1) as f64),
    );
    let legend_rows = series.len().div_ceil(2);
    let width = MARGIN_L + 2.0 * PANEL_W + GAP + 30.0;
    let height = MARGIN_T + PANEL_H + 60.0 + 20.0 * legend_rows as f64 + 20.0;
    let mut s = String::new();
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, "<title>{}</title>", esc(title));
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="white"/>"#
    );
    let panels: [(&str, &LogAxis, bool); 2] = [
        ("time", &time_axis, true),
        ("executions", &exec_axis, false),
    ];
    for (k, (name, axis, is_time)) in panels.iter().enumerate() {
        let left = MARGIN_L + k as f64 * (PANEL_W + GAP);
        let _ = writeln!(s, r#"<g class="panel" data-panel="{name}">"#);
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="14">{} against size (log scale)</text>"#,
            left + PANEL_W / 2.0,
            MARGIN_T - 15.0,
            if *is_time { "Time" } else { "Executions" }
        );
        let _ = writeln!(
            s,
            r##"<rect x="{left:.1}" y="{MARGIN_T:.1}" width="{PANEL_W:.1}" height="{PANEL_H:.1}" fill="none" stroke="#444"/>"##
        );
        // Decades: grid lines and labels.
        let (lo, hi) = (axis.lo as i32, axis.hi as i32);
        for e in lo..=hi {
            let y = axis.y(10f64.powi(e));
            let _ = writeln!(
                s,
                r##"<line x1="{left:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/>"##,
                left + PANEL_W
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                left - 6.0,
                y + 4.0,
                esc(&decade_label(e, *is_time))
            );
        }
        // Sizes: integer ticks.
        let step = ((xmax - xmin) / 10.0).ceil().max(1.0);
        let mut t = xmin.ceil();
        while t <= xmax {
            let x = x_of(left, t);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#444"/>"##,
                MARGIN_T + PANEL_H,
                MARGIN_T + PANEL_H + 5.0
            );
            let _ = writeln!(
                s,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{t}</text>"#,
                MARGIN_T + PANEL_H + 18.0
            );
            t += step;
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">size N</text>"#,
            left + PANEL_W / 2.0,
            MARGIN_T + PANEL_H + 36.0
        );
        if *is_time {
            let y = axis.y(timeout_s);
            let _ = writeln!(
                s,
                r##"<line class="limit-line" x1="{left:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#999" stroke-dasharray="4 4"/>"##,
                left + PANEL_W
            );
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#777">limit {}</text>"##,
                left + PANEL_W - 4.0,
                y - 4.0,
                esc(&format!("{timeout_s} s"))
            );
        }
        for (i, se) in series.iter().enumerate() {
            let color = COLORS[strategy_index(series, &se.strategy) % COLORS.len()];
            let dash = DASHES[family_index(series, &se.family) % DASHES.len()];
            let value = |p: &Point| {
                if *is_time {
                    p.time_s
                } else {
                    p.executions.max(1) as f64
                }
            };
            let done: Vec<(f64, f64)> = se
                .points
                .iter()
                .filter(|p| !p.limited)
                .map(|p| (x_of(left, p.size), axis.y(value(p))))
                .collect();
            let pts: Vec<String> = done.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let _ = writeln!(
                s,
                r#"<polyline class="series" data-series="{i}" data-family="{}" data-strategy="{}" points="{}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
                esc(&se.family),
                esc(&se.strategy),
                pts.join(" ")
            );
            for (x, y) in &done {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{x:.1}" cy="{y:.1}" r="3" fill="{color}"/>"#
                );
            }
            // A stopped run: a hollow triangle at the limit (time) or at the
            // executions found before the stop (a lower bound), joined to
            // the last finished point by a dotted line.
            for p in se.points.iter().filter(|p| p.limited) {
                let (x, y) = (x_of(left, p.size), axis.y(value(p)));
                if let Some((lx, ly)) = done.last() {
                    let _ = writeln!(
                        s,
                        r#"<line class="to-limit" x1="{lx:.1}" y1="{ly:.1}" x2="{x:.1}" y2="{y:.1}" stroke="{color}" stroke-dasharray="1 3"/>"#
                    );
                }
                let _ = writeln!(
                    s,
                    r#"<path class="limit" data-strategy="{}" d="M {x:.1} {:.1} L {:.1} {:.1} L {:.1} {:.1} Z" fill="white" stroke="{color}" stroke-width="2"><title>{} {} N={}: stopped at the limit</title></path>"#,
                    esc(&se.strategy),
                    y - 6.0,
                    x + 6.0,
                    y + 5.0,
                    x - 6.0,
                    y + 5.0,
                    esc(&se.family),
                    esc(&se.strategy),
                    p.size
                );
            }
        }
        let _ = writeln!(s, "</g>");
    }
    // Legend.
    let _ = writeln!(s, r#"<g class="legend">"#);
    let top = MARGIN_T + PANEL_H + 60.0;
    for (i, se) in series.iter().enumerate() {
        let color = COLORS[strategy_index(series, &se.strategy) % COLORS.len()];
        let dash = DASHES[family_index(series, &se.family) % DASHES.len()];
        let (col, row) = (i % 2, i / 2);
        let x = MARGIN_L + col as f64 * (PANEL_W + GAP);
        let y = top + 20.0 * row as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>"#,
            x + 30.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}">{} {}</text>"#,
            x + 36.0,
            y + 4.0,
            esc(&se.family),
            esc(&se.strategy)
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" fill="#777">hollow triangle: stopped at the time limit (executions: found before the stop)</text>"##,
        MARGIN_L,
        top + 20.0 * legend_rows as f64 + 4.0
    );
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, "</svg>");
    s
}

fn strategy_index(series: &[Series], strategy: &str) -> usize {
    let mut seen: Vec<&str> = Vec::new();
    for s in series {
        if !seen.contains(&s.strategy.as_str()) {
            seen.push(&s.strategy);
        }
    }
    seen.iter().position(|s| *s == strategy).unwrap_or(0)
}

fn family_index(series: &[Series], family: &str) -> usize {
    let mut seen: Vec<&str> = Vec::new();
    for s in series {
        if !seen.contains(&s.family.as_str()) {
            seen.push(&s.family);
        }
    }
    seen.iter().position(|f| *f == family).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(strategy: &str, limited_at: Option<f64>) -> Series {
        let points = (2..=5)
            .map(|n| Point {
                size: n as f64,
                time_s: if limited_at == Some(n as f64) {
                    2.0
                } else {
                    1e-4 * 3f64.powi(n)
                },
                executions: 1 << n,
                limited: limited_at == Some(n as f64),
            })
            .collect();
        Series {
            family: "readers".into(),
            strategy: strategy.into(),
            points,
        }
    }

    #[test]
    fn one_polyline_per_series_and_panel_and_a_marker_per_limit() {
        let svg = plot(
            "t",
            &[series("brute", Some(5.0)), series("dpor", None)],
            2.0,
        );
        assert_eq!(svg.matches("<polyline").count(), 4, "{svg}");
        assert_eq!(svg.matches(r#"class="limit""#).count(), 2, "{svg}");
        assert_eq!(svg.matches("<svg").count(), 1);
        assert!(svg.trim_end().ends_with("</svg>"));
        // The limit marker sits on the limit line of the time panel.
        let axis = LogAxis::new([1e-4, 2.0].into_iter());
        assert!(svg.contains(&format!("M {:.1} {:.1}", x_pos(5.0), axis.y(2.0) - 6.0)));
    }

    fn x_pos(size: f64) -> f64 {
        MARGIN_L + 10.0 + (PANEL_W - 20.0) * (size - 2.0) / 3.0
    }

    #[test]
    fn log_axis_spans_whole_decades_and_orders_values() {
        let a = LogAxis::new([0.003, 40.0].into_iter());
        assert_eq!((a.lo, a.hi), (-3.0, 2.0));
        assert!(a.y(0.01) > a.y(1.0));
        assert_eq!(a.y(1e-3), MARGIN_T + PANEL_H);
        let empty = LogAxis::new(std::iter::empty());
        assert!(empty.hi > empty.lo);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
        let svg = plot(
            "x",
            &[Series {
                family: "2+2w<&>".into(),
                strategy: "dpor".into(),
                points: vec![],
            }],
            1.0,
        );
        assert!(svg.contains("2+2w&lt;&amp;&gt;"));
        assert!(!svg.contains("2+2w<&>"));
    }
}

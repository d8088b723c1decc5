//! Line charts drawn on the server as SVG geometry: one polyline per series, exactly one
//! vertex per stored value, so the page needs no script to draw and a test can count points.

use serde::Serialize;

/// Plot size in SVG user units; the page scales it to the column's width.
const WIDTH: f64 = 420.0;
const HEIGHT: f64 = 200.0;
/// Room for the axis labels.
const LEFT: f64 = 46.0;
const RIGHT: f64 = 10.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 24.0;

/// Line colours, cycled: distinguishable for the common kinds of colour blindness (Okabe–Ito).
const PALETTE: [&str; 8] = [
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000",
];

/// One named line: (step, value) pairs in step order.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label (an agent, or `source → learner` for ω).
    pub label: String,
    /// The values, one per step that has one.
    pub points: Vec<(i64, f64)>,
}

/// A chart ready for the template.
#[derive(Debug, Serialize)]
pub struct Drawn {
    /// Stable key (the metric's), for links and tests.
    pub key: &'static str,
    /// Title above the plot.
    pub title: &'static str,
    /// The SVG's viewBox width and height.
    pub width: f64,
    /// See `width`.
    pub height: f64,
    /// The plot area's corners: left, top, right, bottom.
    pub frame: [f64; 4],
    /// One polyline per series.
    pub lines: Vec<Line>,
    /// Labelled ticks on the step axis.
    pub x_ticks: Vec<Tick>,
    /// Labelled ticks on the value axis.
    pub y_ticks: Vec<Tick>,
}

/// One series as drawn.
#[derive(Debug, Serialize)]
pub struct Line {
    /// Legend label.
    pub label: String,
    /// Stroke colour.
    pub color: &'static str,
    /// SVG `points` attribute: one `x,y` pair per value.
    pub points: String,
    /// Number of values drawn.
    pub count: usize,
    /// The latest value, for the legend.
    pub last: String,
}

/// A tick: its position along its axis and its label.
#[derive(Debug, Serialize)]
pub struct Tick {
    /// Position in SVG units.
    pub at: f64,
    /// Label text.
    pub label: String,
}

/// Draws `series` (non-finite values left out). Fractions (`unit`) are drawn on [0, 1];
/// other values on their own range.
pub fn draw(key: &'static str, title: &'static str, unit: bool, series: &[Series]) -> Drawn {
    let finite = |s: &Series| -> Vec<(i64, f64)> {
        s.points
            .iter()
            .copied()
            .filter(|(_, v)| v.is_finite())
            .collect()
    };
    let cleaned: Vec<(String, Vec<(i64, f64)>)> = series
        .iter()
        .map(|s| (s.label.clone(), finite(s)))
        .collect();
    let all = || cleaned.iter().flat_map(|(_, p)| p.iter().copied());
    let (x0, x1) = span(all().map(|(x, _)| x as f64), 1.0);
    let (y0, y1) = if unit && all().all(|(_, y)| (0.0..=1.0).contains(&y)) {
        (0.0, 1.0)
    } else {
        span(all().map(|(_, y)| y), 0.1)
    };
    let sx = |x: f64| LEFT + (x - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT);
    let sy = |y: f64| HEIGHT - BOTTOM - (y - y0) / (y1 - y0) * (HEIGHT - TOP - BOTTOM);
    let lines = cleaned
        .iter()
        .enumerate()
        .filter(|(_, (_, p))| !p.is_empty())
        .map(|(i, (label, p))| Line {
            label: label.clone(),
            color: PALETTE[i % PALETTE.len()],
            points: p
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", sx(x as f64), sy(y)))
                .collect::<Vec<_>>()
                .join(" "),
            count: p.len(),
            last: p.last().map_or(String::new(), |&(_, y)| number(y)),
        })
        .collect();
    let x_ticks = ticks(x0, x1, true)
        .into_iter()
        .map(|x| Tick {
            at: sx(x),
            label: format!("{x:.0}"),
        })
        .collect();
    let y_ticks = ticks(y0, y1, false)
        .into_iter()
        .map(|y| Tick {
            at: sy(y),
            label: number(y),
        })
        .collect();
    Drawn {
        key,
        title,
        width: WIDTH,
        height: HEIGHT,
        frame: [LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM],
        lines,
        x_ticks,
        y_ticks,
    }
}

/// The range of `values`, widened around a single value (or none) so that it has a width.
fn span(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi > lo {
        return (lo, hi);
    }
    let d = if lo == 0.0 { pad } else { lo.abs() * pad };
    (lo - d, hi + d)
}

/// About five round tick values within [lo, hi] (integers only on the step axis).
fn ticks(lo: f64, hi: f64, integral: bool) -> Vec<f64> {
    let raw = (hi - lo) / 4.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    // Quarters read well on fractions; steps stay on 1, 2, 5.
    let multiples: &[f64] = if integral {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0, 2.0, 2.5, 5.0]
    };
    let mut step = multiples
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    if integral {
        step = step.max(1.0).round();
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// A value with three significant digits, without exponent for everyday magnitudes.
pub fn number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.2e}")
    } else {
        let decimals = (2 - a.log10().floor() as i32).max(0) as usize;
        format!("{v:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(label: &str, points: &[(i64, f64)]) -> Series {
        Series {
            label: label.into(),
            points: points.to_vec(),
        }
    }

    #[test]
    fn every_finite_value_is_one_vertex_inside_the_frame() {
        let s = [
            series("a", &[(0, 0.0), (1, 0.5), (2, 1.0), (3, f64::NAN)]),
            series("b", &[(1, 0.25)]),
            series("c", &[]),
        ];
        let d = draw("accuracy", "Accuracy", true, &s);
        assert_eq!(d.lines.len(), 2, "an empty series draws no line");
        assert_eq!(d.lines[0].count, 3);
        assert_eq!(d.lines[0].points.split(' ').count(), 3);
        assert_eq!(d.lines[1].points.split(' ').count(), 1);
        let [l, t, r, b] = d.frame;
        for line in &d.lines {
            for xy in line.points.split(' ') {
                let (x, y) = xy.split_once(',').unwrap();
                let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
                assert!((l..=r).contains(&x) && (t..=b).contains(&y), "{xy}");
            }
        }
        // On [0, 1]: 0 at the bottom, 1 at the top, the first step at the left.
        assert_eq!(d.lines[0].points.split(' ').next(), Some("46.0,176.0"));
        assert!(d.lines[0].points.ends_with("410.0,10.0"));
    }

    #[test]
    fn a_single_value_and_values_beyond_one_still_get_a_range() {
        let d = draw("kl", "KL", false, &[series("a", &[(5, 2.0)])]);
        assert_eq!(d.lines[0].count, 1);
        assert!(!d.lines[0].points.contains("NaN"), "{}", d.lines[0].points);
        assert!(!d.y_ticks.is_empty() && !d.x_ticks.is_empty());
        let d = draw("omega", "ω", true, &[series("a", &[(0, 0.5), (1, 3.0)])]);
        assert_eq!(d.y_ticks.last().unwrap().label, "3.00");
    }

    #[test]
    fn ticks_are_round_and_steps_integral() {
        assert_eq!(ticks(0.0, 1.0, false), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(ticks(0.0, 3.0, true), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(ticks(0.0, 100.0, true), vec![0.0, 50.0, 100.0]);
        assert_eq!(number(0.123456), "0.123");
        assert_eq!(number(12.5), "12.5");
        assert_eq!(number(1234.0), "1234");
    }
}

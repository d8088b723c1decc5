//! Learning curves: one panel per agent, one line per arm with the seeds' band, against
//! training steps or wall-clock time.

use std::path::Path;
use std::sync::Once;

use anyhow::{Context, Result, anyhow};
use plotters::prelude::*;

use super::{ArmResult, Report};

/// What the curves are drawn against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// The training step.
    Step,
    /// Seconds since the agent's first step (mean over seeds): agents at different paces.
    WallClock,
}

impl Axis {
    /// Where `arm`'s point at `step` of `agent` lies on this axis (none: no clock there).
    fn x(self, arm: &ArmResult, agent: usize, step: usize) -> Option<f64> {
        match self {
            Axis::Step => Some(step as f64),
            Axis::WallClock => arm.seconds_at(agent, step),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Axis::Step => "training step",
            Axis::WallClock => "wall-clock seconds",
        }
    }
}

impl Report {
    /// Learning curves: one panel per agent, one line per arm (mean over seeds) with a band
    /// from the worst to the best seed, against `axis`.
    pub fn plot(&self, path: &Path, axis: Axis) -> Result<()> {
        register_font();
        let panel = (560u32, 420u32);
        let root = BitMapBackend::new(path, (panel.0 * self.agents.len() as u32, panel.1))
            .into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        // The axes' extent: the last x and the best accuracy over every curve point.
        let top = (self.arms.iter())
            .flat_map(|a| &a.seeds)
            .flat_map(|s| s.curves.iter().flatten())
            .fold(0.0, |acc, p| f64::max(acc, p.1));
        let x_max = (self.arms.iter())
            .flat_map(|a| (0..self.agents.len()).map(move |k| (a, k)))
            .flat_map(|(a, k)| {
                a.curve(k)
                    .into_iter()
                    .filter_map(move |(s, _)| axis.x(a, k, s))
            })
            .fold(1.0, f64::max);
        // Head-room above the curves for the legend.
        let y_max = ((top * 1.6 + 0.1) * 10.0).ceil().min(10.0) / 10.0;
        for (k, area) in root.split_evenly((1, self.agents.len())).iter().enumerate() {
            let mut chart = ChartBuilder::on(area)
                .caption(&self.agents[k], ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(48)
                .build_cartesian_2d(0f64..x_max, 0f64..y_max)
                .map_err(draw_error)?;
            chart
                .configure_mesh()
                .x_desc(axis.label())
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_desc("held-out accuracy")
                .draw()
                .map_err(draw_error)?;
            for (i, arm) in self.arms.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let curve: Vec<(f64, _)> = (arm.curve(k).into_iter())
                    .filter_map(|(s, p)| Some((axis.x(arm, k, s)?, p)))
                    .collect();
                let band: Vec<(f64, f64)> = curve
                    .iter()
                    .map(|(x, p)| (*x, p.max))
                    .chain(curve.iter().rev().map(|(x, p)| (*x, p.min)))
                    .collect();
                chart
                    .draw_series(std::iter::once(Polygon::new(
                        band,
                        color.mix(0.15).filled(),
                    )))
                    .map_err(draw_error)?;
                chart
                    .draw_series(LineSeries::new(
                        curve.iter().map(|(x, p)| (*x, p.mean)),
                        color.stroke_width(2),
                    ))
                    .map_err(draw_error)?
                    .label(&arm.arm)
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(draw_error)?;
        }
        root.present()
            .map_err(draw_error)
            .with_context(|| format!("writing {}", path.display()))
    }
}

fn draw_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("plotting: {e}")
}

/// The plot's font travels with the binary: machines without fonts still get labelled plots.
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            include_bytes!("../../../assets/fonts/DejaVuSans.ttf"),
        )
        .unwrap_or_else(|_| panic!("the bundled DejaVuSans.ttf is a valid font"));
    });
}

#[cfg(test)]
mod tests {
    use super::super::tests::report;
    use super::*;

    #[test]
    fn the_plot_is_a_png_of_one_panel_per_agent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("curves.png");
        report().plot(&path, Axis::Step).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // IHDR: width and height, big-endian, right after the 8-byte signature and chunk header.
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((width, height), (2 * 560, 420));
        // Not a blank canvas: the encoded image holds lines, bands and text.
        assert!(bytes.len() > 10_000, "{} bytes", bytes.len());
    }

    #[test]
    fn against_wall_clock_a_point_lies_at_the_seeds_mean_seconds_of_its_step() {
        let mut r = report();
        let arm = &mut r.arms[0];
        // Curves evaluate at steps 0, 5, 10 (`report`'s seeds); clocks at 100 and 300 s for
        // step 5 in the two seeds: the point lies at 200 s; step 10 has no clock.
        for (seed, secs) in arm.seeds.iter_mut().zip([100.0, 300.0]) {
            seed.clock = vec![vec![(5, secs)], vec![]];
        }
        assert_eq!(Axis::WallClock.x(arm, 0, 0), Some(0.0));
        assert_eq!(Axis::WallClock.x(arm, 0, 5), Some(200.0));
        assert_eq!(Axis::WallClock.x(arm, 0, 10), None);
        assert_eq!(Axis::WallClock.x(arm, 1, 5), None);
        assert_eq!(Axis::Step.x(arm, 1, 5), Some(5.0));
        let dir = tempfile::tempdir().unwrap();
        r.write(dir.path()).unwrap();
        let clock = std::fs::read(dir.path().join("clock.png")).unwrap();
        assert_eq!(&clock[1..4], b"PNG");
    }
}

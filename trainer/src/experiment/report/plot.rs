//! Learning curves: one panel per agent, one line per arm with the seeds' band.

use std::path::Path;
use std::sync::Once;

use anyhow::{Context, Result, anyhow};
use plotters::prelude::*;

use super::Report;

impl Report {
    /// Learning curves: one panel per agent, one line per arm (mean over seeds) with a band
    /// from the worst to the best seed.
    pub fn plot(&self, path: &Path) -> Result<()> {
        register_font();
        let panel = (560u32, 420u32);
        let root = BitMapBackend::new(path, (panel.0 * self.agents.len() as u32, panel.1))
            .into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        // The axes' extent: the last step and the best accuracy over every curve point.
        let (last_step, top) = self
            .arms
            .iter()
            .flat_map(|a| &a.seeds)
            .flat_map(|s| s.curves.iter().flatten())
            .fold((1, 0.0), |(step, acc), p| {
                (step.max(p.0), f64::max(acc, p.1))
            });
        // Head-room above the curves for the legend.
        let y_max = ((top * 1.6 + 0.1) * 10.0).ceil().min(10.0) / 10.0;
        for (k, area) in root.split_evenly((1, self.agents.len())).iter().enumerate() {
            let mut chart = ChartBuilder::on(area)
                .caption(&self.agents[k], ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(48)
                .build_cartesian_2d(0f64..last_step as f64, 0f64..y_max)
                .map_err(draw_error)?;
            chart
                .configure_mesh()
                .x_desc("training step")
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_desc("held-out accuracy")
                .draw()
                .map_err(draw_error)?;
            for (i, arm) in self.arms.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let curve = arm.curve(k);
                let band: Vec<(f64, f64)> = curve
                    .iter()
                    .map(|(s, p)| (*s as f64, p.max))
                    .chain(curve.iter().rev().map(|(s, p)| (*s as f64, p.min)))
                    .collect();
                chart
                    .draw_series(std::iter::once(Polygon::new(
                        band,
                        color.mix(0.15).filled(),
                    )))
                    .map_err(draw_error)?;
                chart
                    .draw_series(LineSeries::new(
                        curve.iter().map(|(s, p)| (*s as f64, p.mean)),
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

    #[test]
    fn the_plot_is_a_png_of_one_panel_per_agent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("curves.png");
        report().plot(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        // IHDR: width and height, big-endian, right after the 8-byte signature and chunk header.
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((width, height), (2 * 560, 420));
        // Not a blank canvas: the encoded image holds lines, bands and text.
        assert!(bytes.len() > 10_000, "{} bytes", bytes.len());
    }
}

//! The tabs: the matrix (home), the overview and one per strategy, and which of them the tab
//! bar shows at a width (also used to hit-test clicks).

use crate::strategy::Strategy;
use crate::text::width;

use super::keys::strategy_key;

/// A tab: the matrix, the overview, or one strategy side by side with the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The home screen: tools × strategies.
    Matrix,
    /// Every strategy at a glance.
    Overview,
    /// One strategy's tools.
    Strategy(Strategy),
}

impl Tab {
    /// Every tab in order.
    pub fn all() -> impl Iterator<Item = Tab> {
        [Tab::Matrix, Tab::Overview]
            .into_iter()
            .chain(Strategy::ALL.into_iter().map(Tab::Strategy))
    }

    /// Position in [`Tab::all`].
    pub fn index(self) -> usize {
        match self {
            Tab::Matrix => 0,
            Tab::Overview => 1,
            Tab::Strategy(s) => 2 + s.index(),
        }
    }

    /// The tab at a position in [`Tab::all`] (wrapping round).
    pub fn from_index(index: usize) -> Tab {
        match index {
            0 => Tab::Matrix,
            1 => Tab::Overview,
            i => Tab::Strategy(Strategy::ALL[(i - 2) % Strategy::ALL.len()]),
        }
    }
}

/// A tab's label in the tab bar: its key and its name.
pub fn tab_label(tab: Tab) -> String {
    match tab {
        Tab::Matrix => "m Matrix".to_owned(),
        Tab::Overview => "o Overview".to_owned(),
        Tab::Strategy(s) => format!("{} {}", strategy_key(s), s.id()),
    }
}

/// The tabs drawn at this width: each with its first and last-plus-one column, relative to the
/// tab bar. When they do not all fit, a window around the current tab.
pub fn tab_spans(current: Tab, width_cells: u16) -> Vec<(Tab, u16, u16)> {
    let tabs: Vec<Tab> = Tab::all().collect();
    let widths: Vec<u16> = tabs
        .iter()
        .map(|&t| width(&tab_label(t)) as u16 + 2)
        .collect();
    let avail = width_cells.saturating_sub(2);
    let current = current.index();
    // Widen the window around the current tab while it fits.
    let (mut start, mut end) = (current, current + 1);
    let total = |s: usize, e: usize| widths[s..e].iter().sum::<u16>();
    loop {
        let mut grew = false;
        if end < tabs.len() && total(start, end + 1) <= avail {
            end += 1;
            grew = true;
        }
        if start > 0 && total(start - 1, end) <= avail {
            start -= 1;
            grew = true;
        }
        if !grew {
            break;
        }
    }
    let mut x = 1;
    let mut out = Vec::new();
    for i in start..end {
        let w = widths[i].min(width_cells.saturating_sub(x));
        out.push((tabs[i], x, x + w));
        x += w;
    }
    out
}

//! Where everything goes at a terminal size: a pure function of the size and the tab, shared
//! by the drawing and by the update's mouse hit-tests and page sizes.

use ratatui::layout::{Constraint, Layout, Rect};

use crate::strategy::Strategy;

use super::tabs::Tab;

/// Smallest terminal the inspector draws in; below it, a message says so.
pub const MIN_WIDTH: u16 = 40;

/// Smallest height.
pub const MIN_HEIGHT: u16 = 10;

/// Width from which the tool table and the detail sit side by side.
const WIDE: u16 = 110;

/// The rectangles of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AppLayout {
    /// The terminal is below the minimum: only a message is drawn.
    pub too_small: bool,
    /// The title line.
    pub header: Rect,
    /// The tab bar.
    pub tabs: Rect,
    /// The strategy table (overview) or the tool table.
    pub table: Option<Rect>,
    /// The notes (overview).
    pub notes: Option<Rect>,
    /// The glyph legend (matrix).
    pub legend: Option<Rect>,
    /// Why a strategy does nothing, or refuses (strategy tab).
    pub banner: Option<Rect>,
    /// The detail pane (strategy tab).
    pub detail: Option<Rect>,
    /// The status line.
    pub status: Rect,
    /// The key hints.
    pub footer: Rect,
}

/// What besides the tab shapes a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags {
    /// A one-line banner sits above a strategy tab's panes.
    pub banner: bool,
    /// The detail takes the whole body (`z`).
    pub zoom: bool,
}

/// Where everything goes at this size.
pub fn layout(area: Rect, tab: Tab, flags: Flags) -> AppLayout {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return AppLayout {
            too_small: true,
            ..AppLayout::default()
        };
    }
    let [header, tabs, body, status, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let mut out = AppLayout {
        too_small: false,
        header,
        tabs,
        status,
        footer,
        ..AppLayout::default()
    };
    match tab {
        Tab::Matrix => {
            // One line of legend while there is room for it and a useful table.
            if body.height >= 12 {
                let [legend, table] =
                    Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(body);
                out.legend = Some(legend);
                out.table = Some(table);
            } else {
                out.table = Some(body);
            }
        }
        Tab::Overview => {
            let wanted = Strategy::ALL.len() as u16 + 3;
            if body.height >= wanted + 4 {
                let [table, notes] =
                    Layout::vertical([Constraint::Length(wanted), Constraint::Min(1)]).areas(body);
                out.table = Some(table);
                out.notes = Some(notes);
            } else {
                out.table = Some(body);
            }
        }
        Tab::Strategy(_) => {
            let body = if flags.banner && body.height > 6 {
                let [banner, rest] =
                    Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(body);
                out.banner = Some(banner);
                rest
            } else {
                body
            };
            if flags.zoom {
                out.detail = Some(body);
                return out;
            }
            let (table, detail) = if body.width >= WIDE {
                let left = (body.width * 9 / 20).clamp(52, 84);
                let [t, d] =
                    Layout::horizontal([Constraint::Length(left), Constraint::Min(1)]).areas(body);
                (t, d)
            } else {
                let top = (body.height * 2 / 5).max(5);
                let [t, d] =
                    Layout::vertical([Constraint::Length(top), Constraint::Min(1)]).areas(body);
                (t, d)
            };
            out.table = Some(table);
            out.detail = Some(detail);
        }
    }
    out
}

/// The entries view's two panes inside the detail `area`, under its info line: original and
/// projection side by side from 70 cells, else one above the other.
pub fn entry_panes(detail: Rect) -> (Rect, Rect) {
    let body = Rect {
        y: detail.y + 1,
        height: detail.height.saturating_sub(1),
        ..detail
    };
    if body.width >= 70 {
        let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(body);
        (a, b)
    } else {
        let [a, b] =
            Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(body);
        (a, b)
    }
}

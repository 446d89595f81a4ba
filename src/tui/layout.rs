//! Where everything goes at a terminal size: pure functions of the size and a few flags, called
//! by the drawing and by the update (mouse hit-tests, pages) alike, so the drawing never records
//! anything for the update to read. The inspector's frame is [`layout`], the session view's
//! [`session_layout`]. How far a pane scrolls is its screen's business (its text), not this
//! module's.

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
    /// The MCP servers' statuses (overview, `toolprism mcp`).
    pub servers: Option<Rect>,
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
    /// MCP servers the overview lists (`toolprism mcp`; 0 otherwise).
    pub servers: u16,
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
            // The servers' block comes before the notes: a failed server must be seen. It
            // takes at most a third of the body (its last line then says how many are hidden).
            let body = if flags.servers > 0 && body.height >= 9 {
                let rows = (flags.servers + 2).min(body.height / 3).max(3);
                let [rest, servers] =
                    Layout::vertical([Constraint::Min(1), Constraint::Length(rows)]).areas(body);
                out.servers = Some(servers);
                rest
            } else {
                body
            };
            // One row short of the whole table, the table scrolls (its window follows the
            // selection) and the notes keep their four rows: 80x24 holds all but one strategy.
            if body.height >= wanted + 3 {
                let rows = wanted.min(body.height - 4);
                let [table, notes] =
                    Layout::vertical([Constraint::Length(rows), Constraint::Min(1)]).areas(body);
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

/// What the top pane of the session view shows where only one of the chart and the totals
/// fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopPane {
    /// Tokens per turn.
    Chart,
    /// The strategies' totals.
    Totals,
}

/// The rectangles of one session frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SessionLayout {
    /// Below the minimum size: only a message.
    pub too_small: bool,
    /// The title line.
    pub header: Rect,
    /// Tokens per turn.
    pub chart: Option<Rect>,
    /// The strategies' totals.
    pub totals: Option<Rect>,
    /// The turns table.
    pub turns: Option<Rect>,
    /// The selected turn's change.
    pub detail: Option<Rect>,
    /// The status line.
    pub status: Rect,
    /// The key hints.
    pub footer: Rect,
}

/// Where everything goes at this size: chart and totals side by side over the turns and the
/// detail on a wide terminal; stacked when narrow; where only one of chart and totals fits,
/// `top` says which (`v` swaps).
pub fn session_layout(area: Rect, top: TopPane, strategies: usize) -> SessionLayout {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return SessionLayout {
            too_small: true,
            ..SessionLayout::default()
        };
    }
    let row = |y: u16, h: u16| Rect::new(area.x, area.y + y, area.width, h);
    let header = row(0, 1);
    let status = row(area.height - 2, 1);
    let footer = row(area.height - 1, 1);
    let body_h = area.height - 3;
    let body = row(1, body_h);
    let totals_h = (strategies as u16 + 3).max(5);
    let split_h = |r: Rect, left_pct: u16| {
        let lw = r.width * left_pct / 100;
        (
            Rect::new(r.x, r.y, lw, r.height),
            Rect::new(r.x + lw, r.y, r.width - lw, r.height),
        )
    };
    let take = |r: &mut Rect, h: u16| {
        let h = h.min(r.height);
        let out = Rect::new(r.x, r.y, r.width, h);
        r.y += h;
        r.height -= h;
        out
    };
    let mut rest = body;
    let mut l = SessionLayout {
        header,
        status,
        footer,
        ..SessionLayout::default()
    };
    if area.width >= 110 && body_h >= 24 {
        let top_h = totals_h.min(body_h / 2).max(8);
        let (chart, totals) = split_h(take(&mut rest, top_h), 55);
        let (turns, detail) = split_h(rest, 60);
        l.chart = Some(chart);
        l.totals = Some(totals);
        l.turns = Some(turns);
        l.detail = Some(detail);
    } else if body_h >= 30 {
        l.chart = Some(take(&mut rest, 8));
        l.totals = Some(take(&mut rest, totals_h.min(body_h / 3)));
        let detail_h = 8.min(rest.height / 2);
        let turns_h = rest.height - detail_h;
        l.turns = Some(take(&mut rest, turns_h));
        l.detail = Some(rest);
    } else {
        let top_h = match top {
            // A tiny terminal keeps the turns: the chart shrinks to its break marks.
            TopPane::Chart if body_h < 12 => 3,
            TopPane::Chart => (body_h / 3).max(4),
            TopPane::Totals => totals_h.min(body_h / 2).max(4),
        };
        let pane = take(&mut rest, top_h);
        match top {
            TopPane::Chart => l.chart = Some(pane),
            TopPane::Totals => l.totals = Some(pane),
        }
        let detail_h = if rest.height >= 14 { 6 } else { 0 };
        let turns_h = rest.height - detail_h;
        l.turns = Some(take(&mut rest, turns_h));
        if detail_h > 0 {
            l.detail = Some(rest);
        }
    }
    l
}

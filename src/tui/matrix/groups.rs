//! The matrix grouped by MCP server (`b`): a subtotal row per server, then its tools; `z` folds
//! a server to its subtotal row. The grouping is `report --by-server`'s
//! ([`crate::mcp::by_server::server_of`]: `mcp.prefixes`, Codex namespaces), and a subtotal's
//! figures are the ones it prints for the server: the tools' original tokens, and per strategy
//! the tokens its entries put in the model's context. The host's own tools form a group, and
//! tools a strategy adds (`tool_search`, the code gateway), no server's, one more, last. A
//! server `toolprism mcp` could not list is a group before them all: its status, no tools.
//!
//! Built on a [`MatrixView`] already sorted, `f`-filtered and searched: a group keeps its
//! tools in that order, groups come in the sort's order of their subtotals, and a group none
//! of whose tools is shown is left out. The figures of a subtotal are always the whole
//! server's (what `report --by-server` says), however many of its tools are shown.

use crate::matrix::{Origin, SortColumn};
use crate::mcp::status::ServerStatus;
use crate::report::Report;
use crate::text::width;

pub use super::view::{Figure, Group, RowKey, Subtotal, ViewRow};
use super::view::{MatrixView, strategies};

/// Who owns each capture entry: its server (`None`: the host's own) and the tools it counts.
#[derive(Debug, Clone, Copy)]
pub struct Owners<'a> {
    /// Per capture entry, its server ([`crate::mcp::by_server::server_of`]).
    pub servers: &'a [Option<String>],
    /// Per capture entry, the tools it stands for.
    pub tools: &'a [usize],
}

/// Per capture entry, its server and tools, as `report --by-server` reads them.
pub fn owners_of(
    entries: &[serde_json::Value],
    settings: &crate::settings::Settings,
) -> (Vec<Option<String>>, Vec<usize>) {
    entries
        .iter()
        .map(|e| {
            (
                crate::mcp::by_server::server_of(e, settings),
                crate::mcp::by_server::tool_count(e),
            )
        })
        .unzip()
}

impl MatrixView {
    /// Group the rows by server (nothing changes when no tool is an MCP server's): `folded`
    /// groups show their subtotal row alone.
    /// `unlisted`: servers `toolprism mcp` could not list, each a group of its own with its
    /// status and no tools (first), so none is silently missing.
    pub fn group(
        &mut self,
        report: &Report,
        owners: Owners<'_>,
        folded: &[Group],
        unlisted: &[ServerStatus],
    ) {
        if !owners.servers.iter().any(Option::is_some) && unlisted.is_empty() {
            return;
        }
        let all = self.model.all_rows();
        let group_of = |row: usize| match all[row].origin {
            Origin::Capture(i) => match owners.servers.get(i).cloned().flatten() {
                Some(server) => Group::Server(server),
                None => Group::Host,
            },
            Origin::Added(_) => Group::Added,
        };
        // Servers in the order their first tool comes, the host next, added tools last (the
        // order `report --by-server` lists them, and the tie-break of the sort).
        let mut groups: Vec<Group> = Vec::new();
        for row in 0..all.len() {
            let g = group_of(row);
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
        groups.sort_by_key(|g| match g {
            Group::Server(_) => 0,
            Group::Host => 1,
            Group::Added => 2,
        });
        let mut subtotals: Vec<Subtotal> = groups
            .into_iter()
            .map(|g| {
                let rows: Vec<usize> = (0..all.len()).filter(|&r| group_of(r) == g).collect();
                let shown = self.shown.iter().filter(|r| rows.contains(r)).count();
                let folded = folded.contains(&g);
                self.subtotal_of(report, g, &rows, owners, shown, folded)
            })
            .filter(|s| s.shown > 0)
            .collect();
        sort_groups(&mut subtotals, self.model.sort());
        let figures = strategies().len();
        // First: a server that failed is what the user must see without scrolling.
        let failed = unlisted.iter().map(|server| Subtotal {
            group: Group::Server(server.name.clone()),
            tools: 0,
            shown: 0,
            original: None,
            columns: vec![Figure::Unlisted; figures],
            folded: false,
            unlisted: Some(server.clone()),
        });
        subtotals.splice(0..0, failed);
        let mut lines = Vec::with_capacity(self.shown.len() + subtotals.len());
        for (k, s) in subtotals.iter().enumerate() {
            lines.push(ViewRow::Subtotal(k));
            if !s.folded {
                lines.extend(
                    self.shown
                        .iter()
                        .filter(|&&r| group_of(r) == s.group)
                        .map(|&r| ViewRow::Tool(r)),
                );
            }
        }
        self.lines = lines;
        self.subtotals = subtotals;
    }

    /// The figures `report --by-server` gives group `g` of these rows.
    fn subtotal_of(
        &self,
        report: &Report,
        group: Group,
        rows: &[usize],
        owners: Owners<'_>,
        shown: usize,
        folded: bool,
    ) -> Subtotal {
        let all = self.model.all_rows();
        let entries: Vec<usize> = rows
            .iter()
            .filter_map(|&r| match all[r].origin {
                Origin::Capture(i) => Some(i),
                Origin::Added(_) => None,
            })
            .collect();
        let added = group == Group::Added;
        let columns = strategies()
            .iter()
            .enumerate()
            .map(|(c, s)| {
                let Some(figures) = report.strategies.iter().find(|f| f.id == s.id()) else {
                    return Figure::Measuring;
                };
                if figures.is_refused() {
                    return Figure::Refused;
                }
                let context = |i: usize| {
                    figures
                        .per_tool
                        .get(i)
                        .map_or(0, crate::report::ToolFigures::context_tokens)
                };
                let tokens = if added {
                    // An added tool's figures are where the strategy lists it.
                    rows.iter()
                        .filter_map(|&r| self.cell(&all[r], c).and_then(|cell| cell.outcome))
                        .map(context)
                        .sum()
                } else {
                    entries.iter().map(|&i| context(i)).sum()
                };
                Figure::Tokens(tokens)
            })
            .collect();
        Subtotal {
            tools: if added {
                rows.len()
            } else {
                entries
                    .iter()
                    .map(|&i| owners.tools.get(i).copied().unwrap_or(1))
                    .sum()
            },
            original: (!added).then(|| rows.iter().filter_map(|&r| all[r].original_tokens).sum()),
            group,
            shown,
            columns,
            folded,
            unlisted: None,
        }
    }

    /// The rows drawn (tools and subtotals).
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether no row is drawn.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether the rows are grouped by server.
    pub fn grouped(&self) -> bool {
        !self.subtotals.is_empty()
    }

    /// The subtotal at a screen position, when that row is one.
    pub fn subtotal_at(&self, at: usize) -> Option<&Subtotal> {
        match self.lines.get(at)? {
            ViewRow::Subtotal(k) => self.subtotals.get(*k),
            ViewRow::Tool(_) => None,
        }
    }

    /// The group of the row at a screen position: a subtotal's own, or the one a tool is
    /// under (`None` when the rows are not grouped).
    pub fn group_at(&self, at: usize) -> Option<&Group> {
        let k = self.lines.get(..=at)?.iter().rev().find_map(|l| match l {
            ViewRow::Subtotal(k) => Some(*k),
            ViewRow::Tool(_) => None,
        })?;
        self.subtotals.get(k).map(|s| &s.group)
    }

    /// What is at a screen position.
    pub fn key_at(&self, at: usize) -> Option<RowKey> {
        match self.lines.get(at)? {
            ViewRow::Tool(r) => Some(RowKey::Tool(self.model.all_rows()[*r].origin)),
            ViewRow::Subtotal(k) => Some(RowKey::Group(self.subtotals.get(*k)?.group.clone())),
        }
    }

    /// Where a tool or a subtotal row is drawn.
    pub fn find(&self, key: &RowKey) -> Option<usize> {
        match key {
            RowKey::Tool(origin) => self.position(*origin),
            RowKey::Group(g) => self.lines.iter().position(|l| match l {
                ViewRow::Subtotal(k) => self.subtotals.get(*k).is_some_and(|s| s.group == *g),
                ViewRow::Tool(_) => false,
            }),
        }
    }

    /// The screen positions of the tools (the rows `n` and `N` step through).
    pub fn tool_positions(&self) -> Vec<usize> {
        (0..self.lines.len())
            .filter(|&at| matches!(self.lines[at], ViewRow::Tool(_)))
            .collect()
    }

    /// Widths the subtotal rows need: the label, the original column, each strategy column
    /// (the figures keep the two cells of the marks free, as the totals do).
    pub(super) fn subtotal_widths(&self) -> (usize, usize, Vec<usize>) {
        let name = self
            .subtotals
            .iter()
            .map(|s| width(&s.label(usize::MAX)))
            .max()
            .unwrap_or(0);
        let original = self
            .subtotals
            .iter()
            .map(|s| width(&s.original_text(self.counted)) + 2)
            .max()
            .unwrap_or(0);
        let columns = (0..self.columns.len())
            .map(|c| {
                self.subtotals
                    .iter()
                    .map(|s| width(&s.cell_text(c)) + 2)
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        (name, original, columns)
    }
}

/// Groups in the sort's order of their subtotals (a group with no figure in the sorted column,
/// as added tools have no original, last either way); ties keep `report --by-server`'s order.
fn sort_groups(subtotals: &mut [Subtotal], sort: crate::matrix::Sort) {
    let figure = |s: &Subtotal| -> Option<usize> {
        match sort.column {
            SortColumn::Original => s.original,
            SortColumn::Strategy(strategy) => strategies()
                .iter()
                .position(|&x| x == strategy)
                .and_then(|c| s.columns.get(c).copied())
                .and_then(Figure::tokens),
            SortColumn::Name => None,
        }
    };
    if sort.column == SortColumn::Name {
        subtotals.sort_by(|a, b| {
            let order = a.group.label().cmp(&b.group.label());
            if sort.descending {
                order.reverse()
            } else {
                order
            }
        });
        return;
    }
    subtotals.sort_by(|a, b| match (figure(a), figure(b)) {
        (Some(x), Some(y)) if sort.descending => y.cmp(&x),
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
}

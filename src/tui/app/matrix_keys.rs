//! The matrix screen's keys: the cursor's cell, its columns, Enter, sort, filter and the
//! grouping by server.

#[allow(clippy::wildcard_imports)]
use super::*;

impl App {
    /// Put the matrix cursor on `row` (clamped) and scroll so it shows.
    pub(super) fn select_cell(&mut self, row: usize) {
        let (len, height) = (self.matrix().len(), self.matrix_height());
        self.matrix_tab.cursor.rows.select(row, len, height);
    }

    /// Move the matrix cursor to another column, panning so it shows.
    pub(super) fn move_col(&mut self, delta: isize) {
        let last = Strategy::ALL.len() as isize - 1;
        self.matrix_tab.cursor.col =
            (self.matrix_tab.cursor.col as isize + delta).clamp(0, last) as usize;
        let m = self.matrix();
        let g = matrix::geometry(&m, self.ctx.size.0, self.matrix_tab.cursor);
        self.matrix_tab.cursor.col_offset = g.visible.start;
    }

    /// Put the matrix cursor on the column drawn at screen column `x` of `table`, if any.
    pub(super) fn click_col(&mut self, table: Rect, x: u16) {
        let cursor = self.matrix_tab.cursor;
        let m = self.matrix();
        let Some(col) = matrix::column_at(&m, table.width, cursor, (x - table.x) as usize) else {
            return;
        };
        drop(m);
        self.move_col(col as isize - cursor.col as isize);
    }

    pub(super) fn matrix_height(&self) -> usize {
        self.frame_layout().table.map_or(1, |r| {
            matrix::body_rows(r.height, self.matrix().model.total_rows().len()).0
        })
    }

    pub(super) fn matrix_key(&self) -> Option<crate::tui::matrix::groups::RowKey> {
        self.matrix().key_at(self.matrix_tab.cursor.rows.selected)
    }

    /// Keep the matrix cursor on the same tool (or subtotal row) after its rows changed.
    pub(super) fn matrix_resync(&mut self, keep: Option<crate::tui::matrix::groups::RowKey>) {
        let found = keep.and_then(|k| self.matrix().find(&k));
        self.select_cell(found.unwrap_or(self.matrix_tab.cursor.rows.selected));
    }

    /// On an added tool's row (`tool_search`, the code gateway), when the cursor's column does
    /// not add it: why Enter cannot open it there, and which columns do.
    pub(super) fn added_elsewhere(&self) -> Option<String> {
        let m = self.matrix();
        let row = m.row(self.matrix_tab.cursor.rows.selected)?;
        if !matches!(row.origin, crate::matrix::Origin::Added(_)) {
            return None;
        }
        let adds = |c: usize| {
            m.cell(row, c)
                .is_some_and(|cell| cell.mark == crate::matrix::Mark::Added)
        };
        let here = self.matrix_tab.cursor.col.checked_sub(1);
        if here.is_some_and(adds) {
            return None;
        }
        let name = m
            .name(self.matrix_tab.cursor.rows.selected)
            .unwrap_or("this tool");
        let by: Vec<&str> = (0..m.columns.len())
            .filter(|&c| adds(c))
            .map(|c| matrix::strategies()[c].id())
            .collect();
        let strategy = self.strategy();
        let not_here = match here {
            None => format!("{name} is not in the capture"),
            Some(_) => format!("{strategy} does not send {name}"),
        };
        Some(match by.as_slice() {
            [] => format!("{not_here}: no strategy measured so far adds it"),
            [one] => format!("{not_here}: {one} adds it · move to its column and press Enter"),
            many => format!(
                "{not_here}: added by {} · move to one of their columns and press Enter",
                many.join(", ")
            ),
        })
    }

    pub(super) fn act_matrix(&mut self, action: Action) -> bool {
        if self.act_groups(action) {
            return true;
        }
        match action {
            Action::Left => self.move_col(-1),
            Action::Right => self.move_col(1),
            Action::Open => {
                let strategy = self.strategy();
                if let Some(why) = self.added_elsewhere() {
                    self.set_status(why, false);
                    return true;
                }
                let keep = self
                    .matrix()
                    .row(self.matrix_tab.cursor.rows.selected)
                    .map(|r| match r.origin {
                        crate::matrix::Origin::Capture(i) => (Some(i), String::new()),
                        crate::matrix::Origin::Added(_) => (None, r.name.clone()),
                    });
                self.switch_tab(Tab::Strategy(strategy));
                if keep.is_some() {
                    self.resync(keep);
                }
            }
            Action::Sort => {
                use crate::matrix::{Sort, SortColumn};
                let column = if self.matrix_tab.cursor.col == 0 {
                    SortColumn::Original
                } else {
                    SortColumn::Strategy(self.strategy())
                };
                let descending = if self.matrix_tab.sort.column == column {
                    !self.matrix_tab.sort.descending
                } else {
                    Sort::natural(column).descending
                };
                // The selected tool stays selected, wherever the new order puts it.
                let selected = self.matrix_key();
                self.matrix_tab.sort = Sort { column, descending };
                let at = selected.and_then(|k| self.matrix().find(&k)).unwrap_or(0);
                self.select_cell(at);
                let what = self.strategy().id();
                let order = if descending {
                    "largest first"
                } else {
                    "smallest first"
                };
                self.set_status(format!("sorted by {what}, {order}"), false);
            }
            Action::FilterChanged => {
                if self.matrix_tab.cursor.col == 0 {
                    self.set_status(
                        "f keeps the tools a strategy changes: move to a strategy column (l)",
                        false,
                    );
                    return true;
                }
                let keep = self.matrix_key();
                let s = self.strategy();
                self.matrix_tab.changed_by = if self.matrix_tab.changed_by == Some(s) {
                    None
                } else {
                    Some(s)
                };
                self.matrix_resync(keep);
                match self.matrix_tab.changed_by {
                    Some(_) => {
                        let s = self.strategy();
                        let none = self.matrix().shown.is_empty();
                        // A strategy that only reorders changes no entry: say so, rather
                        // than leave an empty table to explain itself.
                        let reordered = self
                            .ctx
                            .figures(s)
                            .is_some_and(|f| f.first_changed_byte.is_some());
                        let text = match (none, reordered) {
                            (true, true) => format!(
                                "{s} changes no tool: only their order changed · f again shows all"
                            ),
                            (true, false) => {
                                format!("{s} changes no tool · f again shows all")
                            }
                            _ => format!("only the tools {s} changes · f again shows all"),
                        };
                        self.set_status(text, false);
                    }
                    None => self.set_status("every tool", false),
                }
            }
            Action::Back => {
                if !self.search.input.text.is_empty() {
                    let keep = self.matrix_key();
                    self.search.input.clear();
                    self.matrix_resync(keep);
                } else if self.matrix_tab.changed_by.is_some() {
                    let keep = self.matrix_key();
                    self.matrix_tab.changed_by = None;
                    self.matrix_resync(keep);
                } else if self.ctx.nested {
                    self.leave = true;
                } else {
                    self.set_status("this is the home screen · q quits", false);
                }
            }
            _ => return false,
        }
        true
    }

    /// The grouping by server: `b`, `z`, `Z`, and Enter on a subtotal row (it folds, as there
    /// is no tool to open). Whether `action` was one of these.
    pub(super) fn act_groups(&mut self, action: Action) -> bool {
        use crate::tui::matrix::groups::{Group, RowKey};
        let m = self.matrix();
        let at = self.matrix_tab.cursor.rows.selected;
        match action {
            Action::GroupServers => {
                let (servers, _) = crate::tui::matrix::groups::owners_of(
                    self.ctx.capture.tools(),
                    &self.ctx.settings,
                );
                if !self.matrix_tab.grouped && servers.iter().all(Option::is_none) {
                    self.set_status(
                        "no tool here is an MCP server's (mcp.prefixes names them): nothing to group",
                        false,
                    );
                    return true;
                }
                let keep = match m.key_at(at) {
                    // Ungrouped, a subtotal row's tools stay: the cursor goes to its first.
                    Some(RowKey::Group(_)) => m.row(at + 1).map(|r| RowKey::Tool(r.origin)),
                    other => other,
                };
                self.matrix_tab.grouped = !self.matrix_tab.grouped;
                self.matrix_resync(keep);
                let text = if self.matrix_tab.grouped {
                    let m = self.matrix();
                    let servers = m
                        .subtotals
                        .iter()
                        .filter(|s| matches!(s.group, Group::Server(_)))
                        .count();
                    let noun = if servers == 1 { "server" } else { "servers" };
                    let unlisted = m.subtotals.iter().filter(|s| s.unlisted.is_some()).count();
                    let unlisted = if unlisted > 0 {
                        format!(" ({unlisted} not listed, first)")
                    } else {
                        String::new()
                    };
                    format!(
                        "grouped by MCP server: {servers} {noun}{unlisted} · z folds one · b again: one list"
                    )
                } else {
                    "one list of tools".to_owned()
                };
                self.set_status(text, false);
            }
            Action::Fold | Action::Open if m.grouped() => {
                if action == Action::Open && m.subtotal_at(at).is_none() {
                    return false;
                }
                let Some(group) = m.group_at(at).cloned() else {
                    return true;
                };
                let folding = !self.matrix_tab.folded.contains(&group);
                if folding {
                    self.matrix_tab.folded.push(group.clone());
                } else {
                    self.matrix_tab.folded.retain(|g| *g != group);
                }
                // Folding hides the tool the cursor was on: it goes to the subtotal row.
                self.matrix_resync(Some(RowKey::Group(group.clone())));
                let what = if folding { "folded" } else { "unfolded" };
                self.set_status(format!("{} {what} · z again", group.label()), false);
            }
            Action::FoldAll if m.grouped() => {
                let groups: Vec<Group> = m.subtotals.iter().map(|s| s.group.clone()).collect();
                let unfold = m.subtotals.iter().all(|s| s.folded);
                let keep = m.group_at(at).cloned().map(RowKey::Group);
                self.matrix_tab.folded = if unfold { Vec::new() } else { groups };
                self.matrix_resync(keep);
                let what = if unfold {
                    "every server unfolded"
                } else {
                    "every server folded"
                };
                self.set_status(format!("{what} · Z again"), false);
            }
            Action::Fold | Action::FoldAll => {
                self.set_status(
                    "z folds a server: group the tools by server first (b)",
                    false,
                );
            }
            _ => return false,
        }
        true
    }
}

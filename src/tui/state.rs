//! The pieces of state more than one screen uses: the one [`ListCursor`] every list and
//! scrolled pane keeps its cursor in, the tool search ([`ToolSearch`]) the matrix and the
//! strategy tabs share, and the small enums a strategy tab's state is made of ([`Pane`],
//! [`Detail`], [`SortKey`]). Each screen's own state lives in its module.

use super::input::Input;

/// A list's cursor: the selected row and the first row in view. A pane that only scrolls (the
/// notes, the detail, the turn diff) uses the first row alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ListCursor {
    /// The selected row.
    pub selected: usize,
    /// The first row in view.
    pub offset: usize,
}

impl ListCursor {
    /// Select `row` of `len` (clamped to the last), scrolling as little as needed to keep it
    /// among the `height` rows in view, and never past the end.
    pub fn select(&mut self, row: usize, len: usize, height: usize) {
        self.selected = row.min(len.saturating_sub(1));
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        self.offset = self.offset.min(len.saturating_sub(height));
    }

    /// Move the selection by `delta` rows (stopping at the first), as [`Self::select`] does.
    pub fn move_by(&mut self, delta: isize, len: usize, height: usize) {
        let row = (self.selected as isize).saturating_add(delta).max(0) as usize;
        self.select(row, len, height);
    }

    /// The row `delta` rows away from the selection, kept within the `len` rows (none
    /// selected in an empty list: the first).
    pub fn step(&self, delta: isize, len: usize) -> usize {
        let last = len.saturating_sub(1) as isize;
        (self.selected as isize)
            .saturating_add(delta)
            .clamp(0, last) as usize
    }

    /// Scroll by `delta` rows, between the first and `max`.
    pub fn scroll_by(&mut self, delta: isize, max: usize) {
        self.offset = (self.offset as isize)
            .saturating_add(delta)
            .clamp(0, max as isize) as usize;
    }

    /// Scroll `rows` rows up (stopping at the first).
    pub fn scroll_up(&mut self, rows: usize) {
        self.offset = self.offset.saturating_sub(rows);
    }
}

/// The pane that has the focus in a strategy tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The tool table.
    Tools,
    /// The detail (entries, diff, request, added text).
    Detail,
}

/// What the detail pane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// The selected tool's original and projected pretty JSON.
    Entries,
    /// Its unified diff.
    Unified,
    /// Its side-by-side diff.
    Split,
    /// The request-level comparison.
    Request,
    /// The text the strategy adds.
    Added,
}

impl Detail {
    /// Its name in titles.
    pub fn label(self) -> &'static str {
        match self {
            Detail::Entries => "entries",
            Detail::Unified => "diff",
            Detail::Split => "diff side by side",
            Detail::Request => "request",
            Detail::Added => "added text",
        }
    }
}

/// The tool table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// As in the capture (added tools last).
    Original,
    /// Most tokens saved first.
    Saving,
    /// Largest original first.
    Size,
    /// By name.
    Name,
}

impl SortKey {
    /// Its name in the status bar.
    pub fn label(self) -> &'static str {
        match self {
            SortKey::Original => "original order",
            SortKey::Saving => "saving",
            SortKey::Size => "size",
            SortKey::Name => "name",
        }
    }

    /// The next order, as the `s` key cycles through them.
    pub(crate) fn next(self) -> SortKey {
        match self {
            SortKey::Original => SortKey::Saving,
            SortKey::Saving => SortKey::Size,
            SortKey::Size => SortKey::Name,
            SortKey::Name => SortKey::Original,
        }
    }
}

/// The tool search, shared by the matrix and the strategy tabs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolSearch {
    /// The text searched for (in names and entries, case-insensitive), as typed.
    pub input: Input,
    /// It is being typed.
    pub typing: bool,
}

#[cfg(test)]
mod tests {
    use super::ListCursor;

    #[test]
    fn a_selection_scrolls_as_little_as_it_must() {
        let mut c = ListCursor::default();
        c.select(7, 20, 5);
        assert_eq!((c.selected, c.offset), (7, 3));
        c.select(4, 20, 5);
        assert_eq!((c.selected, c.offset), (4, 3));
        c.select(1, 20, 5);
        assert_eq!((c.selected, c.offset), (1, 1));
        c.move_by(-10, 20, 5);
        assert_eq!((c.selected, c.offset), (0, 0));
    }

    #[test]
    fn a_selection_stays_inside_a_shorter_list() {
        let mut c = ListCursor {
            selected: 18,
            offset: 15,
        };
        c.select(18, 6, 5);
        assert_eq!((c.selected, c.offset), (5, 1));
        c.select(3, 0, 5);
        assert_eq!((c.selected, c.offset), (0, 0));
    }

    #[test]
    fn a_scroll_stays_between_the_top_and_its_end() {
        let mut c = ListCursor::default();
        c.scroll_by(30, 12);
        assert_eq!(c.offset, 12);
        c.scroll_by(-5, 12);
        assert_eq!(c.offset, 7);
        c.scroll_up(10);
        assert_eq!(c.offset, 0);
        assert_eq!(c.step(-1, 13), 0);
        assert_eq!(
            ListCursor {
                selected: 12,
                offset: 0
            }
            .step(3, 13),
            12
        );
    }
}

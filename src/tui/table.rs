//! The one table component every tabular screen draws with: the matrix, a strategy's tool
//! list, the overview and the session's turns.
//!
//! A table is a list of [`Column`]s, each with a [`Width`] policy, the gap before it, what is
//! done to text wider than it ([`Cut`]) and whether it gives way whole when the room is short
//! ([`Column::gives_way`]). [`Columns::resolve`] turns the policies into cells at one width
//! ([`Resolved`]); the screen then builds the rows it shows with those widths (names are
//! shortened by the screen, over every row it has, so that no name is cut into another's) and
//! [`DataTable`] draws them: the header, the rows from the first visible one, the selection
//! mark and highlight. The selection is the screens' [`ListCursor`]; the table adds the window
//! it draws ([`ListCursor::first_visible`]). The order of the rows is the screen's (the
//! library's matrix model, the tool list's sort key), which keeps the selection on its row.
//!
//! Everything here is pure: widths and windows are functions of their inputs, and drawing
//! only writes the frame's buffer.

use std::ops::Range;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::text::{fit, width};

use super::state::ListCursor;

/// How wide a column wants to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// Exactly this many cells.
    Fixed(usize),
    /// As wide as its widest cell (header included), within `min..=max`: a column of figures
    /// is as wide as its widest figure, so a number is never cut.
    Content {
        /// Fewest cells.
        min: usize,
        /// Most cells.
        max: usize,
    },
    /// What the other columns leave. `reserve` cells are counted for it when deciding which
    /// columns give way; short of room it takes what is left, down to nothing.
    Fill {
        /// Cells kept for it before an optional column is dropped.
        reserve: usize,
    },
}

/// What is done to a cell wider than its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cut {
    /// Clipped at the column's edge. For cells the screen already fitted (shortened names,
    /// padded figures): a cell that is still too wide is one the room could not hold.
    #[default]
    Clip,
    /// Cut visibly with `…` ([`crate::text::fit`]).
    Ellipsis,
}

/// What to do when the columns kept need more than the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pressure {
    /// Keep every width: the row runs past the edge and is clipped there.
    #[default]
    Clip,
    /// Keep every width and cut the row at the edge with `…`.
    Ellipsis,
    /// Share the shortfall between the columns the way ratatui's constraint solver does for
    /// `Length` and `Min` constraints (what the overview has always done on a narrow terminal).
    Shrink,
}

/// One column of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The width policy.
    pub width: Width,
    /// Blank cells before the column, the first one included (after the selection mark): a
    /// table that wants its first column against the mark says `gap(0)`.
    pub gap: usize,
    /// What is done to a cell too wide for the column.
    pub cut: Cut,
    /// `Some(rank)`: the column is dropped whole when the room is short, lowest rank first.
    pub gives_way: Option<u8>,
}

impl Column {
    /// A column of this width with a one-cell gap before it, clipped, never dropped.
    pub const fn new(width: Width) -> Column {
        Column {
            width,
            gap: 1,
            cut: Cut::Clip,
            gives_way: None,
        }
    }

    /// The same column with `gap` blank cells before it.
    pub const fn gap(mut self, gap: usize) -> Column {
        self.gap = gap;
        self
    }

    /// The same column, its too-wide cells cut with `…`.
    pub const fn ellipsis(mut self) -> Column {
        self.cut = Cut::Ellipsis;
        self
    }

    /// The same column, dropped whole (lowest `rank` first) when the room is short.
    pub const fn gives_way(mut self, rank: u8) -> Column {
        self.gives_way = Some(rank);
        self
    }
}

/// A table's columns, the selection mark before them and what happens under pressure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    /// The columns, left to right.
    pub columns: Vec<Column>,
    /// Cells before the first column, where the selected row's mark goes (0: none).
    pub mark: usize,
    /// What happens when even the kept columns do not fit.
    pub pressure: Pressure,
}

/// The widths of a table's columns at one width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Per column: its cells, `None` when it gave way.
    pub widths: Vec<Option<usize>>,
    /// Per column: its first cell, from the table's left edge (meaningless for a dropped one).
    pub starts: Vec<usize>,
    /// Cells of the selection mark before the first column.
    pub mark: usize,
    /// Per column, how its too-wide cells are cut.
    pub cuts: Vec<Cut>,
    /// What happens to a row wider than the table.
    pub pressure: Pressure,
}

impl Resolved {
    /// Whether column `c` is drawn.
    pub fn shown(&self, c: usize) -> bool {
        self.widths.get(c).copied().flatten().is_some()
    }

    /// Cells of column `c` (0 when it gave way).
    pub fn width(&self, c: usize) -> usize {
        self.widths.get(c).copied().flatten().unwrap_or(0)
    }

    /// Where the columns drawn before column `c` end (the mark's end when none is).
    fn columns_before(&self, c: usize) -> usize {
        (0..c)
            .filter(|&k| self.shown(k))
            .map(|k| self.starts[k] + self.width(k))
            .max()
            .unwrap_or(self.mark)
    }
}

impl Columns {
    /// Columns with no selection mark, clipped under pressure.
    pub fn new(columns: Vec<Column>) -> Columns {
        Columns {
            columns,
            mark: 0,
            pressure: Pressure::Clip,
        }
    }

    /// The same columns after a selection mark `cells` wide.
    pub fn with_mark(mut self, cells: usize) -> Columns {
        self.mark = cells;
        self
    }

    /// The same columns, a row too wide for the table cut at its edge with `…`.
    pub fn ellipsis_under_pressure(mut self) -> Columns {
        self.pressure = Pressure::Ellipsis;
        self
    }

    /// The same columns, shrunk under pressure as ratatui's solver does.
    pub fn shrink_under_pressure(mut self) -> Columns {
        self.pressure = Pressure::Shrink;
        self
    }

    /// The widths in `room` cells, given the widest cell of each column (`content[c]`, the
    /// header included; only read for [`Width::Content`]). Columns that give way are dropped,
    /// lowest rank first, while the rest need more than the room (a [`Width::Fill`] counting
    /// its reserve); then the fill columns share what is left, the first ones taking the odd
    /// cells.
    pub fn resolve(&self, content: &[usize], room: usize) -> Resolved {
        let n = self.columns.len();
        let wanted: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(c, col)| match col.width {
                Width::Fixed(w) => w,
                Width::Content { min, max } => content
                    .get(c)
                    .copied()
                    .unwrap_or(0)
                    .clamp(min, max.max(min)),
                Width::Fill { reserve } => reserve,
            })
            .collect();
        let mut kept = vec![true; n];
        let need = |kept: &[bool]| -> usize {
            self.mark
                + (0..n)
                    .filter(|&c| kept[c])
                    .map(|c| self.columns[c].gap + wanted[c])
                    .sum::<usize>()
        };
        let mut ranks: Vec<(u8, usize)> = self
            .columns
            .iter()
            .enumerate()
            .filter_map(|(c, col)| col.gives_way.map(|r| (r, c)))
            .collect();
        ranks.sort_unstable();
        for (_, c) in ranks {
            if need(&kept) <= room {
                break;
            }
            kept[c] = false;
        }
        let fills: Vec<usize> = (0..n)
            .filter(|&c| kept[c] && matches!(self.columns[c].width, Width::Fill { .. }))
            .collect();
        let mut widths: Vec<Option<usize>> = (0..n).map(|c| kept[c].then_some(wanted[c])).collect();
        let fixed: usize = need(&kept) - fills.iter().map(|&c| wanted[c]).sum::<usize>();
        if self.pressure == Pressure::Shrink && need(&kept) > room {
            return self.solve(&widths, room);
        }
        let spare = room.saturating_sub(fixed);
        for (k, &c) in fills.iter().enumerate() {
            let share = spare / fills.len() + usize::from(k < spare % fills.len());
            widths[c] = Some(share);
        }
        self.place(widths)
    }

    /// The columns laid out left to right, each after its gap.
    fn place(&self, widths: Vec<Option<usize>>) -> Resolved {
        let mut starts = Vec::with_capacity(widths.len());
        let mut x = self.mark;
        for (c, w) in widths.iter().enumerate() {
            match w {
                Some(w) => {
                    starts.push(x + self.columns[c].gap);
                    x += self.columns[c].gap + w;
                }
                None => starts.push(x),
            }
        }
        Resolved {
            widths,
            starts,
            mark: self.mark,
            cuts: self.columns.iter().map(|c| c.cut).collect(),
            pressure: self.pressure,
        }
    }

    /// Under pressure, ratatui's solver over the same constraints a ratatui `Table` would use:
    /// the mark, then each kept column as a `Length` (a fill as a `Min` of its reserve) with a
    /// one-cell spacing.
    fn solve(&self, widths: &[Option<usize>], room: usize) -> Resolved {
        let room = u16::try_from(room).unwrap_or(u16::MAX);
        let [_, columns_area] =
            Layout::horizontal([Constraint::Length(self.mark as u16), Constraint::Fill(0)])
                .areas(Rect::new(0, 0, room, 1));
        let kept: Vec<usize> = (0..widths.len()).filter(|&c| widths[c].is_some()).collect();
        let constraints: Vec<Constraint> = kept
            .iter()
            .map(|&c| {
                let w = widths[c].unwrap_or(0) as u16;
                match self.columns[c].width {
                    Width::Fill { .. } => Constraint::Min(w),
                    _ => Constraint::Length(w),
                }
            })
            .collect();
        let rects = Layout::horizontal(constraints)
            .flex(Flex::Start)
            .spacing(1)
            .split(columns_area);
        let mut out = widths.to_vec();
        let mut starts = vec![0; widths.len()];
        for (k, &c) in kept.iter().enumerate() {
            out[c] = Some(rects[k].width as usize);
            starts[c] = rects[k].x as usize;
        }
        Resolved {
            widths: out,
            starts,
            mark: self.mark,
            cuts: self.columns.iter().map(|c| c.cut).collect(),
            pressure: self.pressure,
        }
    }
}

/// One row as drawn: a line per column (a dropped column's cell is skipped), the style of
/// the blank cells between and after them, and a style laid over the whole row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableRow {
    /// One cell per column, in column order.
    pub cells: Vec<Line<'static>>,
    /// The gaps' and the padding's style.
    pub fill: Style,
    /// A style patched over the whole row once drawn (the highlight of the selected row).
    pub over: Option<Style>,
    /// Whether the row ends where its last cell's text ends (that cell's padding left blank,
    /// not in the fill).
    pub open_end: bool,
}

impl TableRow {
    /// A row of these cells with unstyled gaps.
    pub fn new(cells: Vec<Line<'static>>) -> TableRow {
        TableRow {
            cells,
            fill: Style::default(),
            over: None,
            open_end: false,
        }
    }

    /// The same row with every cell, gap and padding drawn over `style` (a cell's own styles
    /// still win).
    pub fn under(mut self, style: Style) -> TableRow {
        for cell in &mut self.cells {
            for span in &mut cell.spans {
                span.style = style.patch(span.style);
            }
        }
        self.fill = style;
        self
    }

    /// The same row with its gaps and padding in `style`.
    pub fn fill(mut self, style: Style) -> TableRow {
        self.fill = style;
        self
    }

    /// The same row ending where its last cell's text ends.
    pub fn open_end(mut self) -> TableRow {
        self.open_end = true;
        self
    }

    /// The same row with `style` laid over all of it.
    pub fn over(mut self, style: Style) -> TableRow {
        self.over = Some(style);
        self
    }
}

/// What the table needs of a list's cursor: the window it draws.
impl ListCursor {
    /// The first row to draw so that, `height` rows at a time, the selection stays in view:
    /// the offset unless the selection went above it or below the window.
    pub fn first_visible(self, len: usize, height: usize) -> usize {
        let start = self.offset.min(len.saturating_sub(1)).min(self.selected);
        start.max((self.selected + 1).saturating_sub(height.max(1)))
    }
}

/// A table ready to draw: its widths, an optional header, the rows from the first visible
/// one, and which of them carries the selection mark.
#[derive(Debug, Clone)]
pub struct DataTable<'a> {
    /// The widths at the area's width.
    pub layout: &'a Resolved,
    /// The header row, drawn first.
    pub header: Option<TableRow>,
    /// The rows drawn, top to bottom (the caller has already skipped to the first visible).
    pub rows: Vec<TableRow>,
    /// Among `rows`, the one with the selection mark.
    pub marked: Option<usize>,
    /// The mark drawn before the selected row (in the mark's cells).
    pub mark: &'static str,
}

impl<'a> DataTable<'a> {
    /// A table of these widths with no header, rows or mark.
    pub fn new(layout: &'a Resolved) -> DataTable<'a> {
        DataTable {
            layout,
            header: None,
            rows: Vec::new(),
            marked: None,
            mark: "",
        }
    }

    /// The same table with a header row.
    pub fn header(mut self, header: TableRow) -> DataTable<'a> {
        self.header = Some(header);
        self
    }

    /// The same table with these rows.
    pub fn rows(mut self, rows: Vec<TableRow>) -> DataTable<'a> {
        self.rows = rows;
        self
    }

    /// The same table with `mark` before row `at` of the rows drawn.
    pub fn mark(mut self, at: Option<usize>, mark: &'static str) -> DataTable<'a> {
        self.marked = at;
        self.mark = mark;
        self
    }

    /// One row: the mark, each cell in its column, the gaps and each cell's padding in the
    /// row's fill (so a cell's own style is never mixed with it), then the style over it all.
    fn draw_row(&self, row: &TableRow, marked: bool, area: Rect, buf: &mut Buffer) {
        let l = self.layout;
        let right = area.right();
        let rect = |x: usize, w: usize| -> Option<Rect> {
            let x0 = area.x.saturating_add(u16::try_from(x).unwrap_or(u16::MAX));
            if x0 >= right || w == 0 {
                return None;
            }
            let w = u16::try_from(w).unwrap_or(u16::MAX).min(right - x0);
            Some(Rect::new(x0, area.y, w, 1))
        };
        if let Some(r) = rect(0, l.mark) {
            if marked {
                Line::from(Span::styled(self.mark, row.fill)).render(r, buf);
            } else {
                buf.set_style(r, row.fill);
            }
        }
        let last = (0..row.cells.len()).rev().find(|&c| l.shown(c));
        for (c, cell) in row.cells.iter().enumerate() {
            let Some(w) = l.widths.get(c).copied().flatten() else {
                continue;
            };
            let gap = l.starts[c].saturating_sub(l.columns_before(c));
            if let Some(r) = rect(l.starts[c] - gap, gap) {
                buf.set_style(r, row.fill);
            }
            let text: String = cell.spans.iter().map(|s| s.content.as_ref()).collect();
            let shown = if l.cuts[c] == Cut::Ellipsis && width(&text) > w {
                let style = cell.spans.first().map_or(cell.style, |s| s.style);
                Line::from(Span::styled(fit(&text, w), style))
            } else {
                cell.clone()
            };
            let used = width(&text).min(w);
            if let Some(r) = rect(l.starts[c], w) {
                shown.render(r, buf);
            }
            if row.open_end && Some(c) == last {
                continue;
            }
            if let Some(r) = rect(l.starts[c] + used, w - used) {
                buf.set_style(r, row.fill);
            }
        }
        let end = (0..row.cells.len().min(l.widths.len()))
            .filter(|&c| l.shown(c))
            .map(|c| l.starts[c] + l.width(c))
            .max()
            .unwrap_or(l.mark);
        if l.pressure == Pressure::Ellipsis && end > area.width as usize && area.width > 0 {
            buf[(right - 1, area.y)].set_symbol("…");
        }
        if let Some(over) = row.over {
            buf.set_style(Rect::new(area.x, area.y, area.width, 1), over);
        }
    }

    /// The row range of `len` rows a window of `height` rows starting at `first` shows.
    pub fn window(first: usize, len: usize, height: usize) -> Range<usize> {
        let first = first.min(len);
        first..(first + height).min(len)
    }
}

impl Widget for DataTable<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let mut y = area.y;
        let line = |y: u16| Rect::new(area.x, y, area.width, 1);
        if let Some(header) = &self.header {
            if y >= area.bottom() {
                return;
            }
            self.draw_row(header, false, line(y), buf);
            y += 1;
        }
        for (k, row) in self.rows.iter().enumerate() {
            if y >= area.bottom() {
                break;
            }
            self.draw_row(row, self.marked == Some(k), line(y), buf);
            y += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTENT: Width = Width::Content { min: 0, max: 99 };

    fn draw(table: DataTable<'_>, w: u16, h: u16) -> Vec<String> {
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        table.render(area, &mut buf);
        (0..h)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect()
    }

    #[test]
    fn a_fill_column_takes_what_the_others_leave() {
        let columns = Columns::new(vec![
            Column::new(Width::Fixed(3)).gap(0),
            Column::new(Width::Fill { reserve: 4 }),
            Column::new(CONTENT),
        ])
        .with_mark(1);
        let l = columns.resolve(&[0, 0, 5], 30);
        assert_eq!(l.widths, vec![Some(3), Some(19), Some(5)]);
        assert_eq!(l.starts, vec![1, 5, 25]);
        // Two fills share the room, the first taking the odd cell.
        let two = Columns::new(vec![
            Column::new(Width::Fill { reserve: 0 }).gap(0),
            Column::new(Width::Fill { reserve: 0 }),
        ]);
        assert_eq!(two.resolve(&[], 10).widths, vec![Some(5), Some(4)]);
    }

    #[test]
    fn content_columns_are_as_wide_as_their_widest_cell_within_bounds() {
        let columns = Columns::new(vec![
            Column::new(Width::Content { min: 4, max: 6 }).gap(0),
            Column::new(Width::Content { min: 4, max: 6 }),
            Column::new(Width::Content { min: 4, max: 6 }),
        ]);
        let l = columns.resolve(&[2, 5, 9], 80);
        assert_eq!(l.widths, vec![Some(4), Some(5), Some(6)]);
    }

    #[test]
    fn under_pressure_columns_give_way_whole_lowest_rank_first() {
        let columns = Columns::new(vec![
            Column::new(Width::Fixed(4)).gap(0),
            Column::new(Width::Fixed(5)).gap(2).gives_way(1),
            Column::new(Width::Fixed(5)).gap(2).gives_way(0),
            Column::new(Width::Fill { reserve: 6 }).gap(2),
        ]);
        // 4 + 7 + 7 + 8 = 26 cells wanted.
        assert_eq!(
            columns.resolve(&[], 26).widths,
            vec![Some(4), Some(5), Some(5), Some(6)]
        );
        // One short: the rank-0 column goes first, the fill gets its room back.
        assert_eq!(
            columns.resolve(&[], 25).widths,
            vec![Some(4), Some(5), None, Some(12)]
        );
        assert_eq!(
            columns.resolve(&[], 18).widths,
            vec![Some(4), None, None, Some(12)]
        );
        // Nothing left to drop: the fill takes what is left, down to nothing; the others keep
        // their widths (a number is never cut) and the row runs past the edge.
        assert_eq!(
            columns.resolve(&[], 5).widths,
            vec![Some(4), None, None, Some(0)]
        );
    }

    #[test]
    fn shrinking_under_pressure_is_what_a_ratatui_table_does() {
        // The overview's columns in 38 cells: the same widths ratatui's Table drew.
        let columns = Columns::new(vec![
            Column::new(Width::Fixed(2)).gap(0),
            Column::new(Width::Fixed(16)),
            Column::new(Width::Fixed(6)),
            Column::new(Width::Fixed(9)),
            Column::new(Width::Fixed(9)),
            Column::new(Width::Fill { reserve: 4 }),
        ])
        .with_mark(1)
        .shrink_under_pressure();
        let l = columns.resolve(&[], 38);
        assert_eq!(
            l.widths,
            vec![Some(2), Some(6), Some(6), Some(7), Some(7), Some(4)]
        );
        assert_eq!(l.starts, vec![1, 4, 11, 18, 26, 34]);
        // With room, exactly the fixed widths and the rest to the fill.
        let wide = columns.resolve(&[], 78);
        assert_eq!(wide.widths[5], Some(30));
    }

    #[test]
    fn the_selection_stays_in_view() {
        let s = |selected, offset| ListCursor { selected, offset };
        // Inside the window: the offset stays.
        assert_eq!(s(5, 3).first_visible(20, 4), 3);
        // Below it: the window follows down; above it: up.
        assert_eq!(s(9, 3).first_visible(20, 4), 6);
        assert_eq!(s(1, 3).first_visible(20, 4), 1);
        // An offset past the rows is brought back.
        assert_eq!(s(0, 50).first_visible(3, 4), 0);
    }

    #[test]
    fn rows_draw_in_their_columns_with_the_mark_and_cut_rules() {
        let columns = Columns::new(vec![
            Column::new(Width::Fixed(6)).gap(0).ellipsis(),
            Column::new(Width::Fixed(3)),
        ])
        .with_mark(1);
        let l = columns.resolve(&[], 12);
        let rows = vec![
            TableRow::new(vec![Line::raw("a_long_name"), Line::raw("  1")]),
            TableRow::new(vec![Line::raw("short"), Line::raw("999")]),
        ];
        let table = DataTable::new(&l)
            .header(TableRow::new(vec![Line::raw("tool"), Line::raw("  n")]))
            .rows(rows)
            .mark(Some(1), "▌");
        assert_eq!(
            draw(table, 12, 4),
            [
                " tool     n ",
                " a_lon…   1 ",
                "▌short  999 ",
                "            "
            ]
        );
    }

    #[test]
    fn a_row_too_wide_is_clipped_or_cut_with_an_ellipsis() {
        let columns = || {
            Columns::new(vec![
                Column::new(Width::Fixed(4)).gap(0),
                Column::new(Width::Fixed(4)),
            ])
        };
        let row = || TableRow::new(vec![Line::raw("abcd"), Line::raw("efgh")]);
        let clipped = columns().resolve(&[], 7);
        assert_eq!(
            draw(DataTable::new(&clipped).rows(vec![row()]), 7, 1),
            ["abcd ef"]
        );
        let cut = columns().ellipsis_under_pressure().resolve(&[], 7);
        assert_eq!(
            draw(DataTable::new(&cut).rows(vec![row()]), 7, 1),
            ["abcd e…"]
        );
    }

    #[test]
    fn the_fill_styles_gaps_and_padding_but_never_a_cell() {
        use ratatui::style::{Color, Modifier};
        let columns = Columns::new(vec![
            Column::new(Width::Fixed(3)).gap(0),
            Column::new(Width::Fixed(3)),
        ]);
        let l = columns.resolve(&[], 7);
        let fill = Style::new().add_modifier(Modifier::REVERSED);
        let red = Style::new().fg(Color::Red);
        let row = TableRow::new(vec![Line::styled("ab", red), Line::raw("c")]).fill(fill);
        let area = Rect::new(0, 0, 7, 1);
        let mut buf = Buffer::empty(area);
        DataTable::new(&l).rows(vec![row]).render(area, &mut buf);
        assert_eq!(buf[(0, 0)].style().fg, Some(Color::Red));
        assert!(!buf[(0, 0)].modifier.contains(Modifier::REVERSED));
        // The cell's padding, the gap and the second cell's padding take the fill.
        for x in [2, 3, 5, 6] {
            assert!(
                buf[(x, 0)].modifier.contains(Modifier::REVERSED),
                "cell {x}"
            );
        }
    }
}

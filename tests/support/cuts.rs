//! Finding text cut without a mark on a drawn screen (issue 31: every text either fits, wraps,
//! scrolls or ends in a visible mark).

/// Characters that end or mark a shortened text: the reader knows there is more.
const CUT_MARKS: &[char] = &['…', '›', '»', '‹', '⋯', '↪', '▏', '→'];

fn is_border(c: char) -> bool {
    matches!(
        c,
        '┃' | '│' | '┏' | '┓' | '┗' | '┛' | '┌' | '┐' | '└' | '┘' | '━' | '─'
    )
}

/// Words of a screen: runs of characters between blanks and borders.
fn words_of(screen: &str) -> std::collections::HashSet<String> {
    screen
        .split(|c: char| c.is_whitespace() || is_border(c))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The left border columns of every box on a screen, with the rows each spans: text that
/// ends against one is the screen under an overlay, hidden, not cut.
fn left_borders(rows: &[Vec<char>]) -> Vec<(usize, std::ops::Range<usize>)> {
    let mut borders = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, &c) in row.iter().enumerate() {
            if matches!(c, '┏' | '┌') {
                let end = (y + 1..rows.len())
                    .find(|&yy| matches!(rows[yy].get(x), Some('┗' | '└')))
                    .unwrap_or(rows.len() - 1);
                borders.push((x, y..end + 1));
            }
        }
    }
    borders
}

/// Every word that runs into a border or the screen's right edge and is neither marked nor a
/// whole word of the same screen drawn wide (where nothing is cut): `(row, word)`.
pub fn unmarked_cuts(narrow: &str, wide: &str) -> Vec<(usize, String)> {
    let whole = words_of(wide);
    let rows: Vec<Vec<char>> = narrow.lines().map(|l| l.chars().collect()).collect();
    let lefts = left_borders(&rows);
    let mut cuts = Vec::new();
    for (y, row) in rows.iter().enumerate() {
        for x in 0..row.len() {
            let at_edge = x + 1 == row.len();
            let against_border = row
                .get(x + 1)
                .is_some_and(|&c| matches!(c, '┃' | '│' | '┐' | '┓' | '┘' | '┛'));
            if !(at_edge || against_border) || row[x].is_whitespace() || is_border(row[x]) {
                continue;
            }
            if against_border && lefts.iter().any(|(bx, ys)| *bx == x + 1 && ys.contains(&y)) {
                continue;
            }
            let start = (0..=x)
                .rev()
                .take_while(|&i| !row[i].is_whitespace() && !is_border(row[i]))
                .last()
                .unwrap_or(x);
            let word: String = row[start..=x].iter().collect();
            // Bars and blocks are drawn to a length, not cut from a word.
            let drawn = word.chars().all(|c| {
                ('\u{2580}'..='\u{259f}').contains(&c)
                    || ('\u{2800}'..='\u{28ff}').contains(&c)
                    || "•·○●".contains(c)
            });
            if drawn || word.chars().any(|c| CUT_MARKS.contains(&c)) || whole.contains(&word) {
                continue;
            }
            cuts.push((y, word));
        }
    }
    cuts
}

//! Aligned text tables for people (`calib fit`, `calib budget`, `calib
//! backtest`): one format for all of them.
//!
//! Columns are as wide as their widest cell, counted in characters (`char`s,
//! as a terminal showing ASCII and Latin text counts them), two spaces apart;
//! a rule of dashes runs under the header; trailing spaces are cut from every
//! line. Padding is written out, never asked of `format!`'s width argument:
//! that is limited to 65,535, and a stratum label is data of any length.
//!
//! A cell may carry a style (a status word that needs attention). The style's
//! escape codes wrap the cell's text only, never its padding, so widths do not
//! depend on them; the command writes the table through
//! [`crate::output::write_table`], which keeps them on a colour terminal and
//! removes them everywhere else.

use std::fmt;

use anstyle::Style;

/// Where a cell sits in its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// One cell: its text and, for the few that need attention, a style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cell {
    text: String,
    style: Style,
}

impl Cell {
    pub fn styled(text: impl Into<String>, style: Style) -> Cell {
        Cell {
            text: text.into(),
            style,
        }
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell::styled(text, Style::new())
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Cell {
        Cell::from(text.to_string())
    }
}

/// A header and rows of cells. A row may have fewer cells than the header;
/// it then ends early.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    rows: Vec<Vec<Cell>>,
    align: Vec<Align>,
}

const GAP: &str = "  ";

impl Table {
    /// A table with this header, every column aligned left.
    pub fn new(header: Vec<String>) -> Table {
        Table {
            align: vec![Align::Left; header.len()],
            rows: vec![header.into_iter().map(Cell::from).collect()],
        }
    }

    /// Aligns each column as `align(column index)` says.
    pub fn aligned(mut self, align: impl Fn(usize) -> Align) -> Table {
        self.align = (0..self.align.len()).map(align).collect();
        self
    }

    pub fn push<C: Into<Cell>>(&mut self, row: Vec<C>) {
        self.rows.push(row.into_iter().map(Into::into).collect());
    }

    fn widths(&self) -> Vec<usize> {
        let columns = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        (0..columns)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|row| row.get(c))
                    .map(|cell| cell.text.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }
}

fn push_spaces(line: &mut String, n: usize) {
    line.extend(std::iter::repeat_n(' ', n));
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let widths = self.widths();
        let mut line = String::new();
        for (i, row) in self.rows.iter().enumerate() {
            line.clear();
            for (c, cell) in row.iter().enumerate() {
                if c > 0 {
                    line.push_str(GAP);
                }
                let fill = widths[c] - cell.text.chars().count();
                let right = self.align.get(c) == Some(&Align::Right);
                if right {
                    push_spaces(&mut line, fill);
                }
                // `{style}` and `{style:#}` are empty for a plain cell.
                let style = cell.style;
                line.push_str(&format!("{style}{}{style:#}", cell.text));
                if !right {
                    push_spaces(&mut line, fill);
                }
            }
            f.write_str(line.trim_end())?;
            f.write_str("\n")?;
            if i == 0 {
                let width =
                    widths.iter().sum::<usize>() + GAP.len() * widths.len().saturating_sub(1);
                f.write_str(&"-".repeat(width))?;
                f.write_str("\n")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn columns_take_the_width_of_their_widest_cell_in_characters() {
        let mut table = Table::new(cells(&["name", "n"])).aligned(|c| {
            if c == 1 {
                Align::Right
            } else {
                Align::Left
            }
        });
        table.push(cells(&["é", "1000"]));
        let text = table.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines, ["name     n", "----------", "é     1000"]);
    }

    #[test]
    fn a_cell_wider_than_a_format_width_is_padded_whole() {
        let long = "x".repeat(70_000);
        let mut table = Table::new(cells(&["stratum", "units"]));
        table.push(vec![long.clone(), "3".into()]);
        let text = table.to_string();
        let header = text.lines().next().unwrap();
        assert_eq!(header.len(), 70_000 + 2 + "units".len());
        assert!(text.contains(&format!("{long}  3\n")));
    }

    #[test]
    fn a_style_wraps_the_text_and_leaves_the_columns_where_they_were() {
        let red = Style::new().fg_color(Some(anstyle::AnsiColor::Red.into()));
        let mut plain = Table::new(cells(&["stratum", "status", "n"]));
        plain.push(cells(&["d=a", "over_cap", "1"]));
        let mut styled = Table::new(cells(&["stratum", "status", "n"]));
        styled.push(vec![
            Cell::from("d=a"),
            Cell::styled("over_cap", red),
            Cell::from("1"),
        ]);
        let text = styled.to_string();
        assert!(
            text.contains(&format!("{red}over_cap{red:#}  1")),
            "{text:?}"
        );
        let stripped = text
            .replace(&red.render().to_string(), "")
            .replace(&red.render_reset().to_string(), "");
        assert_eq!(stripped, plain.to_string());
    }
}

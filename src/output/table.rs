//! Aligned text tables for people (`calib fit`, `calib budget`).
//!
//! Columns are as wide as their widest cell, counted in characters (`char`s,
//! as a terminal showing ASCII and Latin text counts them), two spaces apart;
//! trailing spaces are cut from every line. Padding is written out, never
//! asked of `format!`'s width argument: that is limited to 65,535, and a
//! stratum label is data of any length.

use std::fmt;

/// Where a cell sits in its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// A header and rows of cells. A row may have fewer cells than the header;
/// it then ends early.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    rows: Vec<Vec<String>>,
    align: Vec<Align>,
    rule_under_header: bool,
}

const GAP: &str = "  ";

impl Table {
    /// A table with this header, every column aligned left.
    pub fn new(header: Vec<String>) -> Table {
        Table {
            align: vec![Align::Left; header.len()],
            rows: vec![header],
            rule_under_header: false,
        }
    }

    /// Aligns each column as `align(column index)` says.
    pub fn aligned(mut self, align: impl Fn(usize) -> Align) -> Table {
        self.align = (0..self.align.len()).map(align).collect();
        self
    }

    /// Draws a line of dashes, as wide as the header, under the header.
    pub(crate) fn with_rule(mut self) -> Table {
        self.rule_under_header = true;
        self
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    fn widths(&self) -> Vec<usize> {
        let columns = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        (0..columns)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|row| row.get(c))
                    .map(|cell| cell.chars().count())
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
                let fill = widths[c] - cell.chars().count();
                match self.align.get(c).copied().unwrap_or(Align::Left) {
                    Align::Left => {
                        line.push_str(cell);
                        push_spaces(&mut line, fill);
                    }
                    Align::Right => {
                        push_spaces(&mut line, fill);
                        line.push_str(cell);
                    }
                }
            }
            f.write_str(line.trim_end())?;
            f.write_str("\n")?;
            if i == 0 && self.rule_under_header {
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
        let mut table = Table::new(cells(&["name", "n"]))
            .aligned(|c| if c == 1 { Align::Right } else { Align::Left })
            .with_rule();
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
}

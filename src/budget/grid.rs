//! Per-stratum sizes, from one of two files told apart by the extension:
//!
//! * a **campaign grid** (`.toml`, [`crate::campaign::grid`]): each stratum's
//!   tasks are its cells, its units the grid's `units` (or
//!   `units_by_stratum`); the same file then derives each task's cell;
//! * a **sizes CSV** (any other name) with columns `stratum`, `units` and
//!   optionally `tasks` (the number of array tasks, e.g. seeds, in that
//!   stratum).

use std::collections::BTreeMap;
use std::path::Path;

use crate::campaign::grid::CampaignGrid;
use crate::error::{Error, Origin, Result};
use crate::stratum::Stratum;

/// A sizes CSV line starting with this byte is a comment.
const COMMENT: u8 = b'#';

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellSize {
    pub units: Option<u64>,
    pub tasks: Option<u64>,
    /// The sizes CSV's line that gave them, for messages (a campaign grid's
    /// strata come from its axes, not from a line).
    pub line: Option<u64>,
}

/// Sizes by canonical stratum.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    pub sizes: BTreeMap<String, CellSize>,
    /// The grid is the whole campaign (a campaign grid): the model's other
    /// strata are left out of the budget, since no task of theirs could
    /// derive a cell from it. A sizes CSV sizes some strata and leaves the
    /// rest to --units.
    pub whole_campaign: bool,
    /// The file the sizes were read from, for messages.
    pub origin: Option<Origin>,
}

/// Whether `path` names a campaign grid (TOML) rather than a sizes CSV: by
/// its extension, `.toml` in any case.
pub fn is_campaign_grid(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

impl Grid {
    /// The sizes of a campaign grid: per stratum its cells as tasks and its units.
    pub fn from_campaign(grid: &CampaignGrid) -> Grid {
        let sizes = grid
            .strata
            .iter()
            .map(|s| {
                let size = CellSize {
                    units: s.units,
                    tasks: Some(s.cells.len() as u64),
                    line: None,
                };
                (s.stratum.clone(), size)
            })
            .collect();
        Grid {
            sizes,
            whole_campaign: true,
            origin: Some(grid.origin.clone()),
        }
    }

    /// A refusal about the grid: at `line` of its file when it was read from
    /// one (a sizes CSV's row; a campaign grid's strata have no line).
    pub(crate) fn refusal(&self, line: Option<u64>, message: String) -> Error {
        match &self.origin {
            Some(origin) => Error::input(origin.clone(), line, message),
            None => Error::Refused(message),
        }
    }

    /// Reads a campaign grid (`.toml`) or a sizes CSV (see the module docs).
    pub fn load(path: &Path) -> Result<Grid> {
        if is_campaign_grid(path) {
            return Ok(Grid::from_campaign(&CampaignGrid::load(path)?));
        }
        let origin = Origin::file(path);
        let bytes = crate::limits::read_file_bounded(path, "the grid", &crate::limits::GRID)?;
        let text = crate::limits::into_text(bytes, &origin, &crate::limits::GRID)?;
        Grid::parse(&text, origin)
    }

    pub fn parse(text: &str, origin: Origin) -> Result<Grid> {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(false)
            .comment(Some(COMMENT))
            .from_reader(text.as_bytes());
        // The header's own line: comments and blank lines may come first.
        let header_line =
            crate::limits::csv_record_line(text.as_bytes(), &csv::Position::new(), Some(COMMENT));
        let header = reader
            .headers()
            .map_err(|e| {
                Error::input(
                    origin.clone(),
                    Some(header_line),
                    format!("cannot read the header: {e}"),
                )
            })?
            .clone();
        let columns = crate::limits::columns_by_name(&header, &origin, header_line)?;
        let column = |name: &str| columns.get(name).copied();
        let stratum_col = column("stratum").ok_or_else(|| {
            Error::input(
                origin.clone(),
                Some(header_line),
                "expected a header with a `stratum` column and `units` and/or `tasks`",
            )
        })?;
        let units_col = column("units");
        let tasks_col = column("tasks");
        if units_col.is_none() && tasks_col.is_none() {
            return Err(Error::input(
                origin.clone(),
                Some(header_line),
                "expected a `units` or `tasks` column beside `stratum`",
            ));
        }
        let mut grid = Grid {
            sizes: BTreeMap::new(),
            whole_campaign: false,
            origin: Some(origin.clone()),
        };
        let record_line =
            |p: &csv::Position| crate::limits::csv_record_line(text.as_bytes(), p, Some(COMMENT));
        for record in reader.records() {
            let record = record.map_err(|e| {
                let line = e.position().map(record_line);
                let message = match e.kind() {
                    csv::ErrorKind::UnequalLengths {
                        expected_len, len, ..
                    } => format!(
                        "{len} field(s) where the header has {expected_len}; expected one field per column (a field that holds a comma is quoted whole: \"a,b\")"
                    ),
                    _ => format!("not valid CSV: {e}"),
                };
                Error::input(origin.clone(), line, message)
            })?;
            let line = record.position().map(record_line);
            let bad = |m: String| Error::input(origin.clone(), line, m);
            let stratum = Stratum::parse(record.get(stratum_col).unwrap_or(""))
                .map_err(|e| bad(format!("`stratum`: {e}")))?
                .canonical();
            let count = |col: Option<usize>, name: &str| -> Result<Option<u64>> {
                match col.map(|c| record.get(c).unwrap_or("").trim()) {
                    None | Some("") => Ok(None),
                    Some(text) => match crate::limits::parse_count(text) {
                        Some(n) => Ok(Some(n)),
                        None => Err(bad(format!(
                            "`{name}` is `{text}`; expected {}",
                            crate::limits::COUNT_EXPECTED
                        ))),
                    },
                }
            };
            let size = CellSize {
                units: count(units_col, "units")?,
                tasks: count(tasks_col, "tasks")?,
                line,
            };
            if let Some(tasks) = size.tasks {
                if let Some(why) = crate::slurm::sacct::tasks_past_max(tasks) {
                    return Err(bad(format!("`tasks` is {tasks}; {why}")));
                }
            }
            if grid.sizes.insert(stratum.clone(), size).is_some() {
                return Err(bad(format!("stratum `{stratum}` is listed twice")));
            }
        }
        Ok(grid)
    }
}

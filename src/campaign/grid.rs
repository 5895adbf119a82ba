//! The campaign grid file: axes, stratum, output template and units, from
//! which every cell, its array index, its tag and its output path are derived.
//!
//! ```toml
//! stratum = ["dataset"]                         # the axes that form the stratum
//! output = "results/{dataset}/{tag}.jsonl"      # one path per cell, refused if two collide
//! units = 100                                   # units per run (optional)
//!
//! [axes]                                        # in this order; the last varies fastest
//! dataset = ["X", "Y"]
//! seed = [0, 1, 2]
//!
//! [units_by_stratum]                            # optional: a stratum's own units
//! "dataset=Y" = 60
//! ```
//!
//! Why TOML, not CSV like the other inputs: a grid is a few named lists of
//! values of different lengths (3 datasets, 5 seeds), which a CSV row cannot
//! hold without a second syntax inside its cells, and TOML's parser reports
//! the line of a mistake. The older sizes CSV of `calib budget --grid`
//! ([`crate::budget::grid`]) stays: it sizes strata, it does not derive cells.
//!
//! Derivation (the assumptions a job relies on):
//! - **Axes** keep the file's order (sorted by where each list starts in the
//!   text); values are strings or integers, distinct within an axis, taken as
//!   text byte for byte (a value may hold quotes, `$()`, newlines: it reaches
//!   the job through [`crate::shell::quote`]).
//! - **Strata** are the combinations of the stratum axes' values, in axis
//!   order (last fastest); their values must be valid stratum labels
//!   ([`Stratum::insert`]: no `,`, `=` or control character). With no stratum
//!   axes the whole grid is one stratum, `(all)`.
//! - **Index**: within a stratum, the cells over the other axes in axis order,
//!   last fastest, numbered 0 to n-1: stratum `dataset=Y`'s array is
//!   `--array=0-(n-1)`. An index outside that range is refused, never wrapped:
//!   wrapping would put an oversized array's extra tasks onto cell 0's tag.
//! - **Tag**: `name-value` pairs of every axis joined by `_`, characters other
//!   than `[A-Za-z0-9.-]` written `_`; when that changed a value, or the tag
//!   would exceed [`TAG_MAX`], it is cut and ends with `-h` and the FNV-1a hash
//!   of the exact values (stable across machines and Rust releases). Tags are
//!   checked unique over the whole grid.
//! - **Output**: the template with `{axis}`, `{tag}`, `{stratum}` (the
//!   stratum's slug) and `{index}` filled in (`{{` and `}}` for braces). Two
//!   cells given one path are refused, naming both: they would overwrite each
//!   other's results.
//! - **Variables**: a cell is handed to a job as shell assignments, one per
//!   axis named as the axis, plus `CALIB_TAG` and `CALIB_OUTPUT`; so an axis
//!   name must be a shell identifier and not one of the variables a shell or
//!   Slurm depends on ([`refuse_variable_name`]).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hasher;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::error::{Error, Origin, Result};
use crate::limits::{line_of, MAX_COUNT};
use crate::stratum::{display_name, Stratum, NO_STRATUM};

/// The longest tag: with an extension it fits one file name and stays
/// readable in a log line.
pub const TAG_MAX: usize = 64;

/// Hex digits of the hash that ends a tag whose values had to be changed.
const TAG_HASH_DIGITS: usize = 16;

/// The most cells a grid may have: far above any campaign one person
/// submits, low enough that listing them stays quick.
pub const MAX_CELLS: usize = 1_000_000;

/// The variables `calib grid cell` sets besides the axes.
pub const TAG_VARIABLE: &str = "CALIB_TAG";
pub const OUTPUT_VARIABLE: &str = "CALIB_OUTPUT";

/// The file as written, each part with its place in the text for messages.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrid {
    axes: Spanned<BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>>,
    #[serde(default)]
    stratum: Option<Spanned<Vec<Spanned<String>>>>,
    output: Spanned<String>,
    #[serde(default)]
    units: Option<Spanned<i64>>,
    #[serde(default)]
    units_by_stratum: Option<BTreeMap<String, Spanned<i64>>>,
}

/// One axis: its name and its values as text, in the file's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    pub name: String,
    pub values: Vec<String>,
}

/// One cell of the grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The stratum's canonical text (`dataset=Y`; empty for `(all)`).
    pub stratum: String,
    /// The array index inside the stratum's array.
    pub index: u64,
    /// (axis, value) for every axis, in axis order.
    pub values: Vec<(String, String)>,
    pub tag: String,
    pub output: String,
}

/// The cells of one stratum, which is one array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StratumCells {
    pub stratum: String,
    /// Units per run, when the grid says (`units_by_stratum`, else `units`).
    pub units: Option<u64>,
    pub cells: Vec<Cell>,
}

/// A checked grid file.
#[derive(Debug, Clone)]
pub struct CampaignGrid {
    pub origin: Origin,
    pub axes: Vec<Axis>,
    pub stratum_axes: Vec<String>,
    pub output_template: String,
    pub strata: Vec<StratumCells>,
}

/// Refuses `name` as the name of a variable a job's shell gets: it must be a
/// shell identifier (`[A-Za-z_][A-Za-z0-9_]*`), and not a variable the
/// shell, Slurm or calib itself relies on (an axis called `PATH` or `IFS`
/// would break every command after the assignments).
pub fn refuse_variable_name(name: &str) -> std::result::Result<(), String> {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return Err(format!(
            "axis name `{}` is not a shell variable name (letters, digits and _, not starting with a digit): \
             `calib grid cell` sets one variable per axis, named as the axis",
            name.escape_debug()
        ));
    }
    const SHELL: &[&str] = &[
        "PATH",
        "IFS",
        "HOME",
        "PWD",
        "OLDPWD",
        "SHELL",
        "ENV",
        "CDPATH",
        "PS1",
        "PS2",
        "PS4",
        "OPTIND",
        "OPTARG",
        "LANG",
        "USER",
        "UID",
        "EUID",
        "PPID",
        "TMPDIR",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        // Read-only in bash (assigning one ends the job's shell), or read by
        // the shell and the C library on every command.
        "SHELLOPTS",
        "POSIXLY_CORRECT",
        "TZ",
        "TERM",
        "LANGUAGE",
        "LOGNAME",
        "HOSTNAME",
        "TMOUT",
        "PROMPT_COMMAND",
        "FUNCNAME",
        "GROUPS",
        "RANDOM",
        "SECONDS",
        "LINENO",
    ];
    let reserved = SHELL.contains(&name)
        || ["SLURM_", "CALIB_", "BASH", "LC_"]
            .iter()
            .any(|p| name.starts_with(p));
    if reserved {
        return Err(format!(
            "axis name `{name}` is a variable the job's shell, Slurm or calib relies on; \
             `calib grid cell` would overwrite it: rename the axis (e.g. `{}`)",
            name.to_ascii_lowercase()
        ));
    }
    Ok(())
}

/// A path as the file system resolves it without looking: `.` components,
/// repeated and trailing `/` dropped, so that `a/out`, `./a/out` and
/// `a//out` are one file. `..` is kept (a symbolic link may make `a/..` other
/// than `.`), so such paths are compared as written.
fn same_file_key(path: &str) -> String {
    let absolute = path.starts_with('/');
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// A piece of the output template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Field(String),
}

/// Splits the output template into text and `{field}`s; `{{` and `}}` are
/// literal braces.
fn parse_template(template: &str) -> std::result::Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                text.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                text.push('}');
            }
            '{' => {
                let mut name = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => name.push(c),
                        None => {
                            return Err(format!(
                                "the output template has a `{{` without its `}}` (write `{{{{` for a literal brace): `{template}`"
                            ))
                        }
                    }
                }
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Field(name));
            }
            '}' => {
                return Err(format!(
                    "the output template has a `}}` without its `{{` (write `}}}}` for a literal brace): `{template}`"
                ))
            }
            c => text.push(c),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// The tag of a cell (see the module docs).
pub fn cell_tag(values: &[(String, String)]) -> String {
    let mut changed = false;
    let raw = values
        .iter()
        .map(|(name, value)| {
            let safe: String = value
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                        c
                    } else {
                        changed = true;
                        '_'
                    }
                })
                .collect();
            format!("{name}-{safe}")
        })
        .collect::<Vec<_>>()
        .join("_");
    if !changed && raw.len() <= TAG_MAX && !raw.is_empty() {
        return raw;
    }
    let mut hasher = fnv::FnvHasher::default();
    for (name, value) in values {
        hasher.write(name.as_bytes());
        hasher.write(&[0]);
        hasher.write(value.as_bytes());
        hasher.write(&[0]);
    }
    // `raw` is ASCII, so any byte index is a character boundary.
    let keep = raw.len().min(TAG_MAX - TAG_HASH_DIGITS - 2);
    format!(
        "{}-h{:0width$x}",
        &raw[..keep],
        hasher.finish(),
        width = TAG_HASH_DIGITS
    )
}

impl CampaignGrid {
    pub fn load(path: &Path) -> Result<CampaignGrid> {
        let origin = Origin::file(path);
        let bytes = crate::limits::read_file_bounded(path, "the grid", &crate::limits::GRID)?;
        let text = crate::limits::into_text(bytes, &origin, &crate::limits::GRID)?;
        CampaignGrid::parse(&text, origin)
    }

    pub fn parse(text: &str, origin: Origin) -> Result<CampaignGrid> {
        let at = |offset: usize, message: String| {
            Error::input(
                origin.clone(),
                Some(line_of(text.as_bytes(), offset)),
                message,
            )
        };
        let raw: RawGrid = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text.as_bytes(), s.start));
            Error::input(
                origin.clone(),
                line,
                format!(
                    "not a grid file: {} (expected TOML with `stratum`, `output`, `units` and an [axes] table)",
                    e.message().trim_end()
                ),
            )
        })?;

        // Axes in the file's order: where each list starts in the text.
        let axes_start = raw.axes.span().start;
        let mut listed: Vec<(String, Spanned<Vec<Spanned<toml::Value>>>)> =
            raw.axes.into_inner().into_iter().collect();
        listed.sort_by_key(|(_, values)| values.span().start);
        if listed.is_empty() {
            return Err(at(
                axes_start,
                "[axes] is empty; expected at least one axis, e.g. `seed = [0, 1, 2]`".into(),
            ));
        }
        let mut axes = Vec::new();
        // Where each axis's values are, for messages about one of them.
        let mut value_places: Vec<Vec<usize>> = Vec::new();
        let mut cells_total: usize = 1;
        for (name, values) in listed {
            let start = values.span().start;
            refuse_variable_name(&name).map_err(|m| at(start, m))?;
            let mut texts: Vec<String> = Vec::new();
            let mut places = Vec::new();
            // A set beside the list: an axis of 10^5 values is checked in
            // linear time, in every array task that derives its cell.
            let mut seen = std::collections::HashSet::new();
            for value in values.into_inner() {
                let place = value.span().start;
                let text = match value.into_inner() {
                    toml::Value::String(s) => s,
                    toml::Value::Integer(i) => i.to_string(),
                    other => {
                        return Err(at(
                            place,
                            format!(
                                "axis `{name}`: a value is a {}; expected a string or an integer",
                                other.type_str()
                            ),
                        ))
                    }
                };
                if text.contains('\0') {
                    return Err(at(
                        place,
                        format!(
                            "axis `{name}`: a value holds a NUL character, which no shell variable can carry; \
                             the task would see another value than `calib grid show` lists"
                        ),
                    ));
                }
                if !seen.insert(text.clone()) {
                    return Err(at(
                        place,
                        format!(
                            "axis `{name}` lists `{}` twice; two cells would be the same",
                            text.escape_debug()
                        ),
                    ));
                }
                texts.push(text);
                places.push(place);
            }
            if texts.is_empty() {
                return Err(at(
                    start,
                    format!("axis `{name}` has no values; expected a list such as [0, 1, 2]"),
                ));
            }
            cells_total = cells_total.saturating_mul(texts.len());
            if cells_total > MAX_CELLS {
                return Err(at(
                    start,
                    format!("the grid has more than {MAX_CELLS} cells; split the campaign"),
                ));
            }
            axes.push(Axis {
                name,
                values: texts,
            });
            value_places.push(places);
        }

        let mut stratum_axes: Vec<String> = Vec::new();
        if let Some(list) = raw.stratum {
            for name in list.into_inner() {
                let place = name.span().start;
                let name = name.into_inner();
                let Some(k) = axes.iter().position(|a| a.name == name) else {
                    return Err(at(
                        place,
                        format!(
                            "`stratum` names `{name}`, which is not an axis; the axes are {}",
                            axes.iter()
                                .map(|a| a.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                };
                if stratum_axes.contains(&name) {
                    return Err(at(place, format!("`stratum` names `{name}` twice")));
                }
                // A stratum's values become labels in job names, comments and
                // timings (and `;` would split CALIB_STRATUM: Stratum refuses it).
                for (value, &place) in axes[k].values.iter().zip(&value_places[k]) {
                    let mut probe = Stratum::default();
                    probe
                        .insert(&name, value)
                        .map_err(|m| at(place, format!("axis `{name}` forms the stratum, so its values are stratum labels: {m}")))?;
                    if value.trim() != value || value.is_empty() {
                        return Err(at(
                            place,
                            format!("axis `{name}` forms the stratum, so its values are stratum labels: `{value}` is empty or has spaces at an end"),
                        ));
                    }
                }
                stratum_axes.push(name);
            }
        }

        let units = |value: &Spanned<i64>, what: &str| -> Result<u64> {
            let n = *value.get_ref();
            u64::try_from(n)
                .ok()
                .filter(|n| (1..=MAX_COUNT).contains(n))
                .ok_or_else(|| {
                    at(
                        value.span().start,
                        format!("{what} is {n}; expected a whole number from 1 to {MAX_COUNT}"),
                    )
                })
        };
        let default_units = raw
            .units
            .as_ref()
            .map(|u| units(u, "`units`"))
            .transpose()?;

        let output_place = raw.output.span().start;
        let template = raw.output.into_inner();
        let pieces = parse_template(&template).map_err(|m| at(output_place, m))?;
        for piece in &pieces {
            if let Piece::Field(name) = piece {
                let known = ["tag", "stratum", "index"].contains(&name.as_str())
                    || axes.iter().any(|a| &a.name == name);
                if !known {
                    return Err(at(
                        output_place,
                        format!(
                            "the output template uses `{{{name}}}`, which is neither an axis ({}) nor tag, stratum or index",
                            axes.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    ));
                }
            }
        }
        if template.trim().is_empty() {
            return Err(at(
                output_place,
                "`output` is empty; expected a path template such as \"results/{tag}.jsonl\""
                    .into(),
            ));
        }

        let strata = enumerate(&axes, &stratum_axes, &pieces);
        let mut grid = CampaignGrid {
            origin: origin.clone(),
            axes,
            stratum_axes,
            output_template: template,
            strata,
        };
        for s in &mut grid.strata {
            s.units = default_units;
        }
        if let Some(by) = &raw.units_by_stratum {
            // Two keys may name one stratum (labels in another order, spaces
            // around them); which one would win is the map's order, not the
            // user's, so that is refused.
            let mut seen: HashMap<String, &str> = HashMap::new();
            for (key, value) in by {
                let canonical = Stratum::parse(key).map(|s| s.canonical()).map_err(|m| {
                    at(
                        value.span().start,
                        format!("[units_by_stratum] `{key}`: {m}"),
                    )
                })?;
                if let Some(first) = seen.insert(canonical.clone(), key) {
                    return Err(at(
                        value.span().start,
                        format!(
                            "[units_by_stratum] names stratum `{}` twice, as `{first}` and as `{key}`; keep one",
                            display_name(&canonical)
                        ),
                    ));
                }
                let n = units(value, &format!("[units_by_stratum] `{key}`"))?;
                let Some(s) = grid.strata.iter_mut().find(|s| s.stratum == canonical) else {
                    return Err(at(
                        value.span().start,
                        format!(
                            "[units_by_stratum] names `{key}`, which is not a stratum of this grid; its strata are {}",
                            grid.strata_list()
                        ),
                    ));
                };
                s.units = Some(n);
            }
        }
        grid.refuse_collisions(text, output_place)?;
        Ok(grid)
    }

    /// The strata, for messages: `dataset=X, dataset=Y`.
    fn strata_list(&self) -> String {
        self.strata
            .iter()
            .map(|s| display_name(&s.stratum))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Refuses a cell whose output path is no file's, and two cells with one
    /// tag or one output path.
    fn refuse_collisions(&self, text: &str, output_place: usize) -> Result<()> {
        let mut tags: HashMap<&str, &Cell> = HashMap::new();
        let name = |c: &Cell| {
            format!(
                "{} (stratum {}, index {})",
                crate::shell::comment_text(&describe_values(&c.values)),
                display_name(&c.stratum),
                c.index
            )
        };
        let mut paths: HashMap<String, &Cell> = HashMap::new();
        for cell in self.cells() {
            // Each cell's values make its path: one value can leave it no
            // file to write (empty, `.`, `..`, a folder) or break the line
            // it is exported on.
            let unusable = if cell.output.trim().is_empty() {
                Some("which is empty".to_string())
            } else if cell.output.ends_with('/')
                || std::path::Path::new(&cell.output).file_name().is_none()
            {
                Some("which names a folder, not a file".to_string())
            } else {
                crate::shell::refuse_control("the path", &cell.output).err()
            };
            if let Some(why) = unusable {
                return Err(Error::input(
                    self.origin.clone(),
                    Some(line_of(text.as_bytes(), output_place)),
                    format!(
                        "the output template `{}` gives {} the path `{}`, {why}; expected a file path for each cell",
                        crate::shell::comment_text(&self.output_template),
                        name(cell),
                        crate::shell::comment_text(&cell.output),
                    ),
                ));
            }
            if let Some(first) = paths.insert(same_file_key(&cell.output), cell) {
                return Err(Error::input(
                    self.origin.clone(),
                    Some(line_of(text.as_bytes(), output_place)),
                    format!(
                        "the output template `{}` gives two cells the same path `{}`: {} and {}; \
                         they would overwrite each other's results. Put every axis that varies in it, or {{tag}}",
                        crate::shell::comment_text(&self.output_template),
                        crate::shell::comment_text(&cell.output),
                        name(first),
                        name(cell)
                    ),
                ));
            }
            if let Some(first) = tags.insert(&cell.tag, cell) {
                return Err(Error::input(
                    self.origin.clone(),
                    None,
                    format!(
                        "two cells get the same tag `{}`: {} and {}; rename a value",
                        cell.tag,
                        name(first),
                        name(cell)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Every cell, stratum by stratum, index by index.
    pub fn cells(&self) -> impl Iterator<Item = &Cell> {
        self.strata.iter().flat_map(|s| s.cells.iter())
    }

    /// The stratum named `text` (`dataset=Y,model=7B`, or with `;` between
    /// pairs as `$CALIB_STRATUM` carries it; empty or `(all)` for a grid
    /// without stratum axes).
    pub fn stratum(&self, text: &str) -> Result<&StratumCells> {
        let canonical = |t: &str| Stratum::parse(t).map(|s| s.canonical()).ok();
        let wanted = if text.trim() == NO_STRATUM {
            Some(String::new())
        } else {
            canonical(text)
        };
        let semicolons = canonical(&text.replace(';', ","));
        self.strata
            .iter()
            .find(|s| {
                Some(&s.stratum) == wanted.as_ref() || Some(&s.stratum) == semicolons.as_ref()
            })
            .ok_or_else(|| {
                Error::Refused(format!(
                    "--stratum `{}` is not a stratum of {}; its strata are {}",
                    crate::shell::comment_text(text),
                    self.origin,
                    self.strata_list()
                ))
            })
    }

    /// The cell at `index` of `stratum`'s array. `index` is the text of
    /// `$SLURM_ARRAY_TASK_ID`: digits only; anything else, and an index past
    /// the stratum's cells, is refused, never wrapped.
    pub fn cell(&self, stratum: &str, index: &str) -> Result<&Cell> {
        let s = self.stratum(stratum)?;
        let n = s.cells.len();
        let range = format!(
            "stratum {} of {} has {n} cell{} (indexes 0 to {})",
            display_name(&s.stratum),
            self.origin,
            if n == 1 { "" } else { "s" },
            n - 1
        );
        let shown = crate::shell::comment_text(index);
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
            return Err(Error::Refused(format!(
                "--index `{shown}` is not an array index (a whole number from 0); {range}. \
                 Is $SLURM_ARRAY_TASK_ID set? Submit with sbatch --array=0-{}",
                n - 1
            )));
        }
        let k = index.parse::<usize>().ok().filter(|&k| k < n);
        k.map(|k| &s.cells[k]).ok_or_else(|| {
            Error::Refused(format!(
                "--index {shown} is outside the grid: {range}. Refused, not wrapped: \
                 an --array larger than the stratum would run cells twice under one tag; submit --array=0-{}",
                n - 1
            ))
        })
    }
}

/// `dataset=X seed=0`: a cell's values on one line (control characters escaped
/// by the caller where the line goes to a log or a message).
pub fn describe_values(values: &[(String, String)]) -> String {
    values
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The line `calib grid cell` writes to stderr for the job's log: the
/// mapping from stratum and index to tag, output and values, on one line
/// (control characters escaped). `calib stage check` looks for it in each
/// smoke task's log.
pub fn cell_log_line(cell: &Cell) -> String {
    crate::shell::comment_text(&format!(
        "grid cell: stratum {} index {} -> tag {} output {} ({})",
        display_name(&cell.stratum),
        cell.index,
        cell.tag,
        cell.output,
        describe_values(&cell.values)
    ))
}

/// Every combination of the values of `axes` (indexes into them), in order,
/// the last axis fastest.
fn combinations(axes: &[&Axis]) -> Vec<Vec<usize>> {
    let mut all = vec![Vec::new()];
    for axis in axes {
        all = all
            .into_iter()
            .flat_map(|prefix: Vec<usize>| {
                (0..axis.values.len()).map(move |k| {
                    let mut next = prefix.clone();
                    next.push(k);
                    next
                })
            })
            .collect();
    }
    all
}

/// The strata and their cells (units are filled in by the caller).
fn enumerate(axes: &[Axis], stratum_axes: &[String], template: &[Piece]) -> Vec<StratumCells> {
    let in_stratum: Vec<&Axis> = axes
        .iter()
        .filter(|a| stratum_axes.contains(&a.name))
        .collect();
    let others: Vec<&Axis> = axes
        .iter()
        .filter(|a| !stratum_axes.contains(&a.name))
        .collect();
    let mut strata = Vec::new();
    for choice in combinations(&in_stratum) {
        let mut stratum = Stratum::default();
        let mut fixed: HashMap<&str, &str> = HashMap::new();
        for (axis, &k) in in_stratum.iter().zip(&choice) {
            // Checked in `parse`: stratum values are valid labels.
            let _ = stratum.insert(&axis.name, &axis.values[k]);
            fixed.insert(&axis.name, &axis.values[k]);
        }
        let canonical = stratum.canonical();
        let slug = stratum.slug();
        let mut cells = Vec::new();
        for (index, rest) in combinations(&others).into_iter().enumerate() {
            let mut chosen = fixed.clone();
            for (axis, &k) in others.iter().zip(&rest) {
                chosen.insert(&axis.name, &axis.values[k]);
            }
            let values: Vec<(String, String)> = axes
                .iter()
                .map(|a| (a.name.clone(), chosen[a.name.as_str()].to_string()))
                .collect();
            let tag = cell_tag(&values);
            let output = template
                .iter()
                .map(|piece| match piece {
                    Piece::Text(t) => t.clone(),
                    Piece::Field(f) => match f.as_str() {
                        "tag" => tag.clone(),
                        "stratum" => slug.clone(),
                        "index" => index.to_string(),
                        axis => chosen[axis].to_string(),
                    },
                })
                .collect();
            cells.push(Cell {
                stratum: canonical.clone(),
                index: index as u64,
                values,
                tag,
                output,
            });
        }
        strata.push(StratumCells {
            stratum: canonical,
            units: None,
            cells,
        });
    }
    strata
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<CampaignGrid> {
        CampaignGrid::parse(text, Origin::file("grid.toml"))
    }

    const DEMO: &str = r#"
stratum = ["dataset"]
output = "results/{dataset}/seed-{seed}.jsonl"
units = 100

[axes]
seed = [0, 1, 2]
dataset = ["X", "Y"]

[units_by_stratum]
"dataset=Y" = 60
"#;

    #[test]
    fn cells_are_numbered_within_their_stratum_in_file_order() {
        let grid = parse(DEMO).unwrap();
        // `seed` is listed first: the file's order, not the alphabet's.
        assert_eq!(grid.axes[0].name, "seed");
        let strata: Vec<(&str, Option<u64>, usize)> = grid
            .strata
            .iter()
            .map(|s| (s.stratum.as_str(), s.units, s.cells.len()))
            .collect();
        assert_eq!(
            strata,
            [("dataset=X", Some(100), 3), ("dataset=Y", Some(60), 3)]
        );
        let c = grid.cell("dataset=Y", "2").unwrap();
        assert_eq!(c.index, 2);
        assert_eq!(
            c.values,
            [("seed".into(), "2".into()), ("dataset".into(), "Y".into())]
        );
        assert_eq!(c.output, "results/Y/seed-2.jsonl");
        assert_eq!(c.tag, "seed-2_dataset-Y");
    }

    #[test]
    fn an_index_outside_the_stratum_or_not_a_number_is_refused_not_wrapped() {
        let grid = parse(DEMO).unwrap();
        for bad in [
            "3",
            "4",
            "-1",
            "",
            " 1",
            "1.0",
            "0x1",
            "99999999999999999999999",
        ] {
            let e = grid.cell("dataset=X", bad).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad}: {e}");
            assert!(e.to_string().contains("indexes 0 to 2"), "{bad}: {e}");
        }
        assert!(grid.cell("dataset=W", "0").is_err());
        // `$CALIB_STRATUM` writes `;` between pairs.
        let two = parse("stratum = [\"d\", \"m\"]\noutput = \"{tag}\"\n[axes]\nd = [\"x\"]\nm = [\"7B\"]\ns = [1, 2]\n").unwrap();
        assert_eq!(two.cell("d=x;m=7B", "1").unwrap().tag, "d-x_m-7B_s-2");
        assert_eq!(two.cell("m=7B,d=x", "0").unwrap().tag, "d-x_m-7B_s-1");
    }

    #[test]
    fn a_template_that_gives_two_cells_one_path_is_refused_naming_both() {
        let text = DEMO.replace("/seed-{seed}", "");
        let e = parse(&text).unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("grid.toml, line 3:"), "{m}");
        assert!(m.contains("results/X.jsonl"), "{m}");
        assert!(
            m.contains("seed=0 dataset=X") && m.contains("seed=1 dataset=X"),
            "{m}"
        );
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn hostile_values_get_distinct_tags_of_safe_characters() {
        let values = |v: &str| vec![("arg".to_string(), v.to_string())];
        let hostile = ["a b", "a_b", "a'b", "$(touch p)", "`x`", "a\nb", "a\\b", ""];
        let tags: Vec<String> = hostile.iter().map(|v| cell_tag(&values(v))).collect();
        for tag in &tags {
            assert!(
                tag.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
                "{tag}"
            );
            assert!(tag.len() <= TAG_MAX, "{tag}");
        }
        let unique: std::collections::HashSet<&String> = tags.iter().collect();
        assert_eq!(unique.len(), tags.len(), "{tags:?}");
        let long = "v".repeat(300);
        assert!(cell_tag(&values(&long)).len() <= TAG_MAX);
    }

    #[test]
    fn axis_names_must_be_harmless_shell_identifiers() {
        for bad in [
            "1x",
            "a-b",
            "a b",
            "x$(y)",
            "PATH",
            "IFS",
            "SLURM_JOB_ID",
            "CALIB_TAG",
            "",
        ] {
            assert!(refuse_variable_name(bad).is_err(), "{bad}");
        }
        for good in ["dataset", "_x", "seed2", "Model"] {
            assert!(refuse_variable_name(good).is_ok(), "{good}");
        }
        let e = parse("output = \"{tag}\"\n[axes]\n\"a-b\" = [1]\n").unwrap_err();
        assert!(e.to_string().starts_with("grid.toml, line 3:"), "{e}");
    }

    #[test]
    fn malformed_files_name_the_line() {
        let cases = [
            ("output = \"{tag}\"\n[axes]\nseed = [0, 1\n", 3),
            ("output = \"{tag}\"\n[axes]\nseed = [0, 1.5]\n", 3),
            ("output = \"{tag}\"\nunits = 0\n[axes]\nseed = [0]\n", 2),
            (
                "output = \"{tag}\"\nstratum = [\"data\"]\n[axes]\nseed = [0]\n",
                2,
            ),
            ("output = \"{nope}\"\n[axes]\nseed = [0]\n", 1),
            ("output = \"{tag\"\n[axes]\nseed = [0]\n", 1),
            ("output = \"{tag}\"\n[axes]\nseed = [0, 0]\n", 3),
            // The value's line, not the stratum list's.
            (
                "output = \"{tag}\"\nstratum = [\"d\"]\n[axes]\nd = [\"a,b\"]\n",
                4,
            ),
            ("output = \"{tag}\"\nunknown = 1\n[axes]\nseed = [0]\n", 2),
        ];
        for (text, line) in cases {
            let e = parse(text).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with(&format!("grid.toml, line {line}:")),
                "{text:?}: {e}"
            );
            assert_eq!(e.exit_code(), 2);
        }
    }

    #[test]
    fn the_template_fills_stratum_and_index_and_keeps_doubled_braces() {
        let grid = parse(
            "stratum = [\"d\"]\noutput = \"{{x}}/{stratum}/{index}-{seed}.txt\"\n[axes]\nd = [\"a b\"]\nseed = [7, 8]\n",
        )
        .unwrap();
        assert_eq!(grid.cell("d=a b", "1").unwrap().output, "{x}/d-a_b/1-8.txt");
        for bad in ["a}b", "{", "{seed"] {
            let text = format!("output = \"{bad}\"\n[axes]\nseed = [1]\n");
            assert!(parse(&text).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_grid_without_stratum_axes_is_one_stratum() {
        let grid = parse("output = \"r/{index}\"\n[axes]\nseed = [5, 6]\n").unwrap();
        assert_eq!(grid.strata.len(), 1);
        assert_eq!(grid.cell("(all)", "1").unwrap().output, "r/1");
        assert_eq!(grid.cell("", "0").unwrap().values[0].1, "5");
    }
}

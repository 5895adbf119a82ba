//! What `calib grid` prints: the cells as a table or JSON (`calib grid
//! show`), and one cell as shell assignments (`calib grid cell`); and what
//! `calib stage` prints: the files it wrote, and the trigger's checks.
//!
//! The assignments are read by a job's shell with `eval`, so every value goes
//! through the one quoter, [`crate::shell::quote`], and every name has been
//! checked as a harmless shell identifier when the grid was loaded
//! ([`super::grid::refuse_variable_name`]). Each line is `export NAME=VALUE`:
//! the variables reach the program the job script runs with `exec` as well as
//! the script itself.

use std::io;

use serde_json::{json, Map, Value};

use super::grid::{CampaignGrid, Cell as GridCell, OUTPUT_VARIABLE, TAG_VARIABLE};
use super::stage::{Outcome, Staged, Trigger};
use crate::output::table::{Align, Cell, Table};
use crate::shell::{comment_text, quote};

/// The assignments of `cell`, one `export NAME=VALUE` line each: the axes in
/// the grid's order, then `CALIB_TAG` and `CALIB_OUTPUT`.
pub fn assignments(cell: &GridCell) -> String {
    let mut text = String::new();
    let pairs = cell
        .values
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .chain([
            (TAG_VARIABLE, cell.tag.as_str()),
            (OUTPUT_VARIABLE, cell.output.as_str()),
        ]);
    for (name, value) in pairs {
        text.push_str("export ");
        text.push_str(name);
        text.push('=');
        text.push_str(&quote(value));
        text.push('\n');
    }
    text
}

/// `calib grid show --format table`: a row per cell, then the arrays.
pub fn write_table(grid: &CampaignGrid, out: &mut dyn io::Write) -> io::Result<()> {
    const HEADER: [(&str, Align); 5] = [
        ("stratum", Align::Left),
        ("index", Align::Right),
        ("tag", Align::Left),
        ("output", Align::Left),
        ("values", Align::Left),
    ];
    let mut table =
        Table::new(HEADER.iter().map(|(h, _)| h.to_string()).collect()).aligned(|c| HEADER[c].1);
    for cell in grid.cells() {
        table.push(vec![
            crate::stratum::display_name(&cell.stratum).to_string(),
            cell.index.to_string(),
            cell.tag.clone(),
            comment_text(&cell.output),
            comment_text(&super::grid::describe_values(&cell.values)),
        ]);
    }
    write!(out, "{table}")?;
    writeln!(out)?;
    for s in &grid.strata {
        let units = s
            .units
            .map_or_else(|| "units not given".to_string(), |u| format!("{u} units"));
        writeln!(
            out,
            "stratum {}: {} cell{}, --array=0-{}, {units}",
            crate::stratum::display_name(&s.stratum),
            s.cells.len(),
            if s.cells.len() == 1 { "" } else { "s" },
            s.cells.len() - 1
        )?;
    }
    writeln!(
        out,
        "\nEach stratum is one array; a task finds its cell with \
         `calib grid cell {} --stratum STRATUM --index \"$SLURM_ARRAY_TASK_ID\"`.",
        quote(&grid.origin.to_string())
    )
}

/// `calib grid show --format json`.
pub fn write_json(grid: &CampaignGrid, out: &mut dyn io::Write) -> io::Result<()> {
    let strata: Vec<Value> = grid
        .strata
        .iter()
        .map(|s| {
            let cells: Vec<Value> = s
                .cells
                .iter()
                .map(|c| {
                    let values: Map<String, Value> = c
                        .values
                        .iter()
                        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                        .collect();
                    json!({"index": c.index, "tag": c.tag, "output": c.output, "values": values})
                })
                .collect();
            json!({
                "stratum": s.stratum,
                "units": s.units,
                "tasks": s.cells.len(),
                "cells": cells,
            })
        })
        .collect();
    let axes: Vec<Value> = grid
        .axes
        .iter()
        .map(|a| json!({"name": a.name, "values": a.values}))
        .collect();
    let doc = json!({
        "grid": grid.origin.to_string(),
        "axes": axes,
        "stratum_axes": grid.stratum_axes,
        "output": grid.output_template,
        "strata": strata,
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

/// `calib stage`: what was written and what to run next.
pub fn write_staged(staged: &Staged, out: &mut dyn io::Write) -> io::Result<()> {
    let t = &staged.trigger;
    writeln!(
        out,
        "wrote {}: stage 1, {} tasks of stratum {} at {} units each (the same script and the \
         same cell derivation as stage 2)",
        staged.smoke_path.display(),
        t.tasks.len(),
        crate::stratum::display_name(&t.stratum),
        t.smoke_units
    )?;
    writeln!(
        out,
        "wrote {}: the stage-2 trigger, {} checks, and stage 2 ({} array{}), written before stage 1 runs",
        staged.trigger_path.display(),
        t.checks.len(),
        staged.stage2_arrays,
        if staged.stage2_arrays == 1 { "" } else { "s" }
    )?;
    for check in &t.checks {
        writeln!(out, "  {}: {}", check.name, comment_text(&check.checks))?;
    }
    writeln!(
        out,
        "\nStage 1 shows that the pipeline works; what it produces is not a result, nor an estimate of one."
    )?;
    writeln!(out, "Next:")?;
    writeln!(
        out,
        "  sh {}                       (prints the smoke's job id)",
        quote(&staged.smoke_path.to_string_lossy())
    )?;
    writeln!(
        out,
        "  calib stage check {} --job JOBID   (when both tasks have ended)",
        quote(&staged.trigger_path.to_string_lossy())
    )
}

/// `calib stage check`: each check with pass or FAIL and what was found;
/// each failure's interpretation; stage 2 when every check passed.
pub fn write_check(
    trigger: &Trigger,
    outcomes: &[Outcome],
    out: &mut dyn io::Write,
) -> io::Result<()> {
    let mut table = Table::new(vec!["check".into(), "result".into(), "found".into()]);
    for o in outcomes {
        let result = if o.passed {
            Cell::from("pass")
        } else {
            Cell::styled("FAIL", crate::output::FAILURE)
        };
        table.push(vec![
            Cell::from(o.name.as_str()),
            result,
            Cell::from(comment_text(&o.detail)),
        ]);
    }
    write!(out, "{table}")?;
    let failed: Vec<&Outcome> = outcomes.iter().filter(|o| !o.passed).collect();
    if !failed.is_empty() {
        writeln!(out)?;
        for o in failed {
            writeln!(out, "FAIL {} ({}):", o.name, comment_text(&o.checks))?;
            writeln!(out, "  {}", comment_text(&o.if_failed))?;
        }
        return writeln!(
            out,
            "\nStage 2 is held back: the trigger, written before stage 1 ran, says not to submit it."
        );
    }
    writeln!(
        out,
        "\nstage 1 passed: the pipeline works. Its numbers are a check of the machinery, not \
         results nor estimates of them (stratum {} ran at {} units: two cells at minimum scale, \
         not a sample of stage 2).",
        crate::stratum::display_name(&trigger.stratum),
        trigger.smoke_units
    )?;
    // The smoke wrote the real output paths of its two cells: a program that
    // appends to its output, or skips a cell whose output exists, would keep
    // the smoke's few units in stage 2's results.
    let outputs: Vec<String> = trigger
        .tasks
        .iter()
        .map(|t| crate::shell::quote(&t.output))
        .collect();
    writeln!(
        out,
        "The smoke's outputs are stage 2's paths for the same cells: {}. If your program \
         appends to its output or skips a cell whose output exists, move them away before \
         you submit stage 2.",
        outputs.join(" ")
    )?;
    writeln!(out, "Stage 2, one array per stratum (from calib budget):\n")?;
    out.write_all(trigger.stage2.as_bytes())?;
    if !trigger.stage2.ends_with('\n') {
        writeln!(out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Origin;

    #[test]
    fn assignments_export_every_axis_then_tag_and_output() {
        let grid = CampaignGrid::parse(
            "output = \"r/{tag}\"\n[axes]\nseed = [3]\narg = [\"it's $(x)\"]\n",
            Origin::file("g.toml"),
        )
        .unwrap();
        let cell = grid.cell("", "0").unwrap();
        let text = assignments(cell);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "export seed=3");
        assert_eq!(lines[1], r"export arg='it'\''s $(x)'");
        assert_eq!(lines[2], format!("export CALIB_TAG={}", cell.tag));
        assert_eq!(lines[3], format!("export CALIB_OUTPUT=r/{}", cell.tag));
        assert_eq!(lines.len(), 4);
    }
}

//! Campaign mechanics around the budget: the grid file that derives every
//! task's cell and output path from its array index ([`grid`]), staged
//! submission with the stage-2 trigger written first ([`stage`]), and what
//! both print ([`export`]).
//!
//! A campaign's cells are the product of its axes (dataset x model x seed);
//! the stratum axes split them into strata, and each stratum is one array
//! (`calib budget` gives each its own `--time`), so a cell is named by its
//! stratum and its index inside that stratum's array. The index arithmetic
//! lives here, tested, instead of in a hand-written `set -- X X X Y Y Y` in a
//! batch script, where a typo silently sends two tasks to one output path.

pub mod export;
pub mod grid;
pub mod stage;

//! The Slurm "language" calib speaks: time values, partition lists, sacct rows.

pub mod partitions;
pub mod sacct;
pub mod time;

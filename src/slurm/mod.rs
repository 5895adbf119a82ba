//! The Slurm "language" calib speaks: time values, partition lists, sacct rows.

pub mod cluster;
pub mod partitions;
pub mod sacct;
pub mod time;

//! Helpers shared by integration tests. Each test binary uses only some of them.
#![allow(dead_code)]

pub mod slurm;

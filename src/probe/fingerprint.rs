//! Where a run is measured: the fingerprint written on every row.
//!
//! Sources, all read once before the first run:
//! - `host`: `gethostname(2)`.
//! - `cluster`: `SLURM_CLUSTER_NAME`, else `CC_CLUSTER` (the Alliance clusters),
//!   else `local` ([`crate::slurm::cluster`]).
//! - `cpu_model`: `model name` of `/proc/cpuinfo` (other architectures: its
//!   `Hardware`, `cpu model` or `Processor` line).
//! - `cpus`: how many CPUs this process may run on (`sched_getaffinity(2)`, which
//!   Slurm's cpuset confines to the allocation), not how many the node has.
//! - `gpus`: `nvidia-smi -L` counted by model, `2x NVIDIA A100-SXM4-40GB`; `none`
//!   when nvidia-smi is absent or lists nothing. nvidia-smi can hang on a sick
//!   node, so it gets [`GPU_QUERY_TIMEOUT`]; past that the field says so.
//! - `job_id`: `SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID` for an array task (as
//!   squeue and sacct print it), else `SLURM_JOB_ID`.
//! - `partition`: `SLURM_JOB_PARTITION`.

use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::error::{Error, Origin, Result};
use crate::shell::refuse_control;
use crate::slurm::cluster::{env_nonempty, resolve_cluster};
use crate::slurm::sacct::JobId;
use crate::timings::Fingerprint;

/// How long `nvidia-smi -L` may take.
pub(crate) const GPU_QUERY_TIMEOUT: Duration = Duration::from_secs(15);

/// The Slurm job this process runs in, from its environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct JobIds {
    pub(crate) job_id: Option<String>,
    pub(crate) array_job_id: Option<String>,
    pub(crate) array_task_id: Option<String>,
}

impl JobIds {
    pub(crate) fn from_env() -> JobIds {
        JobIds {
            job_id: env_nonempty("SLURM_JOB_ID").or_else(|| env_nonempty("SLURM_JOBID")),
            array_job_id: env_nonempty("SLURM_ARRAY_JOB_ID"),
            array_task_id: env_nonempty("SLURM_ARRAY_TASK_ID"),
        }
    }

    /// The id as Slurm prints it: `1234_5` for an array task, else `1234`.
    pub(crate) fn display(&self) -> Option<String> {
        match (&self.array_job_id, &self.array_task_id) {
            (Some(a), Some(t)) => Some(format!("{a}_{t}")),
            _ => self.job_id.clone(),
        }
    }
}

/// The cluster's name ([`resolve_cluster`]), `local` outside Slurm.
pub(crate) fn cluster_name() -> String {
    resolve_cluster(None, None).map_or_else(|| "local".to_string(), |c| c.name)
}

pub(crate) fn host_name() -> String {
    // uname's node name is what gethostname(2) returns.
    let uname = rustix::system::uname();
    let name = uname.nodename().to_string_lossy().trim().to_string();
    if name.is_empty() {
        "unknown-host".to_string()
    } else {
        name
    }
}

/// CPU model from `/proc/cpuinfo`, if it says.
pub(crate) fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    cpu_model_from(&text)
}

fn cpu_model_from(cpuinfo: &str) -> Option<String> {
    for key in ["model name", "Hardware", "cpu model", "Processor", "cpu"] {
        for line in cpuinfo.lines() {
            if let Some((k, v)) = line.split_once(':') {
                let v = v.split_whitespace().collect::<Vec<_>>().join(" ");
                if k.trim() == key && !v.is_empty() {
                    return Some(v);
                }
            }
        }
    }
    None
}

/// CPUs this process may run on.
pub(crate) fn cpus_allowed() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        if let Ok(set) = rustix::thread::sched_getaffinity(None) {
            if set.count() > 0 {
                return Some(set.count() as usize);
            }
        }
    }
    std::thread::available_parallelism().ok().map(|n| n.get())
}

/// GPUs as `nvidia-smi -L` lists them, counted by model.
pub(crate) fn gpus() -> String {
    gpus_with("nvidia-smi", GPU_QUERY_TIMEOUT)
}

fn gpus_with(program: &str, timeout: Duration) -> String {
    let child = Command::new(program)
        .arg("-L")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(_) => return "none".to_string(),
    };
    let mut stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        let _ = tx.send(text);
    });
    match rx.recv_timeout(timeout) {
        Ok(text) => {
            let status = child.wait().ok();
            if status.is_some_and(|s| s.success()) {
                gpus_from(&text)
            } else {
                "none".to_string()
            }
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            format!(
                "unknown (nvidia-smi -L gave no answer in {}s)",
                timeout.as_secs()
            )
        }
    }
}

/// `GPU 0: NVIDIA A100 (UUID: ...)` lines -> `2x NVIDIA A100`.
fn gpus_from(listing: &str) -> String {
    let mut models: BTreeMap<String, usize> = BTreeMap::new();
    for line in listing.lines() {
        let Some(rest) = line.strip_prefix("GPU ") else {
            continue;
        };
        let Some((_, model)) = rest.split_once(": ") else {
            continue;
        };
        let model = model.split(" (UUID").next().unwrap_or(model).trim();
        *models.entry(model.to_string()).or_default() += 1;
    }
    if models.is_empty() {
        return "none".to_string();
    }
    models
        .iter()
        .map(|(m, n)| format!("{n}x {m}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Everything but `started_at`, which each run sets for itself. Refused
/// before any run, naming its source, is a value that `calib fit` would
/// refuse in the rows: a control character (these reach job scripts), or a
/// job id that is no job or array task as Slurm prints it (`calib resume`
/// resubmits a task by it). Slurm sets neither; a hand-set variable can.
pub(crate) fn collect() -> Result<Fingerprint> {
    let jobs = JobIds::from_env();
    let job_id = jobs.display();
    if let Some(id) = &job_id {
        JobId::parse_task(id).map_err(|why| {
            refused(
                "SLURM_JOB_ID (or SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID)",
                format!(
                    "{why}; expected the job id Slurm sets (4242, or 4242_3 for an array task)"
                ),
            )
        })?;
    }
    let fingerprint = Fingerprint {
        host: Some(host_name()),
        cluster: Some(cluster_name()),
        cpu_model: cpu_model(),
        cpus: cpus_allowed().map(|n| n.to_string()),
        gpus: Some(gpus()),
        job_id,
        partition: env_nonempty("SLURM_JOB_PARTITION"),
        started_at: None,
        calib_version: Some(crate::VERSION.to_string()),
    };
    for (source, value) in [
        ("the host name (gethostname)", &fingerprint.host),
        ("SLURM_CLUSTER_NAME (or CC_CLUSTER)", &fingerprint.cluster),
        ("the CPU model (/proc/cpuinfo)", &fingerprint.cpu_model),
        ("the GPU list (nvidia-smi -L)", &fingerprint.gpus),
        ("SLURM_JOB_PARTITION", &fingerprint.partition),
    ] {
        if let Some(value) = value {
            refuse_control("it", value).map_err(|why| refused(source, why))?;
        }
    }
    Ok(fingerprint)
}

/// A value of the node or the job that the timings' rows cannot hold.
fn refused(source: &str, why: String) -> Error {
    Error::input(
        Origin::Argument(source.to_string()),
        None,
        format!("{why}; nothing was run"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_listing_is_counted_by_model() {
        let listing = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1)\n\
                       GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-2)\n\
                       GPU 2: Tesla V100 (UUID: GPU-3)\n";
        assert_eq!(
            gpus_from(listing),
            "2x NVIDIA A100-SXM4-40GB; 1x Tesla V100"
        );
        assert_eq!(gpus_from("No devices were found\n"), "none");
    }

    #[test]
    fn absent_nvidia_smi_means_none() {
        assert_eq!(
            gpus_with("/nonexistent/nvidia-smi", Duration::from_secs(1)),
            "none"
        );
    }

    #[test]
    fn a_hanging_nvidia_smi_is_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("nvidia-smi");
        std::fs::write(&script, "#!/bin/sh\nexec sleep 30\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let began = std::time::Instant::now();
        let gpus = gpus_with(script.to_str().unwrap(), Duration::from_millis(300));
        assert!(gpus.starts_with("unknown"), "{gpus}");
        assert!(began.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn cpu_model_line() {
        let info = "processor\t: 0\nmodel name\t: AMD EPYC  7532 32-Core Processor\n";
        assert_eq!(
            cpu_model_from(info).as_deref(),
            Some("AMD EPYC 7532 32-Core Processor")
        );
        assert_eq!(cpu_model_from("flags: x\n"), None);
    }

    #[test]
    fn array_ids_print_as_slurm_does() {
        let ids = JobIds {
            job_id: Some("19".into()),
            array_job_id: Some("13".into()),
            array_task_id: Some("0".into()),
        };
        assert_eq!(ids.display().as_deref(), Some("13_0"));
        let single = JobIds {
            job_id: Some("22".into()),
            ..JobIds::default()
        };
        assert_eq!(single.display().as_deref(), Some("22"));
    }

    #[test]
    fn this_machine_has_a_host_and_cpus() {
        assert!(!host_name().is_empty());
        assert!(cpus_allowed().unwrap() >= 1);
    }
}

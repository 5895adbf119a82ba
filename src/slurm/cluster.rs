//! Which cluster: the name probe records on every row, audit writes on the
//! rows it turns sacct into, and budget checks the measurements against.
//!
//! One order everywhere, first found wins: a name given on the command line
//! (`--cluster`), the `CLUSTER:` line of a partition list (printed by
//! `sinfo -M`; budget only), then `$SLURM_CLUSTER_NAME` (set by Slurm inside
//! a job) and `$CC_CLUSTER` (set on the Alliance's clusters, login nodes
//! included). A variable that is empty or blank counts as unset.

use std::fmt;

/// Where a cluster name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClusterSource {
    /// `--cluster NAME`.
    Flag,
    /// The `CLUSTER:` line of the partition list.
    PartitionList,
    /// An environment variable, named.
    Environment(&'static str),
}

impl fmt::Display for ClusterSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterSource::Flag => f.write_str("--cluster"),
            ClusterSource::PartitionList => f.write_str("the CLUSTER: line of the partition list"),
            ClusterSource::Environment(name) => write!(f, "${name}"),
        }
    }
}

/// A cluster name and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cluster {
    pub name: String,
    pub source: ClusterSource,
}

/// The environment variables that name the cluster, in order.
pub(crate) const CLUSTER_VARIABLES: [&str; 2] = ["SLURM_CLUSTER_NAME", "CC_CLUSTER"];

/// The cluster by the order of the module docs, from this process's
/// environment; `None` when nothing names it.
pub(crate) fn resolve_cluster(given: Option<&str>, listed: Option<&str>) -> Option<Cluster> {
    resolve_cluster_with(given, listed, env_nonempty)
}

/// [`resolve_cluster`] with the environment read through `env` (for tests).
pub(crate) fn resolve_cluster_with(
    given: Option<&str>,
    listed: Option<&str>,
    env: impl Fn(&str) -> Option<String>,
) -> Option<Cluster> {
    let named = |name: &str, source| Cluster {
        name: name.to_string(),
        source,
    };
    if let Some(name) = given {
        return Some(named(name, ClusterSource::Flag));
    }
    if let Some(name) = listed {
        return Some(named(name, ClusterSource::PartitionList));
    }
    CLUSTER_VARIABLES.iter().find_map(|&variable| {
        env(variable).map(|name| Cluster {
            name,
            source: ClusterSource::Environment(variable),
        })
    })
}

/// The value of an environment variable, `None` when unset, blank or not
/// UTF-8: Slurm and module systems export empty variables freely.
pub(crate) fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, v)| *k == name && !v.trim().is_empty())
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_flag_then_the_list_then_slurm_then_the_alliance() {
        let both = [("SLURM_CLUSTER_NAME", "narval"), ("CC_CLUSTER", "beluga")];
        let resolve = |given, listed| resolve_cluster_with(given, listed, env(&both));
        assert_eq!(
            resolve(Some("cedar"), Some("graham")).unwrap().source,
            ClusterSource::Flag
        );
        let listed = resolve(None, Some("graham")).unwrap();
        assert_eq!(
            (listed.name.as_str(), listed.source),
            ("graham", ClusterSource::PartitionList)
        );
        let from_env = resolve(None, None).unwrap();
        assert_eq!(from_env.name, "narval");
        assert_eq!(from_env.source.to_string(), "$SLURM_CLUSTER_NAME");

        let blank_slurm = [("SLURM_CLUSTER_NAME", "  "), ("CC_CLUSTER", "beluga")];
        let alliance = resolve_cluster_with(None, None, env(&blank_slurm)).unwrap();
        assert_eq!(
            (alliance.name.as_str(), alliance.source.to_string()),
            ("beluga", "$CC_CLUSTER".to_string())
        );
        assert_eq!(resolve_cluster_with(None, None, env(&[])), None);
    }
}

//! TEMPORARY minimal interface (replaced by the formats work on merge).

use crate::error::{Error, Origin, Result};
use crate::slurm::time::{parse_time, SlurmTime};

#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    pub name: String,
    pub limit: SlurmTime,
    pub is_default: bool,
}

#[derive(Debug, Clone, Default)]
pub struct PartitionList {
    pub partitions: Vec<Partition>,
    pub cluster: Option<String>,
    pub notes: Vec<String>,
}

pub enum PartitionSelector {
    Family(String),
    Regex(regex::Regex),
}

#[derive(Debug, Clone)]
pub struct Selection {
    pub partitions: Vec<Partition>,
    pub description: String,
}

pub fn family_of(name: &str) -> (String, Option<u32>) {
    if let Some((family, bucket)) = name.rsplit_once("_b") {
        if let Ok(n) = bucket.parse() {
            return (family.to_string(), Some(n));
        }
    }
    (name.to_string(), None)
}

pub fn parse_partitions(text: &str, origin: &Origin) -> Result<PartitionList> {
    let mut list = PartitionList::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut it = line.split_whitespace();
        let (Some(name), Some(limit)) = (it.next(), it.next()) else {
            return Err(Error::input(origin.clone(), Some(i as u64 + 1), "expected `name limit`"));
        };
        let limit = parse_time(limit).map_err(|e| Error::input(origin.clone(), Some(i as u64 + 1), e.to_string()))?;
        list.partitions.push(Partition {
            name: name.trim_end_matches('*').to_string(),
            limit,
            is_default: name.ends_with('*'),
        });
    }
    Ok(list)
}

impl PartitionList {
    pub fn select(&self, selector: Option<&PartitionSelector>) -> Result<Selection> {
        let family = match selector {
            Some(PartitionSelector::Family(f)) => f.clone(),
            Some(PartitionSelector::Regex(_)) => unimplemented!(),
            None => self
                .partitions
                .iter()
                .find(|p| p.is_default)
                .map(|p| family_of(&p.name).0)
                .unwrap_or_default(),
        };
        let mut partitions: Vec<Partition> = self
            .partitions
            .iter()
            .filter(|p| family_of(&p.name).0 == family)
            .cloned()
            .collect();
        partitions.sort_by_key(|p| p.limit);
        Ok(Selection {
            partitions,
            description: format!("family {family}"),
        })
    }
}

//! `calib budget`'s bucket choice on real partition lists.
//!
//! Every sample in `tests/data/slurm/` that lists time limits (the `sinfo-*`
//! and `lab-*` files; not `scontrol-job-*`) is parsed with `parse_partitions`,
//! narrowed with `PartitionList::select` (the default selection, and an
//! explicit family or regex where the sample has several families), turned
//! into caps and run through the budgeting rule `decide(floor_s, upper_s)`.
//!
//! Expectations are written by hand from what each file says (its `# source:`
//! line and its TIMELIMIT column) and from design.md's rule, never computed
//! with the code under test. Sizes per sample: a need well inside the first
//! bucket (`ok`), a floor/upper pair straddling a bucket boundary
//! (`rounded_down` into that bucket), and a need above the largest finite cap
//! (`over_cap` with its number of segments, or an unlimited partition taking
//! it). Seed case 6 (design.md) is spelt out at the end.

mod common;

use calib::budget::rule::{decide, Cap, Decision, Status};
use calib::error::Origin;
use calib::slurm::partitions::{parse_partitions, PartitionList, PartitionSelector, Selection};
use common::{default_selection, partition_sample};

const MIN: f64 = 60.0;
const H: f64 = 3600.0;
const D: f64 = 86_400.0;

fn parse_text(text: &str) -> PartitionList {
    parse_partitions(text, &Origin::Argument("--partitions".into()))
        .unwrap_or_else(|e| panic!("does not parse: {e}"))
}

fn family(list: &PartitionList, name: &str) -> Selection {
    list.select(Some(&PartitionSelector::Family(name.to_string())))
        .unwrap_or_else(|e| panic!("family {name} refused: {e}"))
}

fn regex(list: &PartitionList, pattern: &str) -> Selection {
    let re = regex::Regex::new(pattern).unwrap();
    list.select(Some(&PartitionSelector::Regex(re)))
        .unwrap_or_else(|e| panic!("regex {pattern} refused: {e}"))
}

fn caps(selection: &Selection) -> Vec<Cap> {
    selection
        .partitions
        .iter()
        .map(|p| Cap {
            partition: p.name.clone(),
            limit_s: p.limit.seconds().map_or(f64::INFINITY, |s| s as f64),
        })
        .collect()
}

/// The selected partitions, in the selection's order, with their caps in
/// seconds (`None` = unlimited), to compare with what the file says.
fn members(selection: &Selection) -> Vec<(String, Option<u64>)> {
    selection
        .partitions
        .iter()
        .map(|p| (p.name.clone(), p.limit.seconds()))
        .collect()
}

fn named(items: &[(&str, Option<u64>)]) -> Vec<(String, Option<u64>)> {
    items.iter().map(|(n, s)| (n.to_string(), *s)).collect()
}

/// Checks the invariants design.md fixes for every decision, then returns it.
fn decide_checked(floor_s: f64, upper_s: f64, caps: &[Cap]) -> Decision {
    let d = decide(floor_s, upper_s, caps);
    assert!(d.minutes >= 1, "0 minutes means no limit in Slurm: {d:?}");
    assert!(
        d.time_s() as f64 >= floor_s,
        "time below the measured cost: {d:?}"
    );
    assert_eq!(d.time_s() % 60, 0, "whole minutes: {d:?}");
    match d.status {
        Status::OverCap => assert!(d.partition.is_none(), "{d:?}"),
        _ => {
            let name = d.partition.as_deref().expect("a partition unless over_cap");
            let cap = caps
                .iter()
                .find(|c| c.partition == name)
                .expect("the partition is one of the caps");
            assert!(
                d.time_s() as f64 <= cap.limit_s,
                "time above the cap of {name}: {d:?}"
            );
        }
    }
    d
}

#[track_caller]
fn expect_ok(caps: &[Cap], floor_s: f64, upper_s: f64, partition: &str, minutes: u64) {
    let d = decide_checked(floor_s, upper_s, caps);
    assert_eq!(
        (d.status, d.partition.as_deref(), d.minutes),
        (Status::Ok, Some(partition), minutes),
        "floor {floor_s} s, upper {upper_s} s: {d:?}"
    );
    assert_eq!(d.segments, None);
}

#[track_caller]
fn expect_rounded_down(caps: &[Cap], floor_s: f64, upper_s: f64, partition: &str, minutes: u64) {
    let d = decide_checked(floor_s, upper_s, caps);
    assert_eq!(
        (d.status, d.partition.as_deref(), d.minutes),
        (Status::RoundedDown, Some(partition), minutes),
        "floor {floor_s} s, upper {upper_s} s: {d:?}"
    );
    assert_eq!(d.segments, None);
}

#[track_caller]
fn expect_over_cap(caps: &[Cap], floor_s: f64, upper_s: f64, minutes: u64, segments: u64) {
    let d = decide_checked(floor_s, upper_s, caps);
    assert_eq!(
        (d.status, d.partition.as_deref(), d.minutes, d.segments),
        (Status::OverCap, None, minutes, Some(segments)),
        "floor {floor_s} s, upper {upper_s} s: {d:?}"
    );
}

/// The five Alliance buckets of one family, as the samples print them:
/// b1 3:00:00, b2 12:00:00, b3 1-00:00:00, b4 3-00:00:00, b5 7-00:00:00.
fn alliance_family(stem: &str) -> Vec<(String, Option<u64>)> {
    [
        (1, 3 * 3600),
        (2, 12 * 3600),
        (3, 24 * 3600),
        (4, 3 * 86_400),
        (5, 7 * 86_400),
    ]
    .iter()
    .map(|(b, s)| (format!("{stem}_b{b}"), Some(*s)))
    .collect()
}

// ---------------------------------------------------------------------------
// The project's lab cluster (Slurm 22.05.8): cpubase_bycore_b1* .. b5, short 1:00.

/// `sinfo -h -o "%P %l"` and the default `sinfo` table of the same cluster must
/// lead to the same budgets.
fn check_lab_buckets(list: &PartitionList) {
    let sel = default_selection(list);
    assert_eq!(members(&sel), alliance_family("cpubase_bycore"));
    let c = caps(&sel);
    // Well inside b1: ask the upper bound, rounded up to the minute.
    expect_ok(&c, 1.0 * H, 2.0 * H + 1.0, "cpubase_bycore_b1", 121);
    // An upper bound a little under 3 h rounds up to exactly the b1 cap, 180 min.
    expect_ok(&c, 2.5 * H, 2.99 * H, "cpubase_bycore_b1", 180);
    // Exactly on the cap: still b1 (the cap is not below the upper bound).
    expect_ok(&c, 2.5 * H, 3.0 * H, "cpubase_bycore_b1", 180);
    // The seed's "asking 13 h instead of 12 h": round down into b2.
    expect_rounded_down(&c, 10.0 * H, 13.0 * H, "cpubase_bycore_b2", 720);
    // One second over the b1 cap, with a floor under it: back into b1.
    expect_rounded_down(&c, 2.0 * H, 3.0 * H + 1.0, "cpubase_bycore_b1", 180);
    // Two caps in [floor, upper): the largest one (b3, not b2).
    expect_rounded_down(&c, 11.0 * H, 30.0 * H, "cpubase_bycore_b3", 1440);
    // Between b3 and b4 with no cap in between: ok in b4.
    expect_ok(&c, 30.0 * H, 40.0 * H, "cpubase_bycore_b4", 2400);
    // Upper above the largest cap, floor under it: the largest cap, margin cut.
    expect_rounded_down(&c, 6.0 * D, 8.0 * D, "cpubase_bycore_b5", 10_080);
    // Floor above 7 d: over_cap; 9 d in 7 d segments is 2, 15 d is 3.
    expect_over_cap(&c, 8.0 * D, 9.0 * D, 12_960, 2);
    expect_over_cap(&c, 8.0 * D, 15.0 * D, 21_600, 3);

    // The family `short` (one partition of one minute).
    let short = family(list, "short");
    assert_eq!(members(&short), named(&[("short", Some(60))]));
    let c = caps(&short);
    expect_ok(&c, 30.0, 50.0, "short", 1);
    // Never 0 minutes, even for no cost at all.
    expect_ok(&c, 0.0, 0.0, "short", 1);
    expect_rounded_down(&c, 30.0, 90.0, "short", 1);
    // 61 s cannot run in one minute; 150 s is 3 minutes, 3 one-minute segments.
    expect_over_cap(&c, 61.0, 150.0, 3, 3);
}

#[test]
fn lab_sinfo_percent_p_l() {
    let list = partition_sample("lab-sinfo-P-l.txt");
    assert_eq!(list.partitions.len(), 6);
    check_lab_buckets(&list);
}

#[test]
fn lab_sinfo_default_table() {
    let list = partition_sample("lab-sinfo-default.txt");
    assert_eq!(list.partitions.len(), 6);
    check_lab_buckets(&list);
}

#[test]
fn lab_regex_narrows_to_b1_and_b2() {
    let list = partition_sample("lab-sinfo-P-l.txt");
    let sel = regex(&list, "^cpubase_bycore_b[12]$");
    assert_eq!(
        members(&sel),
        named(&[
            ("cpubase_bycore_b1", Some(3 * 3600)),
            ("cpubase_bycore_b2", Some(12 * 3600)),
        ])
    );
    let c = caps(&sel);
    expect_ok(&c, 4.0 * H, 5.0 * H, "cpubase_bycore_b2", 300);
    // 13 h of measured cost: over a 12 h largest cap; 20 h = 1200 min in
    // 720-min segments is 2.
    expect_over_cap(&c, 13.0 * H, 20.0 * H, 1200, 2);
}

#[test]
fn lab_scontrol_partition_short_alone() {
    // Default=NO and no _bN suffix: the default selection is every partition,
    // here `short` with MaxTime=00:01:00.
    let list = partition_sample("lab-scontrol-partition-short.txt");
    let sel = default_selection(&list);
    assert_eq!(members(&sel), named(&[("short", Some(60))]));
    let c = caps(&sel);
    expect_ok(&c, 20.0, 40.0, "short", 1);
    expect_ok(&c, 0.0, 0.0, "short", 1);
    expect_over_cap(&c, 2.0 * MIN, 2.5 * MIN, 3, 3);
}

// ---------------------------------------------------------------------------
// Alliance clusters.

#[test]
fn narval_default_family_is_cpubase_bycore() {
    // No `*` in this sample: the bucket family with the most buckets, first in
    // the input on a tie (cpubase_bycore, before cpubase_bynode and gpubase_bygpu).
    let list = partition_sample("sinfo-narval.txt");
    assert_eq!(list.partitions.len(), 19);
    let sel = default_selection(&list);
    assert_eq!(members(&sel), alliance_family("cpubase_bycore"));
    let c = caps(&sel);
    expect_ok(&c, 1.0 * H, 2.0 * H, "cpubase_bycore_b1", 120);
    // Seed case 2's slow stratum (10.7 h measured, 19 h upper): b2.
    expect_rounded_down(&c, 10.7 * H, 19.0 * H, "cpubase_bycore_b2", 720);
    // A floor just over a cap cannot be rounded into it: 12 h + 1 s -> b3.
    expect_ok(&c, 12.0 * H + 1.0, 13.0 * H, "cpubase_bycore_b3", 780);
    expect_over_cap(&c, 8.0 * D, 10.0 * D, 14_400, 2);
}

#[test]
fn narval_gpu_family_and_backfill_regex() {
    let list = partition_sample("sinfo-narval.txt");
    let sel = family(&list, "gpubase_bygpu");
    assert_eq!(members(&sel), alliance_family("gpubase_bygpu"));
    let c = caps(&sel);
    expect_rounded_down(&c, 10.0 * H, 13.0 * H, "gpubase_bygpu_b2", 720);
    expect_ok(&c, 1.0 * H, 90.0 * MIN, "gpubase_bygpu_b1", 90);

    // The interactive partition is a family of its own (8:00:00).
    let c = caps(&family(&list, "cpubase_interac"));
    expect_rounded_down(&c, 7.0 * H, 9.0 * H, "cpubase_interac", 480);
    expect_over_cap(&c, 9.0 * H, 9.0 * H, 540, 2);

    // Two partitions with the same 1-00:00:00 cap: gpubackfill comes first in
    // the file. Whichever way the rule reaches that cap (asking the upper
    // bound, or rounding down into it), it names the same partition.
    let sel = regex(&list, "backfill$");
    assert_eq!(
        members(&sel),
        named(&[("gpubackfill", Some(86_400)), ("cpubackfill", Some(86_400))])
    );
    let c = caps(&sel);
    expect_ok(&c, 2.0 * H, 3.0 * H, "gpubackfill", 180);
    expect_rounded_down(&c, 20.0 * H, 30.0 * H, "gpubackfill", 1440);
}

#[test]
fn killarney_summarize_default_family_is_h100() {
    // No default marked; h100 and l40s both have five buckets; h100 comes first.
    let list = partition_sample("sinfo-killarney-summarize.txt");
    assert_eq!(list.partitions.len(), 10);
    let sel = default_selection(&list);
    assert_eq!(members(&sel), alliance_family("gpubase_h100"));
    let c = caps(&sel);
    expect_ok(&c, 30.0 * MIN, 45.0 * MIN, "gpubase_h100_b1", 45);
    expect_rounded_down(&c, 20.0 * H, 30.0 * H, "gpubase_h100_b3", 1440);
    // 48 h of measured cost fits b4 (3 d) on Killarney.
    expect_ok(&c, 48.0 * H, 50.0 * H, "gpubase_h100_b4", 3000);
    expect_over_cap(&c, 7.5 * D, 7.5 * D, 10_800, 2);

    let sel = family(&list, "gpubase_l40s");
    assert_eq!(members(&sel), alliance_family("gpubase_l40s"));
    let c = caps(&sel);
    expect_ok(&c, 1.0 * H, 2.0 * H, "gpubase_l40s_b1", 120);
    expect_rounded_down(&c, 2.0 * D, 4.0 * D, "gpubase_l40s_b4", 4320);
}

#[test]
fn killarney_partitions_with_gres_column() {
    // `%P %a %l %D %G` condensed to name, limit, gres: the gres column is
    // ignored; gpubase_interac (3:00:00) is a family of its own.
    let list = partition_sample("sinfo-killarney-partitions.txt");
    assert_eq!(list.partitions.len(), 11);
    let sel = default_selection(&list);
    assert_eq!(members(&sel), alliance_family("gpubase_h100"));
    let c = caps(&sel);
    expect_rounded_down(&c, 11.0 * H, 12.5 * H, "gpubase_h100_b2", 720);
    expect_over_cap(&c, 8.0 * D, 20.0 * D, 28_800, 3);

    let c = caps(&family(&list, "gpubase_interac"));
    expect_ok(&c, 1.0 * H, 2.0 * H, "gpubase_interac", 120);
    // 7 h upper in 3 h segments: 3.
    expect_over_cap(&c, 4.0 * H, 7.0 * H, 420, 3);

    let sel = regex(&list, "^gpubase_l40s_b[45]$");
    let c = caps(&sel);
    // Only b4 and b5 in play: a 1 h need goes to b4 (3 d), ok.
    expect_ok(&c, 1.0 * H, 1.0 * H, "gpubase_l40s_b4", 60);
}

#[test]
fn cedar_all_uses_timelimit_not_defaulttime() {
    // The `%all` line has TIMELIMIT 3-00:00:00 and DEFAULTTIME 1:00:00 for
    // cpubase_bycore_b4; only the TIMELIMIT is a cap.
    let list = partition_sample("sinfo-cedar-all.txt");
    let sel = default_selection(&list);
    assert_eq!(
        members(&sel),
        named(&[("cpubase_bycore_b4", Some(3 * 86_400))])
    );
    let c = caps(&sel);
    expect_ok(&c, 2.0 * H, 3.0 * H, "cpubase_bycore_b4", 180);
    expect_rounded_down(&c, 2.0 * D, 4.0 * D, "cpubase_bycore_b4", 4320);
    expect_over_cap(&c, 4.0 * D, 4.0 * D, 5760, 2);
}

#[test]
fn magic_castle_unlimited_partitions_take_anything() {
    // cpubase_bycore_b1* infinite: the default family, one unlimited bucket.
    let list = partition_sample("sinfo-magiccastle.txt");
    let sel = default_selection(&list);
    assert_eq!(members(&sel), named(&[("cpubase_bycore_b1", None)]));
    let c = caps(&sel);
    expect_ok(&c, 30.0 * D, 40.0 * D, "cpubase_bycore_b1", 57_600);
    expect_ok(&c, 0.0, 1.0, "cpubase_bycore_b1", 1);

    // `node` matches node and smnode, both unlimited: the first in the file.
    let sel = regex(&list, "node");
    assert_eq!(members(&sel), named(&[("node", None), ("smnode", None)]));
    expect_ok(&caps(&sel), 5.0 * H, 6.0 * H, "node", 360);
}

// ---------------------------------------------------------------------------
// Other sites.

#[test]
fn graham_compute_alone() {
    // compute* 7-00:00:00, repeated once per node state.
    let list = partition_sample("sinfo-graham.txt");
    let sel = default_selection(&list);
    assert_eq!(members(&sel), named(&[("compute", Some(7 * 86_400))]));
    let c = caps(&sel);
    expect_ok(&c, 1.0 * H, 2.0 * H, "compute", 120);
    expect_rounded_down(&c, 6.5 * D, 7.5 * D, "compute", 10_080);
    expect_over_cap(&c, 8.0 * D, 8.0 * D, 11_520, 2);
}

#[test]
fn caviness_single_unmarked_partition() {
    let list = partition_sample("sinfo-caviness.txt");
    let sel = default_selection(&list);
    assert_eq!(members(&sel), named(&[("it_css", Some(7 * 86_400))]));
    let c = caps(&sel);
    expect_ok(&c, 1.0 * H, 2.0 * H, "it_css", 120);
    expect_rounded_down(&c, 6.0 * D, 8.0 * D, "it_css", 10_080);
    expect_over_cap(&c, 8.0 * D, 10.0 * D, 14_400, 2);
}

#[test]
fn hawk_default_compute_and_a_dev_regex() {
    // compute* 3-00:00:00 is the default; its name has no _bN, so it is alone.
    let list = partition_sample("sinfo-hawk.txt");
    assert_eq!(list.partitions.len(), 7);
    let sel = default_selection(&list);
    assert_eq!(members(&sel), named(&[("compute", Some(3 * 86_400))]));
    let c = caps(&sel);
    expect_ok(&c, 2.0 * H, 3.0 * H, "compute", 180);
    expect_rounded_down(&c, 2.0 * D, 4.0 * D, "compute", 4320);
    expect_over_cap(&c, 4.0 * D, 5.0 * D, 7200, 2);

    // dev 1:00:00 and compute 3-00:00:00.
    let sel = regex(&list, "^(dev|compute)$");
    assert_eq!(
        members(&sel),
        named(&[("dev", Some(3600)), ("compute", Some(3 * 86_400))])
    );
    let c = caps(&sel);
    expect_ok(&c, 30.0 * MIN, 50.0 * MIN, "dev", 50);
    expect_rounded_down(&c, 50.0 * MIN, 70.0 * MIN, "dev", 60);
    expect_ok(&c, 2.0 * H, 3.0 * H, "compute", 180);

    // The family `gpu` is the partition gpu (2-00:00:00), not gpu_v100.
    let sel = family(&list, "gpu");
    assert_eq!(members(&sel), named(&[("gpu", Some(2 * 86_400))]));
    expect_rounded_down(&caps(&sel), 1.0 * D, 3.0 * D, "gpu", 2880);
}

#[test]
fn cirrus_minute_limits_and_a_regex() {
    // No default, no _bN: every partition. 20:00 and 10:00 are minutes.
    let list = partition_sample("sinfo-cirrus.txt");
    let sel = default_selection(&list);
    assert_eq!(
        members(&sel),
        named(&[
            ("gpu-tds", Some(600)),
            ("gpu-skylake", Some(1200)),
            ("gpu-cascade", Some(1200)),
            ("standard", Some(4 * 86_400)),
            ("tds", Some(4 * 86_400)),
        ])
    );
    let c = caps(&sel);
    expect_ok(&c, 5.0 * MIN, 8.0 * MIN, "gpu-tds", 8);
    // Two 20-minute partitions: gpu-skylake is first in the file, both ways.
    expect_ok(&c, 12.0 * MIN, 18.0 * MIN, "gpu-skylake", 18);
    expect_rounded_down(&c, 15.0 * MIN, 25.0 * MIN, "gpu-skylake", 20);
    expect_over_cap(&c, 5.0 * D, 5.0 * D, 7200, 2);

    let sel = regex(&list, "^standard$");
    let c = caps(&sel);
    expect_ok(&c, 5.0 * MIN, 8.0 * MIN, "standard", 8);
    expect_rounded_down(&c, 3.0 * D, 5.0 * D, "standard", 5760);
}

#[test]
fn mahuika_truncated_21_day_limit() {
    // `21-00:00:0` is sinfo's 10-character cut of 21-00:00:00.
    let list = partition_sample("sinfo-mahuika.txt");
    assert_eq!(list.partitions.len(), 10);
    let sel = default_selection(&list);
    let c = caps(&sel);
    assert_eq!(
        sel.partitions.first().map(|p| p.name.as_str()),
        Some("prepost")
    );
    assert_eq!(
        members(&sel).last(),
        Some(&("long".to_string(), Some(21 * 86_400)))
    );
    expect_ok(&c, 1.0 * H, 2.0 * H, "prepost", 120);
    expect_rounded_down(&c, 2.0 * H, 4.0 * H, "prepost", 180);
    expect_ok(&c, 10.0 * D, 12.0 * D, "long", 17_280);
    expect_rounded_down(&c, 20.0 * D, 25.0 * D, "long", 30_240);
    expect_over_cap(&c, 22.0 * D, 30.0 * D, 43_200, 2);

    let sel = regex(&list, "^(large|long|bigmem)$");
    assert_eq!(
        members(&sel),
        named(&[
            ("large", Some(3 * 86_400)),
            ("bigmem", Some(7 * 86_400)),
            ("long", Some(21 * 86_400)),
        ])
    );
    let c = caps(&sel);
    expect_ok(&c, 1.0 * H, 5.0 * H, "large", 300);
    expect_rounded_down(&c, 5.0 * D, 8.0 * D, "bigmem", 10_080);
    expect_ok(&c, 8.0 * D, 9.0 * D, "long", 12_960);
}

#[test]
fn saga_normal_bigmem_and_unlimited_optimist() {
    // normal* 7-00:00:00, bigmem/accel `14-00:00:0` (= 14 d), optimist infinite.
    let list = partition_sample("sinfo-saga.txt");
    assert_eq!(list.partitions.len(), 4);
    let sel = default_selection(&list);
    assert_eq!(members(&sel), named(&[("normal", Some(7 * 86_400))]));
    let c = caps(&sel);
    expect_ok(&c, 1.0 * H, 2.0 * H, "normal", 120);
    expect_over_cap(&c, 8.0 * D, 8.0 * D, 11_520, 2);

    let sel = regex(&list, "^(normal|bigmem)$");
    let c = caps(&sel);
    expect_ok(&c, 10.0 * D, 12.0 * D, "bigmem", 17_280);
    expect_rounded_down(&c, 10.0 * D, 15.0 * D, "bigmem", 20_160);

    // With an unlimited partition in play nothing is over_cap, but a finite
    // cap in [floor, upper) still wins (rule 1 before rule 2).
    let sel = regex(&list, "^(normal|optimist)$");
    assert_eq!(
        members(&sel),
        named(&[("normal", Some(7 * 86_400)), ("optimist", None)])
    );
    let c = caps(&sel);
    expect_ok(&c, 10.0 * D, 12.0 * D, "optimist", 17_280);
    expect_rounded_down(&c, 6.0 * D, 8.0 * D, "normal", 10_080);
    expect_ok(&c, 1.0 * H, 2.0 * H, "normal", 120);
}

// ---------------------------------------------------------------------------
// Seed case 6 (design.md): `_b1` 3 h, `_b2` 12 h, `_b3` 24 h, `_b4` 3 d,
// `_b5` 7 d, `_b6` 28 d on one cluster; another stops at `_b3` (24 h): a 48 h
// need is unsubmittable there.

const STOPS_AT_B3: &str = "\
cpubase_bycore_b1* 3:00:00
cpubase_bycore_b2 12:00:00
cpubase_bycore_b3 1-00:00:00
";

#[test]
fn seed_case_6_a_48_hour_need_is_over_cap_where_buckets_stop_at_b3() {
    let list = parse_text(STOPS_AT_B3);
    let sel = default_selection(&list);
    assert_eq!(
        members(&sel),
        named(&[
            ("cpubase_bycore_b1", Some(3 * 3600)),
            ("cpubase_bycore_b2", Some(12 * 3600)),
            ("cpubase_bycore_b3", Some(24 * 3600)),
        ])
    );
    let c = caps(&sel);
    // 48 h measured, 52 h upper: 3120 minutes in 1440-minute segments is 3.
    expect_over_cap(&c, 48.0 * H, 52.0 * H, 3120, 3);
    // Exactly 48 h: two 24 h segments.
    expect_over_cap(&c, 48.0 * H, 48.0 * H, 2880, 2);
    // 20 h measured, 30 h upper: the largest cap, with the margin cut.
    expect_rounded_down(&c, 20.0 * H, 30.0 * H, "cpubase_bycore_b3", 1440);
}

#[test]
fn seed_case_6_killarney_like_l40s_up_to_b3() {
    let list = partition_sample("sinfo-killarney-summarize.txt");
    let sel = regex(&list, "^gpubase_l40s_b[1-3]$");
    assert_eq!(
        members(&sel),
        named(&[
            ("gpubase_l40s_b1", Some(3 * 3600)),
            ("gpubase_l40s_b2", Some(12 * 3600)),
            ("gpubase_l40s_b3", Some(24 * 3600)),
        ])
    );
    expect_over_cap(&caps(&sel), 48.0 * H, 52.0 * H, 3120, 3);
}

#[test]
fn seed_case_6_on_narval_a_48_hour_need_fits_b4() {
    let list = partition_sample("sinfo-narval.txt");
    let c = caps(&default_selection(&list));
    // b5 is 7 d there: 48 h measured, 52 h upper asks for 52 h in b4 (3 d).
    expect_ok(&c, 48.0 * H, 52.0 * H, "cpubase_bycore_b4", 3120);
    // An upper bound past 3 d with the floor under it: rounded down into b4.
    expect_rounded_down(&c, 48.0 * H, 80.0 * H, "cpubase_bycore_b4", 4320);
}

#[test]
fn seed_case_6_a_b6_bucket_holds_what_b5_cannot() {
    // Fir-like: cpubase_bycore_b6 28 d.
    let text = format!(
        "{STOPS_AT_B3}cpubase_bycore_b4 3-00:00:00\ncpubase_bycore_b5 7-00:00:00\ncpubase_bycore_b6 28-00:00:00\n"
    );
    let list = parse_text(&text);
    let c = caps(&default_selection(&list));
    assert_eq!(c.len(), 6);
    expect_ok(&c, 8.0 * D, 10.0 * D, "cpubase_bycore_b6", 14_400);
    expect_rounded_down(&c, 6.0 * D, 8.0 * D, "cpubase_bycore_b5", 10_080);
    expect_over_cap(&c, 30.0 * D, 30.0 * D, 43_200, 2);
}

#[test]
fn caps_with_seconds_use_the_whole_minutes_below_them() {
    // Slurm stores MaxTime in minutes, but a hand-written list may carry
    // seconds: 3:00:30 allows 180 minutes, not 181.
    let list = parse_text("odd* 3:00:30\n");
    let c = caps(&default_selection(&list));
    expect_rounded_down(&c, 2.0 * H, 4.0 * H, "odd", 180);
    expect_ok(&c, 2.0 * H, 2.5 * H, "odd", 150);
    // 3 h + 10 s needs 181 minutes, which the cap does not allow.
    expect_over_cap(&c, 3.0 * H + 10.0, 3.0 * H + 20.0, 181, 2);
}

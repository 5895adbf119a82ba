//! Slurm time values and partition lists, checked against Slurm's own unit-test
//! vectors (`testsuite/slurm_unit/common/parse_time-test.c`), the rules read
//! from Slurm's source (`docs/slurm-formats.md`, sections 1-3), and
//! real sinfo/scontrol outputs (`tests/data/slurm/`, each with its `# source:`).
//!
//! Every expected value below was written by hand from those sources, never
//! computed with the code under test.

mod common;

use calib::error::{Error, Origin};
use calib::slurm::partitions::{
    family_of, parse_partitions, PartitionList, PartitionSelector, Selection,
};
use calib::slurm::time::{
    format_sbatch_time, parse_elapsed, parse_printed_limit, parse_time, sbatch_minutes,
    PrintedLimit, SlurmTime,
};
use common::{assert_input_error, default_selection, partition_sample, recorded_sample};
use proptest::prelude::*;
use regex::Regex;

const H: u64 = 3_600;
const D: u64 = 86_400;

fn lim(s: u64) -> SlurmTime {
    SlurmTime::Limited(s)
}

const UNL: SlurmTime = SlurmTime::Unlimited;

// ---------------------------------------------------------------------------
// 1a. parse_time-test.c, test_time_str2secs: all 27 vectors, in order.
// `(int)NO_VAL` is an error here, `(int)INFINITE` is Unlimited; the C test's
// NULL input maps to our empty string.
// ---------------------------------------------------------------------------

#[test]
fn upstream_parse_time_test_vectors() {
    let long_invalid = format!("LONG {} INVALID TIME", "-".repeat(225));
    let cases: Vec<(&str, Option<SlurmTime>)> = vec![
        ("", None),             // 1: NULL
        ("", None),             // 2: ""
        ("INVALID TIME", None), // 3
        ("-1", Some(UNL)),      // 4
        ("INFINITE", Some(UNL)),
        ("infinite", Some(UNL)),
        ("UNLIMITED", Some(UNL)),
        ("unlimited", Some(UNL)),      // 8
        (long_invalid.as_str(), None), // 9
        ("0", Some(lim(0))),           // 10
        ("60", Some(lim(60 * 60))),
        ("60:15", Some(lim(60 * 60 + 15))),
        ("60:0", Some(lim(60 * 60))),
        ("60:", None), // 14
        ("60:-10", None),
        ("-60:10", None),
        ("1:60:15", Some(lim(H + 60 * 60 + 15))), // 17
        ("2:60:15", Some(lim(2 * H + 60 * 60 + 15))),
        ("0:0:15", Some(lim(15))),
        ("0:60:0", Some(lim(60 * 60))),
        ("0:0:0", Some(lim(0))), // 21
        ("-0:-0:-0", None),
        (" 0:0:0 ", None),
        ("0-1:60:15", Some(lim(H + 60 * 60 + 15))), // 24
        ("1-1:60:15", Some(lim(D + H + 60 * 60 + 15))),
        ("365-1:60:15", Some(lim(365 * D + H + 60 * 60 + 15))),
        ("365-0:0:0", Some(lim(365 * D))), // 27
    ];
    assert_eq!(cases.len(), 27);
    for (input, expected) in cases {
        let got = parse_time(input).ok();
        assert_eq!(got, expected, "parse_time({input:?})");
    }
    // The numbers the notes give in the "value in seconds" column.
    assert_eq!(parse_time("1:60:15").unwrap(), lim(7_215));
    assert_eq!(parse_time("2:60:15").unwrap(), lim(10_815));
    assert_eq!(parse_time("1-1:60:15").unwrap(), lim(93_615));
    assert_eq!(parse_time("365-1:60:15").unwrap(), lim(31_543_215));
    assert_eq!(parse_time("365-0:0:0").unwrap(), lim(31_536_000));
}

// ---------------------------------------------------------------------------
// 1b. Vectors from code reading: seconds, and the minutes `--time` stores.
// ---------------------------------------------------------------------------

#[test]
fn code_reading_vectors_seconds_and_stored_minutes() {
    let rows: &[(&str, u64, u64)] = &[
        ("30", 1_800, 30),
        ("30:00", 1_800, 30),
        ("00:00:30", 30, 1),
        ("0:0:1", 1, 1),
        ("1:30", 90, 2),
        ("3:00:00", 10_800, 180),
        ("1-", 86_400, 1_440),
        ("1-12", 129_600, 2_160),
        ("1-12:30", 131_400, 2_190),
        ("1-00:00:00", 86_400, 1_440),
        ("7-00:00:00", 604_800, 10_080),
        ("14-00:00:0", 1_209_600, 20_160),
    ];
    for &(input, secs, mins) in rows {
        assert_eq!(parse_time(input).unwrap(), lim(secs), "secs of {input:?}");
        assert_eq!(sbatch_minutes(secs as f64), mins, "minutes of {input:?}");
    }
    for bad in ["122-00:00:", "1:2:3:4", "1-2-3", "+5", "5s", "1.5"] {
        assert!(parse_time(bad).is_err(), "{bad:?} must be rejected");
    }
    assert_eq!(parse_time("Infinite").unwrap(), UNL);
}

#[test]
fn negative_and_huge_values_are_rejected_without_panicking() {
    for bad in [
        "-5",
        "-0",
        "-5:00",
        "-1-00:00:00",
        "99999999999999999999999",
        "18446744073709551615",
        "99999999999999999999-00:00:00",
        "213503982334602-0",
        // Beyond Slurm's 32-bit second count (2^31 - 1 s): C would overflow.
        "24856-00:00:00",
        "35791395",
        "2147483648:0",
    ] {
        assert!(parse_time(bad).is_err(), "{bad:?} must be rejected");
    }
    // The largest values that still fit Slurm's int are accepted.
    assert_eq!(parse_time("35791394").unwrap(), lim(35_791_394 * 60));
    assert_eq!(parse_time("0:0:2147483647").unwrap(), lim(2_147_483_647));
    assert!(parse_time("0:0:2147483648").is_err());
    // Such a value is in the grammar: the message says the bound, not the grammar.
    for bad in ["35791395", "99999999999999999999999"] {
        let text = parse_time(bad).unwrap_err().to_string();
        assert!(
            text.contains("is beyond what Slurm accepts, at most 24855-03:14:07"),
            "{text}"
        );
        assert!(!text.contains("expected minutes"), "{text}");
    }
}

#[test]
fn rejection_messages_say_what_is_expected() {
    let e = parse_time("5s").unwrap_err();
    let text = e.to_string();
    assert!(text.contains("`5s`"), "{text}");
    assert!(text.contains("D-H:M:S"), "{text}");
}

// ---------------------------------------------------------------------------
// 2. Printed forms: sinfo, sacct, scontrol.
// ---------------------------------------------------------------------------

#[test]
fn printed_limits_of_sinfo_sacct_and_scontrol() {
    let t = |s| PrintedLimit::Time(lim(s));
    let rows: Vec<(&str, PrintedLimit)> = vec![
        // sinfo %l
        ("infinite", PrintedLimit::Time(UNL)),
        ("0:00", t(0)),
        ("30:00", t(1_800)),
        ("3:00:00", t(3 * H)),
        ("12:00:00", t(12 * H)),
        ("1-00:00:00", t(D)),
        // sacct Timelimit
        ("UNLIMITED", PrintedLimit::Time(UNL)),
        ("Partition_Limit", PrintedLimit::PartitionLimit),
        ("", PrintedLimit::Unknown),
        ("00:30:00", t(1_800)),
        ("03:00:00", t(3 * H)),
        ("2-00:00:00", t(2 * D)),
        // scontrol MaxTime / DefaultTime / TimeLimit
        ("NONE", PrintedLimit::Unknown),
        ("00:01:00", t(60)),
        ("7-00:00:00", t(7 * D)),
        ("2-12:00:00", t(2 * D + 12 * H)),
    ];
    for (input, expected) in rows {
        assert_eq!(parse_printed_limit(input).unwrap(), expected, "{input:?}");
    }
    assert!(parse_printed_limit("soon").is_err());
    assert!(parse_printed_limit("-5").is_err());
}

#[test]
fn sacct_elapsed_and_cpu_times() {
    let close = |input: &str, expected: f64| {
        let got = parse_elapsed(input).unwrap().unwrap();
        assert!(
            (got - expected).abs() < 1e-9,
            "{input:?}: {got} != {expected}"
        );
    };
    close("2-01:24:56", (2 * D + H + 24 * 60 + 56) as f64);
    close("00:00:00", 0.0);
    close("00:03:25", 205.0);
    close("01:09:48", 4_188.0);
    close("00:01:11", 71.0);
    close("00:47.734", 47.734);
    close("12:05.5", 725.5);
    assert_eq!(parse_elapsed("").unwrap(), None);
    for bad in [
        "INVALID",
        "1-00:47",
        "1.5",
        "abc",
        "-00:00:05",
        "00:47.",
        "00:47.7x",
    ] {
        assert!(parse_elapsed(bad).is_err(), "{bad:?} must be rejected");
    }
}

#[test]
fn formatting_for_sbatch() {
    let rows: &[(f64, &str, u64)] = &[
        (0.0, "00:01:00", 1),
        (-5.0, "00:01:00", 1),
        (f64::NAN, "00:01:00", 1),
        (0.001, "00:01:00", 1),
        (59.0, "00:01:00", 1),
        (60.0, "00:01:00", 1),
        (60.5, "00:02:00", 2),
        (10_800.0, "03:00:00", 180),
        (43_199.0, "12:00:00", 720),
        (86_399.5, "1-00:00:00", 1_440),
        (86_401.0, "1-00:01:00", 1_441),
        (1_209_600.0, "14-00:00:00", 20_160),
        // Clamped to what Slurm's int arithmetic survives: (s + 59) / 60 with
        // s <= 2^31 - 1 gives at most 35791393 min = 24855 d 3 h 13 min.
        (1e300, "24855-03:13:00", 35_791_393),
        (f64::INFINITY, "24855-03:13:00", 35_791_393),
        (35_791_393.0 * 60.0, "24855-03:13:00", 35_791_393),
        (35_791_393.0 * 60.0 + 1.0, "24855-03:13:00", 35_791_393),
    ];
    for &(secs, text, mins) in rows {
        assert_eq!(format_sbatch_time(secs), text, "format of {secs}");
        assert_eq!(sbatch_minutes(secs), mins, "minutes of {secs}");
    }
}

#[test]
fn sinfo_display_form_parses_back() {
    let rows: &[(SlurmTime, &str)] = &[
        (UNL, "infinite"),
        (lim(0), "0:00"),
        (lim(60), "1:00"),
        (lim(1_200), "20:00"),
        (lim(3 * H), "3:00:00"),
        (lim(12 * H), "12:00:00"),
        (lim(D), "1-00:00:00"),
        (lim(14 * D), "14-00:00:00"),
    ];
    for &(t, text) in rows {
        assert_eq!(t.to_string(), text);
        assert_eq!(parse_time(text).unwrap(), t);
    }
}

proptest! {
    #[test]
    fn formatted_time_parses_back_to_the_stored_minutes(secs in prop_oneof![
        0.0f64..200_000.0,
        0.0f64..3e9,
        Just(0.0), Just(60.0), Just(86_400.0), any::<f64>(),
    ]) {
        let text = format_sbatch_time(secs);
        let minutes = sbatch_minutes(secs);
        prop_assert!(minutes >= 1);
        prop_assert_eq!(parse_time(&text), Ok(SlurmTime::Limited(minutes * 60)), "{}", text);
        // Slurm rounds seconds up to the minute: the stored value holds the request.
        if secs.is_finite() && secs > 0.0 && secs < 2e9 {
            prop_assert!((minutes * 60) as f64 >= secs);
            prop_assert!(minutes == 1 || (((minutes - 1) * 60) as f64) < secs);
        }
    }

    #[test]
    fn formatted_time_is_monotone(a in 0.0f64..4e9, b in 0.0f64..4e9) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let secs = |x: f64| parse_time(&format_sbatch_time(x)).unwrap().seconds().unwrap();
        prop_assert!(secs(lo) <= secs(hi));
    }

    #[test]
    fn parse_time_never_panics(s in any::<String>()) {
        let _ = parse_time(&s);
        let _ = parse_printed_limit(&s);
        let _ = parse_elapsed(&s);
    }

    #[test]
    fn parse_time_never_panics_on_time_like_text(s in "[0-9:\\-. +]{0,30}") {
        if let Ok(SlurmTime::Limited(secs)) = parse_time(&s) {
            prop_assert!(secs <= i32::MAX as u64);
        }
        let _ = parse_elapsed(&s);
    }
}

// ---------------------------------------------------------------------------
// 3. Partition lists: every sinfo/scontrol sample.
// ---------------------------------------------------------------------------

/// A recorded sinfo or scontrol sample of tests/data/slurm.
fn sample(name: &str) -> String {
    recorded_sample(&format!("tests/data/slurm/{name}"))
}

/// Names and limits in input order, and the default partition.
fn check(list: &PartitionList, expected: &[(&str, SlurmTime)], default: Option<&str>) {
    let got: Vec<(&str, SlurmTime)> = list
        .partitions
        .iter()
        .map(|p| (p.name.as_str(), p.limit))
        .collect();
    assert_eq!(got, expected);
    let defaults: Vec<&str> = list
        .partitions
        .iter()
        .filter(|p| p.is_default)
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(defaults, default.into_iter().collect::<Vec<_>>());
}

fn names(selection: &Selection) -> Vec<&str> {
    selection
        .partitions
        .iter()
        .map(|p| p.name.as_str())
        .collect()
}

const CPUBASE_BYCORE: [&str; 5] = [
    "cpubase_bycore_b1",
    "cpubase_bycore_b2",
    "cpubase_bycore_b3",
    "cpubase_bycore_b4",
    "cpubase_bycore_b5",
];

#[test]
fn sample_caviness_default_table_one_partition_many_states() {
    let list = partition_sample("sinfo-caviness.txt");
    check(&list, &[("it_css", lim(7 * D))], None);
    assert!(list.notes.is_empty(), "{:?}", list.notes);
    let s = default_selection(&list);
    assert_eq!(names(&s), ["it_css"]);
    assert!(
        s.description.starts_with("all partitions"),
        "{}",
        s.description
    );
}

#[test]
fn sample_cedar_pipe_separated_all_fields() {
    let list = partition_sample("sinfo-cedar-all.txt");
    check(&list, &[("cpubase_bycore_b4", lim(3 * D))], None);
    let s = default_selection(&list);
    assert_eq!(names(&s), ["cpubase_bycore_b4"]);
    assert!(
        s.description.starts_with("family cpubase_bycore"),
        "{}",
        s.description
    );
}

#[test]
fn sample_cirrus_minutes_only_limits() {
    let list = partition_sample("sinfo-cirrus.txt");
    check(
        &list,
        &[
            ("standard", lim(4 * D)),
            ("gpu-skylake", lim(20 * 60)),
            ("gpu-cascade", lim(20 * 60)),
            ("tds", lim(4 * D)),
            ("gpu-tds", lim(10 * 60)),
        ],
        None,
    );
    let s = default_selection(&list);
    // No default, no bucket names: all, by limit (ties in input order).
    assert_eq!(
        names(&s),
        ["gpu-tds", "gpu-skylake", "gpu-cascade", "standard", "tds"]
    );
    assert!(s.description.starts_with("all partitions"));
}

#[test]
fn sample_graham_default_partition_without_buckets() {
    let list = partition_sample("sinfo-graham.txt");
    check(&list, &[("compute", lim(7 * D))], Some("compute"));
    let s = default_selection(&list);
    assert_eq!(names(&s), ["compute"]);
    assert!(s.description.contains("default"), "{}", s.description);
}

#[test]
fn sample_hawk_default_is_a_family_of_one() {
    let list = partition_sample("sinfo-hawk.txt");
    check(
        &list,
        &[
            ("compute", lim(3 * D)),
            ("compute_amd", lim(3 * D)),
            ("highmem", lim(3 * D)),
            ("gpu", lim(2 * D)),
            ("gpu_v100", lim(2 * D)),
            ("htc", lim(3 * D)),
            ("dev", lim(H)),
        ],
        Some("compute"),
    );
    let s = default_selection(&list);
    assert_eq!(names(&s), ["compute"]);
    assert_eq!(
        s.description,
        "partition compute alone (the default partition; its name has no _b<N> bucket suffix, \
         so it is a family of one): compute 3-00:00:00"
    );
}

const BUCKET_LIMITS: [u64; 5] = [3 * H, 12 * H, D, 3 * D, 7 * D];

fn family_rows(family: &str) -> Vec<(String, SlurmTime)> {
    (1..=5)
        .map(|b| (format!("{family}_b{b}"), lim(BUCKET_LIMITS[b - 1])))
        .collect()
}

#[test]
fn sample_killarney_partitions_with_a_gres_column() {
    let list = partition_sample("sinfo-killarney-partitions.txt");
    let mut expected = family_rows("gpubase_h100");
    expected.push(("gpubase_interac".to_string(), lim(3 * H)));
    expected.extend(family_rows("gpubase_l40s"));
    let expected: Vec<(&str, SlurmTime)> = expected.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    check(&list, &expected, None);
    // The %G column was ignored, and the user is told so.
    assert_eq!(list.notes.len(), 1, "{:?}", list.notes);
    assert!(list.notes[0].contains("ignored"), "{:?}", list.notes);
    let s = default_selection(&list);
    // h100 and l40s both have 5 buckets: the first in input order wins.
    assert_eq!(
        names(&s),
        [
            "gpubase_h100_b1",
            "gpubase_h100_b2",
            "gpubase_h100_b3",
            "gpubase_h100_b4",
            "gpubase_h100_b5"
        ]
    );
    assert!(
        s.description.contains("first in the input"),
        "{}",
        s.description
    );
    assert!(s.description.contains("gpubase_l40s"), "{}", s.description);
}

#[test]
fn sample_killarney_summarize() {
    let list = partition_sample("sinfo-killarney-summarize.txt");
    let mut expected = family_rows("gpubase_h100");
    expected.extend(family_rows("gpubase_l40s"));
    let expected: Vec<(&str, SlurmTime)> = expected.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    check(&list, &expected, None);
    assert!(list.notes.is_empty(), "{:?}", list.notes);
    let s = default_selection(&list);
    assert_eq!(
        s.description,
        "family gpubase_h100 (no default partition is marked; of the bucket families \
         gpubase_h100, gpubase_l40s it has the most buckets, 5, and comes first in the input; \
         choose another with --partition-family): b1 3:00:00, b2 12:00:00, b3 1-00:00:00, \
         b4 3-00:00:00, b5 7-00:00:00"
    );
}

#[test]
fn sample_magiccastle_infinite_default() {
    let list = partition_sample("sinfo-magiccastle.txt");
    check(
        &list,
        &[("cpubase_bycore_b1", UNL), ("node", UNL), ("smnode", UNL)],
        Some("cpubase_bycore_b1"),
    );
    let s = default_selection(&list);
    assert_eq!(names(&s), ["cpubase_bycore_b1"]);
    assert_eq!(s.partitions[0].limit.cap_seconds(), f64::INFINITY);
    assert_eq!(
        s.description,
        "family cpubase_bycore (the default partition's, cpubase_bycore_b1): b1 infinite"
    );
}

#[test]
fn sample_mahuika_site_layout_with_truncated_21_days() {
    let list = partition_sample("sinfo-mahuika.txt");
    check(
        &list,
        &[
            ("maintenance", lim(3 * D)),
            ("interactive", lim(3 * D)),
            ("large", lim(3 * D)),
            ("long", lim(21 * D)),
            ("gpu", lim(3 * D)),
            ("infill", lim(3 * D)),
            ("igpu", lim(3 * D)),
            ("prepost", lim(3 * H)),
            ("bigmem", lim(7 * D)),
            ("hugemem", lim(7 * D)),
        ],
        None,
    );
    assert_eq!(list.notes.len(), 1, "{:?}", list.notes);
    assert!(
        list.notes[0].contains("long `21-00:00:0`"),
        "{:?}",
        list.notes
    );
    let s = default_selection(&list);
    assert_eq!(
        names(&s),
        [
            "prepost",
            "maintenance",
            "interactive",
            "large",
            "gpu",
            "infill",
            "igpu",
            "bigmem",
            "hugemem",
            "long"
        ]
    );
}

#[test]
fn sample_narval_three_bucket_families_and_no_default_marker() {
    let list = partition_sample("sinfo-narval.txt");
    let mut expected = vec![("cpubase_interac".to_string(), lim(8 * H))];
    expected.extend(family_rows("cpubase_bycore"));
    expected.extend(family_rows("cpubase_bynode"));
    expected.push(("gpubase_interac".to_string(), lim(8 * H)));
    expected.extend(family_rows("gpubase_bygpu"));
    expected.push(("gpubackfill".to_string(), lim(D)));
    expected.push(("cpubackfill".to_string(), lim(D)));
    let expected: Vec<(&str, SlurmTime)> = expected.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    check(&list, &expected, None);
    assert!(list.notes.is_empty(), "{:?}", list.notes);
    let s = default_selection(&list);
    assert_eq!(names(&s), CPUBASE_BYCORE);
    assert!(
        s.description
            .contains("cpubase_bycore, cpubase_bynode, gpubase_bygpu"),
        "{}",
        s.description
    );
}

#[test]
fn sample_saga_truncated_14_days_accepted_with_a_note() {
    let list = partition_sample("sinfo-saga.txt");
    check(
        &list,
        &[
            ("normal", lim(7 * D)),
            ("bigmem", lim(14 * D)),
            ("accel", lim(14 * D)),
            ("optimist", UNL),
        ],
        Some("normal"),
    );
    assert_eq!(list.notes.len(), 1, "{:?}", list.notes);
    let note = &list.notes[0];
    assert!(note.contains("bigmem `14-00:00:0`"), "{note}");
    assert!(note.contains("accel `14-00:00:0`"), "{note}");
    assert!(note.contains("sinfo -h -o '%P %l'"), "{note}");
    let s = default_selection(&list);
    assert_eq!(names(&s), ["normal"]);
}

#[test]
fn lab_sinfo_percent_p_percent_l() {
    let list = partition_sample("lab-sinfo-P-l.txt");
    let lab: [(&str, SlurmTime); 6] = [
        ("cpubase_bycore_b1", lim(3 * H)),
        ("cpubase_bycore_b2", lim(12 * H)),
        ("cpubase_bycore_b3", lim(D)),
        ("cpubase_bycore_b4", lim(3 * D)),
        ("cpubase_bycore_b5", lim(7 * D)),
        ("short", lim(60)),
    ];
    check(&list, &lab, Some("cpubase_bycore_b1"));
    assert!(list.notes.is_empty(), "{:?}", list.notes);
    assert_eq!(list.cluster, None);
    let s = default_selection(&list);
    assert_eq!(names(&s), CPUBASE_BYCORE);
    assert_eq!(
        s.description,
        "family cpubase_bycore (the default partition's, cpubase_bycore_b1): b1 3:00:00, \
         b2 12:00:00, b3 1-00:00:00, b4 3-00:00:00, b5 7-00:00:00"
    );

    // The default table of the same cluster gives the same list.
    let table = partition_sample("lab-sinfo-default.txt");
    assert_eq!(table, list);
}

#[test]
fn lab_scontrol_show_partition() {
    let list = partition_sample("lab-scontrol-partition-short.txt");
    check(&list, &[("short", lim(60))], None);
    let s = default_selection(&list);
    assert_eq!(names(&s), ["short"]);
}

/// Constructed from the lab notes' description of the other blocks (b1
/// `Default=YES MaxTime=03:00:00`, b3 `MaxTime=1-00:00:00`, one block per
/// partition separated by a blank line), with the verbatim `short` block.
#[test]
fn scontrol_several_blocks_default_and_unlimited() {
    let text = "PartitionName=cpubase_bycore_b1\n   AllocNodes=ALL Default=YES QoS=N/A\n   \
                DefaultTime=NONE DisableRootJobs=NO\n   MaxNodes=UNLIMITED MaxTime=03:00:00 MinNodes=0\n\n\
                PartitionName=cpubase_bycore_b3\n   AllocNodes=ALL Default=NO QoS=N/A\n   \
                MaxNodes=UNLIMITED MaxTime=1-00:00:00 MinNodes=0\n\n\
                PartitionName=long Default=NO DefaultTime=UNLIMITED MaxTime=UNLIMITED\n\n\
                PartitionName=short\n   AllocNodes=ALL Default=NO QoS=N/A\n   \
                DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n   \
                MaxNodes=UNLIMITED MaxTime=00:01:00 MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n";
    let list = parse_partitions(text, &Origin::Stdin).unwrap();
    check(
        &list,
        &[
            ("cpubase_bycore_b1", lim(3 * H)),
            ("cpubase_bycore_b3", lim(D)),
            ("long", UNL),
            ("short", lim(60)),
        ],
        Some("cpubase_bycore_b1"),
    );
    let s = default_selection(&list);
    assert_eq!(names(&s), ["cpubase_bycore_b1", "cpubase_bycore_b3"]);

    let missing = "PartitionName=x\n   Default=NO\n";
    let err = parse_partitions(missing, &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(1), &["`x`", "MaxTime="]);
}

// ---------------------------------------------------------------------------
// Errors, truncation, merging, clusters.
// ---------------------------------------------------------------------------

#[test]
fn limit_cut_inside_the_minutes_is_an_error_with_advice() {
    // A 122-day partition in the default view: `%.10l` leaves `122-00:00:`.
    let text = "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n\
                normal*      up 7-00:00:00      1   idle c1-1\n\
                preempt      up 122-00:00:      4   idle c1-[2-5]\n";
    let err = parse_partitions(text, &Origin::Argument("--partitions".into())).unwrap_err();
    assert_input_error(
        &err,
        Some(3),
        &["122-00:00:", "sinfo -h -o '%P %l'", "preempt"],
    );
    assert!(err
        .to_string()
        .starts_with("the value of --partitions, line 3: "));

    // The same value in `%P %l` form, and a lost non-zero digit.
    let err = parse_partitions("preempt 122-00:00:\n", &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(1), &["122-00:00:", "sinfo -h -o '%P %l'"]);
    let err = parse_partitions("odd 14-00:00:3\n", &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(1), &["14-00:00:3", "sinfo -h -o '%P %l'"]);
    // 5 day digits: `12345-00:00:00` cut to `12345-00:0` lost a minutes digit.
    let err = parse_partitions("x 12345-00:0\n", &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(1), &["12345-00:0", "sinfo -h -o '%P %l'"]);
    // 4 day digits: `1000-00:00:00` cut to `1000-00:00` lost only `:00`.
    let list = parse_partitions("x 1000-00:00\n", &Origin::Stdin).unwrap();
    check(&list, &[("x", lim(1_000 * D))], None);
    assert_eq!(list.notes.len(), 1, "{:?}", list.notes);
    // Ten characters but not sinfo's shape (hours not padded): read as written.
    let list = parse_partitions("x 10-1:00:00\n", &Origin::Stdin).unwrap();
    check(&list, &[("x", lim(10 * D + H))], None);
    assert!(list.notes.is_empty(), "{:?}", list.notes);
}

#[test]
fn unreadable_limits_and_garbled_lines_name_the_line() {
    let err = parse_partitions("a 3:00:00\nb 3:00:00:00\n", &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(2), &["3:00:00:00", "sinfo -h -o '%P %l'"]);

    let err = parse_partitions("hello world\n", &Origin::Stdin).unwrap_err();
    assert_input_error(
        &err,
        Some(1),
        &["`world`", "NAME LIMIT", "scontrol show partition"],
    );

    let err = parse_partitions("# comment\n\nlonely\n", &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(3), &["lonely", "NAME LIMIT"]);

    let err = parse_partitions("* 3:00:00\n", &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(1), &["partition name"]);

    let table = "PARTITION AVAIL TIMELIMIT NODES STATE NODELIST\nb1 up 3:00:00 1 idle n1 extra\n";
    let err = parse_partitions(table, &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(2), &["7 columns", "6 columns"]);

    let table = "PARTITION AVAIL TIMELIMIT NODES STATE NODELIST\nb1 up\n";
    let err = parse_partitions(table, &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(2), &["2 columns"]);

    let err = parse_partitions("PartitionName=a MaxTime=forever\n", &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(1), &["MaxTime=forever"]);

    let err = parse_partitions(
        "PartitionName=a MaxTime=1:00\nrandom words\n",
        &Origin::Stdin,
    )
    .unwrap_err();
    assert_input_error(&err, Some(2), &["Key=Value"]);
}

/// A name goes into `--partition=`, where a comma makes two partitions and
/// a control character could end the line or reorder what it shows: Slurm
/// prints no such name, so it is misread input, refused at its line.
#[test]
fn names_slurm_never_prints_are_refused_at_their_line() {
    for (text, line) in [
        ("ok 1:00:00\na,b* 1-00:00:00\n", 2),
        ("a b|1:00:00\n", 1),
        ("ok|1:00:00\nb\u{1b}[2Jx|1:00:00\n", 2),
        ("x\u{202e}y 1:00:00\n", 1),
        ("PartitionName=a,b MaxTime=1:00:00\n", 1),
    ] {
        let err = parse_partitions(text, &Origin::Stdin).unwrap_err();
        assert_input_error(&err, Some(line), &["partition"]);
    }
    // Names as sites make them still read.
    let list = parse_partitions(
        "gpu-a100.long_b2 1:00:00\nbig@mem 2:00:00\n",
        &Origin::Stdin,
    )
    .unwrap();
    assert_eq!(list.partitions.len(), 2);
}

#[test]
fn empty_input_is_an_error() {
    for text in ["", "\n\n", "# source: nothing\n", "CLUSTER: narval\n"] {
        let err = parse_partitions(text, &Origin::Stdin).unwrap_err();
        assert_input_error(&err, None, &["no partitions", "sinfo -h -o '%P %l'"]);
    }
    // A header alone has no partitions either.
    let err = parse_partitions("PARTITION TIMELIMIT\n", &Origin::Stdin).unwrap_err();
    assert_input_error(&err, None, &["no partitions"]);
}

#[test]
fn duplicates_merge_and_conflicts_name_both_lines() {
    let text = "b1* 3:00:00\nb2 12:00:00\nb1* 3:00:00\nb2 12:00:00\n";
    let list = parse_partitions(text, &Origin::Stdin).unwrap();
    check(
        &list,
        &[("b1", lim(3 * H)), ("b2", lim(12 * H))],
        Some("b1"),
    );

    let text = "b1 3:00:00\nb2 12:00:00\nb1 4:00:00\n";
    let err = parse_partitions(text, &Origin::Stdin).unwrap_err();
    assert_input_error(
        &err,
        Some(3),
        &["`b1`", "3:00:00 on line 1", "4:00:00 on line 3"],
    );

    let text = "a* 3:00:00\nb* 12:00:00\n";
    let err = parse_partitions(text, &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(2), &["`a` (line 1)", "`b`"]);
}

#[test]
fn cluster_lines_comments_blanks_and_separators() {
    let text = "\u{feff}# pasted on 2026-11-29\nCLUSTER: narval\n\n\
                cpubase_bycore_b1* 3:00:00\r\n  cpubase_bycore_b2\t12:00:00  \n# end\n";
    let list = parse_partitions(text, &Origin::Stdin).unwrap();
    assert_eq!(list.cluster.as_deref(), Some("narval"));
    check(
        &list,
        &[
            ("cpubase_bycore_b1", lim(3 * H)),
            ("cpubase_bycore_b2", lim(12 * H)),
        ],
        Some("cpubase_bycore_b1"),
    );
    // sbatch submits where it runs: the note says whose partitions these are.
    assert!(
        list.notes.iter().any(|n| n.contains("--clusters=narval")),
        "{:?}",
        list.notes
    );
    let list = parse_partitions("x 1:00:00\n", &Origin::Stdin).unwrap();
    assert!(list.notes.is_empty(), "{:?}", list.notes);

    // `sinfo -M` repeats the header after each CLUSTER line.
    let text = "CLUSTER: a\nPARTITION AVAIL TIMELIMIT\nx* up 1:00:00\n\
                CLUSTER: a\nPARTITION AVAIL TIMELIMIT\nx* up 1:00:00\n";
    let list = parse_partitions(text, &Origin::Stdin).unwrap();
    check(&list, &[("x", lim(H))], Some("x"));

    let text = "CLUSTER: a\nx 1:00:00\nCLUSTER: b\ny 2:00:00\n";
    let err = parse_partitions(text, &Origin::Stdin).unwrap_err();
    assert_input_error(&err, Some(3), &["`a` (line 1)", "`b`", "sinfo -M b"]);

    // `-o '%P|%l|%a|%D|%T'` as in the lab notes, and `sinfo -h` default layout.
    let list = parse_partitions(
        "cpubase_bycore_b1*|3:00:00|up|1|allocated\n",
        &Origin::Stdin,
    )
    .unwrap();
    check(
        &list,
        &[("cpubase_bycore_b1", lim(3 * H))],
        Some("cpubase_bycore_b1"),
    );
    let text = "normal*      up 7-00:00:00      1  down* c5-12\n\
                bigmem       up 14-00:00:0      1  drain c6-3\n\
                optimist     up   infinite      1  down* c5-12\n";
    let list = parse_partitions(text, &Origin::Stdin).unwrap();
    check(
        &list,
        &[
            ("normal", lim(7 * D)),
            ("bigmem", lim(14 * D)),
            ("optimist", UNL),
        ],
        Some("normal"),
    );
    assert_eq!(list.notes.len(), 1);
    // Every state sinfo's AVAIL prints, as the default `%.5a` cuts it: an
    // inactive partition is left out (no job starts there), an unknown kept.
    let text =
        "a   unkno 1:00:00 1 idle n1\nb   n/a 2:00:00 1 idle n2\nc inact 3:00:00 1 idle n3\n";
    let list = parse_partitions(text, &Origin::Stdin).unwrap();
    check(&list, &[("a", lim(H)), ("b", lim(2 * H))], None);
    assert!(
        list.notes.iter().any(|n| n.contains("c (inact)")),
        "{:?}",
        list.notes
    );
    // Limits longer than 10 characters are read as printed, with no note.
    let list = parse_partitions("long 122-00:00:00\n", &Origin::Stdin).unwrap();
    check(&list, &[("long", lim(122 * D))], None);
    assert!(list.notes.is_empty());
}

#[test]
fn sinfo_long_format_and_tables_without_a_limit_column() {
    // `sinfo -l` layout (sinfo.1 `--long`): a date line, then the header.
    let text = "Sun Nov 29 22:00:00 2026\n\
                PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE NODELIST\n\
                b1*          up    3:00:00 1-infinite   no       NO        all      1        idle localhost\n\
                long         up 14-00:00:0 1-infinite   no       NO        all      1        idle localhost\n";
    let list = parse_partitions(text, &Origin::Stdin).unwrap();
    check(
        &list,
        &[("b1", lim(3 * H)), ("long", lim(14 * D))],
        Some("b1"),
    );
    assert_eq!(list.notes.len(), 1);

    // `sinfo -N` is node-oriented and has no TIMELIMIT.
    let text =
        "NODELIST   NODES          PARTITION STATE\nlocalhost      1 cpubase_bycore_b1* idle\n";
    let err = parse_partitions(text, &Origin::Stdin).unwrap_err();
    assert_input_error(
        &err,
        Some(1),
        &["no TIMELIMIT column", "sinfo -h -o '%P %l'"],
    );
}

// ---------------------------------------------------------------------------
// Families and selection.
// ---------------------------------------------------------------------------

#[test]
fn families_from_names() {
    let rows: &[(&str, &str, Option<u32>)] = &[
        ("cpubase_bycore_b2", "cpubase_bycore", Some(2)),
        ("gpubase_h100_b3", "gpubase_h100", Some(3)),
        ("gpubase_bygpu_b12", "gpubase_bygpu", Some(12)),
        ("cpubase_interac", "cpubase_interac", None),
        ("short", "short", None),
        ("compute_amd", "compute_amd", None),
        ("x_b", "x_b", None),
        ("_b1", "_b1", None),
        ("x_b1a", "x_b1a", None),
        ("x_b99999999999", "x_b99999999999", None),
        ("a_b1_b2", "a_b1", Some(2)),
    ];
    for &(name, family, bucket) in rows {
        assert_eq!(family_of(name), (family.to_string(), bucket), "{name}");
    }
}

fn lab_list() -> PartitionList {
    partition_sample("lab-sinfo-P-l.txt")
}

#[test]
fn select_by_family_and_by_regex() {
    let narval = partition_sample("sinfo-narval.txt");
    let s = narval
        .select(Some(&PartitionSelector::Family("gpubase_bygpu".into())))
        .unwrap();
    assert_eq!(
        names(&s),
        [
            "gpubase_bygpu_b1",
            "gpubase_bygpu_b2",
            "gpubase_bygpu_b3",
            "gpubase_bygpu_b4",
            "gpubase_bygpu_b5"
        ]
    );
    assert!(s
        .description
        .starts_with("family gpubase_bygpu (chosen with --partition-family): b1 3:00:00"));

    let s = narval
        .select(Some(&PartitionSelector::Family("gpubackfill".into())))
        .unwrap();
    assert_eq!(names(&s), ["gpubackfill"]);

    let re = Regex::new("^cpubase_by(core|node)_b[12]$").unwrap();
    let s = narval.select(Some(&PartitionSelector::Regex(re))).unwrap();
    // Sorted by limit; equal limits in input order.
    assert_eq!(
        names(&s),
        [
            "cpubase_bycore_b1",
            "cpubase_bynode_b1",
            "cpubase_bycore_b2",
            "cpubase_bynode_b2"
        ]
    );
    assert!(
        s.description.contains("cpubase_bycore_b1 3:00:00"),
        "{}",
        s.description
    );

    // Unanchored: matches anywhere in the name.
    let re = Regex::new("backfill").unwrap();
    let s = narval.select(Some(&PartitionSelector::Regex(re))).unwrap();
    assert_eq!(names(&s), ["gpubackfill", "cpubackfill"]);
}

#[test]
fn selection_sorts_unlimited_last() {
    let list = parse_partitions(
        "f_b3 infinite\nf_b1* 1:00:00\nf_b2 30:00\nother 5:00\n",
        &Origin::Stdin,
    )
    .unwrap();
    let s = list.select(None).unwrap();
    assert_eq!(names(&s), ["f_b2", "f_b1", "f_b3"]);
    assert_eq!(s.partitions[2].limit, UNL);
}

#[test]
fn nothing_selected_is_a_refusal_listing_families() {
    let list = lab_list();
    for selector in [
        PartitionSelector::Family("gpubase_bygpu".into()),
        PartitionSelector::Regex(Regex::new("^gpu").unwrap()),
    ] {
        match list.select(Some(&selector)) {
            Err(Error::Refused(message)) => {
                assert!(
                    message.contains("cpubase_bycore (5 buckets), short"),
                    "{message}"
                );
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }
    // A bucket partition's name given as a family gets a hint.
    match list.select(Some(&PartitionSelector::Family("cpubase_bycore_b2".into()))) {
        Err(Error::Refused(message)) => {
            assert!(
                message.contains("is a partition of family `cpubase_bycore`"),
                "{message}"
            );
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn bucket_family_with_most_buckets_wins_over_input_order() {
    let list = parse_partitions(
        "small_b1 1:00:00\nbig_b1 1:00:00\nbig_b2 2:00:00\nsolo 9:00:00\n",
        &Origin::Stdin,
    )
    .unwrap();
    let s = list.select(None).unwrap();
    assert_eq!(names(&s), ["big_b1", "big_b2"]);
    assert!(
        !s.description.contains("first in the input"),
        "{}",
        s.description
    );
}

proptest! {
    #[test]
    fn parse_partitions_never_panics_on_any_text(text in any::<String>()) {
        if let Ok(list) = parse_partitions(&text, &Origin::Stdin) {
            prop_assert!(!list.partitions.is_empty());
            let _ = list.select(None);
        }
    }

    #[test]
    fn parse_partitions_never_panics_on_sinfo_like_text(
        lines in prop::collection::vec(
            prop::collection::vec(
                prop_oneof![
                    Just("PARTITION".to_string()), Just("TIMELIMIT".to_string()),
                    Just("AVAIL".to_string()), Just("up".to_string()),
                    Just("infinite".to_string()), Just("CLUSTER:".to_string()),
                    Just("PartitionName=p".to_string()), Just("MaxTime=1:00".to_string()),
                    Just("Default=YES".to_string()), Just("#".to_string()), Just("|".to_string()),
                    "[a-z_]{1,6}(_b[0-9]{1,2})?\\*?",
                    "[0-9]{1,3}(-[0-9]{0,2})?(:[0-9]{0,2}){0,3}",
                ],
                0..6,
            ).prop_map(|t| t.join(" ")),
            0..8,
        )
    ) {
        let text = lines.join("\n");
        if let Ok(list) = parse_partitions(&text, &Origin::Stdin) {
            prop_assert!(!list.partitions.is_empty());
            prop_assert!(list.partitions.iter().filter(|p| p.is_default).count() <= 1);
            let s = list.select(None).unwrap();
            prop_assert!(!s.partitions.is_empty());
            prop_assert!(s.partitions.windows(2).all(|w| w[0].limit <= w[1].limit));
        }
    }
}

/// Limits as sinfo prints them, with their values written out by hand.
const PRINTED: [(&str, Option<u64>); 9] = [
    ("1:00", Some(60)),
    ("30:00", Some(1_800)),
    ("3:00:00", Some(3 * H)),
    ("12:00:00", Some(12 * H)),
    ("1-00:00:00", Some(D)),
    ("7-00:00:00", Some(7 * D)),
    ("14-00:00:00", Some(14 * D)),
    ("21-00:00:00", Some(21 * D)),
    ("infinite", None),
];

fn generated_lists() -> impl Strategy<Value = Vec<(String, usize, bool)>> {
    let stems = prop_oneof![
        Just("cpubase_bycore"),
        Just("gpubase_bygpu"),
        Just("short"),
        Just("debug")
    ];
    let one = (stems, prop::option::of(1u32..7), 0..PRINTED.len());
    prop::collection::vec(one, 1..12)
        .prop_flat_map(|rows| {
            // Unique names: a name's first row wins.
            let mut seen = std::collections::HashSet::new();
            let rows: Vec<(String, usize)> = rows
                .into_iter()
                .map(|(stem, bucket, limit)| match bucket {
                    Some(b) => (format!("{stem}_b{b}"), limit),
                    None => (stem.to_string(), limit),
                })
                .filter(|(name, _)| seen.insert(name.clone()))
                .collect();
            let n = rows.len();
            (Just(rows), prop::option::of(0..n))
        })
        .prop_map(|(rows, default)| {
            rows.into_iter()
                .enumerate()
                .map(|(i, (name, limit))| (name, limit, default == Some(i)))
                .collect()
        })
}

proptest! {
    #[test]
    fn generated_sinfo_outputs_parse_to_what_was_generated(
        rows in generated_lists(),
        repeats in 1usize..4,
    ) {
        let expected: Vec<(String, SlurmTime, bool)> = rows
            .iter()
            .map(|(name, limit, default)| {
                let t = PRINTED[*limit].1.map_or(SlurmTime::Unlimited, SlurmTime::Limited);
                (name.clone(), t, *default)
            })
            .collect();
        let star = |d: bool| if d { "*" } else { "" };

        // `sinfo -h -o '%P %l'`.
        let plain: String = rows
            .iter()
            .map(|(name, limit, d)| format!("{name}{} {}\n", star(*d), PRINTED[*limit].0))
            .collect();
        // Default `sinfo`: a header, each partition once per node state, and
        // the limit right-justified and cut to 10 characters (`%.10l`).
        let mut table = String::from("PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n");
        for (name, limit, d) in &rows {
            let cut: String = PRINTED[*limit].0.chars().take(10).collect();
            for state in ["mix", "alloc", "idle"].iter().take(repeats) {
                table.push_str(&format!("{name}{} up {cut:>10} 1 {state} n[1-2]\n", star(*d)));
            }
        }

        for text in [&plain, &table] {
            let list = parse_partitions(text, &Origin::Stdin).unwrap();
            let got: Vec<(String, SlurmTime, bool)> = list
                .partitions
                .iter()
                .map(|p| (p.name.clone(), p.limit, p.is_default))
                .collect();
            prop_assert_eq!(&got, &expected);
            let cut_any = text == &table && rows.iter().any(|(_, l, _)| PRINTED[*l].0.len() > 10);
            prop_assert_eq!(list.notes.len(), usize::from(cut_any));

            let s = list.select(None).unwrap();
            prop_assert!(!s.partitions.is_empty());
            prop_assert!(s.partitions.windows(2).all(|w| w[0].limit <= w[1].limit));
            prop_assert!(s.partitions.iter().all(|p| list.partitions.contains(p)));
            if let Some((name, _, _)) = expected.iter().find(|(_, _, d)| *d) {
                // The default partition is always in the default selection.
                prop_assert!(s.partitions.iter().any(|p| &p.name == name));
            }
        }
    }
}

#[test]
fn scontrol_show_job_is_not_a_partition_list() {
    // A plausible wrong paste: the job's record, not the partitions.
    let text = sample("scontrol-job-cedar.txt");
    let err = parse_partitions(&text, &Origin::file("scontrol-job-cedar.txt")).unwrap_err();
    assert_input_error(&err, Some(2), &["NAME LIMIT", "not a partition name"]);
}

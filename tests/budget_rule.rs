//! Properties of the budgeting rule over arbitrary caps and projections.

use calib::budget::rule::{decide, Cap, Status};
use proptest::prelude::*;

fn caps_strategy() -> impl Strategy<Value = Vec<Cap>> {
    prop::collection::vec(
        prop_oneof![
            9 => (1u64..60 * 24 * 30).prop_map(|m| m as f64 * 60.0),
            1 => Just(f64::INFINITY),
        ],
        1..7,
    )
    .prop_map(|limits| {
        limits
            .into_iter()
            .enumerate()
            .map(|(i, limit_s)| Cap {
                partition: format!("p{i}"),
                limit_s,
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn time_is_never_below_the_measured_cost_nor_zero(
        caps in caps_strategy(),
        floor in 0.0f64..5e6,
        extra in 0.0f64..5e6,
    ) {
        let d = decide(floor, floor + extra, &caps);
        prop_assert!(d.minutes >= 1);
        prop_assert!(d.time_s() as f64 >= floor);
        if d.status != Status::OverCap {
            let cap = caps.iter().find(|c| Some(&c.partition) == d.partition.as_ref()).unwrap();
            prop_assert!(d.time_s() as f64 <= cap.limit_s);
        } else {
            let largest = caps.iter().map(|c| c.limit_s).fold(0.0, f64::max);
            prop_assert!(floor > largest);
        }
    }

    #[test]
    fn time_never_decreases_as_floor_and_upper_grow(
        caps in caps_strategy(),
        floor in 0.0f64..5e6,
        extra in 0.0f64..5e6,
        grow_floor in 0.0f64..1e6,
        grow_extra in 0.0f64..1e6,
    ) {
        let small = decide(floor, floor + extra, &caps);
        let big_floor = floor + grow_floor;
        let big = decide(big_floor, (floor + extra + grow_extra).max(big_floor), &caps);
        prop_assert!(big.time_s() >= small.time_s(), "{small:?} then {big:?}");
    }

    #[test]
    fn rounded_down_only_when_a_cap_lies_between(
        caps in caps_strategy(),
        floor in 0.0f64..5e6,
        extra in 0.0f64..5e6,
    ) {
        let upper = floor + extra;
        let d = decide(floor, upper, &caps);
        if d.status == Status::RoundedDown {
            prop_assert!(d.time_s() as f64 >= floor && (d.time_s() as f64) < upper);
        }
        if d.status == Status::Ok {
            prop_assert!(d.time_s() as f64 >= upper);
            prop_assert!(d.time_s() as f64 - upper < 60.0);
        }
    }
}

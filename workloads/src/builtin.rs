//! The built-in workloads. Their specs are the TOML files in `specs/`, compiled
//! in with `include_str!`, so the files are the single source of truth and a
//! user can copy one as the start of their own.
//!
//! The files hold the `default` scale. [`Scale`] multiplies one size knob of
//! each built-in by 1/10 (`small`), 1 (`default`) or 10 (`large`):
//!
//! * **population** (most built-ins): `pending`, and `arrivals_per_tick` where
//!   it is given (for `ratas-connections`, its pairs of units). The delays and the duration stay, so the workload keeps its
//!   shape while the number of timers and of measured operations scales.
//! * **duration** (`sparse` and the scaling sweep): `duration` only. `sparse`
//!   is about the ticks a wheel walks through, not about timers; a scaling
//!   workload's population is its name, and the sweep keeps the number of
//!   measured operations equal across its members.
//!
//! The scaling sweep has N = 10^3 to 10^5 at `small`, to 10^6 at `default` and
//! to 10^7 at `large`.

use crate::scale::Scale;
use crate::spec::Spec;

/// What a scale multiplies. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Knob {
    Population,
    Duration,
}

/// One shipped spec file.
struct Builtin {
    /// The file's path within the crate, for messages.
    file: &'static str,
    text: &'static str,
    knob: Knob,
    /// The scales at which it is part of the suite.
    scales: &'static [Scale],
}

const ALL: &[Scale] = &[Scale::Small, Scale::Default, Scale::Large];

macro_rules! builtin {
    ($name:literal, $knob:ident, $scales:expr) => {
        Builtin {
            file: concat!("specs/", $name, ".toml"),
            text: include_str!(concat!("../specs/", $name, ".toml")),
            knob: Knob::$knob,
            scales: $scales,
        }
    };
}

/// Every built-in, in the order results list them.
const BUILTINS: &[Builtin] = &[
    builtin!("uniform", Population, ALL),
    builtin!("fixed-timeout", Population, ALL),
    builtin!("timeouts", Population, ALL),
    builtin!("bimodal", Population, ALL),
    builtin!("burst", Population, ALL),
    builtin!("periodic", Population, ALL),
    builtin!("sparse", Duration, ALL),
    builtin!("far-future", Population, ALL),
    builtin!("kafka-purgatory", Population, ALL),
    builtin!("heavy-tail", Population, ALL),
    builtin!("mass-cancel", Population, ALL),
    builtin!("kernel-timeouts", Population, ALL),
    builtin!("idle-reset", Population, ALL),
    builtin!("ratas-connections", Population, ALL),
    builtin!("scaling-1e3", Duration, ALL),
    builtin!("scaling-1e4", Duration, ALL),
    builtin!("scaling-1e5", Duration, ALL),
    builtin!("scaling-1e6", Duration, &[Scale::Default, Scale::Large]),
    builtin!("scaling-1e7", Duration, &[Scale::Large]),
];

/// Every built-in workload at `scale`, in a fixed order: `uniform`, `fixed-timeout`, `timeouts`,
/// `bimodal`, `burst`, `periodic`, `sparse`, `far-future`, `kafka-purgatory`, `heavy-tail`, `mass-cancel`, `kernel-timeouts`, `idle-reset`, `ratas-connections`, then the scaling
/// sweep `scaling-1e3`, `scaling-1e4`, ... (up to `1e5` at small scale, `1e6` at
/// default, `1e7` at large). See the module documentation of `builtin.rs` for
/// what a scale changes.
pub fn builtins(scale: Scale) -> Vec<Spec> {
    BUILTINS
        .iter()
        .filter(|builtin| builtin.scales.contains(&scale))
        .map(|builtin| {
            // Validated once, after scaling: the scale changes the sizes checked.
            let spec = Spec::parse(builtin.text, builtin.file)
                .map(|spec| scaled(spec, scale, builtin.knob))
                .and_then(|spec| {
                    spec.plan_in(&format!("{} at {scale} scale", builtin.file))
                        .map(|_| spec)
                });
            spec.unwrap_or_else(|error| {
                panic!("a shipped spec is invalid (the tests catch this): {error}")
            })
        })
        .collect()
}

/// Applies a scale to a spec read at the default scale.
fn scaled(mut spec: Spec, scale: Scale, knob: Knob) -> Spec {
    // Zero stays zero: a workload with no prefill (`mass-cancel`) keeps none.
    let multiply = |x: u64| match scale {
        Scale::Small if x == 0 => 0,
        Scale::Small => (x.div_ceil(10)).max(1),
        Scale::Default => x,
        Scale::Large => x.saturating_mul(10),
    };
    let factor = match scale {
        Scale::Small => 0.1,
        Scale::Default => 1.0,
        Scale::Large => 10.0,
    };
    match knob {
        Knob::Population => {
            spec.pending = multiply(spec.pending);
            spec.arrivals_per_tick = spec.arrivals_per_tick.map(|rate| rate * factor);
            // ratas's population is its pairs of units.
            if let Some(ratas) = &mut spec.ratas {
                ratas.pairs = u32::try_from(multiply(u64::from(ratas.pairs))).unwrap_or(u32::MAX);
            }
        }
        Knob::Duration => spec.duration = multiply(spec.duration),
    }
    spec
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_in_specs_is_listed_and_named_after_its_file() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/specs");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .expect("the specs directory")
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut listed: Vec<String> = BUILTINS
            .iter()
            .map(|b| b.file.trim_start_matches("specs/").to_owned())
            .collect();
        listed.sort();
        assert_eq!(files, listed, "specs/ and BUILTINS differ");
        for builtin in BUILTINS {
            let spec =
                Spec::from_toml(builtin.text, builtin.file).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(format!("specs/{}.toml", spec.name), builtin.file);
        }
    }

    /// A user's spec may leave `source` out; a built-in may not, since the
    /// README's table and `timerbench list` show every built-in's.
    #[test]
    fn every_builtin_names_its_source() {
        for builtin in BUILTINS {
            let spec = Spec::parse(builtin.text, builtin.file).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                spec.source().is_some(),
                "{}: no `source`; add one line naming the system, benchmark or issue it is \
                 modelled on, or saying it is ours",
                builtin.file
            );
        }
    }

    #[test]
    fn scaling_multiplies_the_chosen_knob() {
        let spec = Spec::from_toml(BUILTINS[0].text, BUILTINS[0].file).unwrap();
        let small = scaled(spec.clone(), Scale::Small, Knob::Population);
        assert_eq!(small.pending, spec.pending / 10);
        assert_eq!(small.duration, spec.duration);
        let large = scaled(spec.clone(), Scale::Large, Knob::Duration);
        assert_eq!(large.pending, spec.pending);
        assert_eq!(large.duration, spec.duration * 10);
        assert_eq!(scaled(spec.clone(), Scale::Default, Knob::Duration), spec);
    }

    #[test]
    fn the_sweep_grows_with_the_scale() {
        let names = |scale| -> Vec<String> {
            builtins(scale)
                .into_iter()
                .map(|s| s.name)
                .filter(|n| n.starts_with("scaling-"))
                .collect()
        };
        assert_eq!(
            names(Scale::Small),
            ["scaling-1e3", "scaling-1e4", "scaling-1e5"]
        );
        assert_eq!(names(Scale::Default).len(), 4);
        assert_eq!(
            names(Scale::Large).last().map(String::as_str),
            Some("scaling-1e7")
        );
    }
}

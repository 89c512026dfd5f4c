//! The scales of the built-in suite (see `builtin.rs` for what each changes).

use std::fmt;
use std::str::FromStr;

use crate::error::WorkloadError;

/// The size of the built-in suite. See [`builtins`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scale {
    /// About a tenth of the default: a CI smoke run in under a minute.
    Small,
    /// The suite that `make results` runs, in about five minutes on two cores.
    #[default]
    Default,
    /// About ten times the default, with a scaling point at 10^7 timers.
    Large,
}

impl Scale {
    /// Every scale, smallest first.
    pub const ALL: [Scale; 3] = [Scale::Small, Scale::Default, Scale::Large];

    /// The scale's name: `small`, `default` or `large`.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Small => "small",
            Scale::Default => "default",
            Scale::Large => "large",
        }
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scale {
    type Err = WorkloadError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scale::ALL
            .into_iter()
            .find(|scale| scale.name() == s)
            .ok_or_else(|| WorkloadError::UnknownScale {
                given: s.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_parse_and_print() {
        for scale in Scale::ALL {
            assert_eq!(scale.to_string().parse::<Scale>().unwrap(), scale);
        }
        let error = "huge".parse::<Scale>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown scale \"huge\"; valid scales are: small, default, large"
        );
    }
}

//! A row type's checks beyond parsing: the values the schema rules out
//! although they parse (a negative time, an interval that misses its median,
//! a verdict nobody writes). The reader runs them on every row it reads, so a
//! figure that no writer could have made is refused with its column, rather
//! than drawn or judged.

/// A row type's checks beyond parsing: values the schema rules out.
pub trait CheckRow {
    /// `Err` with the column and what is valid when a value is out of range.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Checks that a measured figure is a finite, non-negative number.
pub fn non_negative(column: &str, value: f64) -> Result<(), String> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(format!(
            "column `{column}` is {value}; it must be a finite number, 0 or more"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_finite_figures_of_zero_or_more_pass() {
        assert!(non_negative("x", 0.0).is_ok());
        assert!(non_negative("x", 1.5).is_ok());
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let message = non_negative("median_ns", bad).unwrap_err();
            assert!(message.contains("`median_ns`"), "{message}");
        }
    }
}

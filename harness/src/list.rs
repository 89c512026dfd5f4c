//! `timerbench list`: what can be run. The algorithms (name, parameters, one
//! line each), then each design's tunable parameters with the values compiled
//! for a sweep (`--param`), then the built-in workloads at the scale asked
//! for, each with its description and, on a line of its own, its source. It
//! reads the registry and the workloads crate and measures nothing.

use algorithms::registry;

/// Prints the algorithms, the parameters and the built-in workloads of `scale`.
pub fn list(scale: workloads::Scale) {
    println!("Algorithms:");
    let catalog = registry::catalog();
    let width = catalog.iter().map(|a| a.name.len()).max().unwrap_or(0);
    let params_width = catalog.iter().map(|a| a.params.len()).max().unwrap_or(0);
    for info in catalog.iter().filter(|info| !info.variant) {
        println!(
            "  {:width$}  {:params_width$}  {}",
            info.name, info.params, info.summary
        );
    }
    println!();
    println!(
        "Parameters (timerbench run --param <design>:<parameter>=<v1>,<v2>; compiled points):"
    );
    for info in catalog.iter().filter(|info| info.sweep.is_none()) {
        for param in info.tunables {
            let values: Vec<String> = registry::sweep_points(&catalog, info, param)
                .into_iter()
                .map(|(value, row)| {
                    let row = if row == info.name { "default" } else { row };
                    format!("{value} ({row})")
                })
                .collect();
            println!(
                "  {}:{}  {}: {}",
                info.name,
                param.name,
                param.meaning,
                values.join(", ")
            );
        }
    }
    println!();
    println!("Workloads (scale {scale}):");
    let specs = workloads::builtins(scale);
    let width = specs.iter().map(|s| s.name().len()).max().unwrap_or(0);
    for spec in &specs {
        println!("  {:width$}  {}", spec.name(), spec.description());
        // The source goes on a second line, under the description, so that
        // the names and descriptions stay one line each to scan. Every
        // built-in has one (a test in `workloads` holds them to it).
        if let Some(source) = spec.source() {
            println!("  {:width$}  source: {source}", "");
        }
    }
}

//! Imports a kernel timer trace (from `make capture`) and prints what the
//! import made of it; with `--csv`, saves the tape as a CSV trace that
//! `timerbench run --trace` replays.
//!
//! ```text
//! cargo run -p workloads --example ftrace -- TRACE [--hrtimer] [--cpu N] [--hz N] [--csv OUT]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use workloads::{FtraceOptions, KernelTimers, import_ftrace, write_trace};

const USAGE: &str = "usage: ftrace TRACE [--hrtimer] [--cpu N] [--hz N] [--csv OUT]  (TRACE: a raw ftrace text, .gz allowed)";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("ftrace: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut trace = None;
    let mut options = FtraceOptions::default();
    let mut csv = None;
    while let Some(arg) = args.next() {
        let mut number = |flag: &str| -> Result<u32, String> {
            let value = args
                .next()
                .ok_or_else(|| format!("{flag} needs a number; {USAGE}"))?;
            value
                .parse()
                .map_err(|_| format!("{flag} is {value:?}; it must be a whole number"))
        };
        match arg.as_str() {
            "--hrtimer" => options.timers = KernelTimers::Hrtimer,
            "--cpu" => options.cpu = Some(number("--cpu")?),
            "--hz" => options.hz = Some(number("--hz")?),
            "--csv" => {
                csv = Some(PathBuf::from(
                    args.next()
                        .ok_or_else(|| format!("--csv needs a file; {USAGE}"))?,
                ));
            }
            _ if trace.is_none() && !arg.starts_with('-') => trace = Some(PathBuf::from(arg)),
            _ => return Err(format!("unexpected argument {arg:?}; {USAGE}")),
        }
    }
    let trace = trace.ok_or(USAGE)?;
    let imported = import_ftrace(&trace, &options).map_err(|e| e.to_string())?;
    println!("{}: {}", trace.display(), imported.summary);
    if let Some(csv) = csv {
        let file = std::fs::File::create(&csv)
            .map_err(|e| format!("cannot write {}: {e}", csv.display()))?;
        let comments = [
            format!(
                "imported from {} by workloads::import_ftrace",
                trace.display()
            ),
            imported.summary.to_string(),
        ];
        write_trace(&imported.tape, &comments, std::io::BufWriter::new(file))
            .map_err(|e| format!("cannot write {}: {e}", csv.display()))?;
    }
    Ok(())
}

//! Records the compiler's version for the run metadata: the rustc that built the
//! binary, not whatever is on the PATH when it runs.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|v| v.trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=TIMERBENCH_RUSTC={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");
}

//! `cargo xtask bench` (not written yet).

use anyhow::{Result, bail};

pub fn run(_args: &[String]) -> Result<()> {
    bail!("cargo xtask bench is not written yet")
}

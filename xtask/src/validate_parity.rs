//! `cargo xtask validate-parity` (not written yet).

use anyhow::{Result, bail};

pub fn run(_args: &[String]) -> Result<()> {
    bail!("cargo xtask validate-parity is not written yet")
}

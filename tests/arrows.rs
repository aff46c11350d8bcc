//! The dependency arrows of DESIGN.md, enforced over `cargo metadata`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

/// Package name → (normal + build) dependency names. Dev-dependencies are
/// left out: tests may use anything.
fn graph() -> BTreeMap<String, Vec<String>> {
    metadata()["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .map(|d| d["name"].as_str().expect("name").to_owned())
                .collect();
            (p["name"].as_str().expect("name").to_owned(), deps)
        })
        .collect()
}

/// `cargo metadata` of the workspace, without the dependencies' own.
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("metadata is JSON")
}

fn ours(name: &str) -> bool {
    name.starts_with("skillpipe") || name == "xtask"
}

#[test]
fn arrows_hold() {
    let g = graph();
    let mut broken = Vec::new();
    let mut check = |pkg: &str, ok: &dyn Fn(&str) -> bool, rule: &str| {
        for dep in g.get(pkg).into_iter().flatten() {
            if !ok(dep) {
                broken.push(format!("{pkg} -> {dep}: {rule}"));
            }
        }
    };
    check(
        "skillpipe-types",
        &|d| !ours(d),
        "types depends on nothing of ours",
    );
    check(
        "skillpipe-core",
        &|d| !ours(d) || d == "skillpipe-types",
        "core never depends on a provider, settings, validate, plugin-* or cli",
    );
    check(
        "skillpipe-core",
        &|d| d != "anyhow" && d != "abi_stable",
        "core has no anyhow or abi_stable",
    );
    check(
        "skillpipe-validate",
        &|d| !ours(d) || d == "skillpipe-core" || d == "skillpipe-types",
        "the validator depends on core (its bounded reads) at most, never core on it",
    );
    for (pkg, _) in g
        .iter()
        .filter(|(p, _)| p.starts_with("skillpipe-provider-"))
    {
        check(
            pkg,
            &|d| !ours(d) || d == "skillpipe-core" || d == "skillpipe-types",
            "a provider depends on core/types only",
        );
    }
    check(
        "skillpipe-plugin-api",
        &|d| !ours(d),
        "plugin-api depends on abi_stable only",
    );
    check(
        "skillpipe-plugin-host",
        &|d| !ours(d) || ["skillpipe-plugin-api", "skillpipe-core", "skillpipe-types"].contains(&d),
        "plugin-host -> plugin-api, core",
    );
    check(
        "skillpipe-node",
        &|d| !ours(d) || d == "skillpipe",
        "the Node binding calls the skillpipe facade only",
    );
    assert!(
        g.contains_key("skillpipe-python"),
        "the Python binding is checked"
    );
    check(
        "skillpipe-python",
        &|d| !ours(d) || d == "skillpipe" || d == "skillpipe-watch",
        "the Python binding calls the skillpipe facade and the watcher only",
    );
    assert!(
        g.contains_key("skillpipe-watch"),
        "the watcher crate is checked"
    );
    check(
        "skillpipe-watch",
        &|d| !ours(d) || d == "skillpipe",
        "watch -> the skillpipe library only (providers, settings and core through it)",
    );
    testkit_arrows(&g, &mut broken);
    mcp_arrows(&g, &mut broken);
    for (pkg, deps) in &g {
        if pkg != "skillpipe-cli"
            && pkg != "xtask"
            && deps
                .iter()
                .any(|d| d == "anyhow" || d == "tracing-subscriber")
        {
            broken.push(format!(
                "{pkg}: only cli (and xtask) use anyhow or install a subscriber"
            ));
        }
    }
    assert!(
        broken.is_empty(),
        "dependency arrows broken:\n{}",
        broken.join("\n")
    );
}

/// The MCP server (`skillpipe mcp`) is a crate over the facade (and, for
/// live updates, the watcher): rmcp and its async runtime are its alone,
/// so a host that links the library, or anything our library links, never
/// links them; core never sees an MCP type.
fn mcp_arrows(g: &BTreeMap<String, Vec<String>>, broken: &mut Vec<String>) {
    const SERVER: &str = "skillpipe-mcp";
    assert!(g.contains_key(SERVER), "the MCP server crate is checked");
    for dep in g[SERVER].iter().filter(|d| ours(d)) {
        if dep != "skillpipe" && dep != "skillpipe-watch" {
            broken.push(format!(
                "{SERVER} -> {dep}: the MCP server depends on the facade and the watcher only"
            ));
        }
    }
    for (pkg, deps) in g {
        if pkg == SERVER {
            continue;
        }
        for dep in deps {
            if dep == "rmcp" || dep == "tokio" {
                broken.push(format!(
                    "{pkg} -> {dep}: only the MCP server links rmcp or an async runtime"
                ));
            }
        }
    }
    // Nothing the facade links, among our crates, reaches the server.
    let mut seen: Vec<&str> = Vec::new();
    let mut todo: Vec<&str> = vec!["skillpipe"];
    while let Some(pkg) = todo.pop() {
        if seen.contains(&pkg) {
            continue;
        }
        seen.push(pkg);
        if pkg == SERVER {
            broken.push(format!(
                "skillpipe -> … -> {SERVER}: the facade links no MCP"
            ));
        }
        todo.extend(g.get(pkg).into_iter().flatten().map(String::as_str));
    }
}

/// The test kit links the `skillpipe` library, and so every provider
/// crate: it is only ever a dev-dependency (a provider's tests use it,
/// the provider never), and it depends on the facade alone of ours, so
/// that nothing it links can take it as a normal dependency.
fn testkit_arrows(g: &BTreeMap<String, Vec<String>>, broken: &mut Vec<String>) {
    const KIT: &str = "skillpipe-testkit";
    assert!(g.contains_key(KIT), "the test kit is checked");
    for (pkg, deps) in g {
        if deps.iter().any(|d| d == KIT) {
            broken.push(format!(
                "{pkg} -> {KIT}: the test kit is a dev-dependency only"
            ));
        }
    }
    for dep in g[KIT].iter().filter(|d| ours(d)) {
        if dep != "skillpipe" {
            broken.push(format!(
                "{KIT} -> {dep}: the test kit depends on the skillpipe library only"
            ));
        }
    }
    // Whatever the kit links (transitively) must not link the kit.
    let mut seen: Vec<&str> = Vec::new();
    let mut todo: Vec<&str> = g[KIT].iter().map(String::as_str).collect();
    while let Some(pkg) = todo.pop() {
        if seen.contains(&pkg) {
            continue;
        }
        seen.push(pkg);
        let deps = g.get(pkg).into_iter().flatten();
        if deps.clone().any(|d| d == KIT) {
            broken.push(format!("{KIT} -> … -> {pkg} -> {KIT}: a cycle"));
        }
        todo.extend(deps.map(String::as_str));
    }
}

#[test]
fn every_provider_crate_is_tested_with_the_kit() {
    let doc = metadata();
    let packages = doc["packages"].as_array().expect("packages");
    let mut untested = Vec::new();
    for p in packages {
        let name = p["name"].as_str().expect("name");
        if !(name.starts_with("skillpipe-provider-") || name == "skillpipe-plugin-categories") {
            continue;
        }
        let dev_kit = p["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .any(|d| d["name"] == "skillpipe-testkit" && d["kind"] == "dev");
        if !dev_kit {
            untested.push(name.to_owned());
        }
    }
    assert!(
        untested.is_empty(),
        "without skillpipe-testkit as a dev-dependency: {untested:?}"
    );
}

#[test]
fn the_library_names_every_provider_crate() {
    let g = graph();
    let lib = &g["skillpipe"];
    let providers: Vec<&String> = g
        .keys()
        .filter(|p| p.starts_with("skillpipe-provider-"))
        .collect();
    assert!(providers.len() >= 9, "{providers:?}");
    for p in providers {
        assert!(
            lib.contains(p),
            "the skillpipe library does not depend on {p}"
        );
    }
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../crates/skillpipe/src/lib.rs"
    ))
    .expect("lib.rs");
    for p in g.keys().filter(|p| p.starts_with("skillpipe-provider-")) {
        let line = format!("use {} as _;", p.replace('-', "_"));
        assert!(
            src.contains(&line),
            "crates/skillpipe/src/lib.rs lacks `{line}`: the linker would drop its registration"
        );
    }
}

/// `package` of the workspace's metadata.
fn package<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("the {name} package"))
}

/// `name`'s dependency on `dep`, which must exist (`what` says why).
fn dependency<'a>(doc: &'a Value, name: &str, dep: &str, what: &str) -> &'a Value {
    package(doc, name)["dependencies"]
        .as_array()
        .expect("dependencies")
        .iter()
        .find(|d| d["name"] == dep)
        .unwrap_or_else(|| panic!("{what}"))
}

/// The facade reaches `dep` only through its feature `feature`, which is
/// off by default and turns on `dep` alone.
fn behind_feature(doc: &Value, dep: &str, feature: &str, what: &str) {
    let facade = package(doc, "skillpipe");
    let found = dependency(doc, "skillpipe", dep, what);
    assert_eq!(found["optional"], true, "{dep} must be optional");
    let default = &facade["features"]["default"];
    assert!(
        default.is_null() || !default.to_string().contains(feature),
        "{feature} must be off by default: {default}"
    );
    assert_eq!(
        facade["features"][feature],
        serde_json::json!([format!("dep:{dep}")])
    );
}

/// A host that loads no plugins links no abi_stable: the facade reaches
/// the plugin host only through its `plugins` feature, off by default
/// (what `cargo tree -p skillpipe --no-default-features` shows).
#[test]
fn the_facade_links_the_plugin_host_only_with_its_plugins_feature() {
    behind_feature(
        &metadata(),
        "skillpipe-plugin-host",
        "plugins",
        "the facade can load plugins",
    );
}

/// A host that reads no MCP server links no MCP client: the facade reaches
/// the `mcp` provider only through its `mcp` feature, off by default (the
/// CLI turns it on).
#[test]
fn the_facade_links_the_mcp_provider_only_with_its_mcp_feature() {
    let doc = metadata();
    behind_feature(
        &doc,
        "skillpipe-provider-mcp",
        "mcp",
        "the facade can read MCP servers",
    );
    let library = dependency(
        &doc,
        "skillpipe-cli",
        "skillpipe",
        "the CLI links the library",
    );
    assert!(
        library["features"].to_string().contains("\"mcp\""),
        "the CLI reads MCP servers: {library}"
    );
}

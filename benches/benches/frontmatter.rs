//! Micro-benchmarks of the per-file work of discovery: decoding and
//! splitting a SKILL.md, parsing its frontmatter (the fast reader for flat
//! `key: value` lines, the YAML parser for the rest, the repair), and the
//! name and description checks.
//!
//! `cargo bench -p skillpipe-benches --bench frontmatter`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skillpipe_core::checks::{self, NameAnchor};
use skillpipe_core::frontmatter;
use skillpipe_core::text;

/// What most skill files start with: flat one-line values.
const FLAT: &str = "---\nname: pdf-review-42\ndescription: Use when working with pdf review deploy lint test graph cloud data api auth cache queue search index report chart.\ndisable-model-invocation: true\n---\n\n# pdf-review-42\n\nBody.\n";

/// A flow list and a nested map: the YAML parser's work.
const NESTED: &str = "---\nname: pdf-review-42\ndescription: \"Use when working with pdf review, deploy: lint\"\nmetadata:\n  version: \"1.3\"\n  author: team-3\nallowed-tools: [Bash, Read]\n---\n\nBody.\n";

/// An unquoted `: ` in a value: parsed only after the repair.
const REPAIRED: &str =
    "---\nname: pdf-review-42\ndescription: Use it: when working with pdf files\n---\nBody.\n";

fn yaml_of(file: &str) -> String {
    let decoded = text::decode(file.as_bytes());
    text::split(&decoded.text)
        .yaml
        .map(str::to_owned)
        .unwrap_or_default()
}

fn frontmatter(c: &mut Criterion) {
    let mut g = c.benchmark_group("frontmatter");
    g.bench_function("decode+split", |b| {
        b.iter(|| {
            let decoded = text::decode(black_box(FLAT.as_bytes()));
            black_box(text::split(&decoded.text).yaml.map(str::len));
        })
    });
    g.bench_function("raw_frontmatter_len", |b| {
        b.iter(|| text::raw_frontmatter_len(black_box(FLAT.as_bytes())))
    });
    for (label, file) in [("flat", FLAT), ("nested", NESTED), ("repaired", REPAIRED)] {
        let yaml = yaml_of(file);
        g.bench_function(format!("parse/{label}"), |b| {
            b.iter(|| frontmatter::parse(black_box(&yaml)))
        });
    }
    let flat = yaml_of(FLAT);
    g.bench_function("parse_simple/flat", |b| {
        b.iter(|| frontmatter::parse_simple(black_box(&flat)))
    });
    g.bench_function("yaml_parser/flat", |b| {
        // What the flat file costs without the fast reader: the same
        // document after a comment line, which sends it to the YAML parser.
        let commented = format!("# via the YAML parser\n{flat}");
        b.iter(|| frontmatter::parse_strict(black_box(&commented)))
    });
    g.finish();
}

/// Frontmatter with `n` distinct keys (a hostile file: 100,000 keys fit
/// under the 1 MiB bound). The time per key must stay flat from 1k to
/// 100k keys: a quadratic duplicate check once took minutes at 100k.
fn many_keys(c: &mut Criterion) {
    let mut g = c.benchmark_group("many_keys");
    g.sample_size(10);
    for n in [1_000u64, 10_000, 100_000] {
        let yaml: String = std::iter::once("name: many\ndescription: d\n".to_owned())
            .chain((0..n).map(|i| format!("k{i}: v\n")))
            .collect();
        g.throughput(Throughput::Elements(n));
        g.bench_function(format!("parse/{n}"), |b| {
            b.iter(|| frontmatter::parse(black_box(&yaml)))
        });
        // With one key repeated at the end: the YAML parser's path, with
        // its duplicate-key report.
        let repeated = format!("{yaml}k0: w\n");
        g.bench_function(format!("parse_with_duplicate/{n}"), |b| {
            b.iter(|| frontmatter::parse(black_box(&repeated)))
        });
    }
    g.finish();
}

fn checks(c: &mut Criterion) {
    let mut g = c.benchmark_group("checks");
    let description = "Use when working with pdf review deploy lint test graph cloud data.";
    for (label, name) in [
        ("valid", "pdf-review-42"),
        ("mismatch+invalid", "PDF--Review_42-"),
        (
            "long",
            "a-very-long-skill-name-that-goes-on-and-on-well-past-the-sixty-four-limit",
        ),
    ] {
        g.bench_function(format!("name/{label}"), |b| {
            b.iter(|| {
                let mut out = Vec::new();
                checks::check_name(
                    black_box(name),
                    NameAnchor::Directory(black_box("pdf-review-42")),
                    &mut out,
                );
                out
            })
        });
    }
    g.bench_function("description", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            checks::check_description(black_box(Some(description)), true, &mut out);
            out
        })
    });
    g.bench_function("managed_name", |b| {
        b.iter(|| checks::is_managed_name(black_box("pdf-review-42")))
    });
    g.finish();
}

criterion_group!(benches, frontmatter, many_keys, checks);
criterion_main!(benches);

//! What validating a tool call's arguments costs, next to deserializing them.
//!
//! `cargo bench -p pedelec-core --bench validation` measures, for a small
//! (`update_counter`-like, ~60 bytes) and a large (~10 KB, three levels of arrays of objects)
//! instance:
//! - `floor`: `serde_json::from_str::<T>`, no validation at all;
//! - `jsonschema`: what a user does today: parse to `Value`, `jsonschema`'s `is_valid`, then
//!   `serde_json::from_value::<T>`;
//! - `pedelec`: `CompiledSchema::deserialize_args_with::<T>`, the route a session decodes
//!   args by (checked while it is parsed straight into `T` by the fast path);
//! - `is_valid` on an already-parsed `Value`: pedelec's against `jsonschema`'s.
//!
//! After criterion, a summary measures the same functions again interleaved, round after
//! round (so that other load on the machine weighs on all of them alike), and prints each
//! one's cost relative to the floor: the median over the rounds and the range.
//! Criterion's flags work as usual (`-- --warm-up-time 1 --measurement-time 3`);
//! `-- --ratios-only` skips criterion and prints the summary alone.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use pedelec_core::ToolArgs;
use pedelec_core::schema::{
    CompiledSchema, Literal, Number, Property, SchemaNode, ValidationOptions,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

// ----- the small instance: `update_counter` -----

/// Update the visible counter by delta.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code, reason = "read through black_box only")]
struct UpdateCounterArgs {
    delta: i32,
    label: Option<String>,
    tags: Vec<Tag>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
enum Tag {
    Urgent,
    Later,
    Someday,
}

// As `#[derive(ToolArgs)]` writes them (`#[arg(minimum = -100, maximum = 100)]`, …).
impl ToolArgs for Tag {
    const SCHEMA: SchemaNode = SchemaNode::string().with_enum_values(
        const {
            &[
                Literal::str("urgent"),
                Literal::str("later"),
                Literal::str("someday"),
            ]
        },
    );
}

impl ToolArgs for UpdateCounterArgs {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new(
                    "delta",
                    SchemaNode::integer()
                        .with_minimum(Number::Int(-100))
                        .with_maximum(Number::Int(100)),
                    true,
                ),
                Property::new(
                    "label",
                    SchemaNode::string().with_min_length(1).with_max_length(40),
                    false,
                ),
                Property::new(
                    "tags",
                    SchemaNode::array(const { &Tag::SCHEMA }).with_max_items(8),
                    true,
                ),
            ]
        },
    )
    .closed();
}

const SMALL: &str = r#"{"delta":5,"label":"morning run","tags":["urgent","later"]}"#;

// ----- the large instance: a catalog, three levels deep -----

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code, reason = "read through black_box only")]
struct Catalog {
    name: String,
    revision: u32,
    sections: Vec<Section>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code, reason = "read through black_box only")]
struct Section {
    title: String,
    kind: SectionKind,
    entries: Vec<Entry>,
}

#[derive(Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
enum SectionKind {
    Hardware,
    Software,
    Service,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
#[allow(dead_code, reason = "read through black_box only")]
struct Entry {
    sku: String,
    quantity: u32,
    price: f64,
    tags: Vec<String>,
    note: Option<String>,
    active: bool,
}

impl ToolArgs for SectionKind {
    const SCHEMA: SchemaNode = SchemaNode::string().with_enum_values(
        const {
            &[
                Literal::str("hardware"),
                Literal::str("software"),
                Literal::str("service"),
            ]
        },
    );
}

impl ToolArgs for Entry {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new(
                    "sku",
                    SchemaNode::string().with_min_length(3).with_max_length(16),
                    true,
                ),
                Property::of::<u32>("quantity"),
                Property::new(
                    "price",
                    SchemaNode::number().with_minimum(Number::Int(0)),
                    true,
                ),
                Property::new(
                    "tags",
                    SchemaNode::array(const { &SchemaNode::string().with_max_length(20) })
                        .with_max_items(8),
                    true,
                ),
                Property::new("note", SchemaNode::string().with_max_length(200), false),
                Property::of::<bool>("active"),
            ]
        },
    )
    .closed();
}

impl ToolArgs for Section {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new(
                    "title",
                    SchemaNode::string().with_min_length(1).with_max_length(80),
                    true,
                ),
                Property::of::<SectionKind>("kind"),
                Property::new(
                    "entries",
                    SchemaNode::array(const { &Entry::SCHEMA }).with_max_items(100),
                    true,
                ),
            ]
        },
    )
    .closed();
}

impl ToolArgs for Catalog {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new(
                    "name",
                    SchemaNode::string().with_min_length(1).with_max_length(80),
                    true,
                ),
                Property::of::<u32>("revision"),
                Property::of::<Vec<Section>>("sections"),
            ]
        },
    )
    .closed();
}

/// A ~10 KB catalog: 6 sections of 10 entries.
fn large_instance() -> String {
    let kinds = ["hardware", "software", "service"];
    let sections: Vec<Value> = (0..6usize)
        .map(|s| {
            let entries: Vec<Value> = (0..10)
                .map(|e| {
                    let mut entry = json!({
                        "sku": format!("SKU-{s:02}-{e:04}"),
                        "quantity": (s * 10 + e) * 7 % 500,
                        "price": f64::from(u32::try_from(s * 100 + e * 3).unwrap()) + 0.99,
                        "tags": ["stock", "eu", format!("batch-{e}")],
                        "active": e % 3 != 0,
                    });
                    if e % 2 == 0 {
                        entry["note"] = json!(format!("ships in {} days, handle with care", e + 1));
                    }
                    entry
                })
                .collect();
            json!({
                "title": format!("Section {s}: assorted items for the spring catalog"),
                "kind": kinds[s % 3],
                "entries": entries,
            })
        })
        .collect();
    json!({"name": "spring catalog", "revision": 12, "sections": sections}).to_string()
}

// ----- the measured functions -----

/// The session's options: `null` for an optional property counts as absent, and a declared
/// `format` is checked (these schemas declare none).
const OPTIONS: ValidationOptions = ValidationOptions::new()
    .null_as_absent(true)
    .assert_formats(true);

struct Case {
    name: &'static str,
    text: String,
    value: Value,
    pedelec: CompiledSchema,
    jsonschema: jsonschema::Validator,
}

impl Case {
    fn new<T: ToolArgs + DeserializeOwned>(name: &'static str, text: String) -> Case {
        let pedelec = CompiledSchema::compile(&T::SCHEMA).expect("the schema compiles");
        let jsonschema =
            jsonschema::validator_for(&T::SCHEMA.to_json()).expect("jsonschema reads the schema");
        let value: Value = serde_json::from_str(&text).expect("the instance is JSON");
        // The instance is valid, and every path agrees.
        assert!(pedelec.is_valid(&value) && jsonschema.is_valid(&value));
        pedelec
            .deserialize_args_with::<T>(&text, OPTIONS)
            .expect("the instance decodes");
        Case {
            name,
            text,
            value,
            pedelec,
            jsonschema,
        }
    }
}

fn floor<T: DeserializeOwned>(case: &Case) -> T {
    serde_json::from_str::<T>(black_box(&case.text)).unwrap()
}

fn with_jsonschema<T: DeserializeOwned>(case: &Case) -> T {
    let value: Value = serde_json::from_str(black_box(&case.text)).unwrap();
    assert!(case.jsonschema.is_valid(&value));
    serde_json::from_value::<T>(value).unwrap()
}

fn with_pedelec<T: DeserializeOwned>(case: &Case) -> T {
    case.pedelec
        .deserialize_args_with::<T>(black_box(&case.text), OPTIONS)
        .unwrap()
}

fn is_valid_pedelec(case: &Case) -> bool {
    case.pedelec.is_valid(black_box(&case.value))
}

fn is_valid_jsonschema(case: &Case) -> bool {
    case.jsonschema.is_valid(black_box(&case.value))
}

fn bench_case<T: DeserializeOwned>(c: &mut Criterion, case: &Case) {
    let mut group = c.benchmark_group(case.name);
    group.throughput(criterion::Throughput::Bytes(case.text.len() as u64));
    group.bench_function("floor", |b| b.iter(|| floor::<T>(case)));
    group.bench_function("jsonschema", |b| b.iter(|| with_jsonschema::<T>(case)));
    group.bench_function("pedelec", |b| b.iter(|| with_pedelec::<T>(case)));
    group.finish();
    let mut group = c.benchmark_group(format!("{}_is_valid", case.name));
    group.bench_function("jsonschema", |b| b.iter(|| is_valid_jsonschema(case)));
    group.bench_function("pedelec", |b| b.iter(|| is_valid_pedelec(case)));
    group.finish();
}

// ----- the interleaved summary -----

/// Nanoseconds per call of `f`, over a batch of `n` calls.
fn per_call<R>(n: u32, f: &dyn Fn() -> R) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        black_box(f());
    }
    start.elapsed().as_secs_f64() * 1e9 / f64::from(n)
}

/// How many calls of `f` take about `target`.
fn calibrate<R>(target: Duration, f: &dyn Fn() -> R) -> u32 {
    let mut n = 1u32;
    loop {
        let start = Instant::now();
        for _ in 0..n {
            black_box(f());
        }
        let elapsed = start.elapsed();
        if elapsed >= target / 4 || n >= 1 << 24 {
            let scale = target.as_secs_f64() / elapsed.as_secs_f64().max(1e-9);
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "a positive count, clamped"
            )]
            return ((f64::from(n) * scale).min(f64::from(u32::MAX)) as u32).max(1);
        }
        n *= 2;
    }
}

struct Summary {
    /// Median ns per call of the baseline.
    base_ns: f64,
    /// For each contender: (median ratio, min ratio, max ratio, median ns).
    ratios: Vec<(f64, f64, f64, f64)>,
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Runs the baseline and the contenders interleaved, `rounds` times, and compares each
/// round's contender time with the same round's baseline time.
fn interleaved(
    rounds: usize,
    batch: Duration,
    base: &dyn Fn() -> u64,
    others: &[&dyn Fn() -> u64],
) -> Summary {
    let n_base = calibrate(batch, base);
    let ns: Vec<u32> = others.iter().map(|f| calibrate(batch, *f)).collect();
    let mut base_times = Vec::with_capacity(rounds);
    let mut times = vec![Vec::with_capacity(rounds); others.len()];
    for _ in 0..rounds {
        base_times.push(per_call(n_base, base));
        for (i, f) in others.iter().enumerate() {
            times[i].push(per_call(ns[i], *f));
        }
    }
    let ratios = times
        .iter()
        .map(|t| {
            let mut r: Vec<f64> = t.iter().zip(&base_times).map(|(t, b)| t / b).collect();
            let (min, max) = r
                .iter()
                .fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            (median(&mut r), min, max, median(&mut t.clone()))
        })
        .collect();
    Summary {
        base_ns: median(&mut base_times),
        ratios,
    }
}

fn summary<T: DeserializeOwned>(case: &Case, rounds: usize, batch: Duration) {
    // Every closure returns a number, so that they share one type.
    let base = || {
        black_box(floor::<T>(case));
        0
    };
    let jsonschema = || {
        black_box(with_jsonschema::<T>(case));
        0
    };
    let pedelec = || {
        black_box(with_pedelec::<T>(case));
        0
    };
    let s = interleaved(rounds, batch, &base, &[&jsonschema, &pedelec]);
    let [(j, j_lo, j_hi, j_ns), (p, p_lo, p_hi, p_ns)] = [s.ratios[0], s.ratios[1]];
    println!(
        "{}: pedelec {p:.2}x floor ({p_lo:.2}-{p_hi:.2}), jsonschema {j:.2}x floor ({j_lo:.2}-{j_hi:.2}); floor {:.0} ns, pedelec {p_ns:.0} ns, jsonschema {j_ns:.0} ns",
        case.name, s.base_ns
    );
    let base = || u64::from(is_valid_jsonschema(case));
    let pedelec = || u64::from(is_valid_pedelec(case));
    let s = interleaved(rounds, batch, &base, &[&pedelec]);
    let (p, p_lo, p_hi, p_ns) = s.ratios[0];
    println!(
        "{} is_valid: pedelec {p:.2}x jsonschema ({p_lo:.2}-{p_hi:.2}); pedelec {p_ns:.0} ns, jsonschema {:.0} ns",
        case.name, s.base_ns
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let ratios_only = has("--ratios-only");
    // `cargo test --benches` runs each benchmark once (criterion's test mode, without
    // `--bench`); the summary is then only a smoke test.
    let measuring = ratios_only || (has("--bench") && !has("--test") && !has("--list"));
    let profiling = args.iter().any(|a| a.starts_with("--profile-time"));

    let small = Case::new::<UpdateCounterArgs>("small", SMALL.to_owned());
    let large = Case::new::<Catalog>("large", large_instance());

    // `-- --count small/pedelec 1000`: only run one function that many times (for
    // `valgrind --tool=callgrind`, whose instruction counts ignore other load).
    if let Some(at) = args.iter().position(|a| a == "--count") {
        let name = args.get(at + 1).map_or("", String::as_str);
        let n: u32 = args.get(at + 2).and_then(|n| n.parse().ok()).unwrap_or(1);
        for _ in 0..n {
            match name {
                "small/floor" => drop(black_box(floor::<UpdateCounterArgs>(&small))),
                "small/jsonschema" => drop(black_box(with_jsonschema::<UpdateCounterArgs>(&small))),
                "small/pedelec" => drop(black_box(with_pedelec::<UpdateCounterArgs>(&small))),
                "small/is_valid_pedelec" => drop(black_box(is_valid_pedelec(&small))),
                "small/is_valid_jsonschema" => drop(black_box(is_valid_jsonschema(&small))),
                "large/floor" => drop(black_box(floor::<Catalog>(&large))),
                "large/jsonschema" => drop(black_box(with_jsonschema::<Catalog>(&large))),
                "large/pedelec" => drop(black_box(with_pedelec::<Catalog>(&large))),
                "large/is_valid_pedelec" => drop(black_box(is_valid_pedelec(&large))),
                "large/is_valid_jsonschema" => drop(black_box(is_valid_jsonschema(&large))),
                other => panic!("unknown function {other:?}"),
            }
        }
        return;
    }

    if !ratios_only {
        let mut c = Criterion::default().configure_from_args();
        bench_case::<UpdateCounterArgs>(&mut c, &small);
        bench_case::<Catalog>(&mut c, &large);
        c.final_summary();
    }
    if profiling || has("--list") {
        return;
    }

    let (rounds, batch) = if measuring {
        (31, Duration::from_millis(20))
    } else {
        (3, Duration::from_millis(1))
    };
    println!(
        "\nrelative cost, interleaved: median over {rounds} rounds (range); small {} bytes, large {} bytes{}",
        small.text.len(),
        large.text.len(),
        if measuring {
            ""
        } else {
            " (a smoke test, not a measurement: run `cargo bench`)"
        }
    );
    summary::<UpdateCounterArgs>(&small, rounds, batch);
    summary::<Catalog>(&large, rounds, batch);
}

use std::collections::HashSet;
use std::ffi::OsString;

use super::*;

/// `conformance list` of the pinned version (its server section and the start of the next).
const LIST: &str = include_str!("list-0.2.0-alpha.12.txt");

fn listed() -> Vec<Listed> {
    parse_list(LIST).expect("the pinned suite's list parses")
}

fn options(args: &[&str]) -> Result<Options, String> {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    parse_options(&args)
}

fn names(runs: &[Run]) -> Vec<String> {
    runs.iter()
        .map(|r| format!("{} {}", r.scenario, r.version))
        .collect()
}

#[test]
fn the_list_gives_the_server_scenarios_and_their_revisions() {
    let listed = listed();
    assert_eq!(listed.len(), 65);
    let find = |name: &str| listed.iter().find(|l| l.name == name).cloned();
    assert_eq!(
        find("server-initialize").unwrap().versions,
        ["2025-06-18", "2025-11-25"]
    );
    assert_eq!(find("caching").unwrap().versions, ["2026-07-28"]);
    assert_eq!(find("tasks-lifecycle").unwrap().versions, ["extension"]);
    // The client section is not read.
    assert!(find("initialize").is_none());
    assert!(find("tools_call").is_none());
}

#[test]
fn a_list_without_server_scenarios_is_an_error() {
    assert!(
        parse_list("Client scenarios (test against a client):\n  - initialize [2025-11-25]\n")
            .is_err()
    );
    assert!(
        parse_list("Server scenarios (test against a server):\n  - caching [2026-07-28\n").is_err()
    );
}

#[test]
fn the_applicability_table_has_one_entry_per_scenario_each_with_a_reason() {
    let mut seen = HashSet::new();
    for (name, why) in NOT_APPLICABLE {
        assert!(seen.insert(*name), "`{name}` is in NOT_APPLICABLE twice");
        assert!(!why.trim().is_empty(), "`{name}` has no reason");
    }
}

#[test]
fn the_applicability_table_names_only_scenarios_the_pinned_suite_lists() {
    check_table(&listed()).expect("no stale entry, no unknown revision");
}

#[test]
fn what_a_tools_server_can_serve_is_not_in_the_table() {
    for scenario in [
        "server-initialize",
        "ping",
        "tools-list",
        "tools-call-image",
        "tools-call-audio",
        "tools-call-embedded-resource",
        "tools-call-mixed-content",
        "tools-call-elicitation",
        "tools-call-with-logging",
        "json-schema-2020-12",
        "caching",
        "server-stateless",
        "dns-rebinding-protection",
        "http-header-validation",
        "input-required-result-basic-elicitation",
        "input-required-result-tampered-state",
        "tasks-lifecycle",
        "tasks-mrtr-composition",
    ] {
        assert!(
            not_applicable(scenario).is_none(),
            "`{scenario}` is served by a tools server"
        );
    }
}

#[test]
fn a_stale_entry_or_a_newer_revision_is_an_error() {
    let mut listed = listed();
    listed.retain(|l| l.name != "prompts-list");
    let stale = check_table(&listed).unwrap_err();
    assert!(stale.contains("prompts-list"), "{stale}");

    let mut listed = self::listed();
    listed.push(Listed {
        name: "tools-call-hologram".into(),
        versions: vec!["2027-03-01".into()],
    });
    let newer = check_table(&listed).unwrap_err();
    assert!(newer.contains("2027-03-01"), "{newer}");
}

#[test]
fn the_plan_runs_each_applicable_scenario_at_each_revision_it_lists() {
    let runs = plan(&listed(), &options(&[]).unwrap()).unwrap();
    let names = names(&runs);
    assert!(names.contains(&"tools-list 2025-11-25".to_owned()));
    assert!(names.contains(&"tools-list 2026-07-28".to_owned()));
    assert!(names.contains(&"server-initialize 2025-11-25".to_owned()));
    assert!(!names.contains(&"server-initialize 2026-07-28".to_owned()));
    assert!(names.contains(&"tasks-lifecycle extension".to_owned()));
    assert!(names.iter().all(|n| !n.starts_with("prompts-")));
    assert!(runs.iter().all(|r| r.applies));
    let unique: HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "no run twice");
}

#[test]
fn filters_narrow_the_plan_and_a_named_inapplicable_scenario_runs_uncounted() {
    let listed = listed();
    let runs = plan(
        &listed,
        &options(&["--scenario", "tools-list", "--spec-version", "2026-07-28"]).unwrap(),
    )
    .unwrap();
    assert_eq!(names(&runs), ["tools-list 2026-07-28"]);

    let runs = plan(&listed, &options(&["--spec-version", "extension"]).unwrap()).unwrap();
    assert!(!runs.is_empty());
    assert!(runs.iter().all(|r| r.version == "extension"));

    let runs = plan(&listed, &options(&["--scenario", "prompts-list"]).unwrap()).unwrap();
    assert_eq!(
        names(&runs),
        ["prompts-list 2025-11-25", "prompts-list 2026-07-28"]
    );
    assert!(runs.iter().all(|r| !r.applies));

    let unknown = plan(&listed, &options(&["--scenario", "tools-lsit"]).unwrap()).unwrap_err();
    assert!(
        unknown.contains("no server scenario `tools-lsit`"),
        "{unknown}"
    );
}

#[test]
fn flags_are_checked() {
    assert!(options(&["--spec-version", "2024-11-05"]).is_err());
    assert!(options(&["--scenario"]).is_err());
    assert!(options(&["--verbose"]).is_err());
    let o = options(&["--list", "--scenario", "ping", "--scenario", "caching"]).unwrap();
    assert!(o.list);
    assert!(!o.stateless);
    assert!(options(&["--stateless"]).unwrap().stateless);
    assert_eq!(o.scenarios, ["ping", "caching"]);
}

#[test]
fn the_plan_listing_gives_each_scenario_its_status() {
    let text = render_plan(&listed());
    let line = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no line for {name} in\n{text}"))
            .to_owned()
    };
    assert!(line("caching").contains("[2026-07-28] "));
    assert!(line("caching").ends_with("  runs"));
    assert!(line("prompts-list").contains("not applicable: prompts"));
    assert!(line("tasks-lifecycle").contains("[extension] "));
    assert!(line("tasks-lifecycle").ends_with("  runs"));
    assert!(line("input-required-result-non-tool-request").contains("not applicable: "));
}

/// The checks the suite saved for `caching` against the fixture before this work (cut).
const CACHING_CHECKS: &str = r#"[
  {"id": "sep-2549-tools-list-caching-hints", "name": "ToolsListCachingHints",
   "description": "tools/list response includes ttlMs and cacheScope caching hints",
   "status": "SUCCESS", "details": {"ttlMs": 0, "cacheScope": "private"}},
  {"id": "sep-2549-prompts-list-caching-hints", "name": "PromptsListCachingHints",
   "description": "prompts/list response includes ttlMs and cacheScope caching hints",
   "status": "FAILURE",
   "errorMessage": "prompts/list returned JSON-RPC error -32601: prompts/list"},
  {"id": "sep-2549-resources-read-caching-hints", "status": "SKIPPED",
   "errorMessage": "resources/read was not exercised"},
  {"id": "x-info", "status": "INFO", "details": {"message": "stateless"}},
  {"id": "x-warn", "status": "WARNING", "errorMessage": "should"},
  {"id": "x-no-message", "status": "FAILURE", "description": "the\n  description"},
  {"id": "sep-2549-ttl-non-negative", "status": "SUCCESS"}
]"#;

#[test]
fn checks_are_counted_as_the_suite_counts_them() {
    let counts = count_checks(CACHING_CHECKS).unwrap();
    assert_eq!(
        counts,
        Counts {
            passed: 2,
            failed: 2,
            warnings: 1,
            failures: vec![
                (
                    "sep-2549-prompts-list-caching-hints".into(),
                    "prompts/list returned JSON-RPC error -32601: prompts/list".into()
                ),
                ("x-no-message".into(), "the description".into()),
            ],
            notes: vec![
                (
                    "sep-2549-resources-read-caching-hints (SKIPPED)".into(),
                    "resources/read was not exercised".into()
                ),
                ("x-info (INFO)".into(), "stateless".into()),
                ("x-warn (WARNING)".into(), "should".into()),
            ],
        }
    );
    assert!(count_checks("{}").is_err());
    assert!(count_checks("not json").is_err());
}

fn outcome(scenario: &str, version: &'static str, passed: usize, failed: usize) -> Outcome {
    Outcome {
        scenario: scenario.into(),
        version,
        applies: true,
        passed,
        failed,
        warnings: 0,
        failures: (0..failed)
            .map(|i| (format!("check-{i}"), format!("message {i}")))
            .collect(),
        notes: Vec::new(),
        error: None,
    }
}

#[test]
fn the_table_has_a_row_per_scenario_and_a_column_per_revision_run() {
    let mut crashed = outcome("tasks-lifecycle", "extension", 0, 0);
    crashed.error = Some("the suite saved no checks".into());
    let mut extra = outcome("prompts-list", "2026-07-28", 0, 1);
    extra.applies = false;
    let mut skipped = outcome("tasks-status-notifications", "extension", 0, 0);
    skipped.notes = vec![(
        "tasks-status-notifications (SKIPPED)".into(),
        "harness pending".into(),
    )];
    let outcomes = [
        outcome("server-initialize", "2025-11-25", 3, 0),
        outcome("caching", "2026-07-28", 4, 3),
        outcome("tools-list", "2025-11-25", 4, 0),
        outcome("tools-list", "2026-07-28", 4, 0),
        crashed,
        extra,
        skipped,
    ];
    let expected = "\
scenario                   | 2025-11-25 | 2026-07-28   | extension
---------------------------|------------|--------------|----------
server-initialize          | ok 3/3     | -            | -        
caching                    | -          | FAIL 4/7     | -        
tools-list                 | ok 4/4     | ok 4/4       | -        
tasks-lifecycle            | -          | -            | ERROR    
prompts-list               | -          | FAIL 0/1 n/a | -        
tasks-status-notifications | -          | -            | skip 0/0 
";
    assert_eq!(render_table(&outcomes), expected);

    let failures = render_failures(&outcomes);
    assert_eq!(
        failures,
        "\
extension tasks-status-notifications (skip): tasks-status-notifications (SKIPPED): harness pending
2026-07-28 caching: check-0: message 0
2026-07-28 caching: check-1: message 1
2026-07-28 caching: check-2: message 2
extension tasks-lifecycle: the suite saved no checks
2026-07-28 prompts-list (n/a): check-0: message 0
"
    );
}

#[test]
fn a_run_that_counted_no_check_is_a_skip_not_a_pass_or_a_failure() {
    let skipped = outcome("ping", "2025-11-25", 0, 0);
    assert!(skipped.passed() && skipped.vacuous());
    assert_eq!(skipped.cell(), "skip 0/0");
    let ran = outcome("ping", "2025-11-25", 1, 0);
    assert!(ran.passed() && !ran.vacuous());
    let failed = outcome("ping", "2025-11-25", 0, 1);
    assert!(!failed.passed() && !failed.vacuous());
}

#[test]
fn the_server_address_is_read_from_its_first_line() {
    assert_eq!(
        served_url("serving the conformance tools at http://127.0.0.1:41234/mcp (Ctrl-C to stop)"),
        Some("http://127.0.0.1:41234/mcp".into())
    );
    assert_eq!(served_url("warning: something else"), None);
}

#[test]
fn the_pins_are_exact_and_the_package_json_is_json() {
    let manifest: Value = serde_json::from_str(&package_json()).unwrap();
    for (package, version) in [SUITE, GLOB] {
        assert_eq!(manifest["dependencies"][package], version);
        assert!(
            version.chars().next().is_some_and(|c| c.is_ascii_digit()),
            "`{package}` is pinned to an exact version"
        );
    }
}

#[test]
fn messages_are_one_line_and_bounded() {
    assert_eq!(one_line("a\n  b\tc", 10), "a b c");
    assert_eq!(one_line("abcdef", 3), "abc…");
}

#[test]
fn npm_errors_are_summed_up_without_their_json_dumps() {
    let stderr = b"npm error code ECONNREFUSED\nnpm error syscall connect\nnpm error errno ECONNREFUSED\nnpm error FetchError: request to http://127.0.0.1:9/glob failed\nnpm error     at ClientRequest\nnpm error {\nnpm error   errno: 'ECONNREFUSED',\nnpm error }\nnpm error\nnpm error A complete log of this run can be found in: /root/.npm/_logs/x.log\n";
    assert_eq!(
        npm_summary(stderr),
        "npm error code ECONNREFUSED\nnpm error syscall connect\nnpm error errno ECONNREFUSED\n\
         npm error FetchError: request to http://127.0.0.1:9/glob failed\n\
         npm error A complete log of this run can be found in: /root/.npm/_logs/x.log"
    );
}

//! End-to-end tests of `ptxmc bench` (strategies side by side, the SVG plot)
//! and of the `ptxmc run --stats` block benchmarks parse.

mod common;
use common::*;

/// A minimal XML well-formedness check, enough for the SVG ptxmc writes:
/// every tag is closed in order, attributes are quoted, `&` only starts the
/// five predefined entities, one root element. Returns the element names in
/// document order.
fn xml_elements(text: &str) -> Result<Vec<String>, String> {
    let mut stack: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut rest = text.trim_start();
    if let Some(r) = rest.strip_prefix("<?xml") {
        rest = &r[r.find("?>").ok_or("unclosed XML declaration")? + 2..];
    }
    let mut roots = 0;
    while !rest.is_empty() {
        let lt = rest.find('<').unwrap_or(rest.len());
        check_text(&rest[..lt])?;
        if !stack.is_empty() || rest[..lt].trim().is_empty() {
        } else {
            return Err(format!("text outside the root: {:?}", &rest[..lt]));
        }
        rest = &rest[lt..];
        if rest.is_empty() {
            break;
        }
        let gt = rest.find('>').ok_or("unclosed tag")?;
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or("closing tag without an opening one")?;
            if open != name.trim() {
                return Err(format!("<{open}> closed by </{name}>"));
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name: String = tag.chars().take_while(|c| !c.is_whitespace()).collect();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == ':')
        {
            return Err(format!("bad element name in <{tag}>"));
        }
        check_attributes(&tag[name.len()..])?;
        if stack.is_empty() {
            roots += 1;
        }
        names.push(name.clone());
        if !self_closing {
            stack.push(name);
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed elements: {stack:?}"));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(names)
}

fn check_text(t: &str) -> Result<(), String> {
    let mut rest = t;
    while let Some(i) = rest.find('&') {
        rest = &rest[i + 1..];
        let ok = ["amp;", "lt;", "gt;", "quot;", "apos;"]
            .iter()
            .any(|e| rest.starts_with(e));
        if !ok {
            return Err(format!("bad entity near {:?}", &rest[..rest.len().min(10)]));
        }
    }
    if t.contains('>') {
        // Allowed by XML, but ptxmc escapes it: a sign of a broken tag.
        return Err(format!("stray `>` in text {t:?}"));
    }
    Ok(())
}

fn check_attributes(mut a: &str) -> Result<(), String> {
    loop {
        a = a.trim_start();
        if a.is_empty() {
            return Ok(());
        }
        let eq = a
            .find('=')
            .ok_or(format!("attribute without a value: {a:?}"))?;
        let name = a[..eq].trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!("bad attribute name {name:?}"));
        }
        a = a[eq + 1..].trim_start();
        let q = a.chars().next().ok_or("attribute without a value")?;
        if q != '"' && q != '\'' {
            return Err(format!("unquoted attribute {name}"));
        }
        let end = a[1..].find(q).ok_or("unclosed attribute value")?;
        let value = &a[1..1 + end];
        if value.contains('<') {
            return Err(format!("`<` in attribute {name}"));
        }
        check_text(value)?;
        a = &a[end + 2..];
    }
}

#[test]
fn the_xml_check_rejects_broken_documents() {
    assert!(xml_elements("<svg><g></g></svg>").is_ok());
    assert!(xml_elements("<svg><g></svg></g>").is_err());
    assert!(xml_elements("<svg><g></svg>").is_err());
    assert!(xml_elements("<svg a=1/>").is_err());
    assert!(xml_elements("<svg>a & b</svg>").is_err());
    assert!(xml_elements("<svg/><svg/>").is_err());
}

#[test]
fn bench_prints_strategies_side_by_side_and_plots_them() {
    let dir = scratch("bench");
    let (svg, json) = (dir.join("readers.svg"), dir.join("readers.jsonl"));
    let o = ptxmc(&[
        "bench",
        "readers:2..3",
        "--strategy",
        "brute,dpor",
        "--timeout",
        "30",
        "--svg",
        s(&svg),
        "--json",
        s(&json),
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    let header = out
        .lines()
        .find(|l| l.starts_with("| test |"))
        .expect("a table header");
    for col in [
        "brute executions",
        "dpor executions",
        "dpor pruned",
        "dpor time",
        "dpor peak memory",
    ] {
        assert!(header.contains(col), "{header}");
    }
    // readers-N explores 2^N executions with both strategies.
    for (name, execs) in [("readers-2", "4"), ("readers-3", "8")] {
        let row = out
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("a row for {name}:\n{out}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // | test | N | 7 brute cells | 7 dpor cells |: executions, blocked,
        // pruned, time, executions/s, peak memory, status.
        assert_eq!(cells.len(), 2 + 2 + 14, "{row}");
        assert_eq!(cells[3], execs, "brute executions: {row}");
        assert_eq!(cells[10], execs, "dpor executions: {row}");
        assert_eq!(cells[12], "0", "dpor pruned: {row}");
        assert_eq!((cells[9], cells[16]), ("ok", "ok"), "{row}");
        assert!(cells[8].ends_with("iB"), "peak memory: {row}");
    }
    assert!(out.contains("readers (N = 3): brute/dpor = "), "{out}");

    let text = std::fs::read_to_string(&svg).expect("the SVG is written");
    let names = xml_elements(&text).unwrap_or_else(|e| panic!("not well-formed: {e}\n{text}"));
    assert_eq!(names.first().map(String::as_str), Some("svg"));
    // One line per strategy in each of the two panels (time, executions).
    assert_eq!(names.iter().filter(|n| *n == "polyline").count(), 4);
    for st in ["brute", "dpor"] {
        assert_eq!(
            text.matches(&format!("data-strategy=\"{st}\" points="))
                .count(),
            2,
            "{st}"
        );
    }
    assert!(!text.contains("class=\"limit\""), "nothing hit the limit");

    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&json)
        .expect("the JSON Lines file is written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("valid JSON"))
        .collect();
    assert_eq!(lines.len(), 4, "2 tests x 2 strategies");
    assert!(lines.iter().all(|v| v["status"] == "ok"));
    assert!(lines
        .iter()
        .all(|v| v["peak_rss_kib"].as_u64().is_some_and(|k| k > 0)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_that_reaches_the_limit_shows_in_the_table_and_the_plot() {
    let dir = scratch("bench-limit");
    let svg = dir.join("counter.svg");
    // counter-8 has 8! = 40320 executions: far more than 50 ms of brute force.
    let o = ptxmc(&[
        "bench",
        "counter:2..8",
        "--strategy",
        "brute",
        "--timeout",
        "0.05",
        "--svg",
        s(&svg),
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    assert!(out.contains(">0.05 s (limit)"), "{out}");
    // Sizes after the first that reached the limit are not run.
    let limited = out.lines().filter(|l| l.contains("| limit |")).count();
    assert_eq!(limited, 1, "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("| counter-8 |")
            && (l.contains("| skipped |") || l.contains("| limit |"))),
        "{out}"
    );
    let text = std::fs::read_to_string(&svg).expect("the SVG is written");
    xml_elements(&text).unwrap_or_else(|e| panic!("not well-formed: {e}"));
    assert_eq!(
        text.matches("class=\"limit\"").count(),
        2,
        "one marker per panel"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_rejects_unknown_specs() {
    let o = ptxmc(&["bench", "no-such-family-or-file"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a family"), "{}", stderr(&o));
}

#[test]
fn run_stats_has_one_key_per_line() {
    let o = ptxmc(&["run", "corpus/spec", "-q", "--stats", "-j", "2"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", stderr(&o));
    let stats: std::collections::BTreeMap<&str, &str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("stats."))
        .filter_map(|l| l.split_once(": "))
        .collect();
    for key in [
        "tests",
        "jobs",
        "executions",
        "blocked",
        "executions_per_s",
        "peak_rss_kib",
        "wall_s",
        "parse_s",
        "check_s",
        "output_s",
    ] {
        let v = stats
            .get(key)
            .unwrap_or_else(|| panic!("no stats.{key}:\n{out}"));
        assert!(v.parse::<f64>().is_ok(), "stats.{key}: {v}");
    }
    assert_eq!(stats["jobs"], "2");
    assert!(stats["tests"].parse::<u64>().is_ok_and(|n| n > 0));
}

#[test]
fn few_tests_on_many_threads_give_the_same_json() {
    // Fewer tests than threads: the explorer splits each test across the
    // pool; more tests than threads: one test per thread. Same results.
    let dir = scratch("split");
    let mut outs = Vec::new();
    for j in ["1", "8"] {
        let p = dir.join(format!("j{j}.jsonl"));
        let o = ptxmc(&[
            "run",
            "corpus/spec/8.10.6-mp.litmus",
            "-q",
            "-j",
            j,
            "--json",
            s(&p),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        outs.push(timeless(&p));
    }
    assert_eq!(outs[0], outs[1]);
    let _ = std::fs::remove_dir_all(&dir);
}

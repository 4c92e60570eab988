#!/usr/bin/env python3
"""Regenerates the measured tables of docs/performance.md.

    cargo build --release && python3 benches/perf_tables.py

1. `ptxmc bench FAMILY --sizes 2..8 --strategy brute,dpor --timeout 60 -j 1`
   for each family (readers, writers, sb, iriw, counter, ticket-lock,
   cas-lock): the Markdown table
   ptxmc prints, its ratio line, and the SVG plot target/perf/FAMILY.svg.
2. Batch scaling: `ptxmc run DIR -j 1` and `-j 2` (best wall time of 3 runs
   each, from `--stats`) on the shared conformance corpus and on the tests
   `ptxmc gen --out` writes, and `ptxmc compare` of the two JSON files.

The results replace what lies between the `<!-- BEGIN GENERATED: NAME -->`
and `<!-- END GENERATED: NAME -->` markers of docs/performance.md (sections
`families` and `batch`); everything else in the page is left alone. Raw
outputs stay in target/perf/. Options: `--families a,b`, `--sizes A..B`,
`--timeout S`, `--runs N`, `--skip-families`, `--skip-batch`.
"""

import argparse
import json
import os
import platform
import statistics
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTXMC = os.path.join(ROOT, "target", "release", "ptxmc")
OUT = os.path.join(ROOT, "target", "perf")
DOC = os.path.join(ROOT, "docs", "performance.md")
CORPUS = os.environ.get(
    "PTXMC_CONFORMANCE",
    os.path.join(ROOT, "..", "shared", "conformance", "dat3m-ptx", "litmus"),
)


def sh(args, **kw):
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, **kw)


def families(names, sizes, timeout):
    parts = []
    for fam in names:
        cmd = [
            PTXMC, "bench", fam, "--sizes", sizes, "--strategy", "brute,dpor",
            "--timeout", str(timeout), "-j", "1",
            "--svg", os.path.join(OUT, f"{fam}.svg"),
            "--json", os.path.join(OUT, f"{fam}.jsonl"),
        ]
        print("+", " ".join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a for a in cmd),
              file=sys.stderr, flush=True)
        r = sh(cmd)
        with open(os.path.join(OUT, f"{fam}.md"), "w") as f:
            f.write(r.stdout)
        if r.returncode not in (0, 1):
            sys.exit(f"ptxmc bench {fam} failed ({r.returncode}): {r.stderr}")
        lines = r.stdout.splitlines()
        table = [l for l in lines if l.startswith("|")]
        ratio = [l.strip() for l in lines if l.startswith("  ") and ("(N = " in l or "no size" in l)]
        differ = [l for l in lines if l.startswith("DIFFER")]
        parts.append(f"### {fam}\n\n" + "\n".join(table) + "\n")
        for l in ratio:
            parts.append(f"Ratio brute/dpor at the largest N both finish: `{l}`\n")
        for l in differ:
            parts.append(f"**{l}**\n")
        parts.append(f"Plot: `target/perf/{fam}.svg`.\n")
    return "\n".join(parts)


def stats(out):
    s = {}
    for l in out.splitlines():
        m = re.match(r"stats\.(\w+): (.*)", l)
        if m:
            s[m.group(1)] = m.group(2)
    return s


def batch_row(label, path, runs):
    """Runs -j 1 and -j 2 alternately (so that both see the same background
    load), `runs` times each; the best and the median wall times."""
    walls = {1: [], 2: []}
    first = {}
    jsons = {}
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    for _ in range(runs):
        for j in (1, 2):
            jsons[j] = os.path.join(OUT, f"batch-{slug}-j{j}.jsonl")
            r = sh([PTXMC, "run", path, "-j", str(j), "-q", "--no-progress", "--stats",
                    "--json", jsons[j]])
            if r.returncode not in (0, 1):
                sys.exit(f"ptxmc run {path} failed: {r.stderr}")
            st = stats(r.stdout)
            walls[j].append(float(st["wall_s"]))
            first.setdefault(j, st)
    c = sh([PTXMC, "compare", jsons[1], jsons[2]])
    last = c.stdout.strip().splitlines()[-1] if c.stdout.strip() else c.stderr.strip()
    m = re.match(r"compare: (\d+ tests in both, \d+ differ)", last)
    same = m.group(1) if m and c.returncode == 0 else f"DIFFER: {last}"
    b1, b2 = min(walls[1]), min(walls[2])
    m1, m2 = statistics.median(walls[1]), statistics.median(walls[2])
    s1 = first[1]
    return (
        f"| {label} | {s1['tests']} | {b1:.2f} s / {m1:.2f} s | {b2:.2f} s / {m2:.2f} s "
        f"| {b1 / b2:.2f}x / {m1 / m2:.2f}x "
        f"| {float(s1['parse_s']):.2f} / {float(s1['check_s']):.2f} / "
        f"{float(s1['output_s']):.2f} s | {int(first[2]['peak_rss_kib']) / 1024:.1f} MiB "
        f"| {same} |"
    )


def batch(runs):
    load = os.getloadavg()[0]
    gen = os.path.join(OUT, "gen")
    if not os.path.isdir(gen):
        r = sh([PTXMC, "gen", "--out", gen])
        if r.returncode != 0:
            sys.exit(f"ptxmc gen failed: {r.stderr}")
    rows = [
        "| batch | tests | wall -j 1 best / median | wall -j 2 best / median "
        "| speed-up best / median | -j 1 parse / check / output "
        "| peak memory -j 2 | `ptxmc compare` -j 1 -j 2 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    if os.path.isdir(CORPUS):
        rows.append(batch_row("conformance corpus", CORPUS, runs))
    else:
        print(f"SKIP: no conformance corpus at {CORPUS}", file=sys.stderr)
    rows.append(batch_row("ptxmc gen --out", gen, runs))
    return "\n".join(rows) + (
        f"\n\nWall times are `stats.wall_s`, {runs} runs of each, -j 1 and -j 2 alternately; "
        f"load average before: {load:.1f} ({os.cpu_count()} cores).\n")


def splice(text, name, body):
    begin, end = f"<!-- BEGIN GENERATED: {name} -->", f"<!-- END GENERATED: {name} -->"
    pat = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pat.search(text):
        sys.exit(f"docs/performance.md has no {begin} ... {end} markers")
    return pat.sub(lambda _: f"{begin}\n{body.rstrip()}\n{end}", text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default="readers,writers,sb,iriw,counter,ticket-lock,cas-lock")
    ap.add_argument("--sizes", default="2..8")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--skip-families", action="store_true")
    ap.add_argument("--skip-batch", action="store_true")
    a = ap.parse_args()
    if not os.path.exists(PTXMC):
        sys.exit("build first: cargo build --release")
    os.makedirs(OUT, exist_ok=True)
    commit = sh(["git", "rev-parse", "--short", "HEAD"]).stdout.strip()
    dirty = " (with uncommitted changes)" if sh(["git", "status", "--porcelain"]).stdout.strip() else ""
    stamp = (f"_Generated by `python3 benches/perf_tables.py` on commit `{commit}`{dirty}, "
             f"{platform.machine()}, {os.cpu_count()} CPUs._\n\n")
    bodies = {}
    if not a.skip_families:
        bodies["families"] = stamp + families(a.families.split(","), a.sizes, a.timeout)
    if not a.skip_batch:
        bodies["batch"] = stamp + batch(a.runs)
    # Read the page only now: it may have been edited during the run.
    with open(DOC) as f:
        text = f.read()
    for name, body in bodies.items():
        text = splice(text, name, body)
    with open(DOC, "w") as f:
        f.write(text)
    print("updated docs/performance.md", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Markdown tables of `ptxmc run --json` results for growing families, brute
vs DPOR, as in docs/performance.md.

    python3 benches/perf_table.py DIR FAMILY...

reads DIR/FAMILY-brute.jsonl and DIR/FAMILY-dpor.jsonl (one `ptxmc run
--strategy S --json` output each) and prints, per N: the executions (both
strategies must agree where both finished; a disagreement is printed as
MISMATCH), blocked, pruned and `time_ms` of each strategy, the ratio
brute/DPOR of the times where both finished, and whether the count matches
the family's closed form where one is known.
"""
import json
import math
import os
import sys

CLOSED = {
    "readers": lambda n: 2**n,
    "writers": lambda n: math.factorial(n + 1) * (n + 2),
    "sb": lambda n: 2**n,
    "counter": lambda n: math.factorial(n),
}


def load(path):
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                j = json.loads(line)
                out[j["name"]] = j
    return out


def cell_time(j):
    if j is None:
        return "-"
    t = f"{j['time_ms']:.1f}"
    return t if j["status"] == "ok" else f"limit at {t} ({j['executions']} found)"


def main():
    d, fams = sys.argv[1], sys.argv[2:]
    for fam in fams:
        b = load(os.path.join(d, f"{fam}-brute.jsonl"))
        p = load(os.path.join(d, f"{fam}-dpor.jsonl"))
        names = sorted(set(b) | set(p), key=lambda n: int(n.rsplit("-", 1)[1]))
        print(f"\n#### {fam}\n")
        print("| N | executions | closed form | blocked | brute pruned | brute ms | DPOR pruned | DPOR ms | brute/DPOR |")
        print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name in names:
            n = int(name.rsplit("-", 1)[1])
            x, y = b.get(name), p.get(name)
            done = [j for j in (x, y) if j and j["status"] == "ok"]
            ex = sorted({j["executions"] for j in done})
            bl = sorted({j["blocked"] for j in done})
            exs = "/".join(map(str, ex)) if ex else "?"
            if len(ex) > 1:
                exs += " MISMATCH"
            closed = ""
            if fam in CLOSED and ex:
                c = CLOSED[fam](n)
                closed = "= " + str(c) if ex == [c] else f"expected {c}"
            ratio = "-"
            if len(done) == 2:
                ratio = f"{x['time_ms'] / y['time_ms']:.2f}"
            print(
                f"| {n} | {exs} | {closed} | {'/'.join(map(str, bl)) or '?'} "
                f"| {x['pruned'] if x else '-'} | {cell_time(x)} "
                f"| {y['pruned'] if y else '-'} | {cell_time(y)} | {ratio} |"
            )


main()

#!/usr/bin/env python3
"""Prints the latest criterion estimates of one benchmark group as a Markdown
table (mean, with the 95% confidence interval), one row per input and one
column per function; for the `explore` group it adds the ratio brute/dpor.

    python3 benches/criterion_table.py relation [target/criterion]
"""
import json
import os
import sys


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main():
    group = sys.argv[1]
    root = os.path.join(sys.argv[2] if len(sys.argv) > 2 else "target/criterion", group)
    cells = {}
    for dirpath, _, files in os.walk(root):
        if os.path.basename(dirpath) != "new" or "benchmark.json" not in files:
            continue
        with open(os.path.join(dirpath, "benchmark.json")) as f:
            b = json.load(f)
        if b["group_id"] != group:
            continue
        with open(os.path.join(dirpath, "estimates.json")) as f:
            mean = json.load(f)["mean"]["point_estimate"]
        cells[(b["value_str"], b["function_id"])] = mean
    rows = sorted({r for r, _ in cells}, key=lambda s: (len(s), s) if s.isdigit() else (0, s))
    cols = sorted({c for _, c in cells})
    ratio = group == "explore" and {"brute", "dpor"} <= set(cols)
    head = ["input"] + cols + (["brute/dpor"] if ratio else [])
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for r in rows:
        line = [r] + [fmt(cells[(r, c)]) if (r, c) in cells else "" for c in cols]
        if ratio:
            b, d = cells.get((r, "brute")), cells.get((r, "dpor"))
            line.append(f"{b / d:.2f}" if b and d else "")
        print("| " + " | ".join(line) + " |")


main()

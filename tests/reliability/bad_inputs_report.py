"""Print the bad-input corpus results that tests/reliability/test_bad_inputs.py wrote.

    tests/reliability/bad_inputs_report.py [--json PATH] [--failures]

One row per case: did the run fail, was it caught in preflight, does one message line
name the variable, the value and the fix, is the node byte-for-byte unchanged; then the
totals and the run time. ``--failures`` lists only the cases that fall short, with the
start of their message. (tests/reliability/report.py prints every reliability suite in
one table; this one adds the bad-input totals.) Exit status 1 when any case falls
short, 2 when there are no results yet.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[1] / "output" / "reliability" / "bad_inputs.json"
COLUMNS = ("failed", "caught_in_preflight", "message_complete", "state_preserved")


def mark(value) -> str:
    return "yes" if value else "NO"


def passed(row: dict) -> bool:
    return "error" not in row and all(row.get(key) for key in COLUMNS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--json", type=Path, default=DEFAULT, help="results file (default: %(default)s)")
    parser.add_argument("--failures", action="store_true", help="only the cases that fall short, with why")
    args = parser.parse_args(argv)
    if not args.json.exists():
        print("no results at %s: run .venv/bin/python -m pytest tests/reliability/test_bad_inputs.py first"
              % args.json, file=sys.stderr)
        return 2
    data = json.loads(args.json.read_text())
    rows, summary = data["results"], data["summary"]
    width = max([len(r["id"]) for r in rows] + [4])
    cat_width = max([len(r.get("category", "")) for r in rows] + [8])
    header = "%-*s  %-*s  %-6s  %-9s  %-7s  %-5s  %5s  %s" % (
        width, "case", cat_width, "category", "failed", "preflight", "message", "state", "secs", "result")
    print(header)
    print("-" * len(header))
    for row in rows:
        if args.failures and passed(row):
            continue
        print("%-*s  %-*s  %-6s  %-9s  %-7s  %-5s  %5s  %s" % (
            width, row["id"], cat_width, row.get("category", ""), mark(row.get("failed")),
            mark(row.get("caught_in_preflight")), mark(row.get("message_complete")),
            mark(row.get("state_preserved")), "%.1f" % float(row.get("seconds") or 0), "pass" if passed(row) else "FAIL"))
        if args.failures:
            if row.get("error"):
                print("    error: %s" % row["error"])
            expect = row.get("expect", {})
            print("    expected: %s / %s / fix %r" % (expect.get("variable"), expect.get("value"), expect.get("fix")))
            for line in (row.get("message") or "").splitlines()[:8]:
                print("    | %s" % line[:220])
            for line in (row.get("outside_preflight") or [])[:5]:
                print("    ran after preflight: %s" % line)
            for line in (row.get("state_diff") or [])[:6]:
                print("    state %s" % line[:200])
    print("-" * len(header))
    total = summary["cases"]
    print("cases tried:          %d" % total)
    print("failed (rc != 0):     %d/%d" % (summary["failed"], total))
    print("caught in preflight:  %d/%d" % (summary["caught_in_preflight"], total))
    print("message complete:     %d/%d" % (summary["message_complete"], total))
    print("state preserved:      %d/%d" % (summary["state_preserved"], total))
    print("passed (all four):    %d/%d" % (summary["passed"], total))
    print("run time:             %.1f s, %d node(s) in parallel"
          % (summary["wall_seconds"], summary.get("parallel_nodes", 1)))
    unchanged = summary.get("nodes_unchanged_overall", {})
    if unchanged:
        print("nodes unchanged over the whole run: %s"
              % ", ".join("%s %s" % (name, mark(same)) for name, same in sorted(unchanged.items())))
    for error in summary.get("errors", []):
        print("error: %s" % error)
    ok = summary["passed"] == total and all(unchanged.values()) and not summary.get("errors")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Print the reliability suites' per-case results as one table.

    python tests/reliability/report.py [RESULT.json ...]   (default: tests/output/reliability/*.json)

Each suite writes its results to tests/output/reliability/<suite>.json as a JSON list of
``{"suite": str, "case": str, "passed": bool, "checks": {name: bool}}`` (more keys are
allowed: ``title``, ``seconds``, ``failures``, ...). A file shaped
``{"summary": {...}, "results": [...]}`` (the bad-input suite's) is read too: each result's
``id`` is the case and its boolean fields are the checks.

Exit status: 0 when every case passed, 1 when one did not, 2 when there is nothing to report.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / "tests" / "output" / "reliability"

# Fields of the bad-input results that are checks (the other booleans are facts).
BAD_INPUT_CHECKS = ("failed", "caught_in_preflight", "message_complete", "state_preserved")


def normalise(path: Path) -> list[dict]:
    """The entries of one result file in the shared shape."""
    data = json.loads(path.read_text())
    if isinstance(data, list):
        entries = []
        for e in data:
            entries.append({"suite": e.get("suite") or path.stem, "case": str(e.get("case", "?")),
                            "passed": bool(e.get("passed")), "checks": dict(e.get("checks") or {}),
                            "seconds": e.get("seconds"), "failures": e.get("failures") or []})
        return entries
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        entries = []
        for r in data["results"]:
            checks = {k: bool(r[k]) for k in BAD_INPUT_CHECKS if k in r}
            if "error" in r:
                checks["no_error"] = False
            passed = r.get("passed")
            if passed is None:
                passed = bool(checks) and all(checks.values())
            entries.append({"suite": r.get("suite") or path.stem, "case": str(r.get("id") or r.get("case", "?")),
                            "passed": bool(passed), "checks": checks, "seconds": r.get("seconds"),
                            "failures": [r["error"]] if r.get("error") else []})
        return entries
    raise ValueError("%s: neither a list of results nor {summary, results}" % path)


def table(entries: list[dict]) -> str:
    names: list[str] = []
    for e in entries:
        for name in e["checks"]:
            if name not in names:
                names.append(name)
    head = ["suite", "case", "result", *names, "s"]
    rows = []
    for e in entries:
        cells = [e["suite"], e["case"], "PASS" if e["passed"] else "FAIL"]
        for name in names:
            value = e["checks"].get(name)
            cells.append("-" if value is None else ("ok" if value else "NO"))
        seconds = e.get("seconds")
        cells.append("" if seconds is None else "%.0f" % float(seconds))
        rows.append(cells)
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]

    def line(cells):
        return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    out = [line(head), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(OUTPUT.glob("*.json"))
    entries: list[dict] = []
    for path in paths:
        try:
            entries += normalise(path)
        except (OSError, ValueError) as exc:
            print("skipped %s: %s" % (path, exc), file=sys.stderr)
    if not entries:
        print("no results under %s (run: pytest tests/reliability)" % OUTPUT)
        return 2
    print(table(entries))
    failed = [e for e in entries if not e["passed"]]
    by_suite: dict[str, list[int]] = {}
    for e in entries:
        counts = by_suite.setdefault(e["suite"], [0, 0])
        counts[0] += e["passed"]
        counts[1] += 1
    print()
    print("; ".join("%s: %d/%d passed" % (s, p, n) for s, (p, n) in by_suite.items()))
    for e in failed:
        for failure in e["failures"][:5]:
            print("  %s/%s: %s" % (e["suite"], e["case"], str(failure)[:300]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

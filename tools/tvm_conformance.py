# Runs rlx over TVM v0.23's own test modules and pass cases (../shared/tvm-tests) and prints the
# counts per category: parse, print byte-identical, print round trip, reject, and each pass's pairs.
# usage: python3 tools/tvm_conformance.py [--rlx build/tools/rlx] [--tests ../shared/tvm-tests]
#                                         [--jobs 2] [--failures CATEGORY] [--only SUBSTR]
# --failures parse|print|roundtrip|reject|PASS lists the failing cases of one category with the
# first line of rlx's complaint (or of the difference).
import argparse
import csv
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def check_module(rlx, tests, row):
    """(name, results): results maps a category to "" (ok) or the reason it failed."""
    name, expect = row["name"], row["tvm"]
    path = os.path.join(tests, "modules", name + ".relax")
    out = {}
    if expect == "rejects":
        code, _, err = run([rlx, "check", path])
        if code == 0:
            out["reject"] = "accepted"
        elif ":" not in first_line(err) or "error" not in err:
            out["reject"] = "no located error: " + first_line(err)
        else:
            out["reject"] = ""
        return name, out
    code, printed, err = run([rlx, "print", path])
    if code != 0:
        out["parse"] = first_line(err)
        return name, out
    out["parse"] = ""
    with open(os.path.join(tests, "tvm-print", name + ".relax")) as f:
        want = f.read()
    # TVM's script() omits constant values (metadata references); rlx does so on request only, its
    # default print keeps them inline, which the round trip below checks.
    tvm_style = printed
    if "metadata[" in want:
        code, tvm_style, err = run([rlx, "print", "--tvm-constants", path])
    if tvm_style == want:
        out["print"] = ""
    else:
        a, b = tvm_style.splitlines(), want.splitlines()
        k = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        got = a[k] if k < len(a) else "<end>"
        exp = b[k] if k < len(b) else "<end>"
        out["print"] = f"line {k + 1}: rlx `{got.strip()[:90]}` tvm `{exp.strip()[:90]}`"
    code, again, err = run([rlx, "print", "-"], stdin=printed)
    out["roundtrip"] = "" if code == 0 and again == printed else ("reparse: " + first_line(err) if code else "prints differently the second time")
    return name, out


def check_pair(rlx, tests, row, tmp, index):
    before = os.path.join(tests, "modules", row["before"])
    expected = os.path.join(tests, "modules", row["expected"])
    tag = row["before"].replace(".relax", "") + "__" + row["pass"] + "__" + row["expected"].replace(".relax", "")
    if row.get("expected_pipeline"):
        norm = os.path.join(tmp, f"{index}.expected.relax")
        code, _, err = run([rlx, "opt", expected, "-p", row["expected_pipeline"], "-o", norm])
        if code != 0:
            return row["pass"], tag, "expected: " + first_line(err)
        expected = norm
    # Compared in memory (rlx opt --expect): the printed result would lose what printing drops.
    code, out, err = run([rlx, "opt", before, "-p", row["pipeline"], "--expect", expected])
    if code == 0:
        return row["pass"], tag, ""
    return row["pass"], tag, ("differs: " if code == 1 else "opt: ") + first_line(out + err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rlx", default="build/tools/rlx")
    ap.add_argument("--tests", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "tvm-tests"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--failures", default="")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    rlx, tests = os.path.abspath(args.rlx), os.path.abspath(args.tests)
    with open(os.path.join(tests, "index.tsv")) as f:
        modules = [r for r in csv.DictReader(f, delimiter="\t") if args.only in r["name"]]
    with open(os.path.join(tests, "pairs.tsv")) as f:
        pairs = [r for r in csv.DictReader(f, delimiter="\t") if args.only in r["before"] or args.only == r["pass"]]

    counts = {}  # category -> [ok, total]
    failures = {}  # category -> [(case, reason)]

    def record(cat, case, reason):
        c = counts.setdefault(cat, [0, 0])
        c[1] += 1
        if reason:
            failures.setdefault(cat, []).append((case, reason))
        else:
            c[0] += 1

    with ThreadPoolExecutor(args.jobs) as pool:
        for name, res in pool.map(lambda r: check_module(rlx, tests, r), modules):
            for cat, reason in res.items():
                record(cat, name, reason)
        with tempfile.TemporaryDirectory() as tmp:
            for pass_name, tag, reason in pool.map(lambda ir: check_pair(rlx, tests, ir[1], tmp, ir[0]), enumerate(pairs)):
                record("pass:" + pass_name, tag, reason)

    parsed = counts.get("parse", [0, 0])
    print(f"modules TVM parses: {parsed[1]}; TVM rejects: {counts.get('reject', [0, 0])[1]}")
    for cat, label in [("parse", "rlx parses"), ("print", "prints byte-identical to TVM (of those TVM parses)"),
                       ("roundtrip", "print(parse(print(x))) identical (of those rlx parses)"), ("reject", "rejected with a located error (of those TVM rejects)")]:
        ok, total = counts.get(cat, [0, 0])
        denom = parsed[1] if cat == "print" else total
        ok_shown = ok
        print(f"  {label}: {ok_shown}/{denom} ({100.0 * ok_shown / max(denom, 1):.1f}%)")
    print("pass pairs (rlx opt BEFORE -p PIPELINE structurally equal to Expected):")
    pass_rows = sorted(((c[5:], v) for c, v in counts.items() if c.startswith("pass:")), key=lambda x: (-x[1][1], x[0]))
    total_ok = sum(v[0] for _, v in pass_rows)
    total = sum(v[1] for _, v in pass_rows)
    for name, (ok, n) in pass_rows:
        print(f"  {name}: {ok}/{n} ({100.0 * ok / n:.0f}%)")
    print(f"  all passes: {total_ok}/{total} ({100.0 * total_ok / max(total, 1):.1f}%)")
    if args.failures:
        key = args.failures if args.failures in ("parse", "print", "roundtrip", "reject") else "pass:" + args.failures
        for case, reason in sorted(failures.get(key, [])):
            print(f"{case}\t{reason}")


if __name__ == "__main__":
    sys.exit(main())

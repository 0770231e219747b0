# SPDX-License-Identifier: MIT
# Names from outside that are not UTF-8 or hold control characters: a
# process that renames itself (prctl PR_SET_NAME "\xff\xfebad\x1b[31m\n"),
# code blocks named so, a host name so.  Every file gpu-tracker writes must
# read back with Python's strict UTF-8 decoders (csv, sqlite3, pandas, json,
# xml.etree), each bad byte as the text \xNN (Python's backslashreplace),
# and no text report may print a control character.
. "$(dirname "$0")/_lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"

# The kernel's /proc/PID/stat shows the name's control characters as they
# are; gpu-tracker's /proc reader turns them into '?'.
export SLURMD_NODENAME=$'\xff\xfenode\x1b[31m\n' GT_SUBTRACK_HOST=1
for ext in csv sqlite; do
    "$GT_BIN" --per-process --st=0.02 --tf=t.$ext --quiet -- "$W/subtrack_badname" s.$ext 0.3 >out-$ext.txt 2>err-$ext.txt ||
        fail "$ext: gpu-tracker failed: $(cat err-$ext.txt)"
    "$GT_BIN" sub-track analyze --tf=t.$ext --stf=s.$ext -o an-$ext.txt 2>>err-$ext.txt || fail "$ext: analyze failed"
    "$GT_BIN" sub-track analyze --tf=t.$ext --stf=s.$ext -f json -o an-$ext.json 2>>err-$ext.txt ||
        fail "$ext: analyze --format=json failed"
    "$GT_BIN" plot --tf=t.$ext --stf=s.$ext -o plot-$ext.svg 2>>err-$ext.txt || fail "$ext: plot failed"
    "$GT_BIN" merge t.$ext -o merge-$ext.txt 2>>err-$ext.txt || fail "$ext: merge failed"
    "$GT_BIN" merge t.$ext -f json -o merge-$ext.json 2>>err-$ext.txt || fail "$ext: merge --format=json failed"
done
"$GT_BIN" sub-track compare -m $'a\x1b[31m\n\xff=an-csv.json' -m b=an-sqlite.json -o cmp.txt 2>>err-csv.txt ||
    fail "compare failed: $(cat err-csv.txt)"

python3 - <<'PY' || fail "files do not read back (see above)"
import csv, json, sqlite3, sys, xml.etree.ElementTree as ET

def bad(b):
    return b.decode("utf-8", "backslashreplace")

proc = bad(b"\xff\xfebad") + "?[31m?"
block = bad(b"\xff\xfeblock")
host = bad(b"\xff\xfenode") + "\x1b[31m\n"
errors = []

def check(what, got, want):
    if want not in got:
        errors.append(f"{what}: {want!r} not in {sorted(got)!r}")

def guarded(what):
    """Runs the check; an exception (a file that does not decode) is one error."""
    def wrap(fn):
        try:
            fn()
        except Exception as e:
            errors.append(f"{what}: {type(e).__name__}: {e}")
    return wrap

@guarded("CSV files")
def _():
    for name in ["t.csv", "t.processes.csv", "s.csv"]:
        with open(name, newline="", encoding="utf-8", errors="strict") as f:
            rows = list(csv.reader(f))
        cells = {c for r in rows for c in r}
        if name == "t.processes.csv":
            check(name, cells, proc)
        elif name == "s.csv":
            check(name, cells, block)
            check(name, cells, "red\x1b[31m\nline")
            check(name, cells, host)
        else:
            check(name, cells, host)

@guarded("pandas")
def _():
    try:
        import pandas
    except ImportError:
        print("pandas is not installed: read with csv only", file=sys.stderr)
        return
    check("pandas t.processes.csv", set(pandas.read_csv("t.processes.csv")["command"]), proc)
    check("pandas s.csv", set(pandas.read_csv("s.csv")["code_block_name"]), block)

for name, table, col, want in [("t.sqlite", "processes", "command", proc), ("s.sqlite", "data", "code_block_name", block),
                               ("s.sqlite", "data", "host", host), ("t.sqlite", "static_data", "host", host)]:
    @guarded(f"{name} {table}.{col}")
    def _():
        db = sqlite3.connect(name)
        check(f"{name} {table}.{col}", {r[0] for r in db.execute(f"SELECT {col} FROM {table}")}, want)

for ext in ["csv", "sqlite"]:
    @guarded(f"merge-{ext}.json")
    def _():
        with open(f"merge-{ext}.json", encoding="utf-8", errors="strict") as f:
            m = json.load(f)
        check(f"merge-{ext}.json node", {n["host"] for n in m["nodes"]}, host)

    @guarded(f"an-{ext}.json")
    def _():
        with open(f"an-{ext}.json", encoding="utf-8", errors="strict") as f:
            a = json.load(f)
        check(f"an-{ext}.json blocks", {b["name"] for b in a["code_block_results"]}, block)

    @guarded(f"plot-{ext}.svg")
    def _():
        texts = {"".join(e.itertext()) for e in ET.parse(f"plot-{ext}.svg").iter()}
        check(f"plot-{ext}.svg", texts, block)
        check(f"plot-{ext}.svg", texts, "red\\x1b[31m\\x0aline")

# Text reports: valid UTF-8, no control character but newline and tab.
for name in ["out-csv.txt", "out-sqlite.txt", "an-csv.txt", "an-sqlite.txt", "merge-csv.txt", "merge-sqlite.txt",
             "cmp.txt"]:
    @guarded(name)
    def _():
        text = open(name, "rb").read().decode("utf-8", "strict")
        ctl = sorted({hex(ord(c)) for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) < 0xa0})
        if ctl:
            errors.append(f"{name}: control characters {ctl}")

@guarded("text reports")
def _():
    lines = set(open("an-csv.txt", encoding="utf-8").read().split("\n"))
    check("analyze text", lines, "\tName:                " + block)
    check("analyze text", lines, "\tName:                red\\x1b[31m\\x0aline")
    check("merge text", {l.strip() for l in open("merge-csv.txt", encoding="utf-8")},
          bad(b"\xff\xfenode") + "\\x1b[31m\\x0a")
    check("compare text", {l.strip() for l in open("cmp.txt", encoding="utf-8")}, block + ":")

for e in errors:
    print("FAIL:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY

#!/usr/bin/env bash
# Checks the monitoring files shipped in deploy/ against each other and
# against the runbooks:
#
#   - promtool check rules / promtool test rules on the alerting rules;
#   - every alert rule has `for:`, a severity of page or ticket, a summary, a
#     description and a runbook_url equal to docs/ops-runbooks/<name>.md,
#     <name> being the alert name in kebab-case (YuzuHttp5xxRate ->
#     yuzu-http-5xx-rate), and that file exists;
#   - every runbook in docs/ops-runbooks/ (README.md aside) belongs to an
#     alert, and README.md links to each of them;
#   - the Grafana dashboard is valid JSON, takes the DS_PROMETHEUS input, and
#     each of its PromQL queries parses.
#
# Prints one "ok - ..." or "not ok - ..." line per check (diagnostics follow
# as "#   " lines) and last "N passed, M failed". Exits 1 when a check
# failed. Needs promtool (Debian package prometheus), python3 with PyYAML
# (python3-yaml), and jq or python3 for the JSON.
#
# Usage: tests/deploy/check_rules.sh   (from anywhere; paths are repo-relative)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2

rules=deploy/prometheus/yuzu-rules.yml
rule_tests=deploy/prometheus/yuzu-rules.test.yml
dashboard=deploy/grafana/yuzu-dashboard.json
runbooks=docs/ops-runbooks

passed=0
failed=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

pass() {
    echo "ok - $*"
    passed=$((passed + 1))
}

fail() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# Indents a command's output under the line that reports it.
diag() {
    sed 's/^/#   /'
}

# run DESCRIPTION COMMAND...: one check that passes when COMMAND succeeds.
run() {
    local description=$1
    shift
    local out
    if out=$("$@" 2>&1); then
        pass "$description"
    else
        fail "$description"
        printf '%s\n' "$out" | diag
    fi
}

# Counts the "ok - ..." / "not ok - ..." lines a helper prints on stdin;
# anything else is shown as a diagnostic. Fed by process substitution, never
# a pipe, so the counters stay in this shell.
tally() {
    local line
    while IFS= read -r line; do
        case "$line" in
            "ok - "*) pass "${line#ok - }" ;;
            "not ok - "*) fail "${line#not ok - }" ;;
            *) printf '%s\n' "$line" | diag ;;
        esac
    done
}

have() {
    command -v "$1" >/dev/null 2>&1
}

# --- the rules themselves -----------------------------------------------------

for f in "$rules" "$rule_tests" "$dashboard"; do
    if [[ -f "$f" ]]; then pass "$f exists"; else fail "$f exists"; fi
done

if have promtool; then
    run "promtool check rules $rules" promtool check rules "$rules"
    run "promtool test rules $rule_tests" promtool test rules "$rule_tests"
else
    fail "promtool check rules $rules (promtool not installed: apt-get install prometheus)"
    fail "promtool test rules $rule_tests (promtool not installed: apt-get install prometheus)"
fi

# --- alerts and runbooks ------------------------------------------------------

cat >"$work/alerts.py" <<'PY'
import os
import re
import sys

import yaml

rules_path, runbook_dir = sys.argv[1], sys.argv[2]


def kebab(name):
    # A hyphen before an upper-case letter that follows a lower-case letter
    # or a digit, and before a digit that follows a letter.
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Za-z])(?=[0-9])", "-", name).lower()


try:
    with open(rules_path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
except (OSError, yaml.YAMLError) as e:
    print(f"not ok - read {rules_path}")
    print(str(e))
    sys.exit(0)

alerts = {}  # name -> problems found over every rule of that name
for group in (doc or {}).get("groups") or []:
    for rule in group.get("rules") or []:
        name = rule.get("alert")
        if not name:
            continue  # a recording rule
        problems = alerts.setdefault(name, [])
        where = f"group {group.get('name')!r}"
        if "for" not in rule:
            problems.append(f"a rule in {where} has no 'for:'")
        severity = (rule.get("labels") or {}).get("severity")
        if severity not in ("page", "ticket"):
            problems.append(f"a rule in {where} has severity {severity!r}, not page or ticket")
        annotations = rule.get("annotations") or {}
        for key in ("summary", "description", "runbook_url"):
            if not str(annotations.get(key) or "").strip():
                problems.append(f"a rule in {where} has no annotation {key!r}")
        want = f"{runbook_dir}/{kebab(name)}.md"
        got = annotations.get("runbook_url")
        if got is not None and got != want:
            problems.append(f"runbook_url is {got!r}, expected {want!r}")
        if not os.path.isfile(want):
            problems.append(f"{want} does not exist")

if not alerts:
    print(f"not ok - {rules_path} defines alerts")
for name in sorted(alerts):
    want = f"{runbook_dir}/{kebab(name)}.md"
    problems = sorted(set(alerts[name]))
    if problems:
        print(f"not ok - alert {name}: for, severity, annotations and runbook {want}")
        for p in problems:
            print(p)
    else:
        print(f"ok - alert {name}: for, severity, annotations and runbook {want}")

wanted = {f"{kebab(name)}.md" for name in alerts}
present = sorted(
    f for f in (os.listdir(runbook_dir) if os.path.isdir(runbook_dir) else [])
    if f.endswith(".md") and f != "README.md"
)
for f in present:
    if f in wanted:
        print(f"ok - runbook {runbook_dir}/{f} belongs to an alert")
    else:
        print(f"not ok - runbook {runbook_dir}/{f} belongs to an alert")
        print("no alert in the rules file has this runbook_url; remove it or add the alert")

readme = os.path.join(runbook_dir, "README.md")
try:
    with open(readme, encoding="utf-8") as f:
        index = f.read()
except OSError:
    print(f"not ok - {readme} exists and links to every runbook")
else:
    missing = [f for f in sorted(wanted) if f"]({f})" not in index]
    if missing:
        print(f"not ok - {readme} links to every runbook")
        for f in missing:
            print(f"no link to ({f})")
    else:
        print(f"ok - {readme} links to every runbook")
PY

if python3 -c 'import yaml' >/dev/null 2>&1; then
    tally < <(python3 "$work/alerts.py" "$rules" "$runbooks" 2>&1)
else
    fail "read $rules (python3 with PyYAML is needed: apt-get install python3-yaml)"
fi

# --- the dashboard --------------------------------------------------------------

json_ok=0
out=""
if have jq; then
    out=$(jq empty "$dashboard" 2>&1) && json_ok=1
else
    out=$(python3 -m json.tool "$dashboard" 2>&1 >/dev/null) && json_ok=1
fi
if ((json_ok)); then
    pass "$dashboard is valid JSON"
else
    fail "$dashboard is valid JSON"
    printf '%s\n' "$out" | diag
fi

cat >"$work/dashboard.py" <<'PY'
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    dash = json.load(f)

inputs = [i.get("name") for i in dash.get("__inputs") or []]
if "DS_PROMETHEUS" in inputs:
    print("ok - dashboard takes the DS_PROMETHEUS data source input")
else:
    print("not ok - dashboard takes the DS_PROMETHEUS data source input")


def panels(items):
    for p in items or []:
        yield p
        yield from panels(p.get("panels"))


exprs = []
for p in panels(dash.get("panels")):
    for t in p.get("targets") or []:
        if t.get("expr"):
            exprs.append(t["expr"])
for a in (dash.get("annotations") or {}).get("list") or []:
    if a.get("expr"):
        exprs.append(a["expr"])
if not exprs:
    print("not ok - dashboard has PromQL queries")

# Every query, with Grafana's variables replaced, as a recording rule, so
# that promtool parses it.
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for n, e in enumerate(exprs):
        e = e.replace("$__rate_interval", "5m").replace("$__interval", "1m")
        e = e.replace("${instance}", ".*").replace("$instance", ".*")
        out.write(f"      - record: dashboard:query_{n}\n")
        out.write(f"        expr: {json.dumps(e)}\n")
PY

if ((json_ok)); then
    tally < <(python3 "$work/dashboard.py" "$dashboard" "$work/dashboard-queries.yml" 2>&1)
    if have promtool; then
        run "every dashboard query parses (promtool)" promtool check rules "$work/dashboard-queries.yml"
    else
        fail "every dashboard query parses (promtool not installed)"
    fi
fi

echo "$passed passed, $failed failed"
((failed == 0))

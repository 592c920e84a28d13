#!/usr/bin/env python3
"""Summarise an Autobahn|Testsuite fuzzingclient run (scripts/lib/autobahn_run.sh).

    python3 scripts/lib/autobahn_report.py OUT_DIR

Reads OUT_DIR/reports/servers/index.json, OUT_DIR/wstest.log and the spec
OUT_DIR/fuzzingclient.json. A case passes
when both its behavior and its close behavior are OK, NON-STRICT or
INFORMATIONAL; anything else (FAILED, UNIMPLEMENTED, WRONG CODE, UNCLEAN, ...)
fails. wstest gives up at the first connection the server refuses (after a
crash, say) and reports only the cases it ran, so a case that wstest.log lists
as planned but the report lacks counts as failed ("NOT RUN").

The last line printed is always `autobahn: N passed, M failed`, or, when there
is no report, `autobahn: no verdict (...)`. Exit status: 0 all passed, 1 some
case failed, 2 no verdict (no report, or no case in it).
"""

import ast
import json
import os
import sys
from collections import Counter

PASSING = {"OK", "NON-STRICT", "INFORMATIONAL"}


def case_key(case_id):
    return tuple(int(part) if part.isdigit() else 0 for part in case_id.split("."))


def read_log(log_path):
    """The case ids wstest said it would run (its `Cases = [...]` line, or None)
    and the connections it reported failed."""
    planned, refused = None, []
    try:
        with open(log_path, encoding="utf-8", errors="replace") as log:
            for line in log:
                if line.startswith("Cases = [") and planned is None:
                    planned = ast.literal_eval(line[len("Cases = "):].strip())
                elif line.startswith("Connection to ") and " failed" in line:
                    refused.append(line.strip())
    except (OSError, ValueError, SyntaxError):
        pass
    return planned, refused


def spec_agents(spec_path):
    try:
        with open(spec_path, encoding="utf-8") as f:
            return [server["agent"] for server in json.load(f)["servers"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def counts(counter):
    return ", ".join(f"{name}={n}" for name, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))) or "-"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    index_path = os.path.join(out, "reports", "servers", "index.json")
    try:
        with open(index_path, encoding="utf-8") as f:
            index = json.load(f)
    except (OSError, ValueError) as error:
        print(f"autobahn: no verdict (no readable report at {index_path}: {error})")
        return 2

    planned, refused = read_log(os.path.join(out, "wstest.log"))
    for line in refused:
        print(f"autobahn: wstest: {line}")
    if planned is None:
        print("autobahn: warning: wstest.log names no planned cases; cases that never ran go unnoticed")
    # An agent whose every connection was refused is missing from the report.
    agents = sorted(set(index) | set(spec_agents(os.path.join(out, "fuzzingclient.json"))))
    passed, failed = 0, []
    behaviors, close_behaviors = Counter(), Counter()
    for agent in agents:
        results = dict(index.get(agent, {}))
        for case_id in planned or []:
            results.setdefault(case_id, {"behavior": "NOT RUN", "behaviorClose": "NOT RUN"})
        for case_id in sorted(results, key=case_key):
            result = results[case_id]
            behavior = result.get("behavior", "?")
            close = result.get("behaviorClose", "?")
            behaviors[behavior] += 1
            close_behaviors[close] += 1
            if behavior in PASSING and close in PASSING:
                passed += 1
            else:
                failed.append((agent, case_id, behavior, close, result.get("remoteCloseCode")))

    print(f"autobahn: agent {', '.join(agents)}: {passed + len(failed)} cases,"
          f" report {index_path[:-len('json')]}html")
    print(f"autobahn: behavior       {counts(behaviors)}")
    print(f"autobahn: close behavior {counts(close_behaviors)}")
    if failed:
        print("autobahn: failed cases:")
        not_run = [case_id for _, case_id, behavior, _, _ in failed if behavior == "NOT RUN"]
        for agent, case_id, behavior, close, code in failed:
            if behavior != "NOT RUN":
                who = f" (agent {agent})" if len(agents) > 1 else ""
                print(f"  {case_id:<10} behavior={behavior} close={close} remote close code={code}{who}")
        if not_run:
            print(f"  {len(not_run)} planned cases never ran ({not_run[0]} .. {not_run[-1]}): did the server stop?")
    print(f"autobahn: {passed} passed, {len(failed)} failed")
    if failed:
        return 1
    return 0 if passed else 2


if __name__ == "__main__":
    sys.exit(main())

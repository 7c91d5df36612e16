#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The table scripts/test.sh ends with: the minutes of each stage, the ten slowest tests of the run
(read from CTest's JUnit files), and the compiler cache's hit rate over the run.

  test_report.py RUN_DIR

RUN_DIR holds what scripts/test.sh wrote during the run: stages.tsv (name, seconds, status),
junit-*.xml (one per CTest run, named by configuration), ccache-before.tsv and ccache-after.tsv
(`ccache --print-stats`).
"""

import glob
import os
import sys
import xml.etree.ElementTree as ET


def read_stats(path):
    stats = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, _, value = line.rstrip("\n").partition("\t")
                if value.isdigit():
                    stats[key] = int(value)
    except OSError:
        pass
    return stats


def main():
    run = sys.argv[1]
    stages = []
    with open(os.path.join(run, "stages.tsv"), encoding="utf-8") as f:
        for line in f:
            name, seconds, status = line.rstrip("\n").split("\t")
            stages.append((name, int(seconds), status))
    total = sum(s for _, s, _ in stages)
    print("\n| stage | minutes | |")
    print("|---|---:|---|")
    for name, seconds, status in stages:
        print(f"| {name} | {seconds / 60:.1f} | {'' if status == 'ok' else status} |")
    print(f"| **total** | **{total / 60:.1f}** | |")

    tests = []
    for path in sorted(glob.glob(os.path.join(run, "junit-*.xml"))):
        config = os.path.basename(path)[len("junit-"):-len(".xml")]
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError:
            continue
        for case in root.iter("testcase"):
            tests.append((float(case.get("time", "0")), config, case.get("name", "?")))
    if tests:
        tests.sort(reverse=True)
        count = len(tests)
        spent = sum(t for t, _, _ in tests)
        print(f"\nThe 10 slowest of {count} test runs ({spent / 60:.1f} test-minutes in all):\n")
        print("| test | build | seconds |")
        print("|---|---|---:|")
        for seconds, config, name in tests[:10]:
            print(f"| {name} | {config} | {seconds:.1f} |")

    before = read_stats(os.path.join(run, "ccache-before.tsv"))
    after = read_stats(os.path.join(run, "ccache-after.tsv"))
    if after:
        def delta(key):
            return after.get(key, 0) - before.get(key, 0)
        hits = delta("direct_cache_hit") + delta("preprocessed_cache_hit")
        misses = delta("cache_miss")
        calls = hits + misses
        rate = f"{100 * hits / calls:.0f}%" if calls else "n/a"
        print(f"\nCompiler cache: {hits} hits, {misses} misses of {calls} compilations ({rate} hit rate); "
              f"{after.get('cache_size_kibibyte', 0) / 1024 / 1024:.2f} GiB in the cache")
    return 0


if __name__ == "__main__":
    sys.exit(main())

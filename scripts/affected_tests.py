#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which tests a change touches, for the developer loops of scripts/test.sh.

  affected_tests.py quick BUILD_DIR          the tests whose inputs changed since they last passed
  affected_tests.py record BUILD_DIR JUNIT   remember the inputs of the tests that passed
  affected_tests.py changed BUILD_DIR FILE…  the tests whose programs are built from any FILE

Both print one CTest test name a line. A test's programs are its command's executable and the
build's programs it runs (its REQUIRED_FILES property: gguf-inspect, gguf-explorer).

quick (--quick) compares what the test would run now with what it ran when it last passed in this
build folder: the bytes of its programs, its command and environment, and the files the tests read
at run time (tests/data, resources, scripts). A program the linker made again from unchanged
objects has the same bytes, so only the tests whose code really changed run again.

changed (--changed) maps source files to tests through the build: a program's link command names
its objects and static libraries, each library's archive command its objects (of which only those
the linker took count: one of their strong symbols is in the program), and each object's
dependency file the source and headers it was compiled from. A changed CMakeLists.txt of a library
(core/format/CMakeLists.txt, ui/hex/…) counts as a change of every source in its folder; one of a
test folder (tests/core/stats/CMakeLists.txt) selects the tests of its CTest label (core-stats, and
under tests/ui/ every ui-… label). A changed file that no program is built from but the tests read
(tests/data, resources, scripts, cmake, the root and tests/ CMakeLists.txt) selects every test;
documentation selects none.
"""

import glob
import hashlib
import json
import os
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET

from depfile import read_depfile

SOURCE_DIR = os.path.realpath(os.path.join(os.path.dirname(__file__), ".."))
RUNTIME_INPUTS = ("tests/data", "tests/fuzz/regressions", "tests/fuzz/corpus", "resources", "scripts")


def ctest_tests(build):
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True,
                         check=True).stdout
    tests = []
    for t in json.loads(out).get("tests", []):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        required = props.get("REQUIRED_FILES", [])
        if isinstance(required, str):
            required = [required]
        command = t.get("command", [])
        labels = props.get("LABELS", [])
        if isinstance(labels, str):
            labels = [labels]
        tests.append({"name": t["name"], "command": command, "programs": command[:1] + list(required),
                      "environment": props.get("ENVIRONMENT", []), "labels": labels})
    return tests


def file_digest(path, memo):
    if path not in memo:
        h = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            memo[path] = h.hexdigest()
        except OSError:
            memo[path] = "missing"
    return memo[path]


def runtime_fingerprint():
    h = hashlib.sha256()
    for top in RUNTIME_INPUTS:
        for root, dirs, files in os.walk(os.path.join(SOURCE_DIR, top)):
            dirs.sort()
            for name in sorted(files):
                st = os.stat(os.path.join(root, name))
                h.update(f"{os.path.relpath(os.path.join(root, name), SOURCE_DIR)} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def input_keys(build):
    memo = {}
    runtime = runtime_fingerprint()
    keys = {}
    for t in ctest_tests(build):
        h = hashlib.sha256(runtime.encode())
        h.update(json.dumps([t["command"], t["environment"]]).encode())
        for program in t["programs"]:
            h.update(file_digest(program, memo).encode())
        keys[t["name"]] = h.hexdigest()
    return keys


def state_path(build):
    return os.path.join(build, "quick-state.json")


def quick(build):
    try:
        with open(state_path(build), encoding="utf-8") as f:
            state = json.load(f)
    except (OSError, ValueError):
        state = {}
    for name, key in input_keys(build).items():
        if state.get(name) != key:
            print(name)


def record(build, junit):
    try:
        with open(state_path(build), encoding="utf-8") as f:
            state = json.load(f)
    except (OSError, ValueError):
        state = {}
    keys = input_keys(build)
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name")
        passed = case.get("status") == "run" and case.find("failure") is None and case.find("error") is None
        if passed and name in keys:
            state[name] = keys[name]
        else:
            state.pop(name, None)
    with open(state_path(build), "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1, sort_keys=True)


def link_commands(build):
    """Output path → (working directory, tokens) of every link and archive command of the build."""
    commands = {}
    for link in glob.glob(os.path.join(build, "**", "CMakeFiles", "*.dir", "link.txt"), recursive=True):
        cwd = os.path.dirname(os.path.dirname(os.path.dirname(link)))
        with open(link, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for line in lines:
            tokens = shlex.split(line)
            out = None
            if "-o" in tokens:
                out = tokens[tokens.index("-o") + 1]
            elif len(tokens) > 2 and os.path.basename(tokens[0]).endswith("ar") and tokens[1] in ("qc", "cr", "rcs", "qcs"):
                out = tokens[2]
            if out:
                commands[os.path.normpath(os.path.join(cwd, out))] = (cwd, tokens)
    return commands


def object_sources(obj):
    # the object's folder is CMakeFiles/<target>.dir/…; the compiler ran in the target's folder
    cwd = obj
    while os.path.basename(cwd) != "CMakeFiles":
        cwd = os.path.dirname(cwd)
    return {os.path.realpath(p) for p in read_depfile(obj, os.path.dirname(cwd)) or []}


def defined_symbols(path, strong_globals):
    """The symbols a file defines (nm): an object's strong global ones, or all of a program's (the
    linker may make a program's symbols local)."""
    out = subprocess.run(["nm", "--defined-only", *(["-g"] if strong_globals else []), path], capture_output=True,
                         text=True).stdout
    symbols = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and not (strong_globals and parts[1] in "VvWwu"):
            symbols.add(parts[2])
    return symbols


def program_sources(program, commands, memo):
    """The sources and headers a program is built from: its own objects, and the members of its
    static libraries that the linker took (a member defines a strong symbol the program has)."""
    program = os.path.normpath(program)
    if program in memo:
        return memo[program]
    sources = set()
    if program in commands:
        cwd, tokens = commands[program]
        linked = None
        for token in tokens:
            path = os.path.normpath(os.path.join(cwd, token))
            if token.endswith(".o"):
                sources |= object_sources(path)
            elif token.endswith(".a") and path in commands:
                if linked is None:
                    linked = defined_symbols(program, False)
                archive_cwd, archive_tokens = commands[path]
                for member in archive_tokens:
                    if member.endswith(".o"):
                        obj = os.path.normpath(os.path.join(archive_cwd, member))
                        if ("symbols", obj) not in memo:
                            memo[("symbols", obj)] = defined_symbols(obj, True)
                        strong = memo[("symbols", obj)]
                        # a member with no strong symbol cannot be told apart: counted
                        if not strong or strong & linked:
                            sources |= object_sources(obj)
    memo[program] = sources
    return sources


def folder_label(rel):
    """The CTest label of the tests a tests/ sub-folder's CMakeLists.txt declares (core-stats, cli,
    ui), or None for tests/CMakeLists.txt itself."""
    folder = os.path.dirname(rel)
    if folder == "tests" or not folder.startswith("tests/"):
        return None
    return folder[len("tests/"):].replace("/", "-")


def changed(build, files):
    paths = set()
    labels = set()
    select_all = False
    for f in files:
        rel = os.path.relpath(os.path.realpath(os.path.join(SOURCE_DIR, f)), SOURCE_DIR)
        if rel.endswith(".md") or rel.startswith("docs/") or rel in ("LICENSE",):
            continue
        if os.path.basename(rel) == "CMakeLists.txt" and rel.startswith(("core/", "ui/", "app/")):
            # how a library builds: as if every source of its folder changed
            for source in glob.glob(os.path.join(SOURCE_DIR, os.path.dirname(rel), "**", "*"), recursive=True):
                paths.add(source)
            continue
        if os.path.basename(rel) == "CMakeLists.txt" and folder_label(rel):
            labels.add(folder_label(rel))
            continue
        if rel.startswith(RUNTIME_INPUTS + ("cmake/", ".ci/")) or os.path.basename(rel) == "CMakeLists.txt":
            select_all = True
        paths.add(os.path.join(SOURCE_DIR, rel))
    commands = link_commands(build)
    memo = {}
    for t in ctest_tests(build):
        labelled = any(l == want or l.startswith(want + "-") for l in t["labels"] for want in labels)
        if select_all or labelled or any(paths & program_sources(p, commands, memo) for p in t["programs"]):
            print(t["name"])


def main():
    if len(sys.argv) >= 3:
        sys.argv[2] = os.path.abspath(sys.argv[2])
    if len(sys.argv) >= 3 and sys.argv[1] == "quick":
        quick(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == "changed":
        changed(sys.argv[2], sys.argv[3:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""clang-tidy over the project's sources, skipping the ones whose result is already known.

Called by scripts/tidy.sh. A source is checked again unless a clean pass was recorded under the
same key: a SHA-256 of clang-tidy's version, the .clang-tidy file, the source's compile command
(paths made relative to the checkout and the build, so that every clone of the same commit has the
same key), the source's text, and the text of every header it includes (read from the dependency
file the compiler wrote beside its object). Only clean passes are recorded, so a finding is found
again at every run until it is fixed; an empty cache gives a full pass.

The compile commands come from the build, less the precompiled header (clang cannot read GCC's,
and a source must stand without it): scripts/tidy.sh passes a build folder.

Most of a check's time is clang reading the Qt headers a source includes, so when many sources are
to be checked they go in batches: the sources of one target with the same flags, up to BATCH of
them, #included by one generated file that clang-tidy reads once (the Qt headers are read once per
batch, not once per source). A finding inside an included source is reported under its own path:
.clang-tidy's HeaderFilterRegex covers every folder a batched source is in. A batch that is not
clean is checked again: in halves when clang itself complained (sources that clash when read
together), else source by source, so what is reported, and what is recorded, is per source as
before. A few sources to check (at
most FEW) are checked one by one, so that a changed file is still read standing alone.
"""

import concurrent.futures
import hashlib
import itertools
import json
import os
import re
import shlex
import subprocess
import shutil
import sys
import time

from depfile import read_depfile

PCH_OPTIONS = {"-Winvalid-pch", "-fpch-preprocess"}
BATCH = int(os.environ.get("GGUF_TIDY_BATCH", "10"))
FEW = 8
AUTOGEN = re.compile(r"-I.*_autogen/include")


def strip_pch(args):
    """The compile arguments without CMake's precompiled header options."""
    out = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in PCH_OPTIONS:
            continue
        if arg == "-include" and i + 1 < len(args) and "cmake_pch" in args[i + 1]:
            skip = True
            continue
        if arg == "-Xclang" and i + 1 < len(args) and args[i + 1] in ("-include-pch", "-fno-pch-timestamp"):
            skip = True
            continue
        out.append(arg)
    return out


def depfile_paths(directory, args):
    """The files the compiler read for this object, less the precompiled header, or None."""
    if "-o" not in args:
        return None
    paths = read_depfile(os.path.join(directory, args[args.index("-o") + 1]), directory)
    if paths is None:
        return None
    return [p for p in paths if "cmake_pch" not in p and not p.endswith(".gch")]


def header_filter(source_dir):
    """.clang-tidy's HeaderFilterRegex: the files whose findings are reported when included."""
    with open(os.path.join(source_dir, ".clang-tidy"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*HeaderFilterRegex:\s*'(.*)'\s*$", line)
            if m:
                return re.compile(m.group(1))
    return None


def make_batches(todo, source_dir):
    """The sources to check grouped by folder and flags (the source and its object left out), in
    batches of at most BATCH; sources whose findings would not be reported when included stay out."""
    shown = header_filter(source_dir)
    groups = {}
    for e in todo:
        if shown is None or not shown.fullmatch(e["file"]):
            continue
        args = list(e["arguments"])
        if "-o" in args:
            i = args.index("-o")
            del args[i:i + 2]
        # each target's moc output folder is its own; a batch of several targets (the tests) gets
        # the folders of all of them
        args = [a for a in args if a != e["file"] and not AUTOGEN.fullmatch(a)]
        groups.setdefault((e["directory"], tuple(args)), []).append(e)
    batches = []
    for (directory, args), entries in groups.items():
        if len(entries) < 2:
            continue
        count = -(-len(entries) // BATCH)
        for k in range(count):
            part = entries[k::count]
            autogen = dict.fromkeys(a for e in part for a in e["arguments"] if AUTOGEN.fullmatch(a))
            batches.append({"directory": directory, "arguments": list(args) + list(autogen), "entries": part})
    return batches


class Hasher:
    def __init__(self):
        self.memo = {}

    def file(self, path):
        digest = self.memo.get(path)
        if digest is None:
            try:
                with open(path, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                digest = "missing"
            self.memo[path] = digest
        return digest


def main():
    if len(sys.argv) != 5:
        print("usage: tidy_cached.py SOURCE_DIR BUILD_DIR CACHE_DIR FILE_LIST", file=sys.stderr)
        return 2
    source_dir, build_dir, cache_dir = (os.path.realpath(p) for p in sys.argv[1:4])
    with open(sys.argv[4], encoding="utf-8") as f:
        wanted = {os.path.join(source_dir, line.strip()) for line in f if line.strip()}
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        commands = json.load(f)
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True, check=True).stdout
    with open(os.path.join(source_dir, ".clang-tidy"), "rb") as f:
        config = f.read()

    hasher = Hasher()
    entries = []
    seen = set()
    for entry in commands:
        path = os.path.realpath(entry["file"])
        if path not in wanted or path in seen:
            continue
        seen.add(path)
        args = entry.get("arguments") or shlex.split(entry["command"])
        args = strip_pch(args)
        deps = depfile_paths(entry["directory"], args)
        key = None
        if deps is not None:
            h = hashlib.sha256()
            h.update(version.encode())
            h.update(config)

            def portable(text):
                return text.replace(build_dir, "<build>").replace(source_dir, "<source>")

            h.update(portable(" ".join(args)).encode())
            h.update(portable(os.path.relpath(entry["directory"], build_dir)).encode())
            for dep in sorted(set(deps) | {path}):
                h.update(portable(dep).encode())
                h.update(hasher.file(dep).encode())
            key = h.hexdigest()
        entries.append({"directory": entry["directory"], "file": path, "arguments": args, "key": key})

    missing = sorted(wanted - seen)
    if missing:
        print("tidy: not in compile_commands.json (is it built?): " + " ".join(missing), file=sys.stderr)
        return 1

    # the commands clang-tidy reads: the build's, without the precompiled header
    tidy_dir = os.path.join(build_dir, "tidy")
    os.makedirs(tidy_dir, exist_ok=True)
    with open(os.path.join(tidy_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump([{k: e[k] for k in ("directory", "file", "arguments")} for e in entries], f, indent=1)

    os.makedirs(cache_dir, exist_ok=True)
    todo = [e for e in entries if not (e["key"] and os.path.exists(os.path.join(cache_dir, e["key"])))]
    print(f"clang-tidy: {len(entries)} sources, {len(entries) - len(todo)} unchanged since a clean pass, "
          f"{len(todo)} to check", flush=True)

    def run_tidy(compile_dir, path):
        result = subprocess.run(["clang-tidy", "-p", compile_dir, "--quiet", path], capture_output=True, text=True)
        err = "\n".join(line for line in result.stderr.splitlines() if "warnings generated" not in line)
        clean = result.returncode == 0 and "warning:" not in result.stdout and "error:" not in result.stdout
        return clean, result.stdout + (("\n" + err) if err.strip() else "")

    def record(e):
        if e["key"]:
            with open(os.path.join(cache_dir, e["key"]), "w", encoding="utf-8") as stamp:
                stamp.write(os.path.relpath(e["file"], source_dir) + f" {time.strftime('%Y-%m-%d %H:%M:%S')}\n")

    def check(e):
        clean, output = run_tidy(tidy_dir, e["file"])
        if clean:
            record(e)
        return [(e, clean, output)]

    def check_batch(batch):
        clean, output = run_tidy(batch["folder"], batch["file"])
        if clean:
            for e in batch["entries"]:
                record(e)
            return [(e, True, "") for e in batch["entries"]]
        entries = batch["entries"]
        if "[clang-diagnostic-" in output and len(entries) > 3:
            # the sources may clash when read together (the same name in two anonymous namespaces):
            # each half is tried again as a batch
            half = len(entries) // 2
            return [r for part in (entries[:half], entries[half:]) for r in check_batch(write_batch(dict(batch, entries=part)))]
        return [r for e in entries for r in check(e)]

    batch_dir = os.path.join(tidy_dir, "batches")
    batch_count = itertools.count()

    def write_batch(batch):
        """Writes the batch's source and its compile command in a folder of their own; returns the
        batch with both."""
        folder = os.path.join(batch_dir, f"{next(batch_count):03}")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "batch.cpp")
        with open(path, "w", encoding="utf-8") as f:
            f.write("// generated by scripts/tidy_cached.py: sources clang-tidy reads together\n")
            for i, e in enumerate(batch["entries"]):
                # each test's main() gets its own name, so that two tests can share a batch
                f.write(f'#define main gguf_tidy_main_{i}\n#include "{e["file"]}"\n#undef main\n')
        with open(os.path.join(folder, "compile_commands.json"), "w", encoding="utf-8") as f:
            json.dump([{"directory": batch["directory"], "file": path, "arguments": batch["arguments"] + [path]}],
                      f, indent=1)
        return dict(batch, file=path, folder=folder)

    batches = make_batches(todo, source_dir) if len(todo) > FEW and BATCH > 1 else []
    batched = {id(e) for b in batches for e in b["entries"]}
    if batches:
        shutil.rmtree(batch_dir, ignore_errors=True)
        batches = [write_batch(b) for b in batches]
        print(f"clang-tidy: {len(batched)} of them in {len(batches)} batches", flush=True)
    work = [(check_batch, b) for b in batches] + [(check, e) for e in todo if id(e) not in batched]

    failed = []
    jobs = int(os.environ.get("GGUF_TIDY_JOBS", os.cpu_count() or 2))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for results in pool.map(lambda w: w[0](w[1]), work):
            for e, clean, output in results:
                if not clean:
                    failed.append(os.path.relpath(e["file"], source_dir))
                    sys.stdout.write(output)
    if failed:
        print(f"clang-tidy: findings in {len(failed)} file(s): " + " ".join(failed), file=sys.stderr)
        return 1
    print("clang-tidy: no findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())

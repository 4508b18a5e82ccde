# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How fast this machine runs the kind of work make test is made of, measured before the run starts.

    python3 tools/machine-speed.py        # one line: cores, CPU model, seconds of the probe

make test's times are CPU time divided by two cores: the same commit took 34 minutes on one day
and about 55 on another on machines of the same type, with every part slower by the same factor
(docs/testing.md). This probe runs a fixed amount of single-core Python work of Ansible's kind
(building, templating and serialising dicts and strings, regular expressions) three times and
keeps the fastest, so a reader can tell a slow machine from a slow change. tools/test.sh runs it
before anything else; tools/test-summary.py prints it beside the caches, with the reference below.
"""
import json
import os
import re
import sys
import time

ROUNDS = 3
WORK = 120000


def probe():
    """One round of the fixed work; its seconds."""
    start = time.perf_counter()
    pattern = re.compile(r"^NodeName=(\S+) .*Gres=gpu:(\d+)")
    found = 0
    for i in range(WORK):
        host = {"name": "gpu%05d" % i, "gpus": i % 9, "vars": {"slurm_node_weight": i % 7, "features": ["a", "b"]}}
        line = "NodeName=%s CPUs=64 Gres=gpu:%d State=UNKNOWN" % (host["name"], host["gpus"])
        match = pattern.match(line)
        if match and int(match.group(2)) == host["gpus"]:
            found += 1
        json.loads(json.dumps(host, sort_keys=True))
    if found != WORK:
        raise RuntimeError("the probe's own check failed")
    return time.perf_counter() - start


def model():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def main():
    best = min(probe() for unused in range(ROUNDS))
    print("%d\t%s\t%.2f" % (os.cpu_count() or 0, model(), best))
    return 0


if __name__ == "__main__":
    sys.exit(main())

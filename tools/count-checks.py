# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Count the check tasks written in the Molecule playbooks, per file.

    python3 tools/count-checks.py             # the working tree
    python3 tools/count-checks.py REV         # a commit (git show REV:path)

A check task is an assert or fail task, or a task with a failed_when
condition of its own (not `false`), the same rule as the gpuops_checks
callback applies to what ran. Used to show that a change of the test layout
keeps every check (the counts per file, before and after).
"""
import subprocess
import sys

import yaml

CHECK_ACTIONS = {"assert", "ansible.builtin.assert", "fail", "ansible.builtin.fail"}
NO_CONDITION = {"false", "False", "no"}


def _is_check(task):
    if any(k in CHECK_ACTIONS for k in task):
        return True
    cond = task.get("failed_when")
    if cond is None:
        return False
    conds = cond if isinstance(cond, list) else [cond]
    return any(c is not False and str(c).strip() not in NO_CONDITION for c in conds)


def _count(tasks):
    n = 0
    for task in tasks or []:
        if not isinstance(task, dict):
            continue
        if "block" in task:
            n += sum(_count(task.get(k)) for k in ("block", "rescue", "always"))
        elif _is_check(task):
            n += 1
    return n


def count_file(text):
    plays = yaml.safe_load(text) or []
    total = 0
    for play in plays if isinstance(plays, list) else []:
        if isinstance(play, dict):
            total += sum(_count(play.get(k)) for k in ("pre_tasks", "tasks", "post_tasks", "handlers"))
    return total


def main(argv):
    rev = argv[1] if len(argv) > 1 else None
    if rev:
        files = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "molecule/"],
                               check=True, capture_output=True, text=True).stdout.split()
    else:
        files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "molecule/"],
                               check=True, capture_output=True, text=True).stdout.split()
    total = 0
    for path in sorted(f for f in files if f.endswith(".yml")):
        if rev:
            text = subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout
        else:
            try:
                text = open(path, encoding="utf-8").read()
            except FileNotFoundError:
                continue
        n = count_file(text)
        if n:
            print(f"{n:5d}  {path}")
            total += n
    print(f"{total:5d}  total")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

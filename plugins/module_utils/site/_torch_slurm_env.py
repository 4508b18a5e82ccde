# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What ``torch.distributed``'s ``env://`` needs, from Slurm's own variables.

A script written for ``srun`` (one task per GPU, ``init_process_group(
init_method="env://")``) finds no ``MASTER_ADDR``: Slurm sets ``SLURM_*``
variables, torchrun sets the ``env://`` ones.  Inside a Slurm step this
module fills in those that are not set yet:

=================  ==========================================================
MASTER_ADDR        first host of the step (``SLURM_STEP_NODELIST``), else of
                   the allocation (``SLURM_JOB_NODELIST``): rank 0 runs there
MASTER_PORT        ``29500 + job id % 2000``, the rule of ddp.sbatch's
                   rendezvous port (two jobs never share one)
WORLD_SIZE         ``SLURM_STEP_NUM_TASKS``, else ``SLURM_NTASKS``
RANK               ``SLURM_PROCID``
LOCAL_RANK         ``SLURM_LOCALID``
LOCAL_WORLD_SIZE   this node's entry of ``SLURM_STEP_TASKS_PER_NODE`` (``2(x3),1``)
=================  ==========================================================

A variable already set is never changed, so torchrun's own values (it sets
all of them for its workers) and a user's win.  Outside a step (a login
shell, the batch script itself, whose ``RANK`` would be inherited by every
task) nothing is set.

The PyTorch environment carries this file as ``gpuops_slurm_env.py`` with a
``.pth`` line that applies it when its Python starts, and ``env.sh`` and the
modulefile call it (``python -m gpuops_slurm_env``).  It imports nothing but
the standard library.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import sys

BASE_PORT = 29500
PORT_SPREAD = 2000
ORDER = ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE")
_TASKS_ITEM = re.compile(r"^([0-9]+)(?:\(x([0-9]+)\))?\Z")
_NAME = re.compile(r"^[A-Za-z0-9._-]+\Z")
_NUMBER = re.compile(r"^[0-9]{1,9}\Z")


def first_host(nodelist):
    """The first host of a Slurm hostlist expression, or None if it is malformed.

    ``gpu[07-09,12],cpu1`` -> ``gpu07``; ``rack[1-2]n[3-4]`` -> ``rack1n3``:
    the first value of every bracket, zero padding kept.
    """
    text = str(nodelist or "").strip()
    depth = 0
    end = len(text)
    for index, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and (char == "," or char.isspace()):
            end = index
            break
    item = text[:end]
    parts = []
    rest = item
    while "[" in rest:
        before, _bracket, after = rest.partition("[")
        body, closed, rest = after.partition("]")
        if not closed or "[" in body:
            return None
        first = body.split(",", 1)[0].split("-", 1)[0].strip()
        if not first.isdigit():
            return None
        parts.extend([before, first])
    if "]" in rest:
        return None
    parts.append(rest)
    name = "".join(parts)
    return name if name and _NAME.match(name) else None


def tasks_on_node(tasks_per_node, node_index):
    """Entry node_index of Slurm's compressed tasks-per-node list (``2(x3),1``), or None."""
    try:
        index = int(str(node_index))
    except ValueError:
        return None
    counts = []
    for item in str(tasks_per_node or "").split(","):
        match = _TASKS_ITEM.match(item.strip())
        if not match or len(match.group(1)) > 9:
            return None
        repeat = int(match.group(2)) if match.group(2) and len(match.group(2)) <= 9 else 1
        if index < len(counts) + repeat:
            return int(match.group(1)) if index >= len(counts) else counts[index]
        if repeat > 1000000:
            return None
        counts.extend([int(match.group(1))] * repeat)
    return None


def in_step(environ):
    """True inside a Slurm job step (srun), not in the batch script or a login shell.

    The batch script and the extern step are steps too, with ids ``batch`` /
    ``extern`` (or their numbers 4294967291-4294967294): their RANK would be
    inherited by every task the script starts.
    """
    step = str(environ.get("SLURM_STEP_ID", environ.get("SLURM_STEPID", ""))).strip()
    return bool(environ.get("SLURM_JOB_ID")) and bool(_NUMBER.match(step)) and int(step) < 4294967290


def _number(environ, *names):
    for name in names:
        value = str(environ.get(name, "")).strip()
        if _NUMBER.match(value):
            return value
    return None


def torch_env(environ):
    """{name: value} of the env:// variables to set (none already set, none outside a step)."""
    if not in_step(environ):
        return {}
    values = {
        "MASTER_ADDR": first_host(environ.get("SLURM_STEP_NODELIST") or environ.get("SLURM_JOB_NODELIST")
                                  or environ.get("SLURM_NODELIST")),
        "WORLD_SIZE": _number(environ, "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"),
        "RANK": _number(environ, "SLURM_PROCID"),
        "LOCAL_RANK": _number(environ, "SLURM_LOCALID"),
    }
    job = _number(environ, "SLURM_JOB_ID", "SLURM_JOBID")
    values["MASTER_PORT"] = str(BASE_PORT + int(job) % PORT_SPREAD) if job else None
    node = _number(environ, "SLURM_NODEID")
    per_node = environ.get("SLURM_STEP_TASKS_PER_NODE") or environ.get("SLURM_TASKS_PER_NODE")
    local = tasks_on_node(per_node, node) if node is not None else None
    values["LOCAL_WORLD_SIZE"] = str(local) if local is not None else None
    return dict((name, values[name]) for name in ORDER if values[name] is not None and not environ.get(name))


# What apply() set in this process (python -m reads it: by then the startup
# hook has already set the variables it would print).
APPLIED = {}


def apply(environ=None):
    """Set the missing env:// variables in environ (os.environ by default); never raises."""
    environ = os.environ if environ is None else environ
    try:
        values = torch_env(environ)
        environ.update(values)
        APPLIED.update(values)
    except Exception:  # pylint: disable=broad-except
        # A Python startup hook must never stop the interpreter.
        pass
    return environ


def main(argv=None):
    """python -m gpuops_slurm_env [--format sh|lines]: print what torch_env sets."""
    argv = sys.argv[1:] if argv is None else argv
    fmt = argv[1] if len(argv) == 2 and argv[0] == "--format" else "lines"
    if fmt not in ("sh", "lines") or argv not in ([], ["--format", fmt]):
        sys.stderr.write("usage: python -m gpuops_slurm_env [--format sh|lines]\n")
        return 2
    values = dict(getattr(sys.modules.get("gpuops_slurm_env"), "APPLIED", {}))
    values.update(torch_env(os.environ))
    for name, value in sorted(values.items(), key=lambda kv: ORDER.index(kv[0])):
        sys.stdout.write(("export %s=%s\n" if fmt == "sh" else "%s=%s\n") % (name, value))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

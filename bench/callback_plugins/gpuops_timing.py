# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
# Benchmark-only callback (bench/converge.py enables it): where a converge
# spends its time. For every task result it records the host, the action,
# when the worker started and ended, and whether it ran on the host or only on
# the controller; at the end it adds the controller's own CPU time (this
# process and its reaped workers). Written as JSON to $GPUOPS_TIMING_OUT.
from __future__ import annotations

DOCUMENTATION = r"""
name: gpuops_timing
type: aggregate
short_description: Per task and per host timings of a converge, for bench/
description:
  - Writes one record per task result and the controller's CPU time to the
    JSON file named by the environment variable E(GPUOPS_TIMING_OUT).
requirements:
  - enable in callbacks_enabled (bench/converge.py does)
"""

import json
import os
import resource
import time

from ansible.plugins.callback import CallbackBase

# Actions that never reach the host: Ansible runs them in the controller.
CONTROLLER_ACTIONS = frozenset(
    "ansible.builtin." + a if "." not in a else a
    for a in (
        "set_fact", "assert", "debug", "fail", "meta", "include_tasks",
        "include_role", "import_tasks", "import_role", "include_vars",
        "add_host", "group_by", "pause", "set_stats", "validate_argument_spec",
    )
)


def _short(action):
    return action if "." in action else "ansible.builtin." + action


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "gpuops_timing"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._t0 = time.monotonic()
        self._starts = {}
        self._records = []
        self._play = ""
        self._task_starts = []

    def v2_playbook_on_play_start(self, play):
        self._play = play.get_name()

    def _task_start(self, task):
        self._task_starts.append(
            {"play": self._play, "task": task.get_name(), "start": time.monotonic() - self._t0})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._task_start(task)

    def v2_playbook_on_handler_task_start(self, task):
        self._task_start(task)

    def v2_runner_on_start(self, host, task):
        self._starts[(host.get_name(), task._uuid)] = time.monotonic() - self._t0

    def _record(self, result, status):
        task = result._task
        host = result._host.get_name()
        end = time.monotonic() - self._t0
        start = self._starts.pop((host, task._uuid), end)
        action = _short(task.action)
        delegated = result._result.get("_ansible_delegated_vars", {}).get("ansible_host")
        self._records.append({
            "play": self._play,
            "task": task.get_name(),
            "role": task._role.get_name() if task._role else "",
            # file:line of the task, to find the files whose tasks are all skipped on a host.
            "path": task.get_path(),
            "action": action,
            "host": host,
            "delegated_to": delegated,
            "status": status,
            "changed": bool(result._result.get("changed")),
            "remote": status != "skipped" and action not in CONTROLLER_ACTIONS,
            "loop_items": len(result._result.get("results", [])) or None,
            "start": round(start, 4),
            "end": round(end, 4),
        })

    def v2_runner_on_ok(self, result):
        self._record(result, "ok")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, "failed")

    def v2_runner_on_skipped(self, result):
        self._record(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self._record(result, "unreachable")

    def v2_playbook_on_stats(self, stats):
        out = os.environ.get("GPUOPS_TIMING_OUT")
        if not out:
            return
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        doc = {
            "wall_s": round(time.monotonic() - self._t0, 3),
            "controller_cpu_s": round(own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime, 3),
            # The main ansible-playbook process alone: the part that cannot use more cores.
            "main_cpu_s": round(own.ru_utime + own.ru_stime, 3),
            "tasks": self._task_starts,
            "results": self._records,
        }
        with open(out, "w", encoding="utf-8") as f:
            json.dump(doc, f)

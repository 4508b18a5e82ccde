# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller checks of playbooks/validate.yml: which controllers answer, which is in control, since when.

Pure functions, results as in _validate_checks (node, check, status, measured, expected, message). Apart from
_validate_checks, which the node programs (health check, GPU exporter) carry: these read scontrol ping with the
Slurm exporter's reader (module_utils/monitoring/_slurm_metrics.py) and run only where Ansible runs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import as_text
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip as _clip
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._slurm_metrics import SlurmMetricsError, parse_ping
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import ValidateError
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_checks import FAIL, PASS, result

_LOG_TIME_RE = re.compile(r"^\[([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(?:[+-][0-9:]+|Z)?)\]")
TAKEOVER_WORDS = "taking over"


def last_takeover(log_text):
    """The time of the last takeover in a slurmctld log, as the log writes it; None when there is none.

    A backup that takes control logs "... not responding, BackupController<N> <host> taking over" (backup.c
    of 22.05 to 26.05), after the log's timestamp in brackets (LogTimeFormat's default, iso8601_ms)."""
    found = None
    for line in as_text(log_text or "", "slurmctld log", ValidateError).splitlines():
        if TAKEOVER_WORDS in line:
            match = _LOG_TIME_RE.match(line.strip())
            found = match.group(1) if match else line.strip()[:80]
    return found


def controller_checks(run, controllers, takeover_log=None):
    """slurmctld_ping per controller and controller_in_control for the cluster.

    run: the registered ``scontrol ping`` (rc, stdout); controllers: the Slurm names of the inventory's
    controllers, the primary first (SlurmctldHost order); takeover_log: the registered read of the
    takeover lines of the slurmctld log of the backup in control (stdout), or None. A backup in control
    fails controller_in_control: the cluster runs, but without the controller it was built to run on, and
    with one fewer to fail over to."""
    names = [str(name) for name in controllers] if isinstance(controllers, (list, tuple)) else []
    run = run if isinstance(run, dict) else {}
    expected = names[0] if names else None
    try:
        pinged = parse_ping(run.get("stdout") or "")
    except SlurmMetricsError:
        why = _clip(str(run.get("stderr") or run.get("msg") or run.get("stdout") or "no output"), 200)
        return [result("cluster", "controller_in_control", FAIL, None, expected,
                       "scontrol ping lists no controller (rc %s): %s" % (run.get("rc"), why))]
    out = []
    for item in pinged:
        out.append(result(item["controller"], "slurmctld_ping", PASS if item["up"] else FAIL,
                          "UP" if item["up"] else "DOWN", "UP",
                          "slurmctld (%s) %s scontrol ping" % (item["role"],
                                                               "answers" if item["up"] else "does not answer")))
    listed = [item["controller"] for item in pinged]
    leader = [item for item in pinged if item["in_control"]]
    if names and listed != names:
        out.append(result("cluster", "controller_in_control", FAIL, ",".join(listed), ",".join(names),
                          "slurm.conf names the controllers %s, the inventory %s: converge playbooks/slurm.yml"
                          % (", ".join(listed), ", ".join(names))))
    elif not leader:
        out.append(result("cluster", "controller_in_control", FAIL, None, expected,
                          "no controller answers scontrol ping: no job can start or end"))
    elif leader[0]["role"] == "primary":
        standby = [item["controller"] for item in pinged[1:]]
        out.append(result("cluster", "controller_in_control", PASS, leader[0]["controller"], expected,
                          "the primary %s is in control%s" % (leader[0]["controller"],
                                                              "; standing by: " + ", ".join(standby) if standby else "")))
    else:
        down = [item["controller"] for item in pinged if not item["up"]]
        when = None
        if isinstance(takeover_log, dict) and not takeover_log.get("skipped"):
            try:
                when = last_takeover(takeover_log.get("stdout") or "")
            except ValidateError:
                when = None
        out.append(result("cluster", "controller_in_control", FAIL, leader[0]["controller"], expected,
                          "the %s %s is in control%s: %s down; bring the primary back (it takes control again "
                          "when it starts)" % (leader[0]["role"], leader[0]["controller"],
                                               " since %s (its log)" % when if when else
                                               " (its log has no takeover line)", ", ".join(down) or "none")))
    return out

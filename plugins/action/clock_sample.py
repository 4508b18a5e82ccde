# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin of gpuops.cluster.clock_sample (documented in plugins/modules/clock_sample.py).

Runs on the Ansible controller: each read of the host's clock is one command
over the host's connection (ssh, docker, local: no module is copied), with
the Ansible controller's clock noted just before it is sent and just after
the answer is back. The round trip is timed on the monotonic clock, so a
step of the Ansible controller's wall clock during a read cannot shrink it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._clock import (
    MAX_SAMPLES,
    ClockError,
    best_sample,
    parse_epoch,
)

_COMMAND = "date +%s.%N"
# Reads of nothing at all taken again (see _read).
_EMPTY_RETRIES = 2


class ActionModule(ActionBase):
    """Reads the host's clock several times, each read bracketed by the Ansible controller's clock."""

    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("samples",))

    def _read(self):
        """(sent, remote, received) of one read, sent and received on the Ansible controller's wall clock.

        A read that comes back with nothing at all (rc 0, no output: seen once from the Docker API connection on a
        loaded machine) is taken again, up to _EMPTY_RETRIES times; any output is judged as it is.
        """
        for _attempt in range(_EMPTY_RETRIES + 1):
            sent_wall, sent = time.time(), time.monotonic()
            answer = self._low_level_execute_command(_COMMAND)
            received = time.monotonic()
            if answer.get("rc") != 0 or (to_text(answer.get("stdout") or "", errors="replace").strip()
                                         or to_text(answer.get("stderr") or "", errors="replace").strip()):
                break
        if answer.get("rc") != 0:
            raise ClockError("%s failed on the host (rc %s): %s"
                             % (_COMMAND, answer.get("rc"),
                                to_text(answer.get("stderr") or answer.get("stdout") or "no output",
                                        errors="replace").strip()[-300:]))
        remote = parse_epoch(to_text(answer.get("stdout"), errors="replace"))
        return (sent_wall, remote, sent_wall + (received - sent))

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp
        _validation, args = self.validate_argument_spec(argument_spec={"samples": {"type": "int", "default": 5}})
        samples = args["samples"]
        if not 1 <= samples <= MAX_SAMPLES:
            result.update(failed=True, msg="samples must be a whole number from 1 to %d, not %s" % (MAX_SAMPLES, samples))
            return result
        try:
            taken = [self._read() for _attempt in range(samples)]
            result.update(changed=False, clock=best_sample(taken))
        except ClockError as exc:
            result.update(failed=True, msg=str(exc))
        return result

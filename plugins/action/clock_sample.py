# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin of gpuops.cluster.clock_sample (documented in plugins/modules/clock_sample.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase
from ansible_collections.gpuops.cluster.plugins.module_utils._clock import ClockError, best_sample, parse_epoch

_COMMAND = "date +%s.%N"


class ActionModule(ActionBase):
    """Reads the host's clock several times, each read bracketed by the Ansible controller's clock."""

    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("samples",))

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        samples = self._task.args.get("samples", 5)
        try:
            samples = int(samples)
        except (TypeError, ValueError):
            samples = 0
        if not 1 <= samples <= 50:
            result.update(failed=True, msg="samples must be a whole number from 1 to 50, not %r" % (self._task.args.get("samples"),))
            return result
        taken = []
        for _attempt in range(samples):
            sent = time.time()
            answer = self._low_level_execute_command(_COMMAND)
            received = time.time()
            if answer.get("rc") != 0:
                result.update(failed=True, rc=answer.get("rc"), msg="%s failed on the host: %s"
                              % (_COMMAND, to_text(answer.get("stderr") or answer.get("stdout") or "no output")[-300:]))
                return result
            try:
                taken.append((sent, parse_epoch(to_text(answer.get("stdout"), errors="replace")), received))
            except ClockError as exc:
                result.update(failed=True, msg=str(exc))
                return result
        result.update(changed=False, clock=best_sample(taken))
        return result

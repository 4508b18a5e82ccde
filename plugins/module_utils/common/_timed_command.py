# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a hardware tool (nvidia-smi, ibstat) under LC_ALL=C with a time limit.

nvidia-smi hangs on a wedged GPU and ibstat can hang on a broken HCA. The
sanity rules keep modules off subprocess, so the limit comes from coreutils
``timeout`` (with ``--kill-after``); without it the command runs unlimited and
the module warns once.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# timeout(1) exits 124 when the limit hit, 137 when it had to SIGKILL.
TIMED_OUT_RCS = (124, 137)


class TimedCommand(object):
    """Runs commands for one module with one limit (seconds; 0 is none)."""

    def __init__(self, module, timeout, what):
        self.module = module
        self.timeout = timeout
        self.wrapper = module.get_bin_path("timeout") if timeout > 0 else None
        if timeout > 0 and not self.wrapper:
            module.warn("timeout (coreutils) not found: %s runs without a time limit" % what)

    def run(self, argv):
        """(rc, stdout, stderr, timed_out) of argv."""
        cmd = list(argv)
        if self.wrapper:
            cmd = [self.wrapper, "--kill-after=5", str(self.timeout)] + cmd
        # Output that is not UTF-8 is decoded with U+FFFD: the result must stay valid JSON.
        rc, out, err = self.module.run_command(cmd, environ_update={"LC_ALL": "C", "LANG": "C"}, errors="replace")
        return rc, out, err, self.wrapper is not None and rc in TIMED_OUT_RCS

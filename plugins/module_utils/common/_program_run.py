# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the collection's programs on the nodes run a command (the health check, the GPU exporter, the join at boot).

One rule for all of them: the C locale, the program's own PATH, a time limit, and never an exception - a command
that cannot start is rc 127 with the reason, one that runs past its time is killed and reported as timed out.
Standard library only: the programs run without Ansible (module_utils/common/_program_files.py ships this file).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import subprocess


def run(argv, timeout, path, env=None):
    """(rc, stdout, stderr, timed_out) of argv under LC_ALL=C, PATH=path and env's other variables."""
    env = dict(env or {}, PATH=path, LC_ALL="C", LANG="C")
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    except OSError as exc:
        return 127, "", str(exc), False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), True
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), False

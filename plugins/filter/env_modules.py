# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""env_modules filters: env_modules_plan and env_modules_probe_paths (docs in the .yml files beside)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.site._env_modules import EnvModulesError, plan, probe_paths


def _call(name, function, *args):
    try:
        return function(*args)
    except (EnvModulesError, AttributeError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))


def env_modules_plan(settings, found=None):
    """Setting errors, default MODULEPATH, CUDA toolkits, files to write and to remove."""
    return _call("env_modules_plan", plan, dict(settings), None if found is None else dict(found))


def env_modules_probe_paths(found):
    """The nvcc and lib64 paths of every candidate CUDA toolkit."""
    return _call("env_modules_probe_paths", probe_paths, dict(found))


class FilterModule(object):
    """env_modules filters."""

    def filters(self):
        return {
            "env_modules_plan": env_modules_plan,
            "env_modules_probe_paths": env_modules_probe_paths,
        }

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nccl_tuning role's settings: what is wrong with them, one message per problem, each naming the variable,
its value and the fix. Never raises, whatever the values' types."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.gpuops.cluster.plugins.module_utils.common._settings_values import (
    is_text,
    json_shown,
    matches,
    not_a_mapping,
)

NCCL_NAME_RE = re.compile(r"NCCL_[A-Z0-9_]+")


def settings_errors(settings):
    """Messages for the nccl_tuning settings the role cannot use; [] when all is well.

    settings: env, sysctls, topo_file (the nccl_tuning_ variables without the prefix) and topo_file_found
    (whether topo_file is a file on the Ansible controller).
    """
    if not isinstance(settings, dict):
        return not_a_mapping("nccl_tuning", settings)
    errors = []
    env = settings.get("env")
    if not isinstance(env, dict) or not all(matches(NCCL_NAME_RE, name) for name in env):
        got = [name for name in env if not matches(NCCL_NAME_RE, name)] if isinstance(env, dict) else env
        errors.append("nccl_tuning_env must be a dict of NCCL_* names (got %s)." % json_shown(got))
    if not isinstance(settings.get("sysctls"), dict):
        errors.append("nccl_tuning_sysctls must be a dict of sysctl names and values (got %s)."
                      % json_shown(settings.get("sysctls")))
    topo = settings.get("topo_file")
    if not is_text(topo) or (topo and settings.get("topo_file_found") is not True):
        errors.append("make nccl_tuning_topo_file empty or a file on the Ansible controller (it is %s)."
                      % json_shown(topo))
    return ["nccl_tuning: " + error for error in errors]

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the Slurm day-2 playbooks (configuration change, rolling upgrade).

slurm_upgrade_check, slurm_apt_policy, slurm_name_versions,
slurm_cluster_state, slurm_sacct_states, slurm_state_problems,
slurm_state_shared_problems and slurm_ping; their documentation is in the
<filter name>.yml files beside this one, the logic in
module_utils/slurm/_slurm_ops.py (slurm_ping: the reader the Slurm exporter
uses, module_utils/monitoring/_slurm_metrics.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import _slurm_ops as ops
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_ops import SlurmOpsError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._slurm_metrics import SlurmMetricsError, parse_ping


def _call(name, func, *args):
    try:
        return func(*args)
    except (SlurmOpsError, SlurmMetricsError) as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def slurm_upgrade_check(installed, target, max_jump=None):
    """Whether Slurm supports upgrading the installed packages to target in one step."""
    return _call("slurm_upgrade_check", ops.upgrade_check, installed, target, max_jump)


def slurm_apt_policy(text):
    """{package: {installed, candidate}} of apt-cache policy output."""
    return _call("slurm_apt_policy", ops.parse_apt_policy, text)


def slurm_name_versions(text):
    """{name: version} of rpm -q / dnf repoquery 'name version' lines."""
    return _call("slurm_name_versions", ops.parse_name_versions, text)


def slurm_cluster_state(nodes_text, jobs_text):
    """A snapshot {nodes, jobs} of scontrol show node and squeue output."""
    return _call("slurm_cluster_state", ops.cluster_state, nodes_text, jobs_text)


def slurm_sacct_states(text):
    """{job id: {state, exit_code}} of sacct --parsable2 output."""
    return _call("slurm_sacct_states", ops.parse_sacct_states, text)


def slurm_state_problems(before, after, sacct=None):
    """Problems and notes for nodes and running jobs between two snapshots."""
    return _call("slurm_state_problems", ops.state_problems, before, after, sacct)


def slurm_state_shared_problems(host, state_dir, controllers, mark, seen, user="slurm"):
    """Why this controller cannot share StateSaveLocation with the others ([] when it can)."""
    return _call("slurm_state_shared_problems", ops.state_shared_problems, host, state_dir, controllers, mark, seen,
                 user)


def slurm_ping(text):
    """The controllers scontrol ping lists, in order, each with up and in_control."""
    return _call("slurm_ping", parse_ping, text)


class FilterModule(object):
    """Slurm day-2 operation filters."""

    def filters(self):
        return {
            "slurm_upgrade_check": slurm_upgrade_check,
            "slurm_apt_policy": slurm_apt_policy,
            "slurm_name_versions": slurm_name_versions,
            "slurm_cluster_state": slurm_cluster_state,
            "slurm_sacct_states": slurm_sacct_states,
            "slurm_state_problems": slurm_state_problems,
            "slurm_state_shared_problems": slurm_state_shared_problems,
            "slurm_ping": slurm_ping,
        }

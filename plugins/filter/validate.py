# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of playbooks/validate.yml (docs: validate_*.yml); logic in module_utils/validate/_validate_checks.py and
_validate_controllers.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate import ValidateError
from ansible_collections.gpuops.cluster.plugins.module_utils.validate import _validate_checks as checks
from ansible_collections.gpuops.cluster.plugins.module_utils.validate import _validate_controllers as controller_checks
from ansible_collections.gpuops.cluster.plugins.module_utils.validate import _validate_settings


def _call(name, func, *args):
    try:
        return func(*args)
    except ValidateError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def validate_node_checks(data, expect):
    return _call("validate_node_checks", checks.node_checks, data, expect)


def validate_slurm_checks(scontrol, nodes):
    return _call("validate_slurm_checks", checks.slurm_node_checks, scontrol, nodes)


def validate_job_checks(nodes, usable, jobs, gres_jobs, counts, all_nodes_run):
    out = _call("validate_job_checks", checks.job_checks, nodes, usable, jobs, gres_jobs, counts)
    out.append(_call("validate_job_checks", checks.multi_node_job_check, usable, all_nodes_run or {}))
    return out


def validate_topology_request(run, usable):
    return _call("validate_topology_request", checks.topology_placement_request, run, usable)


def validate_topology_checks(run, usable, placement):
    return _call("validate_topology_checks", checks.topology_checks, run, usable, placement)


def validate_controller_checks(run, controllers, takeover_log=None):
    return _call("validate_controller_checks", controller_checks.controller_checks, run, controllers, takeover_log)


def validate_ib_pairs(entries, hosts):
    return _call("validate_ib_pairs", checks.ib_pairs, entries, hosts)


def validate_line(entry):
    """One result as a line for the play output: STATUS node check: message."""
    return "%-7s %s %s: %s" % (str(entry.get("status", "?")).upper(), entry.get("node"), entry.get("check"),
                               entry.get("message"))


def validate_settings_errors(settings):
    """One message per validate setting the role cannot use, each naming the variable and the fix."""
    return _validate_settings.settings_errors(settings)


def validate_perf_checks(spec):
    return _call("validate_perf_checks", checks.perf_checks, spec)


class FilterModule(object):
    """Filters that turn what validate.yml observed into check results."""

    def filters(self):
        return {
            "validate_node_checks": validate_node_checks,
            "validate_slurm_checks": validate_slurm_checks,
            "validate_job_checks": validate_job_checks,
            "validate_perf_checks": validate_perf_checks,
            "validate_line": validate_line,
            "validate_ib_pairs": validate_ib_pairs,
            "validate_topology_request": validate_topology_request,
            "validate_topology_checks": validate_topology_checks,
            "validate_controller_checks": validate_controller_checks,
            "validate_settings_errors": validate_settings_errors,
        }

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the node_health role (docs: node_health_*.yml); logic in module_utils/health/_health.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip
from ansible_collections.gpuops.cluster.plugins.module_utils.health import _health as health


def _call(name, func, *args):
    try:
        return func(*args)
    except health.HealthError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def node_health_settings_errors(settings):
    if not isinstance(settings, dict):
        raise AnsibleFilterError("node_health_settings_errors: expected the settings mapping")
    return _call("node_health_settings_errors", health.settings_errors, settings)


def node_health_expect(gpus_fact, ib_fact=None, driver_version="", ib_ports=None):
    """What the node must keep, from its gpuops_gpus and gpuops_ib facts (ib_ports: the ports to watch
    instead of the ones ib_facts selected)."""
    if not isinstance(gpus_fact, dict) or not isinstance(ib_fact or {}, dict):
        raise AnsibleFilterError("node_health_expect: expected the gpuops_gpus fact (and the gpuops_ib fact)")
    ib_fact = ib_fact or {}
    return _call("node_health_expect", health.expectation, gpus_fact.get("slurm_gres") or "",
                 gpus_fact.get("gpus") or [], driver_version or "", ib_ports or ib_fact.get("selected") or [],
                 ib_fact.get("hcas") or [])


def node_health_gpu_decrease(gpu_count, host, installed, allow_decrease=False):
    """[] or the message that stops a run where the node shows fewer GPUs than the health check watched."""
    return _call("node_health_gpu_decrease", health.gpu_decrease_errors, host, gpu_count, installed, allow_decrease)


class FilterModule(object):
    """Filters of gpuops.cluster.node_health."""

    def filters(self):
        return {
            "node_health_settings_errors": node_health_settings_errors,
            "node_health_expect": node_health_expect,
            "node_health_gpu_decrease": node_health_gpu_decrease,
        }

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the node_health role (docs: node_health_*.yml); logic in module_utils/_health.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils._text import clip
from ansible_collections.gpuops.cluster.plugins.module_utils import _health as health


def _call(name, func, *args):
    try:
        return func(*args)
    except health.HealthError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def node_health_settings_errors(settings):
    if not isinstance(settings, dict):
        raise AnsibleFilterError("node_health_settings_errors: expected the settings mapping")
    return _call("node_health_settings_errors", health.settings_errors, settings)


def node_health_expect(slurm_gres, gpus, driver_version="", ib_selected=None, ib_hcas=None):
    return _call("node_health_expect", health.expectation, slurm_gres, gpus or [], driver_version or "",
                 ib_selected or [], ib_hcas or [])


class FilterModule(object):
    """Filters of gpuops.cluster.node_health."""

    def filters(self):
        return {
            "node_health_settings_errors": node_health_settings_errors,
            "node_health_expect": node_health_expect,
        }

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the rdma_peermem role: rdma_peermem_settings_errors and rdma_peermem_ports.

Their documentation is in the <filter name>.yml files beside this one, the
logic in module_utils/fabric/_rdma_peermem.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.fabric import _rdma_peermem as rp
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip


def _call(name, func, *args):
    try:
        return func(*args)
    except rp.RdmaPeermemError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def rdma_peermem_settings_errors(settings):
    """Every problem of the rdma_peermem settings, [] when all is well."""
    return _call("rdma_peermem_settings_errors", rp.settings_errors, settings)


def rdma_peermem_ports(ib, host, expected):
    """The host's RDMA ports: a summary and the message when RDMA is expected and no port is Active."""
    return _call("rdma_peermem_ports", rp.ports, ib, host, expected)


class FilterModule(object):
    """rdma_peermem filters."""

    def filters(self):
        return {
            "rdma_peermem_settings_errors": rdma_peermem_settings_errors,
            "rdma_peermem_ports": rdma_peermem_ports,
        }

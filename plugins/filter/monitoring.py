# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Monitoring plan filters (docs: monitoring_*.yml beside this file; logic: module_utils/monitoring/_monitoring.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring import _monitoring
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip


def _guard(name, function, *args):
    try:
        return function(*args)
    except _monitoring.MonitoringError as exc:
        raise AnsibleFilterError("%s: %s" % (name, clip(str(exc), 300)))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def monitoring_targets(hostvars, hosts, gpu_hosts, slurm_hosts, monitoring_hosts, by_name=False, running=None,
                       inventory=None, remove=None, image=None):
    """The scrape targets of every job, from each host's few values (once per play), and the hosts without an address;
    with the running prometheus.yml, its targets of hosts this inventory does not hold (kept)."""
    return _guard("monitoring_targets", _monitoring.targets, hostvars, list(hosts or []), list(gpu_hosts or []),
                  list(slurm_hosts or []), list(monitoring_hosts or []), bool(by_name), running, inventory, remove,
                  image)


def monitoring_image_targets(image_nodes, profiles):
    """The scrape targets of the nodes booted from a node image (slurm_image_nodes, slurm_node_profiles)."""
    return _guard("monitoring_image_targets", _monitoring.image_targets, image_nodes, profiles)


def monitoring_prometheus_config(plan, settings):
    """prometheus.yml (a dict) for the targets of monitoring_targets and the Prometheus settings."""
    return _guard("monitoring_prometheus_config", _monitoring.prometheus_config, plan, settings)


def monitoring_alertmanager_config(settings):
    """alertmanager.yml (a dict) from the receivers, route and inhibition settings."""
    return _guard("monitoring_alertmanager_config", _monitoring.alertmanager_config, settings)


def monitoring_settings_errors(settings):
    """The monitoring settings' errors, each naming the variable and the fix."""
    return _guard("monitoring_settings_errors", _monitoring.settings_errors, settings)


class FilterModule(object):
    """Monitoring filters."""

    def filters(self):
        return {
            "monitoring_targets": monitoring_targets,
            "monitoring_image_targets": monitoring_image_targets,
            "monitoring_prometheus_config": monitoring_prometheus_config,
            "monitoring_alertmanager_config": monitoring_alertmanager_config,
            "monitoring_settings_errors": monitoring_settings_errors,
        }

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the monitoring alert rules (docs: monitoring_alert_*.yml); logic in module_utils/monitoring/_alert_rules.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring import _alert_rules as alerts


def _call(name, func, *args):
    try:
        return func(*args)
    except alerts.AlertRulesError as exc:
        raise AnsibleFilterError("%s: %s" % (name, exc))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("%s: unexpected input (%s: %s)" % (name, type(exc).__name__, clip(str(exc), 200)))


def monitoring_alert_rules(settings):
    """The Prometheus rules file ({"groups": [...]}) from the prometheus_alert_ settings (without the prefix)."""
    if not isinstance(settings, dict):
        raise AnsibleFilterError("monitoring_alert_rules: expected the alert settings mapping")
    return _call("monitoring_alert_rules", alerts.alert_rules, settings)


def monitoring_alert_settings_errors(settings):
    """Messages naming the prometheus_alert_ variable and the fix; empty when the settings are usable."""
    return _call("monitoring_alert_settings_errors", alerts.alert_settings_errors, settings)


class FilterModule(object):
    """Filters of the monitoring alert rules."""

    def filters(self):
        return {
            "monitoring_alert_rules": monitoring_alert_rules,
            "monitoring_alert_settings_errors": monitoring_alert_settings_errors,
        }

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""grafana_dashboard_queries: every panel query of a Grafana dashboard (docs: grafana_dashboard_queries.yml;
logic: module_utils/monitoring/_grafana.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring import _grafana
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import clip


def grafana_dashboard_queries(dashboard, variables=None):
    """[{dashboard, panel, expr}] of every panel query, template variables substituted."""
    try:
        return _grafana.dashboard_queries(dashboard, variables)
    except _grafana.GrafanaError as exc:
        raise AnsibleFilterError("grafana_dashboard_queries: %s" % exc)
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError, RecursionError) as exc:
        raise AnsibleFilterError("grafana_dashboard_queries: unexpected input (%s: %s)"
                                 % (type(exc).__name__, clip(str(exc), 200)))


class FilterModule(object):
    """Grafana filters."""

    def filters(self):
        return {"grafana_dashboard_queries": grafana_dashboard_queries}

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The grafana_dashboard_queries filter over a bundled dashboard (logic: module_utils/monitoring/_grafana.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter.grafana_dashboard_queries import grafana_dashboard_queries
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._grafana import dashboard_queries

DASHBOARDS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "grafana", "files", "dashboards")


def _load(name):
    with open(os.path.join(DASHBOARDS, name)) as handle:
        return json.load(handle)


def test_the_filter_gives_the_queries_and_names_itself_in_errors():
    assert grafana_dashboard_queries(_load("gpuops-gpus.json"), {"node": "gpu02"}) == dashboard_queries(
        _load("gpuops-gpus.json"), {"node": "gpu02"})
    with pytest.raises(AnsibleFilterError) as info:
        grafana_dashboard_queries({"uid": "x", "panels": 3})
    assert str(info.value) == "grafana_dashboard_queries: x: panels must be a list, got int"

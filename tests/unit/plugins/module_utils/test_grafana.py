# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Grafana dashboards as data (module_utils/monitoring/_grafana.py): the bundled dashboards, variable substitution, bad input."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._grafana import (
    GrafanaError,
    dashboard_errors,
    dashboard_queries,
    variable_values,
)

DASHBOARDS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "grafana", "files", "dashboards")
BUNDLED = ["gpuops-accounts.json", "gpuops-cluster-overview.json", "gpuops-gpus.json", "gpuops-slurm.json"]
# The metrics of the monitoring contract (issue 16) a panel may read, and those it must not: the test cluster's
# V100S capture has no HBM temperature, row remapping, XIDs or RDMA ports, so such a panel would stay empty there.
KNOWN_PREFIXES = ("gpuops_gpu_", "gpuops_slurm_", "node_", "up")
ABSENT_IN_TESTS = ("gpuops_gpu_memory_temperature_celsius", "gpuops_gpu_remapped_rows", "gpuops_gpu_remap_",
                   "gpuops_gpu_xid_errors_total", "gpuops_rdma_", "gpuops_slurm_dbd_up")


def _load(name):
    with open(os.path.join(DASHBOARDS, name), encoding="utf-8") as handle:
        return json.load(handle)


def _panel(title, *exprs, **extra):
    panel = {"type": "timeseries", "title": title, "targets": [{"refId": "AB"[i], "expr": e} for i, e in enumerate(exprs)]}
    panel.update(extra)
    return panel


def test_the_bundled_dashboards_are_the_ones_shipped():
    assert sorted(name for name in os.listdir(DASHBOARDS) if name.endswith(".json")) == BUNDLED


@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_dashboard_is_fit_to_provision(name):
    dashboard = _load(name)
    assert dashboard_errors(dashboard) == []
    assert dashboard["uid"] == name[:-5]
    assert dashboard["schemaVersion"] >= 36
    queries = dashboard_queries(dashboard)
    panels = [panel for panel in dashboard["panels"] if panel["type"] != "row"]
    panels += [child for row in dashboard["panels"] if row["type"] == "row" for child in row.get("panels", [])]
    # Every panel has a title, the fixed data source and at least one query; every title is a query's.
    assert sorted(set(query["panel"] for query in queries)) == sorted(set(panel["title"] for panel in panels))
    assert len(set(panel["title"] for panel in panels)) == len(panels), "two panels with one title"
    for panel in panels:
        assert panel["datasource"] == {"type": "prometheus", "uid": "gpuops-prometheus"}, panel["title"]
        assert all(target["datasource"]["uid"] == "gpuops-prometheus" for target in panel["targets"])
    for query in queries:
        assert query["dashboard"] == dashboard["uid"]
        expr = query["expr"]
        assert "$" not in expr and "[[" not in expr, query
        assert expr.startswith(("sum", "avg", "max", "min", "count", "topk", "1 - ") + KNOWN_PREFIXES), query
        assert not any(metric in expr for metric in ABSENT_IN_TESTS), query
        # A comparison may leave a panel without series: plain aggregations only.
        assert not any(operator in expr for operator in (" > ", " < ", " >= ", " <= ", " == ", " != ")), query


def test_the_uids_are_unique():
    uids = [_load(name)["uid"] for name in BUNDLED]
    assert len(set(uids)) == len(uids)


def test_template_variables_default_to_every_value():
    gpus = _load("gpuops-gpus.json")
    values = variable_values(gpus)
    assert values["node"] == ".*" and values["job_id"] == ".*" and values["__rate_interval"] == "1m"
    utilisation = [query["expr"] for query in dashboard_queries(gpus) if query["panel"] == "GPU utilisation"]
    assert utilisation == ['gpuops_gpu_utilization_ratio{node=~".*", job_id=~".*"}']


def test_given_variables_win():
    gpus = _load("gpuops-gpus.json")
    queries = dashboard_queries(gpus, {"node": "gpu01", "job_id": ["17", "18"]})
    utilisation = [query["expr"] for query in queries if query["panel"] == "GPU utilisation"]
    assert utilisation == ['gpuops_gpu_utilization_ratio{node=~"gpu01", job_id=~"(17|18)"}']
    inventory = [query["expr"] for query in queries if query["panel"] == "GPU inventory"]
    assert inventory == ['gpuops_gpu_info{node=~"gpu01"}']


def test_every_syntax_is_substituted_and_builtins_too():
    dashboard = {
        "uid": "t", "title": "T",
        "templating": {"list": [
            {"name": "node", "type": "query", "query": "label_values(up, node)"},
            {"name": "part", "type": "custom", "query": "gpu,cpu", "allValue": "gpu|cpu"},
            {"name": "site", "type": "constant", "query": "lab"},
            {"name": "step", "type": "interval", "query": "1m,5m"},
            {"name": "ds", "type": "datasource", "query": "prometheus"},
        ]},
        "panels": [_panel("p", 'rate(x{node=~"$node", a="${node}", b="${node:regex}", c="[[node]]", d="[[node:pipe]]"}'
                               '[$__rate_interval])',
                          'sum_over_time(y{p=~"$part", s="$site", ds="${ds}"}[$__range]) offset $step $__interval '
                          '$unknown')],
    }
    assert [query["expr"] for query in dashboard_queries(dashboard)] == [
        'rate(x{node=~".*", a=".*", b=".*", c=".*", d=".*"}[1m])',
        'sum_over_time(y{p=~"gpu|cpu", s="lab", ds="prometheus"}[1h]) offset 1m 1m $unknown',
    ]
    assert dashboard_errors(dashboard) == ["t: panel 1 (p) target B uses $unknown, which the dashboard does not define"]


def test_panels_in_rows_open_and_collapsed_and_old_rows():
    dashboard = {
        "uid": "rows", "title": "Rows",
        "panels": [
            {"type": "row", "title": "open", "collapsed": False, "panels": [], "id": 1},
            _panel("a", "up", id=2),
            {"type": "row", "title": "closed", "collapsed": True, "id": 3,
             "panels": [_panel("b", "node_load1", id=4), _panel("c", "node_load5", "node_load15", id=5)]},
            _panel("d", "up", id=6),
        ],
        "rows": [{"title": "schema 1", "panels": [_panel("e", "x", id=7)]}],
    }
    assert [(query["panel"], query["expr"]) for query in dashboard_queries(dashboard)] == [
        ("a", "up"), ("b", "node_load1"), ("c", "node_load5"), ("c", "node_load15"), ("d", "up"), ("e", "x")]
    assert dashboard_errors(dashboard) == []


def test_json_text_is_read_too():
    text = json.dumps(_load("gpuops-slurm.json"))
    assert dashboard_queries(text) == dashboard_queries(_load("gpuops-slurm.json"))
    assert dashboard_queries(text.encode("utf-8"))[0]["dashboard"] == "gpuops-slurm"


def test_dashboard_errors_name_each_problem():
    dashboard = {
        "title": " ",
        "panels": [
            _panel("a", "up", id=1),
            _panel("b", "up", id=1),
            {"type": "stat", "title": "no targets", "id": 2},
            {"type": "stat", "id": 3, "targets": [{"refId": "A", "expr": "up"}]},
            _panel("empty", " ", id=4),
            {"type": "table", "title": "logs", "id": 5, "targets": [{"refId": "A", "query": "not promql"}]},
        ],
    }
    assert dashboard_errors(dashboard) == [
        "dashboard (no uid): the dashboard has no uid",
        "dashboard (no uid): the dashboard has no title",
        "dashboard (no uid): panel 2 (b) has id 1, as panel 1 (a) has",
        "dashboard (no uid): panel 3 (no targets) has no target with an expr",
        "dashboard (no uid): panel 4 has no title",
        "dashboard (no uid): panel 5 (empty) target A has an empty expr",
        "dashboard (no uid): panel 6 (logs) has no target with an expr",
    ]


@pytest.mark.parametrize("dashboard, variables, message", [
    ([], None, "not a dashboard: expected a JSON object (dict), got list"),
    (None, None, "not a dashboard: expected a JSON object (dict), got NoneType"),
    ("[1, 2]", None, "not a dashboard: expected a JSON object (dict), got list"),
    ("{\"uid\": ", None, "dashboard JSON: Expecting value: line 1 column 9 (char 8)"),
    ('{"uid": "x", "version": NaN}', None, "dashboard JSON: NaN is not a JSON number"),
    ('{"uid": "x", "version": %s}' % ("9" * 30), None,
     "dashboard JSON: a number of 30 characters (999999999999999999999999...); at most 18 are read"),
    ('{"uid": "x", "version": 1e999}', None, "dashboard JSON: the number 1e999 is too large"),
    ({"uid": "x", "panels": {"a": 1}}, None, "x: panels must be a list, got dict"),
    ({"uid": "x", "panels": ["up"]}, None, "x: panel 1 must be an object, got str"),
    ({"uid": "x", "panels": [{"type": "row", "title": "r", "panels": "no"}]}, None,
     "x: panel 1 panels must be a list, got str"),
    ({"uid": "x", "panels": [{"title": "p", "targets": {"expr": "up"}}]}, None,
     "x: panel 1 targets must be a list, got dict"),
    ({"uid": "x", "panels": [{"title": "p", "targets": ["up"]}]}, None, "x: panel 1 target 1 must be an object, got str"),
    ({"uid": "x", "panels": [{"title": "p", "targets": [{"refId": "A", "expr": 1}]}]}, None,
     "x: panel 1 target A: expr must be a string, got int"),
    ({"uid": "x", "panels": [{"type": "row", "title": "r", "panels": [{"title": "p", "targets": [{"expr": None}]}]}]},
     None, "x: panel 1 panel 1 target 1: expr must be a string, got NoneType"),
    ({"title": "No uid", "rows": "x"}, None, "dashboard No uid: rows must be a list, got str"),
    ({"uid": "x", "templating": {"list": [{"type": "query"}]}}, None,
     "x: templating.list[1] must be an object with a name"),
    ({"uid": "x", "templating": []}, None, "x: templating must be an object, got list"),
    ({"uid": "x"}, ["node"], "variables must be a dict of name: value, got list"),
    ({"uid": "x"}, {"node": None}, "variables: node must be a string or a list of strings, got NoneType"),
    ({"uid": "x"}, {"node": ["a", 1]}, "variables: node must be a string or a list of strings"),
])
def test_what_is_not_a_dashboard_is_named(dashboard, variables, message):
    with pytest.raises(GrafanaError) as info:
        dashboard_queries(dashboard, variables)
    assert str(info.value) == message


def test_dashboard_errors_raise_for_what_is_not_a_dashboard():
    with pytest.raises(GrafanaError) as info:
        dashboard_errors({"uid": "x", "panels": [{"title": "p", "targets": [{"expr": ["up"]}]}]})
    assert str(info.value) == "x: panel 1 target 1: expr must be a string, got list"


def test_rows_nested_deeper_than_grafana_allows_are_refused():
    panel = {"type": "row", "title": "r", "panels": []}
    top = panel
    for _level in range(20):
        child = {"type": "row", "title": "r", "panels": []}
        panel["panels"].append(child)
        panel = child
    with pytest.raises(GrafanaError) as info:
        dashboard_queries({"uid": "deep", "panels": [top]})
    assert str(info.value).startswith("deep: panel 1 ") and str(info.value).endswith("rows nested more than 8 deep")

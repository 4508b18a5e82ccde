# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""validate_report against a temporary directory: writes, idempotence, check mode, errors."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re

import pytest

from ansible.module_utils.testing import patch_module_args
from ansible_collections.gpuops.cluster.plugins.modules import validate_report

RESULTS = [
    {"node": "gpu01", "check": "gpu_count", "status": "pass", "measured": 8, "expected": 8, "message": "8 GPUs"},
    {"node": "gpu02", "check": "driver_loaded", "status": "fail", "measured": None, "expected": "550.54.15",
     "message": "<script>alert(1)</script>"},
    {"node": "cluster", "check": "allreduce_multi_node", "status": "not_run", "measured": None, "expected": 350,
     "message": "skipped"},
]
TOPOLOGIES = {
    "gpu01": {"gpus": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "00000000:18:00.0",
                        "numa_affinity": "0", "cpu_affinity": "0-47", "nvlinks": {}, "memory_mib": 81559}],
              "nvswitches": [],
              "hcas": [{"name": "mlx5_0", "ports": [{"port": 1, "state": "Active", "physical_state": "LinkUp",
                                                     "rate_gbps": 400, "link_layer": "InfiniBand"}]}],
              "selected": ["mlx5_0:1"]},
    "ctl": {},
}
STAMP = "2026-01-31T12:00:00Z"
SUMMARY = {"total": 3, "pass": 1, "fail": 1, "not_run": 1, "status": "fail", "failed_nodes": ["gpu02"]}


def run(capsys, check=False, **args):
    args.setdefault("results", RESULTS)
    args["_ansible_check_mode"] = check
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            validate_report.main()
    return json.loads(capsys.readouterr().out)


def read(path):
    with open(path) as handle:
        return handle.read()


def test_writes_then_unchanged(tmp_path, capsys):
    dest = str(tmp_path / "report")
    first = run(capsys, dest=dest, topologies=TOPOLOGIES, generated_at=STAMP)
    assert first["changed"] is True
    assert first["json_path"] == os.path.join(dest, "results.json")
    assert first["html_path"] == os.path.join(dest, "report.html")
    assert first["summary"] == SUMMARY
    assert oct(os.stat(dest).st_mode & 0o777) == "0o755"
    text = read(first["json_path"])
    assert text.endswith("\n")
    order = [(r["status"], r["node"]) for r in json.loads(text)]
    assert order == [("fail", "gpu02"), ("not_run", "cluster"), ("pass", "gpu01")]
    assert text.startswith('[\n  {\n    "check": "driver_loaded",\n')
    html = read(first["html_path"])
    assert html.startswith("<!DOCTYPE html>")
    assert "<title>gpuops.cluster validation</title>" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script" not in html
    assert "<time>%s</time>" % STAMP in html
    assert html.count("<svg ") == 2
    assert sorted(os.listdir(dest)) == ["report.html", "results.json"]
    mtimes = [os.stat(first["json_path"]).st_mtime_ns, os.stat(first["html_path"]).st_mtime_ns]

    second = run(capsys, dest=dest, topologies=TOPOLOGIES, generated_at=STAMP)
    assert second["changed"] is False
    assert second["summary"] == SUMMARY
    assert [os.stat(first["json_path"]).st_mtime_ns, os.stat(first["html_path"]).st_mtime_ns] == mtimes
    assert sorted(os.listdir(dest)) == ["report.html", "results.json"]


def test_default_time_stamp_does_not_make_a_change(tmp_path, capsys):
    dest = str(tmp_path)
    first = run(capsys, dest=dest, title="Lab")
    assert first["changed"] is True
    stamp = re.search(r"<time>([^<]*)</time>", read(first["html_path"])).group(1)
    assert re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$", stamp)
    before = read(first["html_path"])
    assert run(capsys, dest=dest, title="Lab")["changed"] is False
    assert read(first["html_path"]) == before
    # A real change gets a new page (and its own time stamp).
    third = run(capsys, dest=dest, title="Lab 2")
    assert third["changed"] is True
    assert "<title>Lab 2</title>" in read(first["html_path"])
    # A given stamp is written as given.
    assert run(capsys, dest=dest, title="Lab 2", generated_at="yesterday")["changed"] is True
    assert "<time>yesterday</time>" in read(first["html_path"])


def test_only_the_file_that_differs_is_rewritten(tmp_path, capsys):
    dest = str(tmp_path)
    first = run(capsys, dest=dest, generated_at=STAMP)
    json_mtime = os.stat(first["json_path"]).st_mtime_ns
    os.utime(first["json_path"], ns=(json_mtime - 10 ** 9, json_mtime - 10 ** 9))
    json_mtime = os.stat(first["json_path"]).st_mtime_ns
    second = run(capsys, dest=dest, generated_at=STAMP, title="Other")
    assert second["changed"] is True
    assert os.stat(first["json_path"]).st_mtime_ns == json_mtime
    assert "<title>Other</title>" in read(first["html_path"])


def test_rewrites_a_changed_file(tmp_path, capsys):
    dest = str(tmp_path)
    first = run(capsys, dest=dest, generated_at=STAMP)
    with open(first["json_path"], "w") as handle:
        handle.write("[]\n")
    assert run(capsys, dest=dest, generated_at=STAMP)["changed"] is True
    assert json.loads(read(first["json_path"]))[0]["node"] == "gpu02"


def test_check_mode_writes_nothing(tmp_path, capsys):
    dest = str(tmp_path / "new")
    result = run(capsys, check=True, dest=dest, topologies=TOPOLOGIES)
    assert result["changed"] is True
    assert result["summary"] == SUMMARY
    assert not os.path.exists(dest)
    # Existing, up-to-date report: no change predicted; a different one: change predicted, file kept.
    run(capsys, dest=dest, generated_at=STAMP)
    before = read(os.path.join(dest, "report.html"))
    assert run(capsys, check=True, dest=dest, generated_at=STAMP)["changed"] is False
    assert run(capsys, check=True, dest=dest, generated_at="later")["changed"] is True
    assert read(os.path.join(dest, "report.html")) == before
    assert sorted(os.listdir(dest)) == ["report.html", "results.json"]


@pytest.mark.parametrize("results, message", [
    ([{"node": "gpu01", "check": "gpu_count", "status": "ok", "measured": 8, "expected": 8, "message": ""}],
     "validate_report: results[0] ('gpu01' 'gpu_count'): status 'ok' is not one of pass, fail, not_run"),
    ([RESULTS[0], {"node": "gpu01", "check": "x", "status": "pass"}],
     "validate_report: results[1]: missing key(s) measured, expected, message"),
    ([dict(RESULTS[0], host="gpu01")], "validate_report: results[0]: unknown key(s) host"),
    ([dict(RESULTS[0], message=3)], "validate_report: results[0]: message must be a string, got int"),
])
def test_bad_results_fail_with_message(tmp_path, capsys, results, message):
    dest = str(tmp_path / "out")
    result = run(capsys, dest=dest, results=results)
    assert result["failed"] is True
    assert result["msg"] == message
    assert "exception" not in result
    assert not os.path.exists(dest)


def test_dest_that_is_a_file_fails(tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x")
    result = run(capsys, dest=str(target))
    assert result["failed"] is True
    assert result["msg"] == "validate_report: dest %s exists and is not a directory" % target


def test_topology_that_is_not_a_dict_fails(tmp_path, capsys):
    result = run(capsys, dest=str(tmp_path), topologies={"gpu01": ["x"]})
    assert result["failed"] is True
    assert result["msg"] == "validate_report: topologies[gpu01] must be a dict, got list"


def test_failed_checks_do_not_fail_the_module(tmp_path, capsys):
    results = [dict(RESULTS[1], node="gpu%02d" % n) for n in (10, 2, 1)]
    result = run(capsys, dest=str(tmp_path), results=results, generated_at=STAMP)
    assert "failed" not in result or result["failed"] is False
    assert result["summary"]["failed_nodes"] == ["gpu01", "gpu02", "gpu10"]
    assert result["summary"]["status"] == "fail"

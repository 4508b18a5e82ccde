#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: validate_report
short_description: Write the report of a cluster validation run (JSON and a standalone HTML page)
version_added: 0.1.0
description:
  - Writes C(<dest>/results.json) and C(<dest>/report.html) from the check results of a cluster validation
    run and the GPU, NVLink and RDMA topology of its nodes.
  - C(results.json) holds the results list (indent 2, keys sorted), failures first, then by node, then by
    check (node and check names in natural order, C(node2) before C(node10)).
  - C(report.html) is one standalone HTML5 file (inline CSS, no script, no external resource) with an overall
    PASS or FAIL banner with counts, a table with one row per node, the full results table in the order of
    C(results.json), and one inline SVG drawing per node of O(topologies) (GPUs with NUMA and CPU affinity,
    NVLinks or the NVSwitch fabric, the host CPU with PCIe lines, and the RDMA ports coloured by state, the
    ones NCCL uses marked). Every text taken from the input is HTML-escaped.
  - Each file is written atomically (a temporary file in O(dest) moved over it) and only when its content
    differs.
  - The module does not fail when checks failed; RV(summary) tells, and the playbook decides.
author:
  - gpuops.cluster contributors (@gpuops)
options:
  dest:
    description:
      - Directory to write C(results.json) and C(report.html) into.
      - Created (mode C(0755)) when missing.
    type: path
    required: true
  results:
    description:
      - The check results. Each is a dict with exactly the keys C(node) (string; V(cluster) for
        cluster-wide checks), C(check) (string), C(status) (V(pass), V(fail) or V(not_run)), C(measured) and
        C(expected) (any JSON value), and C(message) (string).
      - Any other shape fails the task with a message naming the entry.
    type: list
    elements: dict
    required: true
  topologies:
    description:
      - Topology of the nodes to draw, as a mapping of node name to a dict with C(gpus) (the GPUs of
        M(gpuops.cluster.gpu_facts)), C(nvswitches) (PCI addresses), C(hcas) and C(selected) (from
        M(gpuops.cluster.ib_facts)). Any key may be missing or empty (a CPU-only node).
    type: dict
    default: {}
  title:
    description: Title of the HTML page.
    type: str
    default: gpuops.cluster validation
  generated_at:
    description:
      - Time stamp shown in the HTML page, as given.
      - By default the current UTC time in ISO 8601 (V(2026-01-31T12:00:00Z)). Then a report whose content
        is otherwise unchanged keeps its old time stamp and is not rewritten, so a rerun reports no change.
    type: str
extends_documentation_fragment:
  - gpuops.cluster.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
notes:
  - The files are written on the host the task runs on; run it with C(delegate_to=localhost) and
    C(run_once=true) to gather the report of all nodes on the controller.
"""

EXAMPLES = r"""
- name: Write the validation report on the controller
  gpuops.cluster.validate_report:
    dest: "{{ playbook_dir }}/validation-report"
    results: "{{ validation_results }}"
    # validation_topology: {gpus, nvswitches, hcas, selected} set on each GPU node from gpuops_gpus and gpuops_ib
    topologies: "{{ dict(groups['gpu_nodes'] | zip(groups['gpu_nodes'] | map('extract', hostvars, 'validation_topology'))) }}"
  delegate_to: localhost
  run_once: true
  register: report

- name: Fail the play when a check failed
  ansible.builtin.assert:
    that: report.summary.status == 'pass'
    fail_msg: "validation failed on {{ report.summary.failed_nodes | join(', ') }}, see {{ report.html_path }}"
  run_once: true
"""

RETURN = r"""
json_path:
  description: Path of the results file.
  returned: always
  type: str
  sample: /srv/validation/results.json
html_path:
  description: Path of the HTML report.
  returned: always
  type: str
  sample: /srv/validation/report.html
summary:
  description: Counts of the results and the overall status.
  returned: always
  type: dict
  contains:
    total:
      description: Number of results.
      returned: always
      type: int
      sample: 42
    pass:
      description: Number of passed checks.
      returned: always
      type: int
      sample: 40
    fail:
      description: Number of failed checks.
      returned: always
      type: int
      sample: 1
    not_run:
      description: Number of checks that did not run.
      returned: always
      type: int
      sample: 1
    status:
      description: V(fail) when any check failed, else V(pass).
      returned: always
      type: str
      sample: fail
    failed_nodes:
      description: Nodes (not V(cluster)) with a failed check, in natural order.
      returned: always
      type: list
      elements: str
      sample: ["gpu02"]
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text
from ansible_collections.gpuops.cluster.plugins.module_utils.common._atomic_write import write_atomically
from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import cap
from ansible_collections.gpuops.cluster.plugins.module_utils.validate._validate_report import (
    ReportError,
    check_results,
    generated_at_of,
    render_html,
    results_json,
    summarize,
)

JSON_NAME = "results.json"
HTML_NAME = "report.html"


def _read(path):
    """The bytes of path, or None when it does not exist."""
    if not os.path.lexists(path):
        return None
    with open(path, "rb") as handle:
        return handle.read()


def _write(module, dest, path, data):
    write_atomically(module, path, data, ".validate_report.")


def _html(params, old):
    """The page; without generated_at, the old page is kept when only its time stamp would change."""
    results, topologies, title = params["results"], params["topologies"], params["title"]
    stamp = params["generated_at"]
    if stamp is None and old is not None:
        old_stamp = generated_at_of(to_text(old, errors="surrogate_or_replace"))
        if old_stamp is not None:
            page = render_html(results, topologies, title, old_stamp)
            if to_bytes(page, errors="surrogate_or_strict") == old:
                return page
    if stamp is None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return render_html(results, topologies, title, stamp)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            dest=dict(type="path", required=True),
            results=dict(type="list", elements="dict", required=True),
            topologies=dict(type="dict", default={}),
            title=dict(type="str", default="gpuops.cluster validation"),
            generated_at=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    dest = params["dest"]
    json_path = os.path.join(dest, JSON_NAME)
    html_path = os.path.join(dest, HTML_NAME)
    try:
        check_results(params["results"])
        summary = summarize(params["results"])
    except ReportError as exc:
        module.fail_json(msg=cap("validate_report: %s" % exc), json_path=json_path, html_path=html_path)
    for name, value in sorted(params["topologies"].items()):
        if value is not None and not isinstance(value, dict):
            module.fail_json(msg=cap("validate_report: topologies[%s] must be a dict, got %s" % (name, type(value).__name__)),
                             json_path=json_path, html_path=html_path)

    if os.path.lexists(dest) and not os.path.isdir(dest):
        module.fail_json(msg="validate_report: dest %s exists and is not a directory" % dest,
                         json_path=json_path, html_path=html_path)
    changed = False
    try:
        if not os.path.isdir(dest):
            changed = True
            if not module.check_mode:
                os.makedirs(dest, 0o755)
                os.chmod(dest, 0o755)
        for path in (json_path, html_path):
            if os.path.lexists(path) and not os.path.isfile(path):
                module.fail_json(msg="validate_report: %s exists and is not a regular file" % path,
                                 json_path=json_path, html_path=html_path)
        old_json = _read(json_path)
        old_html = _read(html_path)
        files = [
            (json_path, to_bytes(results_json(params["results"]), errors="surrogate_or_strict"), old_json),
            (html_path, to_bytes(_html(params, old_html), errors="surrogate_or_strict"), old_html),
        ]
        for path, data, old in files:
            if data == old:
                continue
            changed = True
            if not module.check_mode:
                _write(module, dest, path, data)
    except ReportError as exc:
        module.fail_json(msg=cap("validate_report: %s" % exc), json_path=json_path, html_path=html_path)
    except (IOError, OSError) as exc:
        module.fail_json(msg="validate_report: %s" % to_native(exc), json_path=json_path, html_path=html_path)
    module.exit_json(changed=changed, json_path=json_path, html_path=html_path, summary=summary)


if __name__ == "__main__":
    main()

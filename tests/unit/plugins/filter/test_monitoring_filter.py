# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The monitoring_targets filter with the running prometheus.yml (logic: module_utils/monitoring/_monitoring.py):
the plan passed through, bad input named in an AnsibleFilterError."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter.monitoring import monitoring_targets
from ansible_collections.gpuops.cluster.tests.unit.plugins.module_utils import test_monitoring as tm


def test_the_filter_passes_the_running_file_and_names_bad_input():
    inventory = tm.CLUSTER_ALL[0::3]
    compute = [host for host in tm.CLUSTER_COMPUTE if host in inventory]
    plan = monitoring_targets(tm.CLUSTER, inventory, compute, [], ["mon.example.org"], False, tm.WHOLE, inventory, [])
    assert tm._text(plan) == tm.WHOLE and plan["kept"]
    # Without the running file (the filter as before): nothing kept.
    assert monitoring_targets(tm.CLUSTER, inventory, compute, [], ["mon.example.org"])["kept"] == []
    with pytest.raises(AnsibleFilterError, match=r"^monitoring_targets: prometheus_remove_hosts \(with "
                                                 r"slurm_remove_nodes\) must be a list"):
        monitoring_targets(tm.CLUSTER, inventory, compute, [], ["mon.example.org"], False, tm.WHOLE, inventory, "gpu03")
    with pytest.raises(AnsibleFilterError, match=r"^monitoring_targets: the inventory must be a list"):
        monitoring_targets(tm.CLUSTER, inventory, compute, [], ["mon.example.org"], False, tm.WHOLE, {"a": 1}, [])

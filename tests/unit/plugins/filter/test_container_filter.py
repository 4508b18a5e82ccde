# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpuops.cluster.host_container."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter.container import FilterModule, host_container


def test_host_container():
    assert FilterModule().filters()["host_container"] is host_container
    facts = {"virtualization_role": "guest", "virtualization_type": "docker", "os_family": "Debian"}
    assert host_container(facts) == {"container": True, "kind": "docker", "reason": "running in a docker container"}
    assert host_container(facts, ["lxc"])["container"] is False
    assert host_container(None)["container"] is False


def test_a_container_types_that_is_no_list_is_refused_with_the_filters_name():
    with pytest.raises(AnsibleFilterError, match="host_container: container_types"):
        host_container({"virtualization_role": "guest", "virtualization_type": "docker"}, 3)

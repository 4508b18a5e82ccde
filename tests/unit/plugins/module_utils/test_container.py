# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""common/_container.py: the one rule for "this host is a container"."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.common._container import (
    CONTAINER_TYPES, container_state, host_container)


@pytest.mark.parametrize("role,kind,expected", [
    ("guest", "docker", {"container": True, "kind": "docker", "reason": "running in a docker container"}),
    ("guest", "podman", {"container": True, "kind": "podman", "reason": "running in a podman container"}),
    ("guest", "lxc", {"container": True, "kind": "lxc", "reason": "running in a lxc container"}),
    # the plain kind is not said twice
    ("guest", "container", {"container": True, "kind": "container", "reason": "running in a container"}),
    # a VM guest is no container
    ("guest", "kvm", {"container": False, "kind": "", "reason": ""}),
    # the machine that runs the containers
    ("host", "docker", {"container": False, "kind": "", "reason": ""}),
    ("", "", {"container": False, "kind": "", "reason": ""}),
    # facts of the wrong type read as not known
    (None, None, {"container": False, "kind": "", "reason": ""}),
    (["guest"], {"docker": 1}, {"container": False, "kind": "", "reason": ""}),
])
def test_container_state(role, kind, expected):
    assert container_state(role, kind) == expected


def test_every_listed_type_is_a_container_and_a_given_list_replaces_it():
    for kind in CONTAINER_TYPES:
        assert container_state("guest", kind)["container"] is True
    assert container_state("guest", "docker", ["lxc"])["container"] is False
    assert container_state("guest", "lxc", ["lxc"])["container"] is True
    assert container_state("guest", "docker", [])["container"] is False


def test_host_container_reads_the_facts():
    assert host_container({"virtualization_role": "guest", "virtualization_type": "docker"})["reason"] == \
        "running in a docker container"
    assert host_container({"virtualization_role": "host", "virtualization_type": "kvm"})["container"] is False
    for facts in ({}, None, "docker", ["guest", "docker"]):
        assert host_container(facts) == {"container": False, "kind": "", "reason": ""}

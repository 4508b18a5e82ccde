# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""host_container: whether a host is a container, from its facts (docs: host_container.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.module_utils.common._container import host_container as _host_container


def host_container(facts, container_types=None):
    """{container, kind, reason} for a host's ansible_facts."""
    try:
        return _host_container(facts, container_types)
    except TypeError as exc:
        raise AnsibleFilterError("host_container: container_types must be a list of strings: %s" % exc)


class FilterModule(object):
    """Container detection."""

    def filters(self):
        return {"host_container": host_container}

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuops.cluster.plugins.filter.hostlist import FilterModule

FILTERS = FilterModule().filters()


def test_filter_names():
    assert sorted(FILTERS) == ["slurm_hostlist_compress", "slurm_hostlist_expand"]


@pytest.mark.parametrize(
    "names, expected",
    [
        (["gpu01", "gpu02", "gpu03", "gpu07"], "gpu[01-03,07]"),
        (["n9", "n10"], "n[9-10]"),
        (["login", "gpu02", "gpu01"], "login,gpu[01-02]"),
        ([], ""),
    ],
)
def test_slurm_hostlist_compress(names, expected):
    assert FILTERS["slurm_hostlist_compress"](names) == expected


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("gpu[01-03,07]", ["gpu01", "gpu02", "gpu03", "gpu07"]),
        ("rack[1-2]-node[01-02]", ["rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"]),
        ("gpu[01-02],cpu1", ["gpu01", "gpu02", "cpu1"]),
    ],
)
def test_slurm_hostlist_expand(expr, expected):
    assert FILTERS["slurm_hostlist_expand"](expr) == expected


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("slurm_hostlist_compress", "gpu01",
         "slurm_hostlist_compress: host names must be a list of strings, got str"),
        ("slurm_hostlist_compress", ["gpu01", "gpu[02]"],
         "slurm_hostlist_compress: host name #2 'gpu[02]' contains '[', which a hostlist uses for ranges"),
        ("slurm_hostlist_expand", "gpu[01-",
         "slurm_hostlist_expand: unclosed '[' at character 4 of 'gpu[01-'"),
        ("slurm_hostlist_expand", "gpu[3-1]",
         "slurm_hostlist_expand: descending range '3-1' at character 5 of 'gpu[3-1]': 3 > 1"),
        ("slurm_hostlist_expand", "",
         "slurm_hostlist_expand: empty hostlist expression"),
        ("slurm_hostlist_expand", ["gpu01"],
         "slurm_hostlist_expand: a hostlist expression must be a string, got list"),
    ],
)
def test_errors_are_filter_errors(name, value, message):
    with pytest.raises(AnsibleFilterError) as exc:
        FILTERS[name](value)
    assert exc.value.message == message


def test_filters_in_a_template():
    """Through Ansible's templating: lazy lists and tagged strings come in."""
    templar = pytest.importorskip("ansible.template")
    template = templar.trust_as_template(
        "{{ nodes | gpuops.cluster.slurm_hostlist_compress | gpuops.cluster.slurm_hostlist_expand }}")
    result = templar.Templar(variables={"nodes": ["gpu02", "gpu01", "login"]}).template(template)
    assert result == ["gpu01", "gpu02", "login"]

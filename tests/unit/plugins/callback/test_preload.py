# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpuops.cluster.preload: which files it imports and how it reads its plugins option."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

from ansible_collections.gpuops.cluster.plugins.callback.preload import CallbackModule, own_plugin_modules, parse_extra

PLUGINS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins")


def test_the_collections_controller_side_files_are_listed():
    names = own_plugin_modules(PLUGINS)
    assert "ansible_collections.gpuops.cluster.plugins.filter.slurm_model" in names
    assert "ansible_collections.gpuops.cluster.plugins.lookup.program_lib" in names
    assert "ansible_collections.gpuops.cluster.plugins.test.slurm_ops" in names
    assert "ansible_collections.gpuops.cluster.plugins.action.clock_sample" in names
    # modules run on the hosts, documentation files are not code
    assert not [name for name in names if ".modules." in name or name.endswith("_errors")]
    assert len(names) == len(set(names))


def test_a_missing_plugins_folder_gives_nothing(tmp_path):
    assert own_plugin_modules(str(tmp_path)) == []


def test_the_plugins_option_is_type_and_name():
    wanted, bad = parse_extra(["connection:community.docker.docker_api", " filter : community.general.dict_kv ",
                               "docker_api", "module:x.y.z", "lookup:", ""])
    assert wanted == [("connection", "community.docker.docker_api"), ("filter", "community.general.dict_kv")]
    assert bad == ["docker_api", "module:x.y.z", "lookup:", ""]
    assert parse_extra(None) == ([], [])


class _Display:
    verbosity = 0

    def __init__(self):
        self.lines = []

    def v(self, msg):
        self.lines.append(("v", msg))

    def vv(self, msg):
        self.lines.append(("vv", msg))


def test_the_imports_happen_once_and_what_fails_is_only_reported(monkeypatch):
    display = _Display()
    callback = CallbackModule(display=display)
    monkeypatch.setattr(callback, "get_option", lambda name: ["connection:no.such.plugin", "bogus"])
    callback.v2_playbook_on_start(None)
    assert "ansible_collections.gpuops.cluster.plugins.filter.slurm_model" in sys.modules
    assert [line[0] for line in display.lines] == ["vv", "v"]
    assert "connection:no.such.plugin (" in display.lines[1][1] and "bogus (not TYPE:FQCN)" in display.lines[1][1]
    callback.v2_playbook_on_start(None)
    assert len(display.lines) == 2

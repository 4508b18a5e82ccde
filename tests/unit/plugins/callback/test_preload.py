# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpuops.cluster.preload: which files it imports and how it reads its plugins option."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

from ansible_collections.gpuops.cluster.plugins.callback.preload import (
    CACHE_MARK, CallbackModule, claim_cache_dir, module_cache_key, module_sources, own_plugin_modules, parse_extra,
    prune_caches)

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
    monkeypatch.setattr(callback, "get_option", lambda name: {"plugins": ["connection:no.such.plugin", "bogus"], "module_cache": ""}[name])
    callback.v2_playbook_on_start(None)
    assert "ansible_collections.gpuops.cluster.plugins.filter.slurm_model" in sys.modules
    assert [line[0] for line in display.lines] == ["vv", "v"]
    assert "connection:no.such.plugin (" in display.lines[1][1] and "bogus (not TYPE:FQCN)" in display.lines[1][1]
    callback.v2_playbook_on_start(None)
    assert len(display.lines) == 2


def _touch(path, text="x"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)


def test_the_module_cache_takes_only_an_absolute_path_it_owns(tmp_path):
    assert "absolute" in claim_cache_dir("")
    assert "absolute" in claim_cache_dir("relative/cache")
    # a directory with something else in it is never taken (and so never pruned)
    other = tmp_path / "checkout"
    _touch(str(other / "roles" / "main.yml"))
    assert "not empty" in claim_cache_dir(str(other))
    assert not (other / CACHE_MARK).exists()
    # a missing or empty directory is taken and marked; a marked one is taken again
    cache = tmp_path / "cache"
    assert claim_cache_dir(str(cache)) is None
    assert (cache / CACHE_MARK).is_file()
    _touch(str(cache / "0123456789abcdef0123" / "m.zip"))
    assert claim_cache_dir(str(cache)) is None


def test_pruning_keeps_the_newest_and_touches_nothing_else(tmp_path):
    cache = tmp_path / "cache"
    assert claim_cache_dir(str(cache)) is None
    keys = ["%020x" % number for number in range(5)]
    for age, key in enumerate(keys):
        _touch(str(cache / key / "m.zip"))
        os.utime(str(cache / key), (1000 + age, 1000 + age))
    _touch(str(cache / "notes" / "keep.txt"))
    os.utime(str(cache / keys[1]), (1000 + 10 * 3600, 1000 + 10 * 3600))
    # none goes while it was used in the last 6 hours (a run may still read it)
    assert prune_caches(str(cache), 2, keys[0], now=1000 + 3 * 3600) == []
    # then the 2 most recent stay (keys[1], keys[4]), and the current one
    removed = prune_caches(str(cache), 2, keys[0], now=1000 + 20 * 3600)
    assert sorted(removed) == [keys[2], keys[3]]
    assert sorted(os.listdir(str(cache))) == sorted([CACHE_MARK, "notes", keys[0], keys[1], keys[4]])
    # without the mark nothing is removed at all
    other = tmp_path / "other"
    for key in keys:
        _touch(str(other / key / "m.zip"))
    assert prune_caches(str(other), 1, keys[0], now=10 ** 10) == []
    assert len(os.listdir(str(other))) == 5


def test_the_cache_key_follows_every_module_source(tmp_path):
    root = tmp_path / "collections"
    checkout = root / "ansible_collections" / "ns" / "dev"
    installed = root / "ansible_collections" / "ns" / "inst"
    _touch(str(checkout / "plugins" / "modules" / "thing.py"))
    _touch(str(checkout / "plugins" / "module_utils" / "util.py"))
    _touch(str(checkout / "roles" / "r" / "tasks" / "main.yml"))
    _touch(str(installed / "MANIFEST.json"))
    _touch(str(installed / "FILES.json"))
    _touch(str(installed / "plugins" / "modules" / "other.py"))
    library = tmp_path / "library"
    _touch(str(library / "legacy.py"))
    entries = module_sources([str(root)], [str(library), str(tmp_path / "missing")])
    paths = [entry[0] for entry in entries]
    assert str(checkout / "plugins" / "modules" / "thing.py") in paths
    assert str(checkout / "plugins" / "module_utils" / "util.py") in paths
    assert str(installed / "MANIFEST.json") in paths and str(installed / "FILES.json") in paths
    # an installed collection counts by its manifest, a role's tasks are no module source
    assert str(installed / "plugins" / "modules" / "other.py") not in paths
    assert not [path for path in paths if path.endswith("main.yml")]
    assert str(library / "legacy.py") in paths
    key = module_cache_key(["2.19.14", "3.11"], entries)
    assert len(key) == 20
    assert key == module_cache_key(["2.19.14", "3.11"], module_sources([str(root)], [str(library)]))
    assert key != module_cache_key(["2.19.15", "3.11"], entries)
    _touch(str(checkout / "plugins" / "module_utils" / "util.py"), "changed content")
    assert key != module_cache_key(["2.19.14", "3.11"], module_sources([str(root)], [str(library)]))

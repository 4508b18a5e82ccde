# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpuops.cluster.preload: which files it imports and how it reads its plugins option."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib.util
import io
import os
import subprocess
import sys
import types
import zipfile

from ansible_collections.gpuops.cluster.plugins.callback.preload import (
    BYTECODE_PREFIX, CACHE_MARK, CallbackModule, add_bytecode, bytecode_for, claim_cache_dir, connection_name,
    install_bytecode, module_cache_key, module_sources, own_plugin_modules, parse_extra, prune_caches, representatives)

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
    options = {"plugins": ["connection:no.such.plugin", "bogus"], "module_cache": "", "module_bytecode": False}
    monkeypatch.setattr(callback, "get_option", lambda name: options[name])
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


# A module that says where its code came from: the byte code is compiled from one text and the
# zip holds another beside it, so the answer shows which of the two Python ran.
BYTECODE_TEXT = b"WHERE = 'bytecode'\n"
SOURCE_TEXT = b"WHERE = 'source'\n"


def _import_from_zip(tmp_path, entries):
    """Import pkg.where from a zip holding entries, in a fresh Python; what WHERE says."""
    payload = tmp_path / "payload.zip"
    with zipfile.ZipFile(str(payload), "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    code = "import sys; sys.path.insert(0, %r); import pkg.where as w; print(w.WHERE, w.__file__)" % str(payload)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_byte_code_for_this_python_is_run_without_reading_the_source(tmp_path):
    pyc = bytecode_for("pkg/where.py", BYTECODE_TEXT)
    assert pyc[:4] == importlib.util.MAGIC_NUMBER
    assert pyc[4:8] == (1).to_bytes(4, "little")  # hash-based, unchecked (PEP 552)
    assert pyc[8:16] == importlib.util.source_hash(BYTECODE_TEXT)
    where, path = _import_from_zip(tmp_path, [("pkg/__init__.py", b""), ("pkg/where.py", SOURCE_TEXT),
                                              ("pkg/where.pyc", pyc)])
    assert where == "bytecode"
    assert path.endswith("pkg/where.pyc")


def test_byte_code_of_another_python_is_skipped_for_the_source(tmp_path):
    pyc = bytearray(bytecode_for("pkg/where.py", BYTECODE_TEXT))
    pyc[0:2] = (int.from_bytes(pyc[0:2], "little") - 1).to_bytes(2, "little")  # another Python's magic number
    where, path = _import_from_zip(tmp_path, [("pkg/__init__.py", b""), ("pkg/where.py", SOURCE_TEXT),
                                              ("pkg/where.pyc", bytes(pyc))])
    assert where == "source"
    assert path.endswith("pkg/where.py")


def test_a_file_this_python_cannot_compile_gets_no_byte_code():
    assert bytecode_for("x.py", b"def (:\n") is None
    assert bytecode_for("x.py", "print('ok')\n") is not None  # text as well as bytes


def test_traceback_names_the_file_inside_the_payload():
    pyc = bytecode_for("ansible/module_utils/basic.py", b"x = 1\n")
    import marshal
    assert marshal.loads(pyc[16:]).co_filename == BYTECODE_PREFIX + "ansible/module_utils/basic.py"


def test_every_python_file_written_gets_its_byte_code_beside_it():
    out = io.BytesIO()
    zf = add_bytecode(zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED))
    info = zipfile.ZipInfo("ansible/module_utils/basic.py", date_time=(2026, 11, 29, 12, 0, 0))
    zf.writestr(info, b"A = 1\n")
    zf.writestr("ansible/modules/stat.py", "B = 2\n")
    zf.writestr("ansible/data.json", b"{}")
    zf.writestr("ansible/broken.py", b"def (:\n")
    zf.close()
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as back:
        names = back.namelist()
        assert names == ["ansible/module_utils/basic.py", "ansible/module_utils/basic.pyc", "ansible/modules/stat.py",
                         "ansible/modules/stat.pyc", "ansible/data.json", "ansible/broken.py"]
        assert back.getinfo("ansible/module_utils/basic.pyc").date_time == (2026, 11, 29, 12, 0, 0)
        assert back.getinfo("ansible/module_utils/basic.pyc").compress_type == zipfile.ZIP_DEFLATED


def test_the_payload_builder_is_wrapped_once_and_an_unknown_one_is_left_alone():
    seen = []

    def recursive_finder(name, module_fqn, module_data, zf, date_time, extension_manager):
        seen.append(zf)
        zf.writestr("m.py", b"M = 1\n")
        return "metadata"

    fake = types.SimpleNamespace(recursive_finder=recursive_finder)
    assert install_bytecode(fake) is None
    wrapped = fake.recursive_finder
    assert install_bytecode(fake) is None and fake.recursive_finder is wrapped  # not twice
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        assert fake.recursive_finder("m", "m", b"", zf, None, None) == "metadata"
    assert zipfile.ZipFile(io.BytesIO(out.getvalue())).namelist() == ["m.py", "m.pyc"]

    assert "has no" in install_bytecode(types.SimpleNamespace())
    other = types.SimpleNamespace(recursive_finder=lambda name, data: None)
    assert "fourth argument" in install_bytecode(other)


class _Group:
    def __init__(self, name):
        self._name = name

    def get_name(self):
        return self._name


class _Host:
    def __init__(self, name, *groups):
        self.name = name
        self._groups = [_Group(group) for group in groups]

    def get_groups(self):
        return self._groups


def test_one_host_stands_for_each_set_of_groups():
    hosts = [_Host("ctl", "all", "slurm_controller"), _Host("gpu01", "all", "slurm_compute"),
             _Host("gpu02", "slurm_compute", "all"), _Host("login", "all", "slurm_login")]
    found = representatives(hosts)
    assert [host.name for key, host in found] == ["ctl", "gpu01", "login"]
    assert found[1][0] == ("all", "slurm_compute")
    # sets looked at in an earlier play are not looked at again
    assert [host.name for key, host in representatives(hosts, {("all", "slurm_compute")})] == ["ctl", "login"]
    assert representatives([]) == []


def test_a_connection_name_is_a_plain_string():
    assert connection_name(" community.docker.docker_api ") == "community.docker.docker_api"
    assert connection_name("ssh") == "ssh"
    for value in (None, "", "  ", "{{ my_connection }}", "{% if x %}local{% endif %}", 3, ["ssh"]):
        assert connection_name(value) is None


class _Manager:
    def __init__(self, hosts, connections):
        self._inventory = self
        self._hosts = hosts
        self._connections = connections
        self.asked = []

    def get_hosts(self, pattern="all"):
        self.patterns = getattr(self, "patterns", []) + [pattern]
        return self._hosts

    def get_vars(self, play=None, host=None, include_hostvars=True):
        self.asked.append(host.name)
        value = self._connections.get(host.name)
        return {} if value is None else {"ansible_connection": value}


def test_each_play_imports_its_hosts_connection_plugins_once(monkeypatch):
    from ansible_collections.gpuops.cluster.plugins.callback import preload

    imported = []

    class _Loader:
        @staticmethod
        def get(name, class_only=False):
            assert class_only
            imported.append(name)
            return None if name == "no.such.conn" else object

    monkeypatch.setattr(preload, "connection_loader", _Loader)
    hosts = [_Host("ctl", "controller"), _Host("gpu01", "compute"), _Host("gpu02", "compute"), _Host("x", "odd")]
    manager = _Manager(hosts, {"ctl": "community.docker.docker_api", "gpu01": "community.docker.docker_api",
                               "x": "{{ templated }}"})
    play = types.SimpleNamespace(_variable_manager=manager, hosts="{{ my_hosts }}", connection="ssh")
    display = _Display()
    callback = CallbackModule(display=display)
    callback.v2_playbook_on_play_start(play)
    assert manager.patterns == ["all"]  # a templated pattern: every host
    assert manager.asked == ["ctl", "gpu01", "x"]
    assert imported == ["community.docker.docker_api", "ssh"]
    # the next play: nothing asked or imported again
    play2 = types.SimpleNamespace(_variable_manager=manager, hosts="compute", connection="ssh")
    callback.v2_playbook_on_play_start(play2)
    assert manager.patterns == ["all", "compute"] and manager.asked == ["ctl", "gpu01", "x"]
    assert imported == ["community.docker.docker_api", "ssh"]
    # a plugin that is not found is reported and left to the workers, never fatal
    manager._hosts.append(_Host("y", "other"))
    manager._connections["y"] = "no.such.conn"
    callback.v2_playbook_on_play_start(play2)
    assert imported[-1] == "no.such.conn"
    assert "no.such.conn (not found)" in display.lines[-1][1]


def test_a_play_without_a_variable_manager_is_left_alone():
    display = _Display()
    callback = CallbackModule(display=display)
    callback.v2_playbook_on_play_start(types.SimpleNamespace(hosts="all"))
    assert display.lines == []

    class _Broken:
        @property
        def _inventory(self):
            raise RuntimeError("boom")

    callback.v2_playbook_on_play_start(types.SimpleNamespace(_variable_manager=_Broken(), hosts="all"))
    assert display.lines[-1][0] == "v" and "boom" in display.lines[-1][1]

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: preload
type: aggregate
short_description: Import the collection's controller-side plugins once, before the workers fork
description:
  - ansible-playbook runs every task of every host in a worker process forked from the main
    process. A filter, test, lookup or connection plugin that the main process never imported
    is imported again in each worker, and a collection's Python files are compiled from source
    each time (the collection loader keeps no byte code). This callback imports them once, when
    the playbook starts, so that every worker inherits them.
  - It imports the filter, test, lookup and action plugins of gpuops.cluster (and the
    module_utils they use), Ansible's own filters and tests, and the plugins named in O(plugins).
  - At the start of each play it also imports the connection plugin each kind of host of the
    play uses (C(ansible_connection), read for one host per set of groups). A connection plugin
    from a collection, C(community.docker.docker_api) for example, otherwise costs every task
    about 0.1 s of CPU per host, even one that never connects (C(debug), C(set_fact)).
  - It changes nothing a play does; a plugin that fails to import is reported (with -v) and left
    to the worker, as without this callback.
  - Measured on a no-op run of site.yml over 3 hosts through the Docker API connection, 2 cores
    (docs/performance.md).
version_added: 0.3.0
requirements:
  - enable it in C(callbacks_enabled) (ansible.cfg), for example
    C(callbacks_enabled = gpuops.cluster.preload)
options:
  plugins:
    description:
      - More plugins to import, each as C(TYPE:FQCN), for example
        C(connection:community.docker.docker_api) or C(filter:community.general.dict_kv).
      - TYPE is one of connection, filter, test, lookup, action, become, shell.
    type: list
    elements: str
    default: []
    env:
      - name: GPUOPS_PRELOAD_PLUGINS
    ini:
      - section: callback_gpuops_preload
        key: plugins
  module_cache:
    description:
      - An absolute directory where the modules Ansible packs for the hosts (AnsiballZ payloads)
        are kept from one run to the next. Without it each run packs every module it uses again
        (about 10 s of controller CPU in a no-change run of site.yml, docs/performance.md).
      - The payloads go in a subdirectory named by a digest of ansible-core's and Python's versions
        and of every module and module_utils file Ansible can load (path, size and modification
        time; an installed collection by its MANIFEST.json and FILES.json, the others, and the
        playbook's and its roles' C(library) and C(module_utils), file by file). Any change there
        starts a new subdirectory; the 8 most recent are kept, and any used in the last 6 hours.
      - The directory is the callback's own, marked by a C(.gpuops-module-cache) file it writes. An
        existing directory without that mark that is not empty, or a relative path, is refused
        with a warning and the run goes on without the cache.
      - Empty (the default) keeps Ansible's own behaviour, a cache for the run alone.
    type: str
    default: ''
    env:
      - name: GPUOPS_PRELOAD_MODULE_CACHE
    ini:
      - section: callback_gpuops_preload
        key: module_cache
  module_bytecode:
    description:
      - Put byte code, compiled once by the controller's Python, beside each Python file of the
        module payloads. A host whose Python has the controller's minor version (3.11 on both,
        for example) runs a module without compiling its module_utils from source first, which
        Ansible otherwise does on every module call. Measured on Debian 12, 0.20 s of host CPU per
        module call went to 0.12 s (docs/performance.md). A host with another Python reads the
        byte code's version, skips it and compiles from source as before.
      - The payloads grow about threefold (stat's from 168 to 478 kB), sent on every call, so
        leave it off where most hosts run another Python than the controller, or where the
        controller's link to the hosts is slow.
      - A module's traceback names its files inside the payload (C(<ansiballz>/ansible/...))
        instead of the payload's temporary path on the host.
      - With O(module_cache), payloads with and without byte code are kept apart.
    type: bool
    default: false
    env:
      - name: GPUOPS_PRELOAD_MODULE_BYTECODE
    ini:
      - section: callback_gpuops_preload
        key: module_bytecode
"""

import hashlib
import importlib
import importlib.util
import marshal
import os
import re
import shutil
import sys
import time
import zipfile

from ansible import constants as C
from ansible.module_utils.ansible_release import __version__ as ANSIBLE_CORE_VERSION
from ansible.plugins.callback import CallbackBase
from ansible.plugins.loader import (
    action_loader,
    become_loader,
    connection_loader,
    filter_loader,
    lookup_loader,
    shell_loader,
    test_loader,
)

COLLECTION = "gpuops.cluster"
PACKAGE = "ansible_collections.gpuops.cluster.plugins"
LOADERS = {
    "connection": connection_loader,
    "lookup": lookup_loader,
    "action": action_loader,
    "become": become_loader,
    "shell": shell_loader,
}
JINJA_LOADERS = {"filter": filter_loader, "test": test_loader}


def own_plugin_modules(root):
    """The collection's plugin files the controller imports (filter, test, lookup, action), as module names."""
    names = []
    for kind in ("filter", "test", "lookup", "action"):
        folder = os.path.join(root, kind)
        if not os.path.isdir(folder):
            continue
        for entry in sorted(os.listdir(folder)):
            stem, ext = os.path.splitext(entry)
            if ext == ".py" and stem != "__init__":
                names.append("%s.%s.%s" % (PACKAGE, kind, stem))
    return names


def representatives(hosts, seen=()):
    """One host for each set of groups among hosts, in order, leaving out the sets in seen.

    Hosts in the same groups get the same group variables, so one of them tells which connection
    plugin they use (host variables aside). Returns [(groups key, host)].
    """
    found, keys = [], set(seen)
    for host in hosts:
        key = tuple(sorted(group.get_name() for group in host.get_groups()))
        if key not in keys:
            keys.add(key)
            found.append((key, host))
    return found


def connection_name(value):
    """The connection plugin a host's ansible_connection names, or None when it is unset or a template."""
    if not isinstance(value, str):
        return None
    value = value.strip()
    if not value or "{{" in value or "{%" in value:
        return None
    return value


def parse_extra(entries):
    """[(type, fqcn)] of the plugins option, and the entries it could not read."""
    wanted, bad = [], []
    for entry in entries or []:
        kind, sep, name = str(entry).partition(":")
        kind, name = kind.strip(), name.strip()
        if not sep or not name or (kind not in LOADERS and kind not in JINJA_LOADERS):
            bad.append(str(entry))
        else:
            wanted.append((kind, name))
    return wanted, bad


MODULE_DIRS = (os.path.join("plugins", "modules"), os.path.join("plugins", "module_utils"))
KEEP_CACHES = 8
KEEP_USED_S = 6 * 3600
CACHE_MARK = ".gpuops-module-cache"
CACHE_NAME = re.compile(r"^[0-9a-f]{20}$")


def _walk_files(folder):
    """(path, size, mtime_ns) of every file under folder, sorted; nothing for a missing folder."""
    found = []
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(top, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue
            found.append((path, stat.st_size, stat.st_mtime_ns))
    return found


def module_sources(collection_roots, module_dirs):
    """What the packed modules are made of, as (path, size, mtime_ns) entries.

    collection_roots: directories holding ansible_collections/ (or being it); an installed
    collection (MANIFEST.json and FILES.json) counts by those two files, a checkout by every
    file of its modules and module_utils. module_dirs: more folders counted file by file
    (ansible-core's own modules, library and module_utils paths).
    """
    entries = []
    for root in collection_roots:
        base = root if os.path.basename(root.rstrip(os.sep)) == "ansible_collections" \
            else os.path.join(root, "ansible_collections")
        if not os.path.isdir(base):
            continue
        for namespace in sorted(os.listdir(base)):
            ns_dir = os.path.join(base, namespace)
            if not os.path.isdir(ns_dir):
                continue
            for name in sorted(os.listdir(ns_dir)):
                coll = os.path.join(ns_dir, name)
                if not os.path.isdir(coll):
                    continue
                marks = [os.path.join(coll, "MANIFEST.json"), os.path.join(coll, "FILES.json")]
                if all(os.path.isfile(mark) for mark in marks):
                    for mark in marks:
                        stat = os.stat(mark)
                        entries.append((mark, stat.st_size, stat.st_mtime_ns))
                else:
                    for sub in MODULE_DIRS:
                        entries.extend(_walk_files(os.path.join(coll, sub)))
    for folder in module_dirs:
        entries.extend(_walk_files(folder))
    return entries


def module_cache_key(versions, entries):
    """The digest that names a module cache: the versions, then every entry, in order."""
    digest = hashlib.sha256()
    for part in list(versions) + ["%s\0%d\0%d" % entry for entry in entries]:
        digest.update(part.encode("utf-8", "surrogateescape"))
        digest.update(b"\n")
    return digest.hexdigest()[:20]


def claim_cache_dir(base):
    """Make base the callback's cache directory; the reason it cannot be, or None.

    Only an absolute path is taken, and only a directory that is missing, empty or already
    marked as the callback's (CACHE_MARK), so that pruning never touches anything else.
    """
    if not base or not os.path.isabs(base):
        return "module_cache must be an absolute path, not %r" % base
    mark = os.path.join(base, CACHE_MARK)
    if os.path.isdir(base) and not os.path.isfile(mark) and os.listdir(base):
        return "%s is not empty and has no %s file: it is not a module cache this callback made" % (base, CACHE_MARK)
    os.makedirs(base, exist_ok=True)
    if not os.path.isfile(mark):
        with open(mark, "w") as handle:
            handle.write("AnsiballZ payloads kept by the gpuops.cluster.preload callback\n")
    return None


def prune_caches(base, keep, current, now=None, min_age=KEEP_USED_S):
    """Remove all but the keep most recently used caches in base: never current, never one used
    in the last min_age seconds (a run may still read it), and only subdirectories named like a
    cache key, in a directory carrying the callback's mark."""
    if not os.path.isfile(os.path.join(base, CACHE_MARK)):
        return []
    try:
        names = [name for name in os.listdir(base)
                 if CACHE_NAME.match(name) and os.path.isdir(os.path.join(base, name))
                 and not os.path.islink(os.path.join(base, name))]
    except OSError:
        return []
    names.sort(key=lambda name: os.stat(os.path.join(base, name)).st_mtime, reverse=True)
    removed = []
    now = time.time() if now is None else now
    for name in names[keep:]:
        if name != current and now - os.stat(os.path.join(base, name)).st_mtime >= min_age:
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
            removed.append(name)
    return removed


BYTECODE_PREFIX = "<ansiballz>/"


def bytecode_for(name, source):
    """The .pyc bytes of one payload file for this Python, or None when it does not compile here.

    An unchecked hash-based pyc (PEP 552): zipimport takes it as it is, without comparing it
    with the .py beside it, and skips it (reading the .py) on a Python whose magic number differs.
    """
    try:
        code = compile(source, BYTECODE_PREFIX + name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    data = source if isinstance(source, bytes) else source.encode("utf-8")
    return (importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little")
            + importlib.util.source_hash(data) + marshal.dumps(code))


def add_bytecode(zf):
    """Make every .py later written to the open payload zip zf carry its .pyc beside it."""
    write = zf.writestr

    def writestr(zinfo_or_arcname, data, *args, **kwargs):
        write(zinfo_or_arcname, data, *args, **kwargs)
        if isinstance(zinfo_or_arcname, zipfile.ZipInfo):
            name, date_time = zinfo_or_arcname.filename, zinfo_or_arcname.date_time
        else:
            name, date_time = str(zinfo_or_arcname), (1980, 1, 1, 0, 0, 0)
        if not name.endswith(".py"):
            return
        pyc = bytecode_for(name, data)
        if pyc is not None:
            info = zipfile.ZipInfo(name + "c", date_time=date_time)
            info.compress_type = zf.compression
            write(info, pyc)

    zf.writestr = writestr
    return zf


def install_bytecode(module_common):
    """Wrap module_common.recursive_finder (which gets the payload's zip first) to add byte code.

    Returns None when done (or already done), else why not: the ansible-core in use does not
    build its payloads the way this was written for.
    """
    finder = getattr(module_common, "recursive_finder", None)
    if finder is None:
        return "ansible-core has no module_common.recursive_finder"
    if getattr(finder, "_gpuops_bytecode", False):
        return None
    try:
        import inspect

        params = list(inspect.signature(finder).parameters)
    except (TypeError, ValueError):
        params = []
    if len(params) < 4 or params[3] != "zf":
        return "module_common.recursive_finder does not take the payload zip as its fourth argument (%s)" % params

    def recursive_finder(name, module_fqn, module_data, zf, *args, **kwargs):
        return finder(name, module_fqn, module_data, add_bytecode(zf), *args, **kwargs)

    recursive_finder._gpuops_bytecode = True
    module_common.recursive_finder = recursive_finder
    return None


def _playbook_module_dirs(playbook_dir):
    """The library and module_utils folders next to the playbook and in its roles."""
    dirs = [os.path.join(playbook_dir, "library"), os.path.join(playbook_dir, "module_utils")]
    roles = os.path.join(playbook_dir, "roles")
    if os.path.isdir(roles):
        for role in sorted(os.listdir(roles)):
            dirs.append(os.path.join(roles, role, "library"))
            dirs.append(os.path.join(roles, role, "module_utils"))
    return dirs


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "gpuops.cluster.preload"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, display=None):
        super().__init__(display=display)
        self._done = False
        self._bytecode = False
        # Sets of groups already looked at for their connection plugin, and the plugins imported.
        self._groups_seen = set()
        self._connections = set()

    def v2_playbook_on_start(self, playbook):
        if self._done:
            return
        self._done = True
        started = time.time()
        failed = []
        plugins_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for name in own_plugin_modules(plugins_dir):
            try:
                importlib.import_module(name)
            except Exception as exc:  # pylint: disable=broad-except
                failed.append("%s (%s)" % (name, exc))
        for loader in JINJA_LOADERS.values():
            try:
                list(loader.all())  # Ansible's own filters and tests
            except Exception as exc:  # pylint: disable=broad-except
                failed.append("%s (%s)" % (loader.type, exc))
        wanted, bad = parse_extra(self.get_option("plugins"))
        failed.extend("%s (not TYPE:FQCN)" % entry for entry in bad)
        for kind, name in wanted:
            try:
                if kind in JINJA_LOADERS:
                    found = JINJA_LOADERS[kind].get(name)
                else:
                    found = LOADERS[kind].get(name, class_only=True)
                if found is None:
                    failed.append("%s:%s (not found)" % (kind, name))
            except Exception as exc:  # pylint: disable=broad-except
                failed.append("%s:%s (%s)" % (kind, name, exc))
        self._display.vv("gpuops.cluster.preload: plugins imported in %.2f s" % (time.time() - started))
        if failed:
            self._display.v("gpuops.cluster.preload: left to the workers: %s" % "; ".join(failed))
        self._bytecode = bool(self.get_option("module_bytecode"))
        if self._bytecode:
            from ansible.executor import module_common

            refused = install_bytecode(module_common)
            if refused:
                self._bytecode = False
                self._display.warning("gpuops.cluster.preload: no byte code in the module payloads: %s" % refused)
        self._module_cache(playbook)

    def v2_playbook_on_play_start(self, play):
        try:
            self._play_connections(play)
        except Exception as exc:  # pylint: disable=broad-except
            self._display.v("gpuops.cluster.preload: connection plugins left to the workers: %s" % exc)

    def _play_connections(self, play):
        """Import the connection plugins of this play's hosts (one host per set of groups)."""
        manager = getattr(play, "_variable_manager", None)
        inventory = getattr(manager, "_inventory", None)
        if inventory is None:
            return
        pattern = play.hosts
        if not isinstance(pattern, (str, list)) or "{{" in str(pattern):
            pattern = "all"
        started = time.time()
        names = set()
        if connection_name(getattr(play, "connection", None)):
            names.add(connection_name(play.connection))
        for key, host in representatives(inventory.get_hosts(pattern), self._groups_seen):
            self._groups_seen.add(key)
            name = connection_name(manager.get_vars(play=play, host=host, include_hostvars=False)
                                   .get("ansible_connection"))
            if name:
                names.add(name)
        failed = []
        for name in sorted(names - self._connections):
            self._connections.add(name)
            try:
                if connection_loader.get(name, class_only=True) is None:
                    failed.append("%s (not found)" % name)
            except Exception as exc:  # pylint: disable=broad-except
                failed.append("%s (%s)" % (name, exc))
        self._display.vv("gpuops.cluster.preload: connection plugins %s in %.2f s"
                         % (", ".join(sorted(self._connections)) or "none", time.time() - started))
        if failed:
            self._display.v("gpuops.cluster.preload: connection plugins left to the workers: %s" % "; ".join(failed))

    def _module_cache(self, playbook):
        """Point this run's AnsiballZ cache at the persistent one for the current module sources."""
        base = os.path.expanduser((self.get_option("module_cache") or "").strip())
        if not base:
            return
        started = time.time()
        try:
            refused = claim_cache_dir(base)
            if refused:
                self._display.warning("gpuops.cluster.preload: no module cache: %s" % refused)
                return
            from ansible.utils.collection_loader._collection_finder import AnsibleCollectionConfig

            ansible_dir = os.path.dirname(os.path.abspath(C.__file__))
            module_dirs = [os.path.join(ansible_dir, "modules"), os.path.join(ansible_dir, "module_utils")]
            module_dirs += list(C.DEFAULT_MODULE_PATH or []) + list(C.DEFAULT_MODULE_UTILS_PATH or [])
            try:
                module_dirs += _playbook_module_dirs(os.path.dirname(os.path.abspath(playbook._file_name)))
            except (AttributeError, TypeError):
                pass
            entries = module_sources(list(AnsibleCollectionConfig.collection_paths or []), module_dirs)
            versions = [ANSIBLE_CORE_VERSION, sys.version] + (["bytecode"] if self._bytecode else [])
            key = module_cache_key(versions, entries)
            target = os.path.join(base, key)
            os.makedirs(target, exist_ok=True)
            os.utime(target)
            link = os.path.join(C.DEFAULT_LOCAL_TMP, "ansiballz_cache")
            if os.path.lexists(link):
                self._display.v("gpuops.cluster.preload: %s exists already, the module cache is not used" % link)
                return
            os.symlink(target, link)
            prune_caches(base, KEEP_CACHES, key)
        except Exception as exc:  # pylint: disable=broad-except
            self._display.warning("gpuops.cluster.preload: module cache %s not used: %s" % (base, exc))
            return
        self._display.vv("gpuops.cluster.preload: module cache %s (%d sources, %.2f s)"
                         % (target, len(entries), time.time() - started))

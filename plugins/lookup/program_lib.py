# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
name: program_lib
short_description: The collection's own module_utils files, as gpuops.cluster.file_bundle entries for a program on a node
version_added: 0.2.0
description:
  - The programs the collection installs on nodes (the health check, the GPU and Slurm exporters) import
    the collection's parsers unchanged, from a private copy under their install directory. This lookup
    returns, for the module_utils files given, the directories of the
    C(ansible_collections/gpuops/cluster/plugins/module_utils) tree and one file entry per name, with the
    file's content read from this collection.
  - A name may sit in one package of module_utils (V(common/_text.py)); that package's directory and its
    C(__init__.py) come with it.
  - The files the named ones import from this collection's module_utils come too, and theirs in turn, so
    the list names only what the program imports itself and a new import can never leave a node's copy
    short of a module. An import of any other part of Ansible is refused (the nodes do not have Ansible).
  - One rule for every program, so a node runs the same parser code that the modules and tests run.
author:
  - gpuops.cluster contributors (@gpuops)
options:
  _terms:
    description: module_utils files, relative to C(plugins/module_utils), such as V(health/_health.py).
    required: true
    type: list
    elements: str
  lib_dir:
    description: The directory the C(ansible_collections) tree goes into (the program adds it to C(sys.path)).
    required: true
    type: str
"""

EXAMPLES = r"""
- name: Install the program's copy of the parsers
  gpuops.cluster.file_bundle:
    files: "{{ lookup('gpuops.cluster.program_lib', 'common/_text.py', 'gpu/_gpu_facts.py', lib_dir='/opt/gpuops/exporter/lib') }}"
"""

RETURN = r"""
_raw:
  description: file_bundle entries (directories first, then files; owner root, mode 0755/0644).
  type: list
  elements: dict
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.lookup import LookupBase
from ansible_collections.gpuops.cluster.plugins.module_utils.common._program_files import closure

PACKAGE = ("ansible_collections", "gpuops", "cluster", "plugins", "module_utils")


def _read(source, name):
    try:
        with open(os.path.join(source, name), "rb") as handle:
            return to_text(handle.read(), errors="surrogate_or_strict")
    except (IOError, OSError) as exc:
        raise AnsibleLookupError("program_lib: cannot read module_utils/%s: %s" % (name, exc))


class LookupModule(LookupBase):
    """file_bundle entries of the named module_utils files under lib_dir."""

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        lib_dir = self.get_option("lib_dir")
        if not lib_dir or not os.path.isabs(lib_dir):
            raise AnsibleLookupError("program_lib: lib_dir must be an absolute path, got %r" % (lib_dir,))
        source = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils")
        entries = []
        path = lib_dir.rstrip("/")
        entries.append({"path": path, "state": "directory", "owner": "root", "group": "root", "mode": "0755"})
        for part in PACKAGE:
            path = os.path.join(path, part)
            entries.append({"path": path, "state": "directory", "owner": "root", "group": "root", "mode": "0755"})
        names = []
        for name in terms:
            name = to_text(name)
            parts = name.split("/")
            if len(parts) > 2 or not all(parts) or any(part in (".", "..") for part in parts) or not name.endswith(".py"):
                raise AnsibleLookupError("program_lib: %r is not a module_utils file name (like common/_text.py)" % name)
            names.append(name)
        try:
            names, contents = closure(names, lambda name: _read(source, name))
        except ValueError as exc:
            raise AnsibleLookupError("program_lib: %s" % exc)
        files = []
        for name in names:
            parts = name.split("/")
            if len(parts) == 2:
                package = parts[0]
                init = package + "/__init__.py"
                if not any(entry["path"] == os.path.join(path, package) for entry in entries):
                    entries.append({"path": os.path.join(path, package), "state": "directory", "owner": "root",
                                    "group": "root", "mode": "0755"})
                    if os.path.exists(os.path.join(source, init)) and init not in names:
                        files.append(init)
            files.append(name)
        for name in files:
            if name not in contents:
                contents[name] = _read(source, name)
            entries.append({"path": os.path.join(path, name), "content": contents[name], "owner": "root", "group": "root",
                            "mode": "0644"})
        return [entries]

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
name: program_lib
short_description: The collection's module_utils a program imports, as gpuops.cluster.file_bundle entries for a node
version_added: 0.2.0
description:
  - The programs the collection installs on nodes (the health check, the GPU and Slurm exporters) import
    the collection's parsers unchanged, from a private copy under their install directory. This lookup
    reads the program's own imports of C(ansible_collections.gpuops.cluster.plugins.module_utils), and theirs in
    turn, and returns the directories of that tree and one file entry per module, with the file's content
    read from this collection. Nothing is listed by hand, so a new import can never leave a node's copy
    short of a module.
  - Each package's C(__init__.py) comes with its directory.
  - An import of any other part of Ansible, by the program or a module it needs, is refused (the nodes do
    not have Ansible).
  - One rule for every program, so a node runs the same parser code that the modules and tests run.
author:
  - gpuops.cluster contributors (@gpuops)
options:
  _terms:
    description: The program's file, found as M(ansible.builtin.copy) finds C(src) (a role's C(files/), or a path).
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
    files: "{{ lookup('gpuops.cluster.program_lib', 'gpuops_gpu_exporter.py', lib_dir='/opt/gpuops/gpu-exporter/lib') }}"
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
from ansible_collections.gpuops.cluster.plugins.module_utils.common._program_files import program_files

PACKAGE = ("ansible_collections", "gpuops", "cluster", "plugins", "module_utils")


def _read(path, what):
    try:
        with open(path, "rb") as handle:
            return to_text(handle.read(), errors="surrogate_or_strict")
    except (IOError, OSError) as exc:
        raise AnsibleLookupError("program_lib: cannot read %s: %s" % (what, exc))


class LookupModule(LookupBase):
    """file_bundle entries of the module_utils files a program imports, under lib_dir."""

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        lib_dir = self.get_option("lib_dir")
        if not lib_dir or not os.path.isabs(lib_dir):
            raise AnsibleLookupError("program_lib: lib_dir must be an absolute path, got %r" % (lib_dir,))
        source = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils")
        names, contents = [], {}
        for term in terms:
            program = self.find_file_in_search_path(variables, "files", to_text(term))
            if not program:
                raise AnsibleLookupError("program_lib: cannot find the program %s" % term)
            try:
                found, read = program_files(to_text(term), _read(program, program),
                                            lambda name: _read(os.path.join(source, name), "module_utils/" + name))
            except ValueError as exc:
                raise AnsibleLookupError("program_lib: %s" % exc)
            names += [name for name in found if name not in names]
            contents.update(read)
        entries = []
        path = lib_dir.rstrip("/")
        entries.append({"path": path, "state": "directory", "owner": "root", "group": "root", "mode": "0755"})
        for part in PACKAGE:
            path = os.path.join(path, part)
            entries.append({"path": path, "state": "directory", "owner": "root", "group": "root", "mode": "0755"})
        files = []
        for name in names:
            package = name.split("/")[0]
            init = package + "/__init__.py"
            if not any(entry["path"] == os.path.join(path, package) for entry in entries):
                entries.append({"path": os.path.join(path, package), "state": "directory", "owner": "root",
                                "group": "root", "mode": "0755"})
                if os.path.exists(os.path.join(source, init)) and init not in names:
                    files.append(init)
            files.append(name)
        for name in files:
            if name not in contents:
                contents[name] = _read(os.path.join(source, name), "module_utils/" + name)
            entries.append({"path": os.path.join(path, name), "content": contents[name], "owner": "root", "group": "root",
                            "mode": "0644"})
        return [entries]

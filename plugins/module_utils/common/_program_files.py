# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which module_utils files a program on a node needs: the ones it imports, and theirs in turn.

The health check and the exporters run on nodes without Ansible, from a
private copy of the collection's module_utils (the lookup program_lib installs
it). One rule finds that copy's files from the program's own imports, for the
roles and for the tests and bench scripts that lay the program out the same way.

Pure functions, standard library only (the bench scripts load this file by path).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

OWN = "ansible_collections.gpuops.cluster.plugins.module_utils"

# "from X import a, b", "from X import (a,\n b)" and "import X, Y", at the start of a line.
_FROM = re.compile(r"^[ \t]*from[ \t]+([A-Za-z0-9_.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#]*)", re.MULTILINE)
_OWN = OWN + "."


def _names(text):
    """The names of an import list ('a as b, c' or '(a,\\n c,)'), without their aliases."""
    text = re.sub(r"#[^\n]*", "", text).strip().strip("()").replace("\n", " ")
    return [item.split()[0] for item in text.split(",") if item.strip()]


def _file_of(name, module):
    """pkg/_mod.py for the collection's module OWN.pkg._mod; None for another module; ValueError for Ansible."""
    if module.startswith(_OWN):
        parts = module[len(_OWN):].split(".")
        if len(parts) != 2 or not all(parts):
            raise ValueError("%s imports %s, which is not a module_utils file in one package" % (name, module))
        return "%s/%s.py" % tuple(parts)
    if module == "ansible" or module.startswith(("ansible.", "ansible_collections.")):
        raise ValueError("%s imports %s, which a program on a node does not have" % (name, module))
    return None


def imported_files(name, content):
    """module_utils files (like slurm/_gres.py) that content imports from this collection, in order, each once.

    Both forms count: 'from OWN.pkg._mod import x' and 'from OWN.pkg import _mod'.
    Raises ValueError for an import of Ansible itself or of another plugin type,
    which a program on a node cannot load.
    """
    found = []
    matches = [(match.start(), match.group(1), _names(match.group(2))) for match in _FROM.finditer(content)]
    matches += [(match.start(), None, _names(match.group(1))) for match in _IMPORT.finditer(content)]
    for _start, module, names in sorted(matches, key=lambda match: match[0]):
        if module is None:
            modules = names
        elif module + "." == _OWN or (module.startswith(_OWN) and "." not in module[len(_OWN):]):
            modules = ["%s.%s" % (module, item) for item in names]
        else:
            modules = [module]
        for each in modules:
            path = _file_of(name, each)
            if path and path not in found:
                found.append(path)
    return found


def closure(names, read):
    """names and every module_utils file they import, in turn; (names in order, {name: content}).

    read(name) gives a file's content; the first names keep their order, the
    imported ones follow in the order they are found.
    """
    names = list(names)
    contents = {}
    queue = list(names)
    while queue:
        name = queue.pop(0)
        if name in contents:
            continue
        contents[name] = read(name)
        queue.extend(imported_files(name, contents[name]))
        if name not in names:
            names.append(name)
    return names, contents


def program_files(program, content, read):
    """(module_utils files, {name: content}) that the program (its name and text) needs on a node."""
    return closure(imported_files(program, content), read)

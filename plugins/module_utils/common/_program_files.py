# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which module_utils files a program on a node needs: the ones it names and what they import, in turn.

The health check and the exporters run on nodes without Ansible, from a
private copy of the collection's module_utils (the lookup program_lib installs
it). One rule finds that copy's files, for the role and for the tests and bench
scripts that lay the program out the same way.

Pure functions, standard library only (the bench scripts load this file by path).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

OWN = "ansible_collections.gpuops.cluster.plugins.module_utils"

# An import statement of a Python module: "from X import ..." or "import X".
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([A-Za-z0-9_.]+)[ \t]+import|import[ \t]+([A-Za-z0-9_.]+))", re.MULTILINE)
_OWN = OWN + "."


def imported_files(name, content):
    """module_utils files (like slurm/_gres.py) that content imports from this collection.

    Raises ValueError for an import of Ansible itself or of another plugin type,
    which a program on a node cannot load.
    """
    found = []
    for match in _IMPORT.finditer(content):
        module = match.group(1) or match.group(2)
        if module.startswith(_OWN):
            parts = module[len(_OWN):].split(".")
            if len(parts) != 2:
                raise ValueError("%s imports %s, which is not a module_utils file in one package" % (name, module))
            found.append("%s/%s.py" % tuple(parts))
        elif module == "ansible" or module.startswith(("ansible.", "ansible_collections.")):
            raise ValueError("%s imports %s, which a program on a node does not have" % (name, module))
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

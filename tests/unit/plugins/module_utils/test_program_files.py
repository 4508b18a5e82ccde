# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The programs on the nodes carry a copy of the module_utils files they import: program_lib follows the imports,
so the copy of each role's list loads in a bare Python (no Ansible, no site-packages)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.common._program_files import closure, imported_files

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
SOURCE = os.path.join(ROOT, "plugins", "module_utils")
OWN = "ansible_collections.gpuops.cluster.plugins.module_utils"
PROGRAMS = [
    ("node_health", "__node_health_lib_files"),
    ("gpu_exporter", "__gpu_exporter_lib_files"),
    ("slurm_exporter", "__slurm_exporter_lib_files"),
]


def _read(name):
    with open(os.path.join(SOURCE, name)) as handle:
        return handle.read()


def test_imported_files_names_the_collections_own_modules():
    content = ("import re\n"
               "from %s.slurm._gres import gres_count\n"
               "from %s.common._text import (\n    guarded,\n)\n"
               "    import %s.validate._clock\n"
               "text = 'no import here'\n") % (OWN, OWN, OWN)
    assert imported_files("x.py", content) == ["slurm/_gres.py", "common/_text.py", "validate/_clock.py"]


@pytest.mark.parametrize("line", [
    "from ansible.module_utils.basic import AnsibleModule",
    "import ansible",
    "from ansible_collections.community.general.plugins.module_utils import x",
    "from ansible_collections.gpuops.cluster.plugins.filter.hostlist import FilterModule",
])
def test_imports_a_node_cannot_load_are_refused(line):
    with pytest.raises(ValueError, match="x.py imports"):
        imported_files("x.py", "import os\n%s\n" % line)


def test_closure_follows_imports_in_turn():
    files = {
        "a/_a.py": "from %s.b._b import x\n" % OWN,
        "b/_b.py": "from %s.c._c import y\nfrom %s.a._a import z\n" % (OWN, OWN),
        "c/_c.py": "import re\n",
    }
    names, contents = closure(["a/_a.py"], files.__getitem__)
    assert names == ["a/_a.py", "b/_b.py", "c/_c.py"]
    assert contents == files


def test_validate_checks_brings_the_gres_rule_not_the_cluster_model():
    names = closure(["validate/_validate_checks.py"], _read)[0]
    assert "slurm/_gres.py" in names
    assert "slurm/_slurm_model.py" not in names


@pytest.mark.parametrize("role, var", PROGRAMS)
def test_each_programs_copy_loads_without_ansible(tmp_path, role, var):
    with open(os.path.join(ROOT, "roles", role, "vars", "main.yml")) as handle:
        listed = yaml.safe_load(handle)[var]
    names, contents = closure(listed, _read)
    lib = tmp_path / "lib"
    base = lib.joinpath(*OWN.split("."))
    for name in names:
        package = name.split("/")[0]
        for init in (base.parent.parent.parent.parent, base.parent.parent.parent, base.parent.parent, base.parent, base,
                     base / package):
            init.mkdir(parents=True, exist_ok=True)
        if os.path.exists(os.path.join(SOURCE, package, "__init__.py")):
            (base / package / "__init__.py").write_text(_read(package + "/__init__.py"))
        (base / name).write_text(contents[name])
    modules = ["%s.%s" % (OWN, name[:-3].replace("/", ".")) for name in listed]
    script = "import sys; sys.path.insert(0, %r)\n" % str(lib) + "".join("import %s\n" % module for module in modules)
    # -S: no site-packages, so nothing of Ansible is there to lean on.
    run = subprocess.run([sys.executable, "-S", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, check=False)
    assert run.returncode == 0, run.stdout

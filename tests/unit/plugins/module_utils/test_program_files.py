# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The programs on the nodes carry a copy of the module_utils files they import: the rule follows the program's
imports, and theirs in turn, so each program's copy loads in a bare Python (no Ansible, no site-packages)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys

import pytest

from ansible_collections.gpuops.cluster.plugins.module_utils.common._program_files import (
    closure,
    imported_files,
    program_files,
)

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
SOURCE = os.path.join(ROOT, "plugins", "module_utils")
OWN = "ansible_collections.gpuops.cluster.plugins.module_utils"
PROGRAMS = [
    ("node_health", "gpuops_health.py"),
    ("gpu_exporter", "gpuops_gpu_exporter.py"),
    ("slurm_exporter", "gpuops_slurm_exporter.py"),
    ("node_image", "gpuops_node_join.py"),
]


def _read(name):
    with open(os.path.join(SOURCE, name)) as handle:
        return handle.read()


def test_imported_files_names_the_collections_own_modules():
    content = ("import re\n"
               "from %s.slurm._gres import gres_count\n"
               "from %s.common._text import (\n    guarded,\n)\n"
               "    import %s.validate._clock\n"
               "from %s.health import _health as health  # noqa: E402\n"
               "from %s.gpu import (  # noqa: E402\n    _gpu_facts,\n    _gpu_plan as plan,\n)\n"
               "import os, %s.fabric._ib_facts\n"
               "from %s.slurm._gres import gres_count as again\n"
               "text = 'no import here'\n") % ((OWN,) * 7)
    assert imported_files("x.py", content) == ["slurm/_gres.py", "common/_text.py", "validate/_clock.py",
                                               "health/_health.py", "gpu/_gpu_facts.py", "gpu/_gpu_plan.py",
                                               "fabric/_ib_facts.py"]


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


def test_a_program_needs_what_it_imports_in_turn():
    files = {"a/_a.py": "from %s.b._b import x\n" % OWN, "b/_b.py": "import re\n"}
    names, contents = program_files("prog.py", "import sys\nfrom %s.a import _a\n" % OWN, files.__getitem__)
    assert names == ["a/_a.py", "b/_b.py"] and contents == files


def test_validate_checks_brings_the_gres_rule_not_the_cluster_model():
    names = closure(["validate/_validate_checks.py"], _read)[0]
    assert "slurm/_gres.py" in names
    assert "slurm/_slurm_model.py" not in names


@pytest.mark.parametrize("role, program", PROGRAMS)
def test_each_programs_copy_loads_without_ansible(tmp_path, role, program):
    with open(os.path.join(ROOT, "roles", role, "files", program)) as handle:
        text = handle.read()
    names, contents = program_files(program, text, _read)
    direct = imported_files(program, text)
    assert direct and set(direct) <= set(names)
    lib = tmp_path / "lib"
    base = lib.joinpath(*OWN.split("."))
    for name in names:
        package = name.split("/")[0]
        (base / package).mkdir(parents=True, exist_ok=True)
        if os.path.exists(os.path.join(SOURCE, package, "__init__.py")):
            (base / package / "__init__.py").write_text(_read(package + "/__init__.py"))
        (base / name).write_text(contents[name])
    modules = ["%s.%s" % (OWN, name[:-3].replace("/", ".")) for name in direct]
    script = "import sys; sys.path.insert(0, %r)\n" % str(lib) + "".join("import %s\n" % module for module in modules)
    # -S: no site-packages, so nothing of Ansible is there to lean on.
    run = subprocess.run([sys.executable, "-S", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, check=False)
    assert run.returncode == 0, run.stdout

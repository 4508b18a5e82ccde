"""CUDA_DEVICE_ORDER in a job's environment: the files that set it, rendered by Ansible and then run.

CUDA numbers the GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, and
gres.conf lists them in PCI bus order, so the Slurm TaskProlog
(_slurm_common's node_script.j2), the env_modules modulefiles (cuda, nccl)
and pytorch_env's env.sh and modulefile set it to PCI_BUS_ID where it is
unset or empty, and keep a value the user gave. The shell files run under
/bin/sh; the modulefiles are evaluated by tclsh (Lmod reads Tcl modulefiles
through Tcl too) with small stand-ins for the module commands, where tclsh
is installed. The Molecule suite checks the same in a real job
(molecule/shared/verify.yml).
"""

import os
import shutil
import subprocess

import pytest
import yaml

from _preflight import REPO, local_host, run_playbook

TOOLKIT = {"version": "12.4", "prefix": "/usr/local/cuda-12.4", "lib_dirs": ["/usr/local/cuda-12.4/lib64"]}
PYTORCH = {"__pytorch_env_dir": "/opt/gpuops/pytorch/2.13.0-cpu", "__pytorch_env_name": "2.13.0-cpu",
           "pytorch_env_version": "2.13.0", "pytorch_env_build": "cpu", "pytorch_env_examples_dir": "/opt/gpuops/examples/ddp",
           "pytorch_env_modulefiles_dir": "/opt/gpuops/modulefiles"}
# (rendered file name, template, its variables)
FILES = [
    ("task_prolog", REPO / "roles" / "_slurm_common" / "templates" / "node_script.j2",
     {"__slurm_script": "task_prolog", "__slurm_node_scripts": {"task_prolog": "{{ render_out }}/task_prolog"}}),
    ("cuda.modulefile", REPO / "roles" / "env_modules" / "templates" / "cuda.modulefile.j2",
     {"__env_modules_file": {"toolkit": TOOLKIT}}),
    ("nccl.modulefile", REPO / "roles" / "env_modules" / "templates" / "nccl.modulefile.j2",
     {"env_modules_nccl_conf_path": "{{ render_out }}/nccl.conf"}),
    ("env.sh", REPO / "roles" / "pytorch_env" / "templates" / "env.sh.j2", PYTORCH),
    ("pytorch.modulefile", REPO / "roles" / "pytorch_env" / "templates" / "modulefile.j2", PYTORCH),
]
# Stand-ins for the modulefile commands: setenv sets the variable; the others do nothing here.
TCL_HARNESS = """
proc setenv {name value} { global env; set env($name) $value }
proc prepend-path {args} {}
proc module-whatis {args} {}
proc conflict {args} {}
source [lindex $argv 0]
if {[info exists env(CUDA_DEVICE_ORDER)]} { puts "CUDA_DEVICE_ORDER=$env(CUDA_DEVICE_ORDER)" } else { puts "unset" }
"""


@pytest.fixture(scope="module", name="rendered")
def fixture_rendered(tmp_path_factory):
    """The directory holding every file of FILES, rendered by ansible.builtin.template."""
    tmp_path = tmp_path_factory.mktemp("job_env")
    out = tmp_path / "out"
    out.mkdir()
    tasks = [{"name": "Render %s" % name,
              "ansible.builtin.template": {"src": str(src), "dest": "{{ render_out }}/%s" % name, "mode": "0755"},
              "vars": variables}
             for name, src, variables in FILES]
    playbook = tmp_path / "play.yml"
    playbook.write_text(yaml.safe_dump([{"name": "Render the job environment files", "hosts": "all",
                                         "gather_facts": False, "tasks": tasks}], sort_keys=False))
    rc, log = run_playbook(tmp_path, playbook, {"hosts": {"node": local_host({}, render_out=str(out))}}, args=())
    assert rc == 0, log
    # One script of the task_prolog.d directory the TaskProlog runs, as env_modules puts its own there.
    (out / "task_prolog.d").mkdir()
    script = out / "task_prolog.d" / "50-other.sh"
    script.write_text("#!/bin/sh\necho export OTHER=1\n")
    script.chmod(0o755)
    return out


def _env(**values):
    """This process's environment without CUDA_DEVICE_ORDER and Slurm's step id, plus values."""
    env = dict((key, value) for key, value in os.environ.items() if key not in ("CUDA_DEVICE_ORDER", "SLURM_STEP_ID"))
    env.update(values)
    return env


def _run(argv, env):
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    return proc.stdout.splitlines()


@pytest.mark.parametrize("given, printed", [
    (None, ["export CUDA_DEVICE_ORDER=PCI_BUS_ID", "export OTHER=1"]),
    ("", ["export CUDA_DEVICE_ORDER=PCI_BUS_ID", "export OTHER=1"]),
    ("FASTEST_FIRST", ["export OTHER=1"]),
    ("PCI_BUS_ID", ["export OTHER=1"]),
])
def test_task_prolog_prints_cuda_device_order_unless_the_job_has_it(rendered, given, printed):
    env = _env() if given is None else _env(CUDA_DEVICE_ORDER=given)
    assert _run(["/bin/sh", str(rendered / "task_prolog")], env) == printed


@pytest.mark.parametrize("given, seen", [(None, "PCI_BUS_ID"), ("", "PCI_BUS_ID"), ("FASTEST_FIRST", "FASTEST_FIRST")])
def test_env_sh_exports_cuda_device_order_unless_set(rendered, given, seen):
    env = _env() if given is None else _env(CUDA_DEVICE_ORDER=given)
    # The value a child process sees: env.sh must export it, not only set it.
    lines = _run(["/bin/sh", "-c", '. "$1" && sh -c \'echo "CUDA_DEVICE_ORDER=$CUDA_DEVICE_ORDER"\'', "sh",
                  str(rendered / "env.sh")], env)
    assert lines == ["CUDA_DEVICE_ORDER=" + seen]


@pytest.mark.skipif(shutil.which("tclsh") is None, reason="tclsh is not installed")
@pytest.mark.parametrize("name", ["cuda.modulefile", "nccl.modulefile", "pytorch.modulefile"])
@pytest.mark.parametrize("given, seen", [(None, "PCI_BUS_ID"), ("", "PCI_BUS_ID"), ("FASTEST_FIRST", "FASTEST_FIRST")])
def test_modulefiles_set_cuda_device_order_unless_set(rendered, name, given, seen):
    harness = rendered / "harness.tcl"
    harness.write_text(TCL_HARNESS)
    env = _env() if given is None else _env(CUDA_DEVICE_ORDER=given)
    assert _run([shutil.which("tclsh"), str(harness), str(rendered / name)], env) == ["CUDA_DEVICE_ORDER=" + seen]

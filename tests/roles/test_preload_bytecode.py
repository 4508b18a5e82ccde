"""gpuops.cluster.preload's module_bytecode, end to end: ansible-playbook with the repository's
ansible.cfg packs a module with byte code beside its Python files, and the host (this Python,
the controller's version) runs the byte code; without the option it runs the source as before."""

import base64
import io
import os
import pathlib
import subprocess
import sys
import zipfile

import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]

WHERE = '''#!/usr/bin/python
from ansible.module_utils.basic import AnsibleModule
import ansible.module_utils.basic as basic


def main():
    module = AnsibleModule(argument_spec={})
    module.exit_json(changed=False, basic=basic.__file__)


if __name__ == "__main__":
    main()
'''


def _run(tmp_path, bytecode):
    (tmp_path / "library").mkdir(exist_ok=True)
    (tmp_path / "library" / "where.py").write_text(WHERE)
    (tmp_path / "play.yml").write_text(yaml.safe_dump([{
        "name": "Where the module's code came from", "hosts": "node", "gather_facts": False,
        "tasks": [{"name": "Ask", "where": {}, "register": "where"},
                  {"name": "Say", "ansible.builtin.debug": {"msg": "BASIC={{ where.basic }}"}}]}]))
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump({"all": {"hosts": {"node": {
        "ansible_connection": "local", "ansible_python_interpreter": sys.executable}}}}))
    cache = tmp_path / ("cache-on" if bytecode else "cache-off")
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               GPUOPS_PRELOAD_MODULE_CACHE=str(cache), GPUOPS_PRELOAD_MODULE_BYTECODE=str(bytecode).lower())
    bin_dir = pathlib.Path(sys.executable).parent
    proc = subprocess.run([str(bin_dir / "ansible-playbook"), "-i", str(tmp_path / "hosts.yml"),
                           str(tmp_path / "play.yml")], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    basic = [line.split("BASIC=", 1)[1].strip().strip('"') for line in out.splitlines() if "BASIC=" in line]
    return basic[0], cache


def _payload_names(cache):
    """The file names inside the cached payload of the where module."""
    found = [p for p in cache.rglob("*where*") if not p.name.endswith(".lock")]
    assert len(found) == 1, found
    raw = found[0].read_bytes()
    start = raw.index(b"UEsDB")  # the base64 of a zip's first header, inside the cache record
    end = start
    while end < len(raw) and raw[end:end + 1] in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=":
        end += 1
    return zipfile.ZipFile(io.BytesIO(base64.b64decode(raw[start:end]))).namelist()


def test_with_the_option_the_host_runs_the_byte_code(tmp_path):
    basic, cache = _run(tmp_path, True)
    assert basic.endswith("ansible/module_utils/basic.pyc"), basic
    names = _payload_names(cache)
    sources = sorted(name for name in names if name.endswith(".py"))
    assert "ansible/module_utils/basic.py" in sources
    assert sorted(name[:-1] for name in names if name.endswith(".pyc")) == sources


def test_without_it_the_host_compiles_the_source(tmp_path):
    basic, cache = _run(tmp_path, False)
    assert basic.endswith("ansible/module_utils/basic.py"), basic
    assert not [name for name in _payload_names(cache) if name.endswith(".pyc")]

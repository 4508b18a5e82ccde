"""The execution environment files: ansible-builder reads the collection's needs and accepts a site's EE definition.

Nothing is built (no registry or base image here): `introspect` is what ansible-builder runs on
the installed collections inside a build, and `create` is the build's first step, which writes
the build context from the definition.
"""

import pathlib
import shutil
import subprocess
import sys

import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILDER = pathlib.Path(sys.executable).parent / "ansible-builder"


def run(*args, cwd=None):
    proc = subprocess.run([str(BUILDER)] + list(args), cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False)
    return proc.returncode, proc.stdout + proc.stderr


def test_introspect_reads_the_collections_requirements(tmp_path):
    # The collection as ansible-builder finds it in an EE: <dir>/ansible_collections/gpuops/cluster.
    (tmp_path / "ansible_collections" / "gpuops").mkdir(parents=True)
    (tmp_path / "ansible_collections" / "gpuops" / "cluster").symlink_to(REPO)
    rc, out = run("introspect", "--sanitize", "--write-bindep", str(tmp_path / "bindep.txt"),
                  "--write-pip", str(tmp_path / "requirements.txt"), str(tmp_path))
    assert rc == 0, out
    data = yaml.safe_load(out.split("\n", 1)[1])
    assert data["python"] == [], out
    assert data["system"] == ["openssh-client [platform:dpkg]  # from collection gpuops.cluster",
                              "openssh-clients [platform:rpm]  # from collection gpuops.cluster"], out
    # The meta file names the two files by paths relative to the collection's root.
    meta = yaml.safe_load((REPO / "meta" / "execution-environment.yml").read_text())
    assert meta["dependencies"] == {"python": "requirements.txt", "system": "bindep.txt"}


def test_create_accepts_the_sites_definition(tmp_path):
    work = tmp_path / "infra"
    work.mkdir()
    shutil.copy(REPO / "tests" / "ee" / "execution-environment.yml", work)
    # The tarball `make dist` builds; create copies it into the context (its content is not read).
    (work / "gpuops-cluster-0.1.0.tar.gz").write_bytes(b"")
    rc, out = run("create", "-f", "execution-environment.yml", "--context", str(tmp_path / "context"), cwd=work)
    assert rc == 0, out
    context = tmp_path / "context"
    assert any((context / name).is_file() for name in ("Containerfile", "Dockerfile")), out
    requirements = yaml.safe_load((context / "_build" / "requirements.yml").read_text())
    assert requirements == {"collections": [{"name": "collections/gpuops-cluster-0.1.0.tar.gz", "type": "file"}]}
    assert (context / "_build" / "collections" / "gpuops-cluster-0.1.0.tar.gz").is_file()

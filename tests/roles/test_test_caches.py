"""make test says which kind of run it was: tools/test-summary.py reads the
caches tools/test-caches.sh found cold or warm at the start of the run.

The first test runs tools/test-caches.sh on a checkout with nothing built
into it (a temporary copy of the script beside an empty tree): every cache
it reads there must be cold. The others pin the kinds the summary prints.
"""

import importlib.util
import json
import os
import pathlib
import shutil
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("test_summary", ROOT / "tools" / "test-summary.py")
summary = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(summary)


def _write(tmp_path, rows):
    path = tmp_path / "caches.tsv"
    path.write_text("".join("\t".join(row) + "\n" for row in rows))
    return path


def test_an_empty_checkout_reads_cold(tmp_path):
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "test-caches.sh", tmp_path / "tools")
    (tmp_path / "requirements-dev.txt").write_text("")
    env = dict(os.environ, HOME=str(tmp_path / "home"), GPUOPS_SLURM_PACKAGE_CACHE=str(tmp_path / "none"),
               PATH="/usr/bin:/bin")
    proc = subprocess.run(["bash", str(tmp_path / "tools" / "test-caches.sh")], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    rows = {line.split("\t")[1]: line.split("\t")[2] for line in proc.stdout.splitlines()}
    assert set(rows) >= {"venv", "ansible-test", "apt", "images", "slurm-packages", "wheelhouse"}
    for name in ("venv", "ansible-test", "slurm-packages", "wheelhouse"):
        assert rows[name] == "cold", (name, proc.stdout)


def _images_row(tmp_path, tags):
    """The images row of tools/test-caches.sh with no Docker daemon, docker's tag list on disk holding tags."""
    repositories = tmp_path / "repositories.json"
    listed = {}
    for tag in tags:
        listed.setdefault(tag.split(":")[0], {})[tag] = "sha256:0"
    repositories.write_text(json.dumps({"Repositories": listed}))
    env = dict(os.environ, DOCKER_HOST=f"unix://{tmp_path}/no-daemon.sock",
               GPUOPS_DOCKER_REPOSITORIES=str(repositories))
    proc = subprocess.run(["bash", str(ROOT / "tools" / "test-caches.sh")], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    return next(line.split("\t") for line in proc.stdout.splitlines() if line.split("\t")[1] == "images")


def test_images_are_read_from_disk_before_the_daemon_runs(tmp_path):
    # Before the setup starts dockerd, the images are those docker's store on disk names.
    every = ["gpuops-lab:bookworm", "gpuops-lab:trixie", "gpuops-pkgs:bookworm", "gpuops-pkgs:trixie",
             "gpuops-cuda:bookworm"]
    assert _images_row(tmp_path, every)[2] == "warm"
    row = _images_row(tmp_path, every[:-1])
    assert row[2:] == ["cold", "missing: gpuops-cuda:bookworm"]


def test_every_cache_cold_is_a_fresh_machine(tmp_path):
    lines = summary.caches_lines(_write(tmp_path, [("checkout", "venv", "cold", "no .venv"),
                                                   ("machine", "images", "cold", "missing: all")]))
    assert lines[0] == "Caches at the start: a fresh machine: every cache of the machine cold"
    assert lines[1].split() == ["checkout", "venv", "cold", "no", ".venv"]


def test_a_clean_clone_on_a_warm_machine_is_warm(tmp_path):
    lines = summary.caches_lines(_write(tmp_path, [("checkout", "venv", "cold", "x"), ("machine", "images", "warm", "y")]))
    assert lines[0] == "Caches at the start: a warm machine: no cache of the machine cold"


def test_some_cold_names_them(tmp_path):
    lines = summary.caches_lines(_write(tmp_path, [("machine", "apt", "warm", "x"), ("machine", "images", "cold", "y"),
                                                   ("machine", "slurm-packages", "cold", "z")]))
    assert lines[0] == "Caches at the start: a partly warm machine: cold images, slurm-packages"


def test_no_file_no_lines(tmp_path):
    assert not summary.caches_lines(tmp_path / "caches.tsv")


def test_the_machine_line_compares_the_probe_with_the_reference(tmp_path):
    path = tmp_path / "machine.tsv"
    path.write_text("2\tIntel(R) Xeon(R) Processor\t%.2f\n" % (summary.SPEED_REFERENCE_S * 2))
    lines = summary.machine_lines(path)
    assert len(lines) == 1
    assert "2 cores, Intel(R) Xeon(R) Processor" in lines[0]
    assert "2.00 x the reference" in lines[0]
    path.write_text("garbage\n")
    assert summary.machine_lines(path) == []
    assert summary.machine_lines(tmp_path / "missing.tsv") == []


def test_the_speed_probe_prints_cores_cpu_and_seconds():
    out = subprocess.run(["python3", str(ROOT / "tools" / "machine-speed.py")], capture_output=True, text=True,
                         check=True).stdout.strip().split("\t")
    assert len(out) == 3 and int(out[0]) >= 1 and float(out[2]) > 0


_SAMPLER_SPEC = importlib.util.spec_from_file_location("cpu_sampler", ROOT / "tools" / "cpu-sampler.py")
sampler = importlib.util.module_from_spec(_SAMPLER_SPEC)
_SAMPLER_SPEC.loader.exec_module(sampler)


def test_the_cpu_line_gives_the_mean_and_the_quiet_stretches(tmp_path):
    path = tmp_path / "cpu.tsv"
    path.write_text("30\t99.0\n60\t50.0\n90\t60.0\n120\t98.0\n150\t20.0\nnot a sample\n")
    assert summary.cpu_lines(path) == [
        "CPU: the cores were busy 65 % of the run (sampled every 30 s); "
        "stretches below 75 %: 0:30-1:30, 2:00-2:30"]


def test_a_run_busy_all_along_has_no_quiet_stretch(tmp_path):
    path = tmp_path / "cpu.tsv"
    path.write_text("30\t99.0\n60\t97.5\n")
    assert summary.cpu_lines(path)[0].endswith("below 75 %: none")
    assert summary.cpu_lines(tmp_path / "absent.tsv") == []


def test_the_sampler_counts_busy_jiffies_against_all(tmp_path):
    stat = tmp_path / "stat"
    # user nice system idle iowait irq softirq steal
    stat.write_text("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\n")
    before = sampler.read_stat(str(stat))
    assert before == (150, 1000)
    stat.write_text("cpu  250 0 100 850 100 0 0 0 0 0\n")
    assert sampler.busy_percent(before, sampler.read_stat(str(stat))) == 200 * 100.0 / 300
    assert sampler.busy_percent(before, before) == 0.0

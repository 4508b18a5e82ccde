"""The GPU and Slurm exporters, end to end on this machine, as their roles install them (bench/exporter_scrape.py).

Each runs with ``--once`` (one scrape printed in the Prometheus text format)
against stand-ins: an nvidia-smi that replays a real 8-GPU capture, prints
garbage, fails or hangs; Slurm commands that print recorded output of a real
cluster or fail. The exporter must say what is wrong in a metric, never crash.
"""

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import exporter_scrape  # noqa: E402  pylint: disable=wrong-import-position


def _once(program, env_name, config):
    proc = subprocess.run([sys.executable, "-I", program, "--once"], env={env_name: config, "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


@pytest.fixture(name="gpu")
def _gpu(tmp_path):
    program = exporter_scrape.install(str(tmp_path / "gpu"), "gpu_exporter", "gpuops_gpu_exporter.py")
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    (jobs / "3.json").write_text(json.dumps({"minor": 3, "job_id": "42", "user": "alice", "account": "chem"}))
    (tmp_path / "xid.json").write_text(json.dumps({"counts": [{"pci": "0000:00:14", "xid": 79, "count": 2}]}))

    def run(smi_body, timeout_s=5):
        smi = exporter_scrape.script(str(tmp_path / "nvidia-smi"), smi_body)
        config = tmp_path / "config.json"
        config.write_text(json.dumps({"nvidia_smi": smi, "nvidia_smi_timeout_s": timeout_s, "job_map_dir": str(jobs),
                                      "xid_state": str(tmp_path / "xid.json"), "sysfs": str(tmp_path)}))
        return _once(program, "GPUOPS_GPU_EXPORTER_CONFIG", str(config))
    return run


def test_gpu_metrics_carry_the_job_user_and_account(gpu):
    lines = gpu("exec cat %s\n" % exporter_scrape.CAPTURE)
    assert 'gpuops_gpu_exporter_up{reason=""} 1.0' in lines
    info = [line for line in lines if line.startswith("gpuops_gpu_info{")]
    assert len(info) == 8
    held = [line for line in lines if line.startswith("gpuops_gpu_utilization_ratio{") and 'job_id="42"' in line]
    assert len(held) == 1 and 'user="alice"' in held[0] and 'account="chem"' in held[0] and 'gpu="3"' in held[0]
    assert 'gpuops_gpu_xid_errors_total{gpu="7",pci_bus_id="0000:00:14",xid="79"} 2.0' in lines


def test_nvlink_error_counters_where_nvidia_smi_reports_them(gpu):
    nvlink = os.path.join(os.path.dirname(exporter_scrape.CAPTURE), "..", "nvidia-smi-nvlink",
                          "brev-shadeform-report_8xa100-sxm4-40gb_535.161.08_i0.txt")
    lines = gpu('case "$*" in "nvlink -e") exec cat %s;; *) exec cat %s;; esac\n' % (nvlink, exporter_scrape.CAPTURE))
    links = [line for line in lines if line.startswith("gpuops_gpu_nvlink_errors_total{")]
    assert len(links) == 12 * 3
    assert [line for line in links if 'link="0"' in line and 'counter="replay_errors"' in line][0].startswith(
        'gpuops_gpu_nvlink_errors_total{account="",counter="replay_errors",gpu="0",job_id="",link="0",minor="0"')
    # Where nvidia-smi nvlink -e fails (no NVLink, an old driver) there are no NVLink series, and no error.
    lines = gpu('case "$*" in "nvlink -e") exit 3;; *) exec cat %s;; esac\n' % exporter_scrape.CAPTURE)
    assert not [line for line in lines if line.startswith("gpuops_gpu_nvlink")]
    assert 'gpuops_gpu_exporter_up{reason=""} 1.0' in lines


@pytest.mark.parametrize("body, reason", [
    ("echo '<nvidia_smi_log><gpu id='\n", "nvidia-smi -q -x: malformed XML"),
    ("echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.' >&2; exit 9\n",
     "nvidia-smi no driver (rc 9): NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."),
    ("exit 3\n", "nvidia-smi failed (rc 3): no output"),
    ("exec sleep 30\n", "nvidia-smi did not answer within 1s"),
])
def test_bad_nvidia_smi_is_up_0_with_the_reason(gpu, body, reason):
    lines = gpu(body, timeout_s=1)
    up = [line for line in lines if line.startswith("gpuops_gpu_exporter_up{")]
    assert len(up) == 1 and up[0].endswith("} 0.0") and reason in up[0], up
    assert not [line for line in lines if line.startswith("gpuops_gpu_info{")]


def test_slurm_metrics_from_recorded_output_and_a_failing_command(tmp_path):
    program = exporter_scrape.install(str(tmp_path / "slurm"), "slurm_exporter", "gpuops_slurm_exporter.py")
    rec = exporter_scrape.RECORDED
    paths = {"sinfo": exporter_scrape.script(str(tmp_path / "sinfo"), 'case "$*" in *-O*) exec cat %s/sinfo_gres.txt;; '
                                             '*) exec cat %s/sinfo.txt;; esac\n' % (rec, rec)),
             "scontrol": exporter_scrape.script(str(tmp_path / "scontrol"),
                                                "echo 'slurm_load_ctl_conf error: Unable to contact slurm controller' >&2;"
                                                " exit 1\n"),
             "sacctmgr": exporter_scrape.script(str(tmp_path / "sacctmgr"), "exec sleep 30\n")}
    for name in ("squeue", "sshare", "sdiag"):
        paths[name] = exporter_scrape.script(str(tmp_path / name), "exec cat %s/%s.txt\n" % (rec, name))
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"paths": paths, "accounting": True, "command_timeout_s": 1}))
    lines = _once(program, "GPUOPS_SLURM_EXPORTER_CONFIG", str(config))
    assert 'gpuops_slurm_jobs{account="chem",partition="gpu",state="PENDING",user="alice"} 1000.0' in lines
    assert 'gpuops_slurm_partition_gpus{kind="total",partition="gpu"} 16.0' in lines
    assert ('gpuops_slurm_command_up{command="scontrol_ping",reason="rc 1: slurm_load_ctl_conf error: Unable to contact '
            'slurm controller"} 0.0') in lines
    assert 'gpuops_slurm_controller_up{controller="",role="primary"} 0.0' in lines
    assert 'gpuops_slurm_command_up{command="sacctmgr",reason="sacctmgr did not answer within 1s"} 0.0' in lines
    assert "gpuops_slurm_dbd_up 0.0" in lines


def test_a_node_images_exporter_listens_on_the_address_its_join_gave(tmp_path):
    # A node image's settings name no address; the node's join writes GPUOPS_NODE_ADDRESS (node.env), which the
    # unit's drop-in passes: the exporter listens there, not on every address and not on 127.0.0.1.
    import socket  # pylint: disable=import-outside-toplevel
    import time  # pylint: disable=import-outside-toplevel
    from urllib.request import urlopen  # pylint: disable=import-outside-toplevel

    program = exporter_scrape.install(str(tmp_path / "gpu"), "gpu_exporter", "gpuops_gpu_exporter.py")
    smi = exporter_scrape.script(str(tmp_path / "nvidia-smi"), "exec cat %s\n" % exporter_scrape.CAPTURE)
    port = exporter_scrape.free_port()
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"address": "", "port": port, "nvidia_smi": smi, "sample_interval_s": 2,
                                  "xid_state": str(tmp_path / "xid.json"), "sysfs": str(tmp_path)}))
    env = {"GPUOPS_GPU_EXPORTER_CONFIG": str(config), "GPUOPS_NODE_ADDRESS": "127.0.0.2", "PATH": "/usr/bin:/bin"}
    proc = subprocess.Popen([sys.executable, "-I", program], env=env)  # pylint: disable=consider-using-with
    try:
        body = None
        for dummy in range(100):
            try:
                body = urlopen("http://127.0.0.2:%d/metrics" % port, timeout=10).read().decode()
                break
            except OSError:
                time.sleep(0.1)
        assert body is not None and len([line for line in body.splitlines() if line.startswith("gpuops_gpu_info{")]) == 8
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        proc.terminate()
        proc.wait()

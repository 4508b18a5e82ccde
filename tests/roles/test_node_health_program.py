"""gpuops-health, the program Slurm runs, end to end on this machine: prolog, epilog, interval.

It is laid out as the node_health role installs it (bench/health_prolog.py's
install), with an nvidia-smi that replays a real 8-GPU capture and an scontrol
stand-in that records what it is asked and answers with the node's state.
"""

import json
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import health_prolog  # noqa: E402  pylint: disable=wrong-import-position

SCONTROL = """#!/bin/sh
echo "$*" >> {base}/scontrol.calls
[ -z "$SLURM_CONF" ] || echo "$SLURM_CONF" >> {base}/scontrol.conf
if [ "$1" = "-o" ] && [ "$4" != "bench01" ]; then cat {base}/partner-state 2>/dev/null
elif [ "$1" = "-o" ]; then cat {base}/node-state
elif [ "$1 $2" = "show topology" ]; then cat {base}/topology 2>/dev/null
fi
exit 0
"""


@pytest.fixture(name="node")
def _node(tmp_path):
    config, count = health_prolog.install(str(tmp_path), health_prolog.CAPTURE)
    with open(config) as handle:
        settings = json.load(handle)
    scontrol = tmp_path / "scontrol"
    scontrol.write_text(SCONTROL.format(base=tmp_path))
    scontrol.chmod(0o755)
    settings["paths"]["scontrol"] = str(scontrol)
    with open(config, "w") as handle:
        json.dump(settings, handle)
    (tmp_path / "node-state").write_text("NodeName=bench01 State=IDLE\n")
    return {"base": tmp_path, "config": config, "count": count}


# The job the program runs for. The epilog kills every process of its job on the machine, so each pytest-xdist
# worker (a process of its own) has a job id of its own, and never kills another worker's runs.
JOB = str(900000 + os.getpid())


def _run(node, mode, **env):
    base = node["base"]
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GPUOPS_HEALTH_CONFIG": node["config"],
               "SLURM_JOB_ID": JOB, "SLURM_JOB_USER": "alice", "SLURM_JOB_UID": str(os.getuid()),
               "SLURM_JOB_ACCOUNT": "chem", "SLURM_JOB_GPUS": "0,1"}
    environ.update(env)
    proc = subprocess.run([sys.executable, "-I", str(base / "health" / "gpuops_health.py"), mode], env=environ,
                          capture_output=True, text=True, check=False)
    calls = (base / "scontrol.calls").read_text().splitlines() if (base / "scontrol.calls").exists() else []
    with open(base / "state" / "last.json") as handle:
        return proc.returncode, json.load(handle), calls


def _lose_a_gpu(node):
    smi = node["base"] / "nvidia-smi"
    text = open(health_prolog.CAPTURE).read()
    start = text.rindex("<gpu id=")
    end = text.index("</gpu>", start) + len("</gpu>")
    (node["base"] / "seven.xml").write_text(text[:start] + text[end:])
    smi.write_text("#!/bin/sh\nexec cat %s\n" % (node["base"] / "seven.xml"))


def test_prolog_passes_and_maps_the_jobs_gpus(node):
    rc, record, calls = _run(node, "prolog")
    assert rc == 0 and record["status"] == "pass" and calls == []
    entries = sorted(os.listdir(node["base"] / "gpu-jobs"))
    assert entries == ["0.json", "1.json"]
    with open(node["base"] / "gpu-jobs" / "1.json") as handle:
        assert json.load(handle) == {"minor": 1, "job_id": JOB, "user": "alice", "uid": str(os.getuid()),
                                     "account": "chem", "partition": ""}
    rc, record, calls = _run(node, "epilog")
    assert rc == 0 and record["job_id"] == JOB
    assert os.listdir(node["base"] / "gpu-jobs") == []


def test_a_lost_gpu_drains_and_fails_the_prolog_then_the_interval_resumes(node):
    _lose_a_gpu(node)
    rc, record, calls = _run(node, "prolog")
    assert rc == 1 and record["action"] == "drain"
    assert calls[-1].startswith("update NodeName=bench01 State=DRAIN Reason=gpuops-health: gpu_count: nvidia-smi "
                                "lists 7 of the 8 GPUs in the node's GRES (missing 00000000:00:14.0)")
    assert not (node["base"] / "gpu-jobs").exists()  # a failed prolog maps nothing
    # Slurm now holds the node drained with that reason; the GPU comes back.
    (node["base"] / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Reason=%s [root@2026-11-24T10:00:00]\n"
                                             % record["reason"])
    (node["base"] / "nvidia-smi").write_text("#!/bin/sh\nexec cat %s\n" % health_prolog.CAPTURE)
    rc, record, calls = _run(node, "interval")
    assert rc == 0 and record["action"] == "resume" and calls[-1] == "update NodeName=bench01 State=RESUME"


def test_a_gpu_at_slowdown_drains_and_fails_the_prolog_and_show_prints_the_margins(node):
    # The V100S capture with GPU 3 at 88 C, 1 C past its slowdown temperature (87 C): parsed from the one
    # nvidia-smi -q -x answer the other checks read.
    text = open(health_prolog.CAPTURE).read()
    start = [match.start() for match in re.finditer("<gpu id=", text)][3]
    end = text.index("</gpu>", start)
    hot = text[:start] + text[start:end].replace("<gpu_temp>61 C</gpu_temp>", "<gpu_temp>88 C</gpu_temp>") + text[end:]
    assert hot != text
    (node["base"] / "hot.xml").write_text(hot)
    (node["base"] / "nvidia-smi").write_text("#!/bin/sh\nexec cat %s\n" % (node["base"] / "hot.xml"))
    rc, record, calls = _run(node, "prolog")
    assert rc == 1 and record["action"] == "drain"
    assert calls[-1] == ("update NodeName=bench01 State=DRAIN Reason=gpuops-health: gpu_temperature: GPU 3 "
                         "(00000000:00:10.0) at 88 C is 1 C past its slowdown temperature (87 C): check the fans and "
                         "the airflow")
    show = subprocess.run([sys.executable, "-I", str(node["base"] / "health" / "gpuops_health.py"), "show"],
                          env={"GPUOPS_HEALTH_CONFIG": node["config"], "PATH": os.environ["PATH"]},
                          capture_output=True, text=True, check=True)
    shown = [item for item in json.loads(show.stdout)["results"] if item["check"] == "gpu_temperature"][0]
    assert [gpu["slowdown_margin_c"] for gpu in shown["measured"]] == [21, 29, 30, -1, 28, 23, 26, 30]
    # Cooled down: the periodic run resumes the node it drained.
    (node["base"] / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Reason=%s [root@2026-11-24T10:00:00]\n"
                                             % record["reason"])
    (node["base"] / "nvidia-smi").write_text("#!/bin/sh\nexec cat %s\n" % health_prolog.CAPTURE)
    rc, record, calls = _run(node, "interval")
    assert record["action"] == "resume" and calls[-1] == "update NodeName=bench01 State=RESUME"


def test_the_t_limit_capture_of_driver_580_is_judged(tmp_path):
    # A real H100 on 580.159.04 prints only T.Limit readings: the margin is 39 C (37 - (-2)) at 50 C.
    capture = os.path.join(health_prolog.ROOT, "tests", "fixtures", "nvidia-smi-xml",
                           "gpuops_h100-80gb-hbm3_580.159.04_tlimit-v13.xml")
    config, count = health_prolog.install(str(tmp_path), capture)
    assert count == 1
    rc, record, calls = _run({"base": tmp_path, "config": config}, "prolog", SLURM_JOB_GPUS="0")
    assert rc == 0 and record["status"] == "pass" and calls == []
    result = [item for item in record["results"] if item["check"] == "gpu_temperature"][0]
    assert result["status"] == "pass"
    assert result["measured"] == [{"gpu": 0, "pci_bus_id": "00000000:00:06.0", "temperature_c": 50,
                                   "slowdown_margin_c": 39, "slowdown_c": 89}]


def test_an_admin_drain_is_left_alone(node):
    (node["base"] / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Reason=fan [root@2026-11-24T10:00:00]\n")
    rc, record, calls = _run(node, "interval")
    assert rc == 0 and record["action"] == "none" and calls == ["-o show node bench01"]
    _lose_a_gpu(node)
    rc, record, calls = _run(node, "interval")
    assert record["status"] == "fail" and record["action"] == "none"
    assert not [call for call in calls if call.startswith("update")]


def test_xid_in_the_kernel_log_drains_until_cleared(node):
    with open(os.path.join(health_prolog.ROOT, "tests", "fixtures", "health", "kernel-log",
                           "issue_gpu-burn-1_dmesg_aer-xid79.log")) as handle:
        (node["base"] / "kern.log").write_text(handle.read())
    rc, record, calls = _run(node, "interval")
    assert record["action"] == "drain" and "XID 79 on GPU 0000:02:00" in calls[-1]
    (node["base"] / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Reason=%s\n" % record["reason"])
    rc, record, calls = _run(node, "interval")
    assert record["action"] == "none" and record["status"] == "fail"
    clear = subprocess.run([sys.executable, "-I", str(node["base"] / "health" / "gpuops_health.py"), "clear-xid"],
                           env={"GPUOPS_HEALTH_CONFIG": node["config"], "PATH": os.environ["PATH"]},
                           capture_output=True, text=True, check=True)
    assert clear.stdout.startswith("cleared 1 XID event(s)")
    rc, record, calls = _run(node, "interval")
    assert record["action"] == "resume"


def test_the_epilog_kills_what_the_job_left(node):
    job = JOB
    leftover = subprocess.Popen(["sleep", "300"], env={"SLURM_JOB_ID": job}, start_new_session=True)
    try:
        rc, record, calls = _run(node, "epilog", SLURM_JOB_ID=job)
        assert rc == 0
        assert record["results"][0]["message"] == (
            "killed what job %s left behind: pid %d (SLURM_JOB_ID=%s in its environment)" % (job, leftover.pid, job))
        assert leftover.wait(timeout=10) is not None
    finally:
        if leftover.poll() is None:
            leftover.kill()


def test_unreadable_settings_never_fail_a_job(node):
    proc = subprocess.run([sys.executable, "-I", str(node["base"] / "health" / "gpuops_health.py"), "prolog"],
                          env={"GPUOPS_HEALTH_CONFIG": str(node["base"] / "missing.json"), "PATH": os.environ["PATH"]},
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and "cannot read" in proc.stderr


def test_state_files_of_the_wrong_shape_never_stop_a_run(node):
    # xid.json holding 42 (or stuck.json, a job map entry not an object) made every run end in an AttributeError.
    state = node["base"] / "state"
    state.mkdir(exist_ok=True)
    (state / "xid.json").write_text("42\n")
    (state / "stuck.json").write_text('{"pid": "x"}\n')
    rc, record, calls = _run(node, "interval")
    assert rc == 0 and record["status"] == "pass", record
    with open(state / "xid.json") as handle:
        assert sorted(json.load(handle)) == ["boot_id", "counts", "open", "position"]
    (state / "xid.json").write_text('["open"]\n')
    clear = subprocess.run([sys.executable, "-I", str(node["base"] / "health" / "gpuops_health.py"), "clear-xid"],
                           env={"GPUOPS_HEALTH_CONFIG": node["config"], "PATH": os.environ["PATH"]},
                           capture_output=True, text=True, check=True)
    assert clear.stdout.startswith("cleared 0 XID event(s)")
    (node["base"] / "gpu-jobs").mkdir(exist_ok=True)
    (node["base"] / "gpu-jobs" / "0.json").write_text("[%s]\n" % JOB)
    rc, record, calls = _run(node, "epilog", SLURM_JOB_GPUS="0," + "9" * 5000, SLURM_JOB_UID=u"\u00b2")
    assert rc == 0 and record["status"] == "pass", record


# ---- the active checks (docs/health.md#active-checks)

ACTIVE_STANDINS = {
    # The measurements a GPU machine's check program would print (a test stand-in for the PyTorch environment).
    "python": "#!/bin/sh\ncat {base}/measured.json\n",
    "dcgmi": "#!/bin/sh\ncat {base}/dcgmi.txt\n",
    "sbatch": "#!/bin/sh\necho \"$*\" >> {base}/sbatch.calls\necho '4711;cluster'\n",
    "squeue": "#!/bin/sh\ncat {base}/squeue.out 2>/dev/null\n",
}
DCGMI = os.path.join(os.path.dirname(__file__), "..", "fixtures", "health", "dcgmi")


@pytest.fixture(name="active_node")
def _active_node(node):
    base = node["base"]
    with open(node["config"]) as handle:
        settings = json.load(handle)
    for name, text in ACTIVE_STANDINS.items():
        path = base / name
        path.write_text(text.format(base=base))
        path.chmod(0o755)
        settings["paths"][name] = str(path)
    settings["paths"]["join_marker"] = str(base / "joined")
    settings["paths"]["command"] = "/usr/local/sbin/gpuops-health"
    # The capture's V100S is not in the table: the site's own reference judges it.
    settings["active"] = {"python": str(base / "python"), "tolerance": 0.1, "timeout_s": 900, "deadline_h": 12,
                          "expect": {"Tesla V100S-PCIE-32GB": {"gpu_matmul": 100, "gpu_memory_bandwidth": 900}}}
    settings["diag_level"] = 1
    with open(node["config"], "w") as handle:
        json.dump(settings, handle)
    _measure(node, matmul=110.0)
    _dcgmi(node, "issue_dcgm-55_dcgmi-diag-r3_pass-deployment_excerpt.txt")
    return node


def _measure(node, matmul, slow=None):
    """Every GPU measures matmul TFLOPS, or only GPU slow does."""
    gpus = [{"index": index, "name": "Tesla V100S-PCIE-32GB",
             "gpu_matmul": matmul if slow is None or index == slow else 110.0, "gpu_memory_bandwidth": 950.0,
             "gpu_h2d_bandwidth": 12.5, "gpu_d2h_bandwidth": 13.1} for index in range(node["count"])]
    (node["base"] / "measured.json").write_text(json.dumps({"torch": "2.13.0+cu128", "gpus": gpus,
                                                            "nccl_allreduce": 9.5, "seconds": 12.0}))


def _dcgmi(node, capture):
    with open(os.path.join(DCGMI, capture)) as handle:
        (node["base"] / "dcgmi.txt").write_text(handle.read())


def _active(node, command):
    base = node["base"]
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GPUOPS_HEALTH_CONFIG": node["config"]}
    proc = subprocess.run([sys.executable, "-I", str(base / "health" / "gpuops_health.py"), command], env=environ,
                          capture_output=True, text=True, check=False)
    calls = (base / "scontrol.calls").read_text().splitlines() if (base / "scontrol.calls").exists() else []
    with open(base / "state" / "active-plan.json") as handle:
        plan = json.load(handle)
    last = base / "state" / "last-active.json"
    record = json.loads(last.read_text()) if last.exists() else None
    return proc, plan, record, calls


def _program(node, command, **env):
    """gpuops-health command on node, with env (SLURM_JOB_ID and the like) as Slurm would give it."""
    environ = dict(env, PATH=os.environ.get("PATH", "/usr/bin:/bin"), GPUOPS_HEALTH_CONFIG=node["config"])
    proc = subprocess.run([sys.executable, "-I", str(node["base"] / "health" / "gpuops_health.py"), command],
                          env=environ, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc


def _updates(calls):
    return [call for call in calls if call.startswith("update ")]


def _results(record):
    return dict((item["check"], item) for item in record["results"])


def test_a_joining_node_is_drained_checked_and_resumed(active_node):
    proc, plan, record, calls = _active(active_node, "join")
    assert proc.returncode == 0, proc.stderr
    assert calls[1] == "update NodeName=bench01 State=DRAIN Reason=gpuops-health: active: checks pending (joined)"
    assert plan["action"] == "run" and record["status"] == "pass"
    res = _results(record)
    assert res["gpu_matmul"]["status"] == "pass" and res["gpu_matmul"]["measured"] == 110.0
    assert res["diag"]["status"] == "pass"
    # nvidia-smi does not report the V100S's NVLink here: the all-reduce is measured, not judged.
    assert res["nccl_allreduce"]["status"] == "not_run" and res["nccl_allreduce"]["measured"] == 9.5
    assert (active_node["base"] / "joined").exists()


def test_a_slow_gpu_drains_with_the_value_and_the_expectation_and_only_the_active_run_resumes(active_node):
    base = active_node["base"]
    _measure(active_node, matmul=80.0, slow=3)
    (base / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Reason=gpuops-health: active: checks pending "
                                     "(boot) [root@2026-11-30T10:00:00]\n")
    proc, plan, record, calls = _active(active_node, "active")
    assert plan["action"] == "run" and record["action"] == "drain"
    assert record["reason"] == ("gpuops-health: gpu_matmul: bf16 matrix multiply: GPU 3 80.0 TFLOPS < 90.0 "
                                "(expected 100 -10%)")
    assert calls[-1] == "update NodeName=bench01 State=DRAIN Reason=" + record["reason"]
    (base / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Reason=%s [root@2026-11-30T10:00:00]\n"
                                     % record["reason"])
    # The periodic check passes, and leaves the active check's drain alone.
    count = len(calls)
    rc, interval, calls = _run(active_node, "interval")
    assert interval["action"] == "none" and len(calls) == count + 1  # it only read the node's state
    _measure(active_node, matmul=110.0)
    proc, plan, record, calls = _active(active_node, "active")
    assert record["action"] == "resume" and _updates(calls)[-1] == "update NodeName=bench01 State=RESUME"
    # Resumed, the node asks for its pair check over the fabric: Slurm runs no switch tree here, so there is none.
    fabric_plan = json.loads((base / "state" / "fabric-plan.json").read_text())
    assert fabric_plan["action"] == "skip" and fabric_plan["why"].startswith("Slurm runs without a switch tree")


def test_a_node_in_service_gets_its_check_job_once(active_node):
    base = active_node["base"]
    (base / "node-state").write_text("NodeName=bench01 State=MIXED Partitions=gpu,debug\n")
    proc, plan, record, calls = _active(active_node, "active")
    assert plan["action"] == "submit" and plan["job_id"] == "4711" and record is None
    assert (base / "sbatch.calls").read_text().split() == [
        "--job-name=gpuops-health-active-bench01", "--nodelist=bench01", "--nodes=1", "--exclusive", "--nice=10000",
        "--time=26", "--deadline=now+12hours", "--output=%s/active-job-%%j.log" % (base / "state"), "--parsable",
        "--partition=gpu,debug", "--gres=gpu:%d" % active_node["count"], "--wrap=/usr/local/sbin/gpuops-health",
        "active-job"]
    (base / "squeue.out").write_text("4711\n")
    proc, plan, record, calls = _active(active_node, "active")
    assert plan["action"] == "skip" and "waiting in Slurm already" in plan["why"]
    assert len((base / "sbatch.calls").read_text().splitlines()) == 1


def test_the_check_job_drains_a_failing_node_it_runs_on(active_node):
    base = active_node["base"]
    _dcgmi(active_node, "azhpc-h200-doc_dcgmi-diag-r1_fail-persistence.txt")
    (base / "node-state").write_text("NodeName=bench01 State=ALLOCATED\n")
    _program(active_node, "active-job", SLURM_JOB_ID="4711")
    record = json.loads((base / "state" / "last-active.json").read_text())
    assert record["job_id"] == "4711" and record["action"] == "drain"
    assert record["reason"] == "gpuops-health: diag: dcgmi diag -r 1 failed: Persistence Mode fail (expected pass)"


def test_an_admins_drain_stays_whatever_the_checks_find(active_node):
    base = active_node["base"]
    (base / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Reason=cable swap [root@2026-11-30T10:00:00]\n")
    for command in ("active", "join"):
        proc, plan, record, calls = _active(active_node, command)
        assert plan["action"] == "skip" and "another reason" in plan["why"], command
        assert [call for call in calls if call.startswith("update")] == []


def test_without_a_pytorch_environment_the_measured_checks_say_why(active_node):
    base = active_node["base"]
    with open(active_node["config"]) as handle:
        settings = json.load(handle)
    settings["active"]["python"] = ""
    settings["active"]["pytorch_root"] = str(base / "no-pytorch")
    with open(active_node["config"], "w") as handle:
        json.dump(settings, handle)
    (base / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Reason=gpuops-health: active: checks pending "
                                     "(boot) [root@2026-11-30T10:00:00]\n")
    proc, plan, record, calls = _active(active_node, "active")
    res = _results(record)
    assert res["gpu_matmul"]["status"] == "not_run"
    assert res["gpu_matmul"]["message"].startswith("no PyTorch environment (gpuops.cluster.pytorch_env) under ")
    assert record["action"] == "resume"  # nothing failed: dcgmi diag passed, the rest was not judged


# ---- the pair check over the fabric

TOPOLOGY = "SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=bench[01-04]\nSwitchName=spine Level=1 Switches=leaf1\n"
PARTNERS = "NodeName=bench02 State=IDLE\nNodeName=bench03 State=MIXED\nNodeName=bench04 State=IDLE+DRAIN Reason=x\n"


@pytest.fixture(name="pair_node")
def _pair_node(active_node):
    base = active_node["base"]
    (base / "topology").write_text(TOPOLOGY)
    (base / "partner-state").write_text(PARTNERS)
    (base / "node-state").write_text("NodeName=bench01 State=ALLOCATED Partitions=gpu\n")
    with open(active_node["config"]) as handle:
        settings = json.load(handle)
    # No RDMA port on this machine: the site's own figure for its GPU model is the expectation.
    settings["active"]["expect"]["Tesla V100S-PCIE-32GB"]["fabric_allreduce"] = 100
    with open(active_node["config"], "w") as handle:
        json.dump(settings, handle)
    return active_node


def _record(node, nodelist, measured, job="5001"):
    """gpuops-health fabric-record as srun starts it on bench01 in pair job job of nodelist."""
    base = node["base"]
    _program(node, "fabric-record", SLURM_JOB_ID=job, SLURM_JOB_NODELIST=nodelist,
             GPUOPS_FABRIC_MEASURED=json.dumps(measured))
    calls = (base / "scontrol.calls").read_text().splitlines()
    sbatch = (base / "sbatch.calls").read_text().splitlines() if (base / "sbatch.calls").exists() else []
    return json.loads((base / "state" / "last-fabric.json").read_text()), calls, sbatch


def test_a_node_in_service_that_passes_asks_for_its_pair_check_with_the_next_node_under_its_leaf(pair_node):
    base = pair_node["base"]
    _program(pair_node, "active-job", SLURM_JOB_ID="4711")
    plan = json.loads((base / "state" / "fabric-plan.json").read_text())
    assert plan["action"] == "submit" and plan["partner"] == "bench02" and plan["leaf"] == "leaf1"
    assert (base / "sbatch.calls").read_text().split() == [
        "--job-name=gpuops-health-fabric-bench01", "--nodelist=bench01,bench02", "--nodes=2",
        "--ntasks-per-node=1", "--exclusive", "--mem=0", "--nice=10000", "--time=16",
        "--deadline=now+12hours", "--output=%s/fabric-job-%%j.log" % (base / "state"), "--parsable",
        "--partition=gpu", "--gres=gpu:%d" % pair_node["count"], "--wrap=/usr/local/sbin/gpuops-health", "fabric-job"]


def test_a_node_that_fails_with_two_partners_is_drained_and_one_failure_asks_for_another_partner(pair_node):
    record, calls, sbatch = _record(pair_node, "bench[01-02]", {"value": 12.0})
    assert record["status"] == "pass" and record["action"] == "none"  # nothing blamed yet
    assert record["results"][0]["status"] == "not_run" and record["partner"] == "bench02"
    assert _updates(calls) == []
    # bench03 is next (bench04 is drained): the second opinion.
    assert "--nodelist=bench01,bench03" in sbatch[-1].split()
    record, calls, sbatch = _record(pair_node, "bench[01,03]", {"value": 11.5}, job="5002")
    assert record["action"] == "drain" and record["results"][0]["status"] == "fail"
    assert _updates(calls)[-1] == (
        "update NodeName=bench01 State=DRAIN Reason=gpuops-health: fabric_allreduce: NCCL all-reduce over the fabric: "
        "12.0 GB/s < 90.0 with bench02 (expected 100 -10%); 11.5 GB/s < 90.0 with bench03 (expected 100 -10%)")
    assert len(sbatch) == 1  # no third pair
    values = dict((item["partner"], item["value"]) for item in record["results"][0]["values"])
    assert values == {"bench02": 12.0, "bench03": 11.5}


def test_a_node_that_failed_with_one_partner_and_passed_with_another_stays_in_service(pair_node):
    _record(pair_node, "bench[01-02]", {"value": 12.0})
    record, calls, _sbatch = _record(pair_node, "bench[01,03]", {"value": 95.0}, job="5002")
    assert record["results"][0]["status"] == "pass" and record["action"] == "none" and _updates(calls) == []
    assert record["results"][0]["message"].endswith("it failed with bench02 only, which is the suspect")


def test_a_pair_without_cuda_is_recorded_not_judged(pair_node):
    record, calls, sbatch = _record(pair_node, "bench[01-02]", {"error": "torch 2.13.0+cpu sees no CUDA GPU"})
    assert record["results"][0]["status"] == "not_run" and _updates(calls) == [] and sbatch == []
    assert record["results"][0]["message"] == ("NCCL all-reduce over the fabric: not measured with bench02: torch "
                                               "2.13.0+cpu sees no CUDA GPU")


def test_a_node_the_pair_check_drained_is_retested_first_in_the_queue_by_its_next_active_run(pair_node):
    base = pair_node["base"]
    _record(pair_node, "bench[01-02]", {"value": 12.0})
    record, _calls, _sbatch = _record(pair_node, "bench[01,03]", {"value": 11.5}, job="5002")
    (base / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Partitions=gpu Reason=%s [root@2026-11-30]\n"
                                     % record["reason"])
    proc, plan, active_record, calls = _active(pair_node, "active")
    assert plan["action"] == "run" and active_record["action"] == "resume"
    assert _updates(calls)[-1] == "update NodeName=bench01 State=RESUME"
    assert json.loads((base / "state" / "fabric.json").read_text()) == []  # the failures that drained it are forgotten
    retest = (base / "sbatch.calls").read_text().splitlines()[-1].split()
    assert "--priority=TOP" in retest and "--nodelist=bench01,bench02" in retest


def test_the_slurm_commands_read_the_configuration_the_program_was_given(node):
    # A node image's boot gate runs before slurmd has fetched the configuration: its unit names the join's client
    # configuration, which every scontrol call of the program must read.
    (node["base"] / "node-state").write_text("NodeName=bench01 State=IDLE+DRAIN Reason=admin [root@2026-11-24T10:00:00]\n")
    rc, record, calls = _run(node, "interval", SLURM_CONF="/run/gpuops/node-join/slurm.conf")
    assert calls and (node["base"] / "scontrol.conf").read_text().splitlines() == (
        ["/run/gpuops/node-join/slurm.conf"] * len(calls))

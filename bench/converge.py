# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Converge benchmark of the container lab (`make bench`).

For a lab of 1 controller + N compute nodes (fresh Debian 12 containers,
warm apt cache) and for each part:

  slurm   bench/slurm_part.yml: package_proxy.yml + slurm.yml, as issue 18
          measured it (Slurm defaults, no accounting database)
  site    site.yml: everything

it measures

  warm-up an untimed first converge (and one of galaxyproject.slurm with
          --galaxy) that fills the lab's apt cache, so every timed run finds
          its packages there, and records what the converge installs
  floor   a plain shell loop making the same package installs on fresh
          containers, all at once: apt-get update, apt-get install of exactly
          the packages the first converge added to each container (dpkg-query,
          minus the base image), and pip install of torch from the wheelhouse
          where the converge made a PyTorch environment. No configuration and
          no services: the package work alone.
  first   the playbook on fresh containers
  rerun   the playbook again: must report changed=0
  check   the playbook with --check: must report changed=0

for each connection variant asked for:

  docker          community.docker.docker (the lab's own): a docker CLI
                  process per command
  docker-api      community.docker.docker_api: the Engine API from Python
  docker+mitogen  Mitogen's mitogen_linear strategy over its docker connection
  ssh             OpenSSH to the containers (sshd in an image made from the
                  lab image), pipelining, ControlPersist=60s
  ssh+mitogen     Mitogen over SSH
  ssh-nopipelining  SSH without pipelining (Ansible's default): every
                  module is copied to the host as a file first
  ssh-forks5      SSH with Ansible's default of 5 forks instead of
                  ansible.cfg's 20

and, with --galaxy PATH (a checkout of galaxyproject/ansible-slurm, which is
not part of this repository) for the slurm part, galaxyproject.slurm set up
for the same cluster (bench/galaxy_slurm.yml).

Every figure is wall time; beside it the controller's CPU time (the
ansible-playbook process tree, from wait4) and the hosts' CPU time (the sum of
the containers' cgroup CPU counters). The per task and per host timeline of
each run (bench/callback_plugins/gpuops_timing.py) is kept beside the JSON,
and `--profile` prints the slowest tasks of each first converge.

Prints a table per part and node count: seconds, and ratios to the floor and
to galaxyproject.slurm. JSON goes to bench/results/converge-<UTC time>.json.
Exits 1 when a re-run or --check reports changes, or a run fails; never on
slowness (the targets are printed beside the ratios, not enforced).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / ".build" / "bench"
RESULTS = REPO / "bench" / "results"
BIN = REPO / ".venv" / "bin"
IMAGE = os.environ.get("GPUOPS_LAB_IMAGE", "gpuops-lab:bookworm")
SSH_IMAGE = IMAGE.replace("gpuops-lab:", "gpuops-lab-ssh:")
PROXY = 'Acquire::http::Proxy "http://172.31.250.1:3142";'
PARTS = {
    "slurm": ("bench/slurm_part.yml", "Slurm part (package_proxy.yml + slurm.yml)"),
    "site": ("site.yml", "site.yml (everything)"),
}
VARIANTS = ("docker", "docker-api", "docker+mitogen", "ssh", "ssh+mitogen", "ssh-nopipelining", "ssh-forks5")
# Issue 18's targets, as ratios of one run.
TARGETS = {"first_floor": 1.5, "rerun_floor": 0.5, "vs_galaxy": 2.0}


def log(msg):
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def out(cmd):
    return subprocess.run(cmd, check=True, text=True, capture_output=True).stdout


def containers(n):
    return ["lab-ctl"] + [f"lab-gpu{i:02d}" for i in range(1, n + 1)]


def mitogen_strategy_dir():
    try:
        import ansible_mitogen  # noqa: F401  pylint: disable=import-outside-toplevel
    except ImportError:
        return None
    return str(Path(sys.modules["ansible_mitogen"].__file__).parent / "plugins" / "strategy")


# ----------------------------------------------------------------- the lab
def ssh_key():
    key = WORK / "ssh" / "id_ed25519"
    if not key.exists():
        key.parent.mkdir(parents=True, exist_ok=True)
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gpuops-bench", "-f", str(key)])
    return key


def ssh_image():
    """The lab image plus sshd and the bench key: made once, from Debian packages."""
    pub = ssh_key().with_suffix(".pub").read_text().strip()
    label = subprocess.run(["docker", "image", "inspect", "-f", "{{index .Config.Labels \"gpuops.key\"}}", SSH_IMAGE],
                           capture_output=True, text=True, check=False).stdout.strip()
    if label == pub.split()[1][-16:]:
        return
    log(f"making {SSH_IMAGE}: {IMAGE} with openssh-server")
    name = "gpuops-bench-sshimg"
    subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)
    run(["docker", "run", "--name", name, "--network", "gpuops-lab", IMAGE, "sh", "-c",
         # The base image's own package lists (no apt-get update): their age is
         # what the apt module's cache_valid_time reads on a fresh host.
         f"set -e; echo '{PROXY}' >/etc/apt/apt.conf.d/01proxy;"
         " DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server >/dev/null;"
         " rm -f /etc/apt/apt.conf.d/01proxy;"
         f" mkdir -p -m 700 /root/.ssh; echo '{pub}' >/root/.ssh/authorized_keys; chmod 600 /root/.ssh/authorized_keys;"
         " systemctl enable ssh >/dev/null 2>&1 || true"], stdout=subprocess.DEVNULL)
    run(["docker", "commit", "-c", f"LABEL gpuops.key={pub.split()[1][-16:]}", "-c", 'CMD ["/sbin/init"]',
         name, SSH_IMAGE], stdout=subprocess.DEVNULL)
    run(["docker", "rm", "-f", name], stdout=subprocess.DEVNULL)


def inventory(n, variant):
    """An inventory of the lab with n compute nodes, reached as the variant says."""
    d = WORK / f"inventory-{n}-{variant.replace('+', '-')}"
    d.mkdir(parents=True, exist_ok=True)
    link = d / "group_vars"
    if not link.is_symlink():
        link.symlink_to(REPO / "inventory" / "lab" / "group_vars")
    hostvars = {}
    for c in containers(n):
        hv = {}
        if variant.startswith("ssh"):
            ip = out(["docker", "inspect", "-f", "{{(index .NetworkSettings.Networks \"gpuops-lab\").IPAddress}}", c]).strip() \
                if c in running() else "0.0.0.0"
            hv = {"ansible_connection": "ssh", "ansible_host": ip, "ansible_user": "root",
                  "ansible_ssh_private_key_file": str(ssh_key()),
                  "ansible_ssh_common_args": "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
                                             " -o ControlMaster=auto -o ControlPersist=60s"}
        elif variant == "docker-api":
            # The Docker Engine API from Python (the docker SDK), no docker CLI
            # process per command.
            hv = {"ansible_connection": "community.docker.docker_api"}
        elif variant == "docker+mitogen":
            # Mitogen's strategy takes over the connection named "docker";
            # without Mitogen the same name routes to community.docker.docker.
            hv = {"ansible_connection": "docker"}
        hostvars[c] = hv
    doc = {"all": {"children": {
        "slurm_controller": {"hosts": {"lab-ctl": hostvars["lab-ctl"]}},
        "slurm_compute": {"hosts": {c: hostvars[c] for c in containers(n)[1:]}}}}}
    (d / "hosts.yml").write_text("---\n# Written by bench/converge.py\n" + json.dumps(doc, indent=2) + "\n")
    return d


def running():
    return set(out(["docker", "ps", "--format", "{{.Names}}", "--filter", "label=gpuops.lab=1"]).split())


def fresh_lab(n, variant):
    env = dict(os.environ, GPUOPS_LAB_NODES=str(n), GPUOPS_LAB_INVENTORY=str(inventory(n, "docker")))
    if variant.startswith("ssh"):
        env["GPUOPS_LAB_IMAGE"] = SSH_IMAGE
    with open(WORK / "lab-up.log", "w", encoding="utf-8") as f:
        run(["tools/lab.sh", "down"], cwd=REPO, stdout=f, stderr=f)
        if variant.startswith("ssh"):
            run(["docker", "network", "create", "--subnet", "172.31.250.0/24", "--gateway", "172.31.250.1",
                 "gpuops-lab"], stdout=f, stderr=f)
            ssh_image()
        run(["tools/lab.sh", "up"], cwd=REPO, env=env, stdout=f, stderr=f)
    inv = inventory(n, variant)
    if variant.startswith("ssh"):
        for c in containers(n):  # sshd answers before the first timed run
            for _attempt in range(30):
                if subprocess.run(["docker", "exec", c, "grep", "-q", ":0016 00000000:0000 0A", "/proc/net/tcp"],
                                  capture_output=True, check=False).returncode == 0:
                    break
                time.sleep(0.5)
    return inv


def cgroup_cpu(names):
    """Seconds of CPU the containers used so far (cgroup v1 or v2)."""
    total = 0.0
    for c in names:
        cid = out(["docker", "inspect", "-f", "{{.Id}}", c]).strip()
        v1 = Path(f"/sys/fs/cgroup/cpuacct/docker/{cid}/cpuacct.usage")
        v2 = Path(f"/sys/fs/cgroup/system.slice/docker-{cid}.scope/cpu.stat")
        if v1.exists():
            total += int(v1.read_text()) / 1e9
        elif v2.exists():
            usage = dict(line.split() for line in v2.read_text().splitlines())
            total += int(usage["usage_usec"]) / 1e6
        else:
            return None
    return total


# ------------------------------------------------------------------- runs
def recap(logtext):
    tasks = changed = failed = 0
    for line in logtext.splitlines():
        if " : ok=" in line and "unreachable=" in line:
            f = dict(kv.split("=") for kv in line.split(":", 1)[1].split())
            tasks += int(f["ok"]) + int(f["changed"]) + int(f["failed"]) + int(f["skipped"])
            changed += int(f["changed"])
            failed += int(f["failed"]) + int(f["unreachable"])
    return tasks, changed, failed


def play(n, part, variant, phase, inv, extra=()):
    """Run one playbook; returns its figures. Exits on failure."""
    playbook = PARTS[part][0] if part in PARTS else part
    tag = f"{Path(part).stem}-{n}-{variant.replace('+', '-')}-{phase}"
    logf = RESULTS / f"last-{tag}.log"
    timing = RESULTS / f"last-{tag}.timing.json"
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", ANSIBLE_CONFIG=str(REPO / "ansible.cfg"),
               ANSIBLE_CALLBACK_PLUGINS=str(REPO / "bench" / "callback_plugins"),
               ANSIBLE_CALLBACKS_ENABLED="ansible.posix.profile_tasks,gpuops_timing",
               GPUOPS_TIMING_OUT=str(timing))
    if variant == "ssh-nopipelining":
        env.update(ANSIBLE_PIPELINING="False")
    if variant == "ssh-forks5":
        env.update(ANSIBLE_FORKS="5")
    if variant.endswith("+mitogen"):
        strategies = mitogen_strategy_dir()
        if strategies is None:
            sys.exit("mitogen is not installed in .venv (make venv installs it)")
        env.update(ANSIBLE_STRATEGY_PLUGINS=strategies, ANSIBLE_STRATEGY="mitogen_linear")
    cmd = [str(BIN / "ansible-playbook"), playbook, "-i", str(inv), *extra]
    if phase == "check":
        cmd.append("--check")
    names = containers(n)
    host0 = cgroup_cpu(names)
    t0 = time.monotonic()
    with open(logf, "w", encoding="utf-8") as f:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=f, stderr=subprocess.STDOUT)
        status, usage = os.wait4(proc.pid, 0)[1:]
    wall = time.monotonic() - t0
    host1 = cgroup_cpu(names)
    text = logf.read_text(encoding="utf-8")
    tasks, changed, failed = recap(text)
    if os.waitstatus_to_exitcode(status) != 0 or failed:
        print("\n".join(text.splitlines()[-30:]), file=sys.stderr)
        sys.exit(f"{tag} failed: see {logf}")
    r = {"s": round(wall, 1), "tasks": tasks, "changed": changed,
         "controller_cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
         "hosts_cpu_s": None if host0 is None or host1 is None else round(host1 - host0, 1)}
    if timing.exists():
        doc = json.loads(timing.read_text())
        r["remote_module_runs"] = sum(1 for x in doc["results"] if x["remote"])
    log(f"N={n} {part} {variant} {phase}: {r['s']} s, changed={changed}, "
        f"controller CPU {r['controller_cpu_s']} s, hosts CPU {r['hosts_cpu_s']} s, "
        f"{r.get('remote_module_runs')} module runs on hosts")
    return r


def record_installs(n, tag):
    base = set(out(["docker", "run", "--rm", "--entrypoint", "dpkg-query", IMAGE, "-W", "-f=${Package}\\n"]).split())
    lists = {}
    for c in containers(n):
        now = set(out(["docker", "exec", c, "dpkg-query", "-W", "-f=${Package}\\n"]).split())
        venv = out(["docker", "exec", c, "sh", "-c", "ls -d /opt/gpuops/pytorch/*/bin/python 2>/dev/null || true"]).strip()
        lists[c] = {"packages": sorted(now - base), "torch": bool(venv)}
    (WORK / f"installs-{tag}-{n}.json").write_text(json.dumps(lists, indent=1))
    return lists


def floor(n, lists):
    procs = []
    cpu0 = cgroup_cpu(list(lists))
    t0 = time.monotonic()
    for c, what in lists.items():
        script = (f"set -e; echo '{PROXY}' >/etc/apt/apt.conf.d/01proxy; apt-get update -qq;"
                  " DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "
                  + " ".join(what["packages"]) + " >/dev/null")
        if what["torch"]:
            script += ("; python3 -m venv /opt/floor-venv;"
                       " /opt/floor-venv/bin/pip install -q --no-index --find-links /opt/wheelhouse torch==2.13.0")
        logf = open(WORK / f"floor-{c}.log", "w", encoding="utf-8")  # pylint: disable=consider-using-with
        procs.append((c, subprocess.Popen(["docker", "exec", c, "sh", "-c", script], stdout=logf, stderr=logf), logf))
    for c, p, logf in procs:
        p.wait()
        logf.close()
        if p.returncode:
            sys.exit(f"floor install failed on {c}: see {WORK}/floor-{c}.log")
    wall = time.monotonic() - t0
    cpu1 = cgroup_cpu(list(lists))
    hosts_cpu = None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 1)
    log(f"N={n} floor: {wall:.1f} s, hosts CPU {hosts_cpu} s, "
        f"{sum(len(w['packages']) for w in lists.values())} package installs")
    return {"s": round(wall, 1), "hosts_cpu_s": hosts_cpu,
            "package_installs": sum(len(w["packages"]) for w in lists.values())}


def galaxy_prepare(n):
    """Untimed: procps, which every real Debian server has and the lab image lacks.
    galaxyproject.slurm reloads its daemons with systemd's ExecReload (/bin/kill)
    and does not install it (gpuops.cluster never reloads through /bin/kill)."""
    for c in containers(n):
        run(["docker", "exec", c, "sh", "-c",
             f"echo '{PROXY}' >/tmp/proxy.conf;"
             " DEBIAN_FRONTEND=noninteractive apt-get -qq -c /tmp/proxy.conf install -y --no-install-recommends procps"
             " >/dev/null; rm /tmp/proxy.conf"], stdout=subprocess.DEVNULL)


def galaxy_playbook(n, galaxy):
    key = WORK / "galaxy-munge.key"
    if not key.exists():
        key.write_bytes(os.urandom(1024))
        key.chmod(0o600)
    return ["-e", json.dumps({"bench_galaxy_role": str(galaxy), "bench_galaxy_munge_key": str(key),
                              "bench_galaxy_nodes": n})]


# ------------------------------------------------------------------ report
def ratio(a, b):
    return None if a is None or not b else round(a / b, 2)


def table(result):
    lines = []
    for n_key, parts in result["runs"].items():
        for part, r in parts.items():
            fl = r.get("floor", {}).get("s")
            gal = r.get("galaxyproject.slurm")
            lines.append(f"\n{PARTS[part][1]}, 1 controller + {n_key} compute nodes"
                         f" (floor: {fl if fl is not None else '-'} s)")
            lines.append(f"{'':24}{'first':>8}{'re-run':>8}{'--check':>8}   {'first/fl':>8}{'rerun/fl':>9}"
                         f"{'check/fl':>9}   {'ctl CPU':>8}{'host CPU':>9}{'mod runs':>9}"
                         + (f"   {'galaxy/us first':>15}{'re-run':>8}" if gal else ""))
            if fl is not None:
                lines.append(f"{'floor (shell loop)':24}{fl:>8}{'':>8}{'':>8}   {1.0:>8}{'':>9}{'':>9}   {'':>8}"
                             f"{str(r['floor'].get('hosts_cpu_s')):>9}")
            rows = [(f"gpuops ({v})", r[v]) for v in VARIANTS if v in r]
            if gal:
                rows.append(("galaxyproject.slurm", gal))
            for label, x in rows:
                f_, re_, ch = x["first"], x["rerun"], x["check"]
                line = (f"{label:24}{f_['s']:>8}{re_['s']:>8}{ch['s']:>8}   "
                        f"{str(ratio(f_['s'], fl) or '-'):>8}{str(ratio(re_['s'], fl) or '-'):>9}"
                        f"{str(ratio(ch['s'], fl) or '-'):>9}   {f_['controller_cpu_s']:>8}"
                        f"{str(f_['hosts_cpu_s']):>9}{str(f_.get('remote_module_runs', '-')):>9}")
                if gal and label != "galaxyproject.slurm":
                    line += f"   {ratio(gal['first']['s'], f_['s']):>15}{ratio(gal['rerun']['s'], re_['s']):>8}"
                lines.append(line)
    lines.append(f"\nTargets (issue 18): first <= {TARGETS['first_floor']}x floor, re-run <= "
                 f"{TARGETS['rerun_floor']}x floor, >= {TARGETS['vs_galaxy']}x faster than galaxyproject.slurm.")
    return "\n".join(lines)


def profile(timing_file, top=12):
    doc = json.loads(Path(timing_file).read_text())
    starts = doc["tasks"]
    rows = []
    for i, t in enumerate(starts):
        end = starts[i + 1]["start"] if i + 1 < len(starts) else doc["wall_s"]
        remote = sum(1 for x in doc["results"] if x["task"] == t["task"] and t["start"] <= x["end"] <= end + 0.01
                     and x["remote"])
        rows.append((end - t["start"], remote, t["task"]))
    rows.sort(reverse=True)
    lines = [f"  {doc['wall_s']:.1f} s wall, controller CPU {doc['controller_cpu_s']:.1f} s; slowest tasks:"]
    lines += [f"  {d:6.2f} s  {r:3d} host runs  {name[:90]}" for d, r, name in rows[:top]]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--nodes", nargs="+", type=int, default=[int(x) for x in os.environ.get("BENCH_NODES", "2 8").split()])
    ap.add_argument("--parts", nargs="+", choices=list(PARTS), default=os.environ.get("BENCH_PARTS", "slurm site").split())
    ap.add_argument("--variants", nargs="+", choices=VARIANTS,
                    default=os.environ.get("BENCH_VARIANTS", "docker").split())
    ap.add_argument("--galaxy", type=Path, default=os.environ.get("BENCH_GALAXY_SLURM") or None,
                    help="a checkout of galaxyproject/ansible-slurm, compared on the slurm part")
    ap.add_argument("--no-floor", action="store_true", help="leave out the floor")
    ap.add_argument("--no-warmup", action="store_true",
                    help="no untimed warm-up converge (for an apt cache known to hold every package already):"
                         " the floor then runs last, on what the first docker converge installed")
    ap.add_argument("--profile", action="store_true", help="print the slowest tasks of each first converge")
    ap.add_argument("--lab", choices=VARIANTS, metavar="VARIANT",
                    help="only start a fresh lab of the first --nodes size reached as VARIANT says"
                         " (e.g. ssh), print its inventory and leave it running; measure nothing")
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.lab:
        inv = fresh_lab(args.nodes[0], args.lab)
        env = ""
        if args.lab.endswith("+mitogen"):
            env = f"ANSIBLE_STRATEGY_PLUGINS={mitogen_strategy_dir()} ANSIBLE_STRATEGY=mitogen_linear "
        print(f"lab of {args.nodes[0]} compute nodes up, reached as {args.lab}:\n"
              f"  {env}.venv/bin/ansible-playbook site.yml -i {inv}\n(make lab-down removes it)")
        return 0
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    result = {"lab": "1 controller + N compute nodes, fresh Debian 12 containers, warm apt cache",
              "host_cpus": os.cpu_count(), "ansible_config": "ansible.cfg (forks 20, pipelining)", "runs": {}}
    bad = []
    for n in args.nodes:
        for part in args.parts:
            r = result["runs"].setdefault(str(n), {}).setdefault(part, {})
            # Untimed warm-up: a first converge that fills the apt cache with every package the
            # timed runs fetch (the lab's apt-cacher-ng), so no timed run, the floor included, pays
            # for a download the others do not; it also records what the floor installs.
            lists = None
            if not args.no_warmup:
                inv = fresh_lab(n, "docker")
                play(n, part, "docker", "warmup", inv)
                lists = record_installs(n, part)
                if args.galaxy and part == "slurm":
                    inv = fresh_lab(n, "docker")
                    galaxy_prepare(n)
                    play(n, "bench/galaxy_slurm.yml", "galaxy", "warmup", inv, galaxy_playbook(n, args.galaxy.resolve()))
                if not args.no_floor:
                    fresh_lab(n, "docker")
                    r["floor"] = floor(n, lists)
            for variant in args.variants:
                inv = fresh_lab(n, variant)
                r[variant] = {ph: play(n, part, variant, ph, inv) for ph in ("first", "rerun", "check")}
                if args.profile:
                    print(f"N={n} {part} {variant} first converge:\n"
                          + profile(RESULTS / f"last-{part}-{n}-{variant.replace('+', '-')}-first.timing.json"))
                if lists is None and variant.startswith("docker"):
                    lists = record_installs(n, part)
                bad += [f"{part} N={n} {variant} {ph}" for ph in ("rerun", "check") if r[variant][ph]["changed"]]
            if args.no_warmup and not args.no_floor:
                if lists is None:
                    play(n, part, "docker", "first", fresh_lab(n, "docker"))
                    lists = record_installs(n, part)
                fresh_lab(n, "docker")
                r["floor"] = floor(n, lists)
            if args.galaxy and part == "slurm":
                inv = fresh_lab(n, "docker")
                galaxy_prepare(n)
                extra = galaxy_playbook(n, args.galaxy.resolve())
                r["galaxyproject.slurm"] = {ph: play(n, "bench/galaxy_slurm.yml", "galaxy", ph, inv, extra)
                                            for ph in ("first", "rerun", "check")}
    run(["tools/lab.sh", "down"], cwd=REPO, stdout=subprocess.DEVNULL)
    path = RESULTS / f"converge-{stamp}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))
    log(f"saved {path}")
    if bad:
        log("changes reported where none may be: " + ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

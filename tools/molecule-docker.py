# -*- coding: utf-8 -*-
"""Molecule's create and destroy steps for the scenarios' systemd containers, through the docker CLI.

    python3 tools/molecule-docker.py create  < platforms.json
    python3 tools/molecule-docker.py destroy < platforms.json

Reads the scenario's platforms (molecule.yml, as Molecule passes them to its create and destroy
playbooks: molecule/shared/create.yml and destroy.yml) on standard input.

Molecule's own docker playbooks start each container as an async job and poll it every 5 seconds,
then do the same to remove it: 8 to 28 s per scenario on a 2-core machine, where the containers
take about a second each. Here every container of a scenario is started (or removed) at once, with
the flags the platforms give (the same recipe as tools/lab.sh): capabilities, security options,
tmpfs, cgroup namespace, volumes, networks with their fixed addresses and aliases. A container that already runs with the same image is
left as it is (Molecule's `recreate: false`); one that is stopped or has another image is started
again. Networks are made with their subnet and gateway and Molecule's owner label, and removed on
destroy when they carry that label and no container uses them any more.

Exits non-zero, with docker's message, when any container or network could not be made.
"""

import json
import subprocess
import sys

LABEL = "owner=molecule"


def docker(*args, check=True):
    """Run the docker CLI; (rc, stdout, stderr)."""
    proc = subprocess.run(("docker",) + args, capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise RuntimeError("docker %s: %s" % (" ".join(args[:3]), (proc.stderr or proc.stdout).strip()))
    return proc.returncode, proc.stdout.strip(), proc.stderr.strip()


def networks_of(platforms):
    """{name: network dict} of every docker_networks entry, first definition wins."""
    found = {}
    for platform in platforms:
        for net in platform.get("docker_networks") or []:
            found.setdefault(net["name"], net)
    return found


def run_args(platform):
    """The docker run arguments of one platform (the first network; the others are connected after)."""
    args = ["run", "-d", "--name", platform["name"], "--hostname", platform.get("hostname") or platform["name"],
            "--label", LABEL]
    for cap in platform.get("capabilities") or []:
        args += ["--cap-add", cap]
    for opt in platform.get("security_opts") or []:
        args += ["--security-opt", opt]
    for path in platform.get("tmpfs") or []:
        args += ["--tmpfs", path]
    if platform.get("cgroupns_mode"):
        args += ["--cgroupns", platform["cgroupns_mode"]]
    for volume in platform.get("volumes") or []:
        args += ["-v", volume]
    nets = list(platform.get("networks") or [])
    if nets:
        args += ["--network", nets[0]["name"]] + _address_args(nets[0], "--ip", "--network-alias")
    command = platform.get("command") or ""
    args.append(platform["image"])
    args += command.split() if isinstance(command, str) else list(command)
    return args, nets[1:]


def _address_args(net, ip_flag, alias_flag):
    """A network entry's fixed address and aliases as docker flags (the ha scenario's controllers have fixed
    addresses that slurm.conf names)."""
    args = []
    if net.get("ipv4_address"):
        args += [ip_flag, net["ipv4_address"]]
    for alias in net.get("aliases") or []:
        args += [alias_flag, alias]
    return args


def state(name):
    """(running, image) of a container, or None when there is none."""
    rc, out, unused = docker("container", "inspect", "-f", "{{.State.Running}} {{.Config.Image}}", name, check=False)
    if rc != 0:
        return None
    running, image = out.split(" ", 1)
    return running == "true", image


def create(platforms):
    errors = []
    for name, net in networks_of(platforms).items():
        if docker("network", "inspect", name, check=False)[0] == 0:
            continue
        args = ["network", "create", "--label", LABEL]
        for ipam in net.get("ipam_config") or []:
            if ipam.get("subnet"):
                args += ["--subnet", ipam["subnet"]]
            if ipam.get("gateway"):
                args += ["--gateway", ipam["gateway"]]
        try:
            docker(*(args + [name]))
        except RuntimeError as exc:
            errors.append(str(exc))
    if errors:
        return errors
    started = []
    for platform in platforms:
        have = state(platform["name"])
        if have == (True, platform["image"]):
            print("%s: running" % platform["name"])
            continue
        if have is not None:
            docker("rm", "-f", platform["name"], check=False)
        args, more_nets = run_args(platform)
        proc = subprocess.Popen(["docker"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started.append((platform["name"], proc, more_nets))
    for name, proc, more_nets in started:
        err = proc.communicate()[1]
        if proc.returncode != 0:
            errors.append("docker run %s: %s" % (name, err.strip()))
            continue
        for net in more_nets:
            rc, unused, err = docker(*(["network", "connect"] + _address_args(net, "--ip", "--alias")
                                       + [net["name"], name]), check=False)
            if rc != 0:
                errors.append("docker network connect %s %s: %s" % (net["name"], name, err))
        print("%s: started" % name)
    return errors


def destroy(platforms):
    errors = []
    names = [platform["name"] for platform in platforms]
    present = [name for name in names if state(name) is not None]
    # Containers a scenario's verify booted from a node image on the scenario's networks (test harness,
    # tests/lab/node_image/boot-node.sh): not platforms, but they would keep the network in use.
    for name in networks_of(platforms):
        rc, out, unused = docker("ps", "-aq", "--filter", "label=gpuops.node-image=1", "--filter", "network=" + name,
                                 "--format", "{{.Names}}", check=False)
        present += [item for item in out.split() if rc == 0 and item not in present]
    if present:
        rc, unused, err = docker(*(["rm", "-f"] + present), check=False)
        if rc != 0:
            errors.append("docker rm %s: %s" % (" ".join(present), err))
    for name in networks_of(platforms):
        rc, out, unused = docker("network", "inspect", "-f", "{{index .Labels \"owner\"}} {{len .Containers}}",
                                 name, check=False)
        if rc != 0:
            continue
        owner, users = (out.split(" ") + ["", ""])[:2]
        if owner == "molecule" and users == "0":
            rc, unused, err = docker("network", "rm", name, check=False)
            if rc != 0 and "not found" not in err:
                errors.append("docker network rm %s: %s" % (name, err))
    print("removed: %s" % (", ".join(present) or "nothing"))
    return errors


def main(argv):
    if len(argv) != 2 or argv[1] not in ("create", "destroy"):
        sys.stderr.write("usage: molecule-docker.py create|destroy < platforms.json\n")
        return 2
    try:
        platforms = json.load(sys.stdin)
        if not isinstance(platforms, list) or not all(isinstance(p, dict) and p.get("name") for p in platforms):
            raise ValueError("expected a list of platforms, each with a name")
        errors = (create if argv[1] == "create" else destroy)(platforms)
    except (ValueError, RuntimeError) as exc:
        errors = [str(exc)]
    for error in errors:
        sys.stderr.write(error + "\n")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpuops-slurm-exporter: Prometheus metrics of a Slurm cluster, from read-only Slurm commands.

Installed by gpuops.cluster.slurm_exporter on the Slurm controller and run by
systemd. Each scrape runs sinfo (twice: states and reasons, then Gres),
squeue, sdiag, scontrol ping and, where accounting is on, sshare and sacctmgr,
side by side, each with a time limit, and reads the note of the last takeover
a Slurm trigger writes on a backup controller. What they print is read by the
collection's module_utils (installed beside this file under lib/). A command
that fails or prints what cannot be read gives gpuops_slurm_command_up 0 with
the reason; the others are still exported.

  gpuops-slurm-exporter            serve (settings: $GPUOPS_SLURM_EXPORTER_CONFIG)
  gpuops-slurm-exporter --once     print one scrape on stdout and exit
"""

from __future__ import absolute_import, division, print_function

import json
import os
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))

from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring import _exporter as exporter  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._gpu_metrics import exposition  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.monitoring._slurm_metrics import (  # noqa: E402
    COMMANDS,
    NATIVE_COMMANDS,
    PREFIX,
    PROGRAMS,
    TAKEOVER_NOTE,
    SlurmMetricsError,
    family,
    slurm_samples,
    exporter_active,
    takeover_samples,
)
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._slurm_rest import conf_has_native_metrics  # noqa: E402

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CONFIG = os.environ.get("GPUOPS_SLURM_EXPORTER_CONFIG", "/etc/gpuops/slurm-exporter.json")


def read_json(path):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (IOError, OSError, ValueError):
        return None


def read_text(path, limit=4096):
    """The file's text (its first limit characters), or None when it is not there or cannot be read."""
    try:
        with open(path) as handle:
            return handle.read(limit)
    except (IOError, OSError, UnicodeDecodeError):
        return None


def run(argv, timeout):
    """{"out": stdout} or {"error": why} of argv under LC_ALL=C."""
    env = {"PATH": PATH, "LC_ALL": "C", "LANG": "C"}
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    except OSError as exc:
        return {"error": "%s: %s" % (argv[0], exc.strerror or exc)}
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return {"error": "%s did not answer within %gs" % (os.path.basename(argv[0]), timeout)}
    out = out.decode("utf-8", "replace")
    if proc.returncode != 0:
        lines = [line for line in (err.decode("utf-8", "replace") + "\n" + out).splitlines() if line.strip()]
        return {"error": "rc %d: %s" % (proc.returncode, lines[-1] if lines else "no output")}
    return {"out": out}


class Gatherer(object):
    """Runs the scrape's commands side by side; samples() reads them with the collection's code."""

    def __init__(self, cfg):
        self.cfg = cfg
        # sshare and sacctmgr need slurmdbd: without accounting they would only report failures.
        self.names = [name for name in sorted(COMMANDS) if name not in ("sacctmgr", "sshare") or cfg.get("accounting")]

    def argv(self, name):
        program = PROGRAMS.get(name, name)
        path = (self.cfg.get("paths") or {}).get(program) or shutil.which(program, path=PATH)
        return [path] + COMMANDS[name] if path else None

    def results(self, names):
        timeout = float(self.cfg.get("command_timeout_s") or 10)
        results = {}

        def one(name):
            argv = self.argv(name)
            results[name] = run(argv, timeout) if argv else {"error": "%s not found in %s" % (name, PATH)}

        threads = [threading.Thread(target=one, args=(name,)) for name in names]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return results

    def samples(self):
        """scontrol ping first: a standby controller's exporter reports only that (exporter_active). With
        slurmctld's native metrics on (this controller's slurm.conf, read on every scrape) the families slurmctld
        exports are left to it."""
        start = time.time()
        native = conf_has_native_metrics(read_text(self.cfg.get("slurm_conf") or "/etc/slurm/slurm.conf", 1 << 22))
        results = self.results(["scontrol_ping"])
        active = exporter_active(results["scontrol_ping"], self.cfg.get("node_name"))
        if active:
            results.update(self.results([name for name in self.names if name != "scontrol_ping"
                                         and not (native and name in NATIVE_COMMANDS)]))
        out = slurm_samples(results, native)
        out.append((PREFIX + "exporter_active", {}, 1 if active else 0))
        out.append((PREFIX + "native_metrics", {}, 1 if native else 0))
        # With backups, the time this controller last took control (a Slurm trigger's note).
        try:
            out.extend(takeover_samples(read_text(TAKEOVER_NOTE), self.cfg.get("node_name")))
        except SlurmMetricsError as exc:
            out.append((PREFIX + "command_up", {"command": "takeover_note", "reason": str(exc)[:200]}, 0))
        out.append((PREFIX + "scrape_duration_seconds", {}, time.time() - start))
        return out


def serve(cfg, gatherer):
    exporter.serve(cfg.get("address") or "127.0.0.1", cfg.get("port") or 9446, gatherer.samples, family)


def main(argv):
    cfg = read_json(CONFIG)
    if not isinstance(cfg, dict):
        sys.stderr.write("gpuops-slurm-exporter: cannot read the settings in %s\n" % CONFIG)
        return 2
    gatherer = Gatherer(cfg)
    if argv[1:] == ["--once"]:
        sys.stdout.write(exposition(gatherer.samples(), family))
        return 0
    if argv[1:]:
        sys.stderr.write("usage: gpuops-slurm-exporter [--once]\n")
        return 2
    serve(cfg, gatherer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

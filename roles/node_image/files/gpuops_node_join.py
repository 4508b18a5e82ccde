# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""gpuops-node-join: a compute node booted from an image joins the cluster (gpuops-node-join.service, once a boot).

  gpuops-node-join [--dry-run] [--overlay-dir /etc/gpuops/node] [--manifest /etc/gpuops/image/manifest.json]
                   [--munge-key /etc/munge/munge.key] [--munge-user munge] [--run-dir /run/gpuops/node-join]
                   [--drain-timeout 120] [--retry-interval 5] [--smi-timeout 60] [--hostname NAME]
  (--overlay and --timeout are other names of --overlay-dir and --drain-timeout)

Reads the node's overlay (join.conf, munge.key) and the image manifest, installs
the munge key and starts munge, writes slurmd's options (--conf-server, -N), checks
the GPUs against the node's hardware profile, drains a node whose check fails
before slurmd registers it, and starts slurmd. A node whose check failed and that
could not be drained is never started: it must not come up idle.
Every step logs one line (syslog; on stderr too outside systemd); the result is
written to <run dir>/result.json. --dry-run prints the plan and does nothing.

Exit codes: 0 slurmd started (the check passed, or it failed and the node is
drained); 1 the check failed and the drain could not be made in --drain-timeout
(slurmd not started); 2 usage; 3 the overlay or the image manifest is unusable
(nothing done); 4 a step on the node failed (the munge key, a file, systemctl).

This file only gathers and acts: what to conclude is decided by the collection's
module_utils (slurm/_node_join.py), installed beside it in lib/.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import errno
import json
import os
import pwd
import shutil
import socket
import sys
import syslog
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))

# pylint: disable=wrong-import-position
from ansible_collections.gpuops.cluster.plugins.module_utils.common import _program_run as program_run  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm import _node_join as join  # noqa: E402
from ansible_collections.gpuops.cluster.plugins.module_utils.gpu._gpu_facts import smi_outcome  # noqa: E402

NAME = "gpuops-node-join"
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
EXIT_OK, EXIT_NOT_DRAINED, EXIT_USAGE, EXIT_INPUT, EXIT_STEP = 0, 1, 2, 3, 4
# The longest one scontrol call may take (it waits for the controller's answer, MessageTimeout).
SCONTROL_TIMEOUT = 30
SCONTROL_MIN_TIMEOUT = 5
SYSTEMCTL_TIMEOUT = 120


class StepError(Exception):
    """A step on the node that failed (the message is one line)."""


class Usage(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print("%s: %s" % (NAME, message), file=sys.stderr)
        sys.exit(EXIT_USAGE)


def log(priority, message):
    """One line to syslog (the journal); on stderr too when not run by systemd (a shell, the tests)."""
    syslog.openlog(NAME, syslog.LOG_PID, syslog.LOG_DAEMON)
    syslog.syslog(priority, message)
    if not os.environ.get("JOURNAL_STREAM"):
        print("%s: %s" % (NAME, message), file=sys.stderr)


def search_path():
    return os.environ.get("PATH") or DEFAULT_PATH


def which(name):
    return shutil.which(name, path=search_path())


def run(argv, timeout, env=None):
    """(rc, stdout, stderr, timed_out) of argv under LC_ALL=C (and env's other variables)."""
    return program_run.run(argv, timeout, search_path(), env)


def first_line(*texts):
    for text in texts:
        for line in (text or "").splitlines():
            if line.strip():
                return " ".join(line.split())[:200]
    return "no output"


def read_bytes(path, limit):
    """(bytes or None when the file is missing, error or None); at most limit + 1 bytes are read."""
    try:
        with open(path, "rb") as handle:
            return handle.read(limit + 1), None
    except (IOError, OSError) as exc:
        if exc.errno == errno.ENOENT:
            return None, None
        return None, "%s cannot be read: %s" % (path, exc.strerror or exc)


def write_file(path, data, mode, owner=None):
    """Replace path with data atomically (a temporary file in its directory, renamed): mode, owner (uid, gid)."""
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    tmp = os.path.join(directory, ".%s.%d.tmp" % (os.path.basename(path), os.getpid()))
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fchmod(fd, mode)
            if owner is not None:
                os.fchown(fd, owner[0], owner[1])
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.rename(tmp, path)
    except (IOError, OSError) as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise StepError("cannot write %s: %s" % (path, exc.strerror or exc))


def write_result(args, record):
    try:
        write_file(os.path.join(args.run_dir, join.RESULT_NAME),
                   (json.dumps(record, indent=1, sort_keys=True) + "\n").encode("utf-8"), 0o644)
    except StepError as exc:
        log(syslog.LOG_ERR, str(exc))


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


# ---- gathering

def read_overlay(args):
    """(conf, key bytes, errors) of the overlay directory."""
    if not os.path.isdir(args.overlay_dir):
        return None, None, ["the node's overlay %s is missing: lay it with join.conf and munge.key (a Warewulf runtime "
                            "overlay or cloud-init)" % args.overlay_dir]
    errors = []
    conf_path = os.path.join(args.overlay_dir, join.JOIN_CONF_NAME)
    data, error = read_bytes(conf_path, join.TEXT_LIMIT)
    conf = None
    if error:
        errors.append(error)
    elif data is None:
        errors.append("%s is missing: the node's overlay must carry it (conf_server=..., cluster_name=...)" % conf_path)
    else:
        conf, found = join.parse_join_conf(data, conf_path)
        errors.extend(found)
    key_path = os.path.join(args.overlay_dir, join.MUNGE_KEY_NAME)
    key, error = read_bytes(key_path, join.MUNGE_KEY_LIMIT)
    if error:
        errors.append(error)
    else:
        error = join.munge_key_error(key, key_path)
        if error:
            errors.append(error)
    return conf, key, errors


def read_manifest(args, conf):
    """(profile name, profile, image label or None, error)."""
    data, error = read_bytes(args.manifest, join.MANIFEST_LIMIT)
    if error:
        return None, None, None, error
    if data is None:
        return (None, None, None,
                "the image manifest %s is missing: boot an image built by gpuops.cluster" % args.manifest)
    manifest, error = join.parse_manifest(data, args.manifest)
    if error:
        return None, None, None, error
    name, profile, error = join.node_profile(manifest, conf)
    return name, profile, join.image_label(manifest), error


def smi(args):
    """(xml or None, error or None, listing or None) of nvidia-smi -q -x (and -L for GPUs with MIG devices)."""
    path = which("nvidia-smi")
    if not path:
        return None, join.SMI_MISSING, None
    rc, out, err, timed_out = run([path, "-q", "-x"], args.smi_timeout)
    if timed_out or smi_outcome(rc, out, err) != "xml":
        return None, join.smi_failure(rc, out, err, timed_out, args.smi_timeout), None
    listing = None
    if join.needs_listing(out):
        rc, listed, _err, timed_out = run([path, "-L"], args.smi_timeout)
        listing = listed if rc == 0 and not timed_out else None
    return out, None, listing


def key_differs(path, key):
    current, error = read_bytes(path, join.MUNGE_KEY_LIMIT)
    return error is not None or current != key


# ---- acting

def install_key(args, key):
    try:
        entry = pwd.getpwnam(args.munge_user)
    except KeyError:
        raise StepError("user %s does not exist: is munge installed in the image?" % args.munge_user)
    directory = os.path.dirname(args.munge_key) or "."
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory, 0o700)
            os.chown(directory, entry.pw_uid, entry.pw_gid)
        except OSError as exc:
            raise StepError("cannot make %s: %s" % (directory, exc.strerror or exc))
    write_file(args.munge_key, bytes(key), 0o400, (entry.pw_uid, entry.pw_gid))


def keep_key_mode(args):
    """The installed key already holds the overlay's: its owner and mode still made munge's and 0400."""
    try:
        entry = pwd.getpwnam(args.munge_user)
        info = os.stat(args.munge_key)
        if (info.st_uid, info.st_gid) != (entry.pw_uid, entry.pw_gid):
            os.chown(args.munge_key, entry.pw_uid, entry.pw_gid)
        if info.st_mode & 0o7777 != 0o400:
            os.chmod(args.munge_key, 0o400)
    except KeyError:
        raise StepError("user %s does not exist: is munge installed in the image?" % args.munge_user)
    except OSError as exc:
        raise StepError("cannot set the owner and mode of %s: %s" % (args.munge_key, exc.strerror or exc))


def systemctl_start(unit):
    path = which("systemctl")
    if not path:
        raise StepError("systemctl not found: cannot start %s" % unit)
    rc, out, err, timed_out = run([path, "start", unit], SYSTEMCTL_TIMEOUT)
    if timed_out:
        raise StepError("systemctl start %s ran past %d s" % (unit, SYSTEMCTL_TIMEOUT))
    if rc != 0:
        raise StepError("systemctl start %s failed (rc %d): %s" % (unit, rc, first_line(err, out)))


def scontrol(argv, conf_path, timeout):
    """(rc, first error line or '', stdout) of scontrol argv with the client slurm.conf."""
    path = which("scontrol")
    if not path:
        return 127, "scontrol not found on PATH", ""
    rc, out, err, timed_out = run([path] + argv, timeout, {"SLURM_CONF": conf_path})
    if timed_out:
        return 124, "scontrol ran past %d s" % timeout, out
    return rc, first_line(err, out) if rc != 0 else "", out


def drain(args, step, conf_path):
    """Whether the drain was made, trying every --retry-interval seconds for --drain-timeout seconds."""
    deadline = time.time() + args.drain_timeout
    attempt = 0
    while True:
        attempt += 1
        left = int(max(SCONTROL_MIN_TIMEOUT, min(SCONTROL_TIMEOUT, deadline - time.time())))
        rc, why, _out = scontrol(step["argv"], conf_path, left)
        if rc == 0:
            log(syslog.LOG_WARNING, "drained %s before slurmd starts (attempt %d): %s"
                % (step["node"], attempt, step["reason"]))
            return True, None
        if rc == 127 or time.time() + args.retry_interval > deadline:
            return False, "scontrol update failed (rc %d, %d attempt(s) in %g s): %s" % (
                rc, attempt, args.drain_timeout, why)
        if attempt == 1:
            log(syslog.LOG_WARNING, "drain of %s not made yet (rc %d: %s): trying again every %g s for %g s"
                % (step["node"], rc, why, args.retry_interval, args.drain_timeout))
        time.sleep(args.retry_interval)


def resume(step, conf_path):
    """Resume the node if Slurm holds it drained by gpuops-join (an earlier boot); a failure is only logged."""
    rc, why, out = scontrol(["-o", "show", "node", step["node"]], conf_path, SCONTROL_TIMEOUT)
    if rc != 0:
        log(syslog.LOG_NOTICE, "Slurm's record of %s not read (%s): no drain of an earlier boot resumed"
            % (step["node"], why))
        return False
    if not join.own_drain(out, step["node"]):
        return False
    rc, why, _out = scontrol(step["argv"], conf_path, SCONTROL_TIMEOUT)
    if rc != 0:
        log(syslog.LOG_WARNING, "could not resume %s from an earlier boot's gpuops-join drain: %s" % (step["node"], why))
        return False
    log(syslog.LOG_NOTICE, "resumed %s: an earlier boot's gpuops-join drain, its check passes now" % step["node"])
    return True


def boot_health_settings(args, node, profile):
    """{"path", "content"} of the health check's settings for this boot, or None (no health check in the image, or
    a file that is not its settings: said in the journal, the file left as it is)."""
    data, error = read_bytes(args.health_config, join.MANIFEST_LIMIT)
    if data is None and error is None:
        return None
    try:
        settings = json.loads(data.decode("utf-8")) if data is not None else None
    except ValueError:
        settings = None
    new = join.health_settings(settings, node, profile)
    if new is None:
        log(syslog.LOG_WARNING, "%s is not the health check's settings (%s): left as it is, so the health check "
            "does not know this node's GPUs" % (args.health_config, error or "not a JSON object node_health writes"))
        return None
    return {"path": args.health_config, "content": json.dumps(new, indent=1, sort_keys=True) + "\n"}


def route_address(controllers):
    """The address this node reaches its first reachable controller from (the kernel's route choice; a UDP
    connect sends nothing), or None, logged, when no controller's name resolves or no route leads there."""
    for item in controllers:
        try:
            for family, kind, proto, _name, addr in socket.getaddrinfo(item["host"], item["port"], 0,
                                                                       socket.SOCK_DGRAM):
                probe = socket.socket(family, kind, proto)
                try:
                    probe.connect(addr)
                    return probe.getsockname()[0]
                finally:
                    probe.close()
        except (OSError, socket.error) as exc:
            log(syslog.LOG_WARNING, "no route to controller %s: %s" % (item["host"], exc))
    log(syslog.LOG_WARNING, "no address toward the controllers: the exporters listen on %s only" % join.NO_ADDRESS)
    return None


def record_image(step, conf_path):
    """Name the booted image in the node's Comment (the rolling reimage reads it); a failure is only logged."""
    rc, why, _out = scontrol(step["argv"], conf_path, SCONTROL_TIMEOUT)
    if rc != 0:
        log(syslog.LOG_WARNING, "could not record the image %s in %s's Comment: %s" % (step["image"], step["node"], why))
        return False
    log(syslog.LOG_INFO, "recorded the image %s in %s's Comment" % (step["image"], step["node"]))
    return True


def act(args, conf, plan, key, record):
    """Carry out the plan's steps in order; returns the exit code (record is filled as it goes)."""
    conf_path = None
    for step in plan:
        kind = step["step"]
        if kind == "munge_key":
            if step["write"]:
                install_key(args, key)
                log(syslog.LOG_INFO, "installed the overlay's munge key as %s (owner %s, mode 0400)"
                    % (args.munge_key, args.munge_user))
            else:
                keep_key_mode(args)
                log(syslog.LOG_INFO, "%s already holds the overlay's munge key" % args.munge_key)
        elif kind == "start":
            if step["unit"] == "slurmd" and record["check"] == "failed" and not record["drained"]:
                # The plan drains first; should it ever not, a node that failed its check still never starts idle.
                raise StepError("slurmd not started: the failed check's drain was not made")
            systemctl_start(step["unit"])
            if step["unit"] == "slurmd":
                record["slurmd_started"] = True
            log(syslog.LOG_INFO, "started %s" % step["unit"])
        elif kind == "health_settings":
            write_file(step["path"], step["content"].encode("utf-8"), 0o644)
            log(syslog.LOG_INFO, "wrote %s (the health check: this node's name and its profile's GPUs)" % step["path"])
        elif kind in ("slurmd_env", "client_conf", "node_env"):
            write_file(step["path"], step["content"].encode("utf-8"), 0o644)
            conf_path = step["path"] if kind == "client_conf" else conf_path
            log(syslog.LOG_INFO, "wrote %s" % step["path"])
        elif kind == "drain":
            done, why = drain(args, step, conf_path)
            if not done:
                record["stopped"] = "drain"
                record["error"] = why
                log(syslog.LOG_ERR, "%s failed its check (%s) and could not be drained: %s; slurmd not started, so "
                    "the node never comes up idle. Make the controllers reachable (%s) and restart %s.service"
                    % (step["node"], record["reason"], why, conf["conf_server"], NAME))
                return EXIT_NOT_DRAINED
            record["drained"] = True
        elif kind == "resume":
            record["resumed"] = resume(step, conf_path)
        elif kind == "record_image":
            record["image_recorded"] = record_image(step, conf_path)
    return EXIT_OK


def main(argv):
    parser = Usage(prog=NAME, description="Join the cluster at boot: the munge key, the GPU check, slurmd.")
    parser.add_argument("--overlay-dir", "--overlay", default=join.OVERLAY_DIR)
    parser.add_argument("--manifest", default=join.MANIFEST)
    parser.add_argument("--munge-key", default=join.MUNGE_KEY_PATH)
    parser.add_argument("--munge-user", default=join.MUNGE_USER)
    parser.add_argument("--run-dir", default=join.RUN_DIR)
    parser.add_argument("--health-config", default=join.HEALTH_CONFIG)
    parser.add_argument("--drain-timeout", "--timeout", type=float, default=120.0)
    parser.add_argument("--retry-interval", type=float, default=5.0)
    parser.add_argument("--smi-timeout", type=int, default=60)
    parser.add_argument("--hostname", default=None)
    parser.add_argument("--address", default=None, help="the node's address (default: the one it reaches its "
                        "first controller from)")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv[1:])
    if args.drain_timeout < 0 or args.retry_interval <= 0 or args.smi_timeout < 1:
        parser.error("--drain-timeout must be 0 or more, --retry-interval more than 0, --smi-timeout 1 or more")
    hostname = args.hostname or socket.gethostname()
    record = join.result(join.short_hostname(hostname), None, None, False, False, now())
    try:
        return join_node(args, hostname, record)
    except StepError as exc:
        error = str(exc)
    except Exception as exc:  # pylint: disable=broad-except
        # A fault of this program: one line in the journal, never a traceback; slurmd is left as it is.
        error = "failed: %s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:300])
    record.update(stopped=record.get("stopped") or "step", error=error, time=now())
    log(syslog.LOG_ERR, "%s; slurmd %s" % (error, "was started" if record["slurmd_started"] else "not started"))
    if not args.dry_run:
        try:
            write_result(args, record)
        except Exception:  # pylint: disable=broad-except
            pass
    return EXIT_STEP


def join_node(args, hostname, record):
    conf, key, errors = read_overlay(args)
    profile_name = profile = node = image = None
    if conf is not None:
        node, error = join.node_name(conf, hostname)
        errors.extend([error] if error else [])
        profile_name, profile, image, error = read_manifest(args, conf)
        errors.extend([error] if error else [])
    if errors:
        for error in errors:
            log(syslog.LOG_ERR, error)
        log(syslog.LOG_ERR, "not joined: fix the node's overlay or the image (above); nothing was done, slurmd not "
            "started")
        record.update(node=node or record["node"], profile=profile_name, check="failed", reason=errors[0],
                      stopped="input", time=now())
        if not args.dry_run:
            write_result(args, record)
        return EXIT_INPUT
    log(syslog.LOG_INFO, "overlay read: cluster %s, controllers %s, node %s, profile %s (%s)"
        % (conf["cluster_name"], conf["conf_server"], node, profile_name, profile["gres_value"] or "no GPU"))

    xml, smi_error, listing = smi(args)
    reason = join.gpu_check(xml, smi_error, profile, listing, profile_name)
    if reason:
        log(syslog.LOG_WARNING, "check failed: %s" % reason)
    else:
        log(syslog.LOG_INFO, "check passed: the GPUs are what profile %s wants (%s)"
            % (profile_name, profile["gres_value"] or "no GPU"))
    record.update(node=node, profile=profile_name, check="failed" if reason else "passed", reason=reason)

    plan = join.join_plan(conf, node, profile_name, reason, key_differs(args.munge_key, key), hostname,
                          args.run_dir, args.munge_key, image, boot_health_settings(args, node, profile),
                          args.address or route_address(conf["controllers"]))
    record["image"] = image
    if args.dry_run:
        for number, step in enumerate(plan, 1):
            print("%d. %s" % (number, step["what"]))
        print("dry run: nothing done")
        return EXIT_OK
    code = act(args, conf, plan, key, record)
    record["time"] = now()
    write_result(args, record)
    if code == EXIT_OK:
        log(syslog.LOG_NOTICE, "joined as %s (profile %s): check %s%s, slurmd started"
            % (node, profile_name, record["check"], ", drained" if record["drained"] else ""))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One munge key for the whole cluster, never forked: which key a run writes, and from where.

The rule (``munge_key_plan``):

* ``slurm_munge_key`` given (vault): that key, everywhere.
* Otherwise the key the Slurm hosts already hold: the hosts of this run are known from their probe (a SHA-1 of
  the key file each, or ``missing``); the controllers outside the run are always asked (``ask``: their key file
  is read, delegated), and when no host of the run holds a key a few more hosts outside it are asked too
  (controllers first, then the others in inventory order, at most ASK_LIMIT in all).
* Hosts holding different keys stop the play, every host named by the checksum it holds; nothing is written.
* A new random key is made only when no host asked or probed holds one and every host asked answered.
  A host that could not be read while no other holds a key stops the play: a new key would cut off the
  hosts that hold the cluster's.

The plan never holds a key, only checksums and host names: it is safe to print.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import hashlib
import random
import string

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import guarded, shown
from ansible_collections.gpuops.cluster.plugins.module_utils.slurm._hostlist import HostlistError, compress

MISSING = "missing"
UNREACHABLE = "unreachable"
# The most hosts outside the run read for their key when no host of the run holds one (the controllers
# outside the run are always read, whatever their number).
ASK_LIMIT = 5
ACTIONS = ("given", "keep", "copy", "ask", "new", "stop")
# The cluster-wide secrets this plan serves: what a message calls the key, its variable and its file.
KINDS = {
    "munge": {"key": "munge key", "variable": "slurm_munge_key", "path": "/etc/munge/munge.key", "length": 128,
              "refused": "A credential made with one is refused by the others"},
    "jwt": {"key": "JWT key", "variable": "slurm_jwt_key", "path": "/etc/slurm/jwt_hs256.key", "length": 64,
            "refused": "A token signed with one is refused by the others (slurmctld, slurmdbd)"},
}


def _kind(kind):
    if kind not in KINDS:
        raise MungeKeyError("kind must be one of %s, not %s" % (", ".join(sorted(KINDS)), shown(kind, 40)))
    return KINDS[kind]


def _fix(kind="munge"):
    words = _kind(kind)
    return ("Give the cluster's key as %s (from vault), or remove the wrong key file (%s) from the hosts that should "
            "not keep theirs, then run again." % (words["variable"], words["path"]))


class MungeKeyError(Exception):
    """The plan's input is not the shape the role gives (a bug, not a user error)."""


def _hosts_text(hosts):
    try:
        return compress(list(hosts))
    except HostlistError:
        return ",".join(str(host) for host in hosts)


def _host_list(value, what):
    if value is None:
        return []
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise MungeKeyError("%s must be a list of host names, not %s" % (what, shown(value, 60)))
    return list(value)


def _forked(sums, kind="munge"):
    """The stop message when the hosts hold more than one key, else None. sums: {host: checksum or missing}."""
    by_sum = {}
    for host, digest in sums.items():
        if digest not in (MISSING, UNREACHABLE):
            by_sum.setdefault(digest, []).append(host)
    if len(by_sum) < 2:
        return None
    holders = "; ".join("%s on %s" % (digest[:12], _hosts_text(sorted(hosts)))
                        for digest, hosts in sorted(by_sum.items(), key=lambda item: (-len(item[1]), item[0])))
    words = _kind(kind)
    return ("The Slurm hosts hold %d different %ss (SHA-1 prefix on hosts): %s. %s, so nothing is written. %s"
            % (len(by_sum), words["key"], holders, words["refused"], _fix(kind)))


def munge_key_plan(given_sum, sums, controllers, slurm_hosts, asked=None, kind="munge"):
    """What this run does with the munge key (kind "munge") or the JWT key (kind "jwt": the same rule over the
    controllers and slurmdbd hosts, slurm_jwt_key from vault).

    given_sum: the SHA-1 of slurm_munge_key, or '' when it is not given. sums: {host: SHA-1 or 'missing'} for
    the hosts of this run (their probe). controllers: the controller group, the primary first. slurm_hosts:
    every Slurm host of the inventory (controllers, compute nodes, slurmdbd hosts). asked: None before the
    hosts outside the run are read; then {host: SHA-1, 'missing' or 'unreachable'} for the hosts read.

    Returns {action, ask, source, sums, message}: action is
    ``given`` (write slurm_munge_key where it differs), ``keep`` (every host of the run holds the key: nothing
    to write), ``copy`` (write the key of host ``source``, a host of the run or one read outside it),
    ``ask`` (read the key file of the hosts in ``ask`` first, then call again with ``asked``), ``new`` (a new
    random key) or ``stop`` (``message`` says why and the fix).
    """
    if not isinstance(sums, dict) or not all(isinstance(key, str) and isinstance(value, str)
                                             for key, value in sums.items()):
        raise MungeKeyError("sums must map host names to checksums, not %s" % shown(sums, 60))
    if not isinstance(given_sum, str):
        raise MungeKeyError("given_sum must be a checksum or '', not %s" % shown(given_sum, 60))
    controllers = _host_list(controllers, "controllers")
    slurm_hosts = _host_list(slurm_hosts, "slurm_hosts")
    if asked is not None and (not isinstance(asked, dict) or not all(
            isinstance(key, str) and isinstance(value, str) for key, value in asked.items())):
        raise MungeKeyError("asked must map host names to checksums, not %s" % shown(asked, 60))
    words = _kind(kind)
    plan = {"action": "", "ask": [], "source": "", "sums": dict(sums), "message": ""}
    if given_sum:
        everywhere = len(sums) > 0 and all(value == given_sum for value in sums.values())
        plan["action"] = "keep" if everywhere else "given"
        return plan
    outside = [host for host in _unique(controllers + slurm_hosts) if host not in sums]
    holders = [host for host in _unique(controllers + list(sums)) if sums.get(host, MISSING) != MISSING]
    if asked is None:
        ask = [host for host in controllers if host in outside]
        if not holders:
            others = [host for host in outside if host not in ask]
            ask += others[:max(ASK_LIMIT - len(ask), 0)]
        if ask:
            plan.update(action="ask", ask=ask)
            return _checked(plan, kind)
        asked = {}
    # A host of the run is known by its probe; what was read of it otherwise is ignored.
    known = dict(asked)
    known.update(sums)
    plan["sums"] = known
    forked = _forked(known, kind)
    if forked:
        plan.update(action="stop", message=forked)
        return plan
    order = _unique(controllers + list(sums) + list(asked))
    source = next((host for host in order if known.get(host) not in (None, MISSING, UNREACHABLE)), "")
    if source:
        keep = all(value == known[source] for value in sums.values())
        plan.update(action="keep" if keep else "copy", source=source)
        return plan
    unread = sorted(host for host, value in asked.items() if value == UNREACHABLE)
    if unread:
        plan.update(action="stop", message=(
            "No host of this run holds a %s and %s could not be read: a new key would cut the cluster's hosts "
            "off from each other. Run again when %s answers (or over the whole cluster), or give the cluster's key as "
            "%s (from vault)." % (words["key"], _hosts_text(unread), "it" if len(unread) == 1 else "one of them",
                                  words["variable"])))
        return plan
    plan["action"] = "new"
    return plan


# A new key: letters and digits (about 5.95 bits each: 128 for munge is about 760 bits, 64 for JWT about 380;
# munge asks at least 256 bits, Slurm's JWT guide 32 random bytes).
_KEY_CHARS = string.ascii_letters + string.digits


def key_content_b64(plan, given="", slurped="", kind="munge"):
    """The key a plan writes, base64-encoded for file_bundle's content_b64; '' when the plan writes none.

    plan: munge_key_plan's result. given: the key from vault (action ``given``). slurped: the base64 content read
    from the plan's source host (action ``copy``). ``new`` makes a random key of the kind's length. ``keep`` and
    ``stop`` write nothing. The result is a secret: the caller never logs it.
    """
    words = _kind(kind)
    if not isinstance(plan, dict) or plan.get("action") not in ACTIONS:
        raise MungeKeyError("plan must be munge_key_plan's result, not %s" % shown(plan, 60))
    action = plan["action"]
    if action == "given":
        if not isinstance(given, str) or not given:
            raise MungeKeyError("the plan writes the given %s, but %s is empty" % (words["key"], words["variable"]))
        return base64.b64encode(given.encode("utf-8")).decode("ascii")
    if action == "copy":
        if not isinstance(slurped, str) or not slurped:
            raise MungeKeyError("the plan copies the %s of %s, but nothing was read from it"
                                % (words["key"], plan.get("source")))
        try:
            base64.b64decode(slurped, validate=True)
        except (binascii.Error, ValueError):
            raise MungeKeyError("the %s read from %s is not base64" % (words["key"], plan.get("source")))
        return slurped
    if action == "new":
        draw = random.SystemRandom()  # os.urandom
        key = "".join(draw.choice(_KEY_CHARS) for dummy in range(words["length"]))
        return base64.b64encode(key.encode("ascii")).decode("ascii")
    return ""


def _checked(plan, kind="munge"):
    forked = _forked(plan["sums"], kind)
    if forked:
        plan.update(action="stop", ask=[], message=forked)
    return plan


def _unique(hosts):
    seen = []
    for host in hosts:
        if host not in seen:
            seen.append(host)
    return seen


def asked_sums(results):
    """{host: SHA-1, 'missing' or 'unreachable'} from the registered loop of slurp results over the hosts asked.

    results: the loop's ``results`` list; each item has ``item`` (the host) and either ``content`` (base64),
    ``unreachable`` or a failure (no such file: missing).
    """
    if not isinstance(results, list):
        raise MungeKeyError("results must be the loop's list of results, not %s" % shown(results, 60))
    sums = {}
    for result in results:
        if not isinstance(result, dict) or not isinstance(result.get("item"), str):
            raise MungeKeyError("each result must be a mapping with the host as item, not %s" % shown(result, 60))
        host = result["item"]
        if result.get("unreachable"):
            sums[host] = UNREACHABLE
        elif result.get("skipped"):
            continue
        elif isinstance(result.get("content"), str) and result["content"]:
            try:
                key = base64.b64decode(result["content"], validate=True)
            except (binascii.Error, ValueError):
                raise MungeKeyError("the key read from %s is not base64" % host)
            sums[host] = hashlib.sha1(key).hexdigest() if key else MISSING
        elif "No such file" in str(result.get("msg", "")) or "not found" in str(result.get("msg", "")):
            sums[host] = MISSING
        else:
            # Read but refused (permissions, a directory): the host's key is not known, so it is not "no key".
            sums[host] = UNREACHABLE
    return sums


munge_key_plan = guarded(MungeKeyError, "munge key plan")(munge_key_plan)
asked_sums = guarded(MungeKeyError, "munge key results")(asked_sums)

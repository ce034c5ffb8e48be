"""Run the release's pcp-dstat on plugins of the dstat files in HOME's
~/.pcp/dstat (and SYSCONF/dstat), each in a process of its own forked
from one that imported pcp-dstat's modules once.

usage: dstat.py DERIVED HOME SYSCONF PLUGIN...
DERIVED is $PCP_DERIVED_CONFIG for the runs ("-": none).
prints one JSON object a plugin: {"section", "status", "stderr"}.
"""
import json
import os
import sys
import tempfile
import traceback

DSTAT = "/usr/lib/pcp/bin/pcp-dstat"

derived, home, sysconf, plugins = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
os.environ["PCP_DERIVED_CONFIG"] = "" if derived == "-" else derived
os.environ["HOME"] = home
os.environ["PCP_SYSCONF_DIR"] = sysconf
# The test pmcd over TCP, as the analysis sees it, in every release (its
# default, local:, is the unix socket with credentials on this machine,
# TCP in a chroot).
os.environ["PCP_HOST"] = "127.0.0.1"

with open(DSTAT, "rb") as f:
    CODE = compile(f.read(), DSTAT, "exec")
# Once, before the forks: every module pcp-dstat imports, loaded.
exec(CODE, {"__name__": "dstat_imported", "__file__": DSTAT})

PARALLEL = 8


def start(plugin):
    """Forks a run of pcp-dstat with one plugin, one sample; returns its
    pid and the file that takes its stderr."""
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(err.fileno(), 2)
        sys.argv = [DSTAT, "--" + plugin, "1", "0"]
        status = 0
        try:
            exec(CODE, {"__name__": "__main__", "__file__": DSTAT, "__builtins__": __builtins__})
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc()
            status = 1
        for stream in (sys.stderr, sys.stdout):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)
    return pid, err


def finish(plugin, pid, err):
    _, wstatus = os.waitpid(pid, 0)
    err.seek(0)
    text = err.read().decode("utf-8", "replace")
    err.close()
    code = os.waitstatus_to_exitcode(wstatus) if hasattr(os, "waitstatus_to_exitcode") else (wstatus >> 8)
    return {"section": plugin, "status": code, "stderr": text}


def main():
    running = []
    for plugin in plugins:
        if len(running) == PARALLEL:
            print(json.dumps(finish(*running.pop(0))), flush=True)
        running.append((plugin,) + start(plugin))
    for r in running:
        print(json.dumps(finish(*r)), flush=True)


main()

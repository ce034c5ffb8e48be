"""Run the release's pmrep on metricsets of one config file, each in a
process of its own forked from one that imported pmrep's modules once:
a run costs a fork, not a Python start and the pcp imports.

usage: pmrep.py DERIVED CONFIG SECTION...
DERIVED is $PCP_DERIVED_CONFIG for the runs ("-": none).
prints one JSON object a section: {"section", "status", "stderr"}.
"""
import json
import os
import sys
import tempfile
import traceback

PMREP = "/usr/bin/pmrep"

with open(PMREP, "rb") as f:
    CODE = compile(f.read(), PMREP, "exec")
# Once, before the forks: every module pmrep imports, loaded.
exec(CODE, {"__name__": "pmrep_imported", "__file__": PMREP})


PARALLEL = 8


def start(config, section):
    """Forks a run of pmrep with one metricset; returns its pid and the
    file that takes its stderr."""
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(err.fileno(), 2)
        sys.argv = [PMREP, "-h", "127.0.0.1", "-c", config, "-s", "1", "-t", "0.01", ":" + section]
        status = 0
        try:
            exec(CODE, {"__name__": "__main__", "__file__": PMREP, "__builtins__": __builtins__})
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc()
            status = 1
        for stream in (sys.stderr, sys.stdout):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass  # pmrep closes its output when it ends
        os._exit(status)
    return pid, err


def finish(section, pid, err):
    _, wstatus = os.waitpid(pid, 0)
    err.seek(0)
    text = err.read().decode("utf-8", "replace")
    err.close()
    code = os.waitstatus_to_exitcode(wstatus)
    return {"section": section, "status": code, "stderr": text}


def main():
    derived, config, sections = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.environ["PCP_DERIVED_CONFIG"] = "" if derived == "-" else derived
    running = []
    for section in sections:
        if len(running) == PARALLEL:
            print(json.dumps(finish(*running.pop(0))), flush=True)
        running.append((section,) + start(config, section))
    for r in running:
        print(json.dumps(finish(*r)), flush=True)


main()

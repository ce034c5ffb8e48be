"""Run one of a release's Python tools (pmrep, pcp-dstat) many times, each
run in a process of its own forked from one that imported the tool's
modules once: a run costs a fork, not a Python start and the pcp imports.

usage: toolruns.py SPEC
SPEC is JSON: {"tool": PATH, "env": {NAME: VALUE}, "runs": [{"name": N,
"argv": [ARG...]}]}; the environment is set before the import, so every
run has it. Prints one JSON object a run, in order:
{"section": N, "status": EXIT, "stderr": TEXT}.
"""
import json
import os
import sys
import tempfile
import traceback

PARALLEL = 8

spec = json.loads(sys.argv[1])
TOOL = spec["tool"]
os.environ.update(spec["env"])

with open(TOOL, "rb") as f:
    CODE = compile(f.read(), TOOL, "exec")
# Once, before the forks: every module the tool imports, loaded (under
# another __name__, so its main does not run).
exec(CODE, {"__name__": "tool_imported", "__file__": TOOL})


def start(argv):
    """Forks a run of the tool with argv; returns its pid and the file
    that takes its stderr."""
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(err.fileno(), 2)
        sys.argv = [TOOL] + argv
        status = 0
        try:
            exec(CODE, {"__name__": "__main__", "__file__": TOOL, "__builtins__": __builtins__})
        except SystemExit as e:
            status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc()
            status = 1
        for stream in (sys.stderr, sys.stdout):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass  # the tool may close its output when it ends
        os._exit(status)
    return pid, err


def finish(name, pid, err):
    _, wstatus = os.waitpid(pid, 0)
    err.seek(0)
    text = err.read().decode("utf-8", "replace")
    err.close()
    code = os.waitstatus_to_exitcode(wstatus) if hasattr(os, "waitstatus_to_exitcode") else (wstatus >> 8)
    return {"section": name, "status": code, "stderr": text}


def main():
    running = []
    for run in spec["runs"]:
        if len(running) == PARALLEL:
            print(json.dumps(finish(*running.pop(0))), flush=True)
        running.append((run["name"],) + start(run["argv"]))
    for r in running:
        print(json.dumps(finish(*r)), flush=True)


main()

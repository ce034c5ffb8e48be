package oracle

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed toolruns.py
var toolRunsScript []byte

// toolRun is one run of a Python tool: its name in the results (a pmrep
// metricset, a pcp-dstat plugin) and its arguments.
type toolRun struct {
	Name string   `json:"name"`
	Argv []string `json:"argv"`
}

// toolRuns runs the release's Python tool (its path as the release sees
// it) once per run, with env set, each run forked from one Python process
// that imported the tool once (toolruns.py), and returns what each did,
// in order.
func (r Release) toolRuns(ctx context.Context, tool string, env map[string]string, runs []toolRun) ([]PmrepRun, error) {
	spec, err := json.Marshal(struct {
		Tool string            `json:"tool"`
		Env  map[string]string `json:"env"`
		Runs []toolRun         `json:"runs"`
	}{tool, env, runs})
	if err != nil {
		return nil, err
	}
	script, cleanup, err := r.file("toolruns.py", toolRunsScript)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	cmd := r.command(ctx, "python3", script, string(spec))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %.300s", err, stderr.String())
	}
	var results []PmrepRun
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var run PmrepRun
		if err := dec.Decode(&run); err != nil {
			return nil, err
		}
		results = append(results, run)
	}
	if len(results) != len(runs) {
		return nil, fmt.Errorf("%d results for %d runs", len(results), len(runs))
	}
	return results, nil
}

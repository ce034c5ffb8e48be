package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The GitHub Action (action.yml at the repository's root) runs without
// GitHub here: TestReleaseBuild's Action subtest reads its one composite
// step, fills the step's environment from the inputs as the runner
// would, and runs its script with bash as the runner does, against a
// local server laid out like a GitHub releases page that serves the
// release TestReleaseBuild just built.

type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// actionStep is action.yml's step as the runner would run it: the script
// and its environment for the given inputs (the rest at their defaults)
// and the ref the workflow's uses: line names.
func actionStep(t *testing.T, inputs map[string]string, ref string) (script string, env []string) {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps) != 1 {
		t.Fatalf("action.yml runs %q with %d steps, want one composite step", a.Runs.Using, len(a.Runs.Steps))
	}
	step := a.Runs.Steps[0]
	if step.Shell != "bash" || step.ID != "check" {
		t.Fatalf("step %q in shell %q, want check in bash", step.ID, step.Shell)
	}
	// An expression in the script would splice an input into code.
	if strings.Contains(step.Run, "${{") {
		t.Errorf("the step's script has a ${{ }} expression: inputs go through env")
	}
	for k := range inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("action.yml has no input %q", k)
		}
	}
	expr := regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`)
	for k, v := range step.Env {
		if v == "${{ github.action_ref }}" {
			env = append(env, k+"="+ref)
			continue
		}
		m := expr.FindStringSubmatch(v)
		if m == nil {
			t.Fatalf("env %s = %q: the test knows only ${{ inputs.NAME }} and ${{ github.action_ref }}", k, v)
		}
		in, ok := a.Inputs[m[1]]
		if !ok {
			t.Fatalf("env %s names no input %q", k, m[1])
		}
		val, given := inputs[m[1]]
		if !given {
			val = in.Default
		}
		env = append(env, k+"="+val)
	}
	return step.Run, env
}

// releasesServer serves dist as GitHub serves a release's assets:
// /releases/download/vVERSION/FILE, and /releases/latest redirecting to
// /releases/tag/vVERSION.
func releasesServer(t *testing.T, dist, version string) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /releases/latest", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/releases/tag/v"+version, http.StatusFound)
	})
	mux.HandleFunc("GET /releases/tag/{tag}", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("release page\n"))
	})
	mux.Handle("GET /releases/download/v"+version+"/", http.StripPrefix("/releases/download/v"+version, http.FileServer(http.Dir(dist))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/releases"
}

// actionRun is what one run of the action's step left.
type actionRun struct {
	status  int
	output  string // stdout and stderr
	outputs string // what it wrote to $GITHUB_OUTPUT
	sarif   []byte
	temp    string // $RUNNER_TEMP
}

// runAction runs the step's script as the runner does (bash --noprofile
// --norc -eo pipefail FILE) in a workspace holding the example configs,
// the action used at ref; runner overrides the runner's variables.
func runAction(t *testing.T, inputs map[string]string, ref string, runner ...string) actionRun {
	t.Helper()
	script, env := actionStep(t, inputs, ref)
	dir := t.TempDir()
	work, temp := filepath.Join(dir, "work"), filepath.Join(dir, "temp")
	for _, d := range []string{work, temp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "cp", "-r", "../../testdata/examples", work+"/configs")
	file := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	outputs := filepath.Join(dir, "github_output")
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", file)
	cmd.Dir = work
	cmd.Env = append(env, "PATH="+os.Getenv("PATH"), "HOME="+dir,
		"RUNNER_OS=Linux", "RUNNER_ARCH="+map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH],
		"RUNNER_TEMP="+temp, "GITHUB_OUTPUT="+outputs, "GITHUB_WORKSPACE="+work, "GITHUB_ACTIONS=true",
		"PCP_DERIVE_LSP_NO_ORACLE=1")
	cmd.Env = append(cmd.Env, runner...)
	out, err := cmd.CombinedOutput()
	run := actionRun{output: string(out), temp: temp}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		run.status = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	b, _ := os.ReadFile(outputs)
	run.outputs = string(b)
	sarif := "pcp-derive-lsp.sarif"
	if s, ok := inputs["sarif-file"]; ok {
		sarif = s
	}
	run.sarif, _ = os.ReadFile(filepath.Join(work, sarif))
	return run
}

// sarifResults counts a SARIF report's results, failing on anything but
// one run of pcp-derive-lsp.
func sarifResults(t *testing.T, b []byte) int {
	t.Helper()
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name string `json:"name"`
				} `json:"driver"`
			} `json:"tool"`
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("the SARIF file: %v\n%s", err, b)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "pcp-derive-lsp" {
		t.Fatalf("the SARIF file is not one run of pcp-derive-lsp: %.300s", b)
	}
	return len(log.Runs[0].Results)
}

// testAction runs the action against the release in dist: the clean
// example passes, the one with mistakes fails with annotations and
// SARIF results, and a release whose archive SHA256SUMS does not vouch
// for is never unpacked.
func testAction(t *testing.T, dist, version string) {
	url := releasesServer(t, dist, version)
	name := "pcp-derive-lsp-" + version + "-linux-" + runtime.GOARCH

	t.Run("Clean", func(t *testing.T) {
		r := runAction(t, map[string]string{"releases-url": url, "paths": "configs/disk-and-network.conf", "args": "--no-metadata"}, "main")
		if r.status != 0 {
			t.Fatalf("exit status %d, want 0:\n%s", r.status, r.output)
		}
		if !strings.Contains(r.output, "pcp-derive-lsp "+version+" (commit ") {
			t.Errorf("latest did not resolve to %s:\n%s", version, r.output)
		}
		if n := sarifResults(t, r.sarif); n != 0 {
			t.Errorf("%d SARIF results for the clean example", n)
		}
		if r.outputs != "sarif-file=pcp-derive-lsp.sarif\nexit-code=0\n" {
			t.Errorf("$GITHUB_OUTPUT holds %q", r.outputs)
		}
	})

	t.Run("Findings", func(t *testing.T) {
		r := runAction(t, map[string]string{"releases-url": url + "/", "version": "v" + version, "paths": "configs",
			"args": "--no-metadata --color never", "sarif-file": "out/report.sarif"}, "main")
		if r.status != 1 {
			t.Fatalf("exit status %d, want 1 (errors in mistakes.conf):\n%s", r.status, r.output)
		}
		if !regexp.MustCompile(`(?m)^::error file=configs/mistakes\.conf,line=\d+`).MatchString(r.output) {
			t.Errorf("no ::error annotation on configs/mistakes.conf:\n%s", r.output)
		}
		if n := sarifResults(t, r.sarif); n == 0 {
			t.Error("no SARIF results for mistakes.conf")
		}
		if r.outputs != "sarif-file=out/report.sarif\nexit-code=1\n" {
			t.Errorf("$GITHUB_OUTPUT holds %q", r.outputs)
		}
	})

	t.Run("TamperedChecksum", func(t *testing.T) {
		bad := t.TempDir()
		mustRun(t, "cp", filepath.Join(dist, name+".tar.gz"), bad)
		sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		// Another archive's sum on this archive's line.
		other := bytes.Repeat([]byte("0"), 64)
		re := regexp.MustCompile(`(?m)^[0-9a-f]{64}(  ` + regexp.QuoteMeta(name) + `\.tar\.gz)$`)
		if !re.Match(sums) {
			t.Fatalf("SHA256SUMS has no line for %s.tar.gz:\n%s", name, sums)
		}
		sums = re.ReplaceAll(sums, append(other, "$1"...))
		if err := os.WriteFile(filepath.Join(bad, "SHA256SUMS"), sums, 0o644); err != nil {
			t.Fatal(err)
		}
		r := runAction(t, map[string]string{"releases-url": releasesServer(t, bad, version), "paths": "configs", "args": "--no-metadata"}, "v"+version)
		if r.status != 2 || !strings.Contains(r.output, "::error title=pcp-derive-lsp::"+name+".tar.gz does not match SHA256SUMS") {
			t.Errorf("exit status %d, want 2 and the mismatch as an error annotation:\n%s", r.status, r.output)
		}
		if _, err := os.Stat(filepath.Join(r.temp, "pcp-derive-lsp-"+version, name)); err == nil {
			t.Error("the archive was unpacked although its checksum did not match")
		}
		if r.sarif != nil || r.outputs != "" {
			t.Errorf("check ran: a SARIF file of %d bytes, outputs %q", len(r.sarif), r.outputs)
		}
	})

	t.Run("NoSuchRelease", func(t *testing.T) {
		r := runAction(t, map[string]string{"releases-url": url, "version": "0.0.1", "paths": "configs"}, "v"+version)
		if r.status != 2 || !strings.Contains(r.output, "cannot download "+url+"/download/v0.0.1/pcp-derive-lsp-0.0.1-linux-") {
			t.Errorf("exit status %d, want 2 and the URL it could not download:\n%s", r.status, r.output)
		}
	})

	// Used at a release's tag, the action runs that release, not latest
	// (which this server would also answer with version).
	t.Run("ActionRef", func(t *testing.T) {
		r := runAction(t, map[string]string{"releases-url": url, "paths": "configs"}, "v0.0.2")
		if r.status != 2 || !strings.Contains(r.output, "cannot download "+url+"/download/v0.0.2/") {
			t.Errorf("used at v0.0.2: exit status %d, want 2 and v0.0.2's URL:\n%s", r.status, r.output)
		}
	})

	// GitHub lets a workflow leave out a required input; "." would read
	// every file of the checkout as a config.
	t.Run("NoPaths", func(t *testing.T) {
		r := runAction(t, map[string]string{"releases-url": url}, "main")
		if r.status != 2 || !strings.Contains(r.output, "::error title=pcp-derive-lsp::no paths") || strings.Contains(r.output, "pcp-derive-lsp "+version) {
			t.Errorf("exit status %d, want 2 before any download:\n%s", r.status, r.output)
		}
	})

	t.Run("UnknownRunner", func(t *testing.T) {
		r := runAction(t, map[string]string{"releases-url": url, "paths": "configs"}, "main", "RUNNER_ARCH=X86")
		if r.status != 2 || !strings.Contains(r.output, `no release for runner architecture "X86"`) {
			t.Errorf("exit status %d, want 2 and the architecture named:\n%s", r.status, r.output)
		}
	})
}

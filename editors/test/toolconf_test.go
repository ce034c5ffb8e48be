package editortest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// toolFile is a pmrep, pcp-dstat or pcp-htop file a real editor opens
// (issue #38): where it goes under the workspace (its directory tells its
// kind), its text, the one diagnostic it must show (LINE:COLUMN, 1-based,
// inside the formula's value), where hovering shows kernel.all.load
// (0-based line and character) and a line whose end completes after
// "sample.".
type toolFile struct {
	path, text string
	diagnostic string
	hover      string
	append     string
}

var toolFiles = []toolFile{{
	path: "ws/pmrep/test.conf",
	text: `# pcp-derive-lsp editor test: a pmrep config
[editor]
load = m.load
load.formula = kernel.all.load + 1
one = m.one
one.formula = sample.long.onr + 1
`,
	diagnostic: "6:15", hover: "3,17", append: "new.formula = sample.",
}, {
	path: "ws/htop/meters/test",
	text: `# pcp-derive-lsp editor test: a pcp-htop meter
[editor]
caption = Editor
load.metric = kernel.all.load + 1
one.metric = sample.long.onr + 1
`,
	diagnostic: "5:14", hover: "3,16", append: "new.metric = sample.",
}}

// writeToolFiles puts the tool files in a workspace made by workspace.
func writeToolFiles(t *testing.T, dir string) {
	t.Helper()
	for _, f := range toolFiles {
		p := filepath.Join(dir, f.path)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(f.text), 0o644))
	}
}

// toolEnv is the driver's environment for one file, its paths under dir.
func toolEnv(dir string, f toolFile) []string {
	return []string{"PCP_EDITOR_OUT=" + dir + "/out-" + filepath.Base(filepath.Dir(f.path)), "PCP_EDITOR_CONF=" + dir + "/" + f.path,
		"PCP_EDITOR_HOVER=" + f.hover, "PCP_EDITOR_APPEND=" + f.append}
}

// checkToolSession asserts what a scripted editor saw in a tool file: the
// language, the diagnostic at its column inside the formula, hover and
// completion inside a formula.
func checkToolSession(t *testing.T, f toolFile, r map[string][]string, kindKey, kind string) {
	t.Helper()
	one := func(k string) string { return strings.Join(r[k], "\n") }
	if e := one("error"); e != "" {
		t.Errorf("%s: the driver failed: %s", f.path, e)
	}
	if got := one(kindKey); got != kind {
		t.Errorf("%s: %s = %q, want %q", f.path, kindKey, got, kind)
	}
	if d := one("diagnostic"); !strings.HasPrefix(d, f.diagnostic+" ") || !strings.Contains(d, "unknown metric sample.long.onr") || strings.Count(d, "\n") != 0 {
		t.Errorf("%s: diagnostics %q, want one unknown metric sample.long.onr at %s", f.path, d, f.diagnostic)
	}
	if h := one("hover"); !strings.Contains(h, "kernel.all.load") || !strings.Contains(h, "1, 5 and 15 minute load average") || !strings.Contains(h, settingsProof) {
		t.Errorf("%s: hover %q, want kernel.all.load's help and %q", f.path, h, settingsProof)
	}
	items := map[string]bool{}
	for _, c := range strings.Split(one("completion"), ",") {
		items[c] = true
	}
	if !items["long"] || !items["ulong"] || !items["bin"] || items["sample"] {
		t.Errorf("%s: completion after %q: %q, want the names under sample (long, ulong, bin...)", f.path, f.append, one("completion"))
	}
}

// TestNeovim07ToolFiles opens a pmrep and a pcp-htop file in Debian 12's
// Neovim 0.7.2 with the plugin's setup() (editors/snippets/neovim-0.7.lua).
func TestNeovim07ToolFiles(t *testing.T) {
	nvim, dir := localNeovim(t)
	runToolFiles(t, dir, dir, "filetype", "pcptoolconf", func(env []string) *exec.Cmd {
		return neovim07(nvim, dir, "nvim-tool-driver.lua", env...)
	})
}

// TestNeovim012ToolFiles opens a pmrep and a pcp-htop file in sid's
// Neovim 0.12 (editors/snippets/neovim-0.11.lua, lsp/pcp_derive_lsp.lua).
func TestNeovim012ToolFiles(t *testing.T) {
	root := sidRoot(t)
	t.Parallel()
	host, in := chrootWork(t, root)
	runToolFiles(t, host, in, "filetype", "pcptoolconf", func(env []string) *exec.Cmd {
		return chrootCmd(root, in, env, "nvim", "--headless", "-u", in+"/editors/snippets/neovim-0.11.lua",
			"--cmd", "set rtp^="+in+"/editors/neovim", "-c", "luafile "+in+"/editors/test/nvim-tool-driver.lua")
	})
}

// TestEmacsToolFiles opens a pmrep and a pcp-htop file in sid's Emacs 30
// with eglot and the documented snippet (editors/snippets/emacs-eglot.el).
func TestEmacsToolFiles(t *testing.T) {
	root := sidRoot(t)
	t.Parallel()
	host, in := chrootWork(t, root)
	runToolFiles(t, host, in, "mode", "pcp-toolconf-mode", func(env []string) *exec.Cmd {
		return chrootCmd(root, in, env, "emacs", "--batch", "-l", in+"/editors/snippets/emacs-eglot.el",
			"-l", in+"/editors/test/emacs-tool-driver.el")
	})
}

// runToolFiles writes the tool files into the workspace (host is its
// path here, in the editor's) and runs the editor's command on each,
// checking the session; kindKey and kind are the language it must detect.
func runToolFiles(t *testing.T, host, in, kindKey, kind string, editor func(env []string) *exec.Cmd) {
	t.Helper()
	writeToolFiles(t, host)
	for _, f := range toolFiles {
		log := run(t, editor(toolEnv(in, f)))
		out := strings.TrimPrefix(toolEnv(host, f)[0], "PCP_EDITOR_OUT=")
		checkToolSession(t, f, results(t, out, log), kindKey, kind)
	}
}

package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/rules"
)

// listFlag is a flag that may be given more than once.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// ruleFlags choose which findings check reports and how severe they are.
type ruleFlags struct {
	disable, enable, severity listFlag
	config                    string
	noConfig                  bool
}

func (r *ruleFlags) register(fs *flag.FlagSet) {
	fs.Var(&r.disable, "disable", "turn off findings with these `CODES` (comma-separated; repeatable)")
	fs.Var(&r.enable, "enable", "turn back on `CODES` the project file disables")
	fs.Var(&r.severity, "severity", "report `CODE=LEVEL` (error, warning, info or hint) instead of the default; repeatable")
	fs.StringVar(&r.config, "config", "", "project rules from `FILE` (default: the nearest "+rules.FileName+" at or above the first PATH)")
	fs.BoolVar(&r.noConfig, "no-config", false, "ignore any "+rules.FileName)
}

// resolve reads the project file (named, or found upward from the first
// path, or the working directory for stdin) and applies the flags over
// it. A bad file or flag is an error: check must not quietly run with
// other rules than the user wrote.
func (r *ruleFlags) resolve(paths []string) (rules.Rules, error) {
	var rl rules.Rules
	path := r.config
	if path == "" && !r.noConfig {
		start := "."
		if len(paths) > 0 && paths[0] != "-" {
			start = paths[0]
			if info, err := os.Stat(start); err != nil || !info.IsDir() {
				start = filepath.Dir(start)
			}
		}
		path = rules.Find(start)
	}
	if path != "" {
		var err error
		if rl, err = rules.Load(path); err != nil {
			return rl, err
		}
	}
	if err := rl.Flags(r.disable, r.enable, r.severity); err != nil {
		return rl, err
	}
	return rl, nil
}

// describeRules says where rules came from, for the summary line.
func describeRules(rl rules.Rules) string {
	if rl.Source == "" {
		return ""
	}
	return fmt.Sprintf("; rules: %s", rl.Source)
}

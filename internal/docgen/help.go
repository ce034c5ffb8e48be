// Package docgen turns the commands' own help into a man page and shell
// completions, so the packages never carry documentation that drifts from
// what "pcp-derive-lsp COMMAND -h" prints: the help text is the one
// source, parsed here in the shape internal/cli prints it (the top-level
// usage's command list, and each command's usage line, description and
// Go flag defaults).
package docgen

import (
	"errors"
	"fmt"
	"strings"
)

// Tool is the program as its help describes it.
type Tool struct {
	Name     string // the program, e.g. pcp-derive-lsp
	Summary  string // one line for the man page's NAME section
	Version  string
	Commands []Command
}

// Command is one subcommand.
type Command struct {
	Name     string
	Summary  string // its line in the top-level command list
	Synopsis string // what follows the name in its usage line
	About    string // the paragraphs between the usage line and the flags
	Flags    []Flag
}

// Flag is one flag of a command, as the flag package prints it.
type Flag struct {
	Name  string // without dashes; the commands accept -name and --name
	Arg   string // the value's placeholder, empty for a boolean flag
	Usage string // its description, with the default the flag package appends
}

// maxHelp bounds the help text parsed: a command's help is a few
// kilobytes.
const maxHelp = 1 << 20

// ParseCommandList reads the command names and one-line summaries from
// the top-level usage: the indented "NAME  summary" lines under
// "commands:".
func ParseCommandList(usage string) ([]Command, error) {
	if len(usage) > maxHelp {
		return nil, fmt.Errorf("usage text of %d bytes is larger than %d", len(usage), maxHelp)
	}
	var cmds []Command
	in := false
	for i, line := range strings.Split(usage, "\n") {
		switch {
		case line == "commands:":
			in = true
		case in && strings.HasPrefix(line, "  "):
			name, summary, ok := strings.Cut(strings.TrimSpace(line), " ")
			if !ok {
				return nil, fmt.Errorf("usage line %d: %q has no summary after the command name", i+1, line)
			}
			cmds = append(cmds, Command{Name: name, Summary: strings.TrimSpace(summary)})
		case in:
			in = false // the list ends at its first unindented line
		}
	}
	if len(cmds) == 0 {
		return nil, errors.New("the usage text lists no commands (no indented lines under \"commands:\")")
	}
	return cmds, nil
}

// ParseCommandHelp fills c from the help the command prints for -h:
//
//	usage: TOOL NAME SYNOPSIS
//
//	About paragraphs.
//
//	flags:
//	  -name ARG
//	    	usage
//	  -b	usage of a one-letter boolean
func ParseCommandHelp(tool string, c *Command, help string) error {
	if len(help) > maxHelp {
		return fmt.Errorf("%s: help text of %d bytes is larger than %d", c.Name, len(help), maxHelp)
	}
	lines := strings.Split(strings.TrimRight(help, "\n"), "\n")
	prefix := "usage: " + tool + " " + c.Name
	if len(lines) == 0 || !strings.HasPrefix(lines[0], prefix) {
		return fmt.Errorf("%s: help line 1 is not %q...", c.Name, prefix)
	}
	c.Synopsis = strings.TrimSpace(strings.TrimPrefix(lines[0], prefix))
	flagsAt := -1
	for i, l := range lines {
		if l == "flags:" {
			flagsAt = i
			break
		}
	}
	if flagsAt < 0 {
		return fmt.Errorf("%s: help has no \"flags:\" line", c.Name)
	}
	c.About = strings.TrimSpace(strings.Join(lines[1:flagsAt], "\n"))
	c.Flags = nil
	for i := flagsAt + 1; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "    \t"):
			if len(c.Flags) == 0 {
				return fmt.Errorf("%s: help line %d: a flag description before any flag", c.Name, i+1)
			}
			f := &c.Flags[len(c.Flags)-1]
			f.Usage = strings.TrimSpace(f.Usage + "\n" + strings.TrimPrefix(l, "    \t"))
		case strings.HasPrefix(l, "  -"):
			head, usage, _ := strings.Cut(strings.TrimPrefix(l, "  -"), "\t")
			name, arg, _ := strings.Cut(head, " ")
			if name == "" {
				return fmt.Errorf("%s: help line %d: %q names no flag", c.Name, i+1, l)
			}
			c.Flags = append(c.Flags, Flag{Name: name, Arg: arg, Usage: usage})
		case strings.TrimSpace(l) == "":
		default:
			return fmt.Errorf("%s: help line %d: %q is neither a flag nor its description", c.Name, i+1, l)
		}
	}
	return nil
}

// Load builds the Tool from its help: help(nil) must return the
// top-level usage and help([]string{NAME, "-h"}) a command's help.
// Commands whose help has no flags section (version) keep their summary
// only.
func Load(name, summary, version string, help func(args []string) (string, error)) (Tool, error) {
	t := Tool{Name: name, Summary: summary, Version: version}
	top, err := help(nil)
	if err != nil {
		return t, fmt.Errorf("top-level usage: %w", err)
	}
	cmds, err := ParseCommandList(top)
	if err != nil {
		return t, err
	}
	for i := range cmds {
		c := &cmds[i]
		text, err := help([]string{c.Name, "-h"})
		if err != nil {
			return t, fmt.Errorf("%s -h: %w", c.Name, err)
		}
		if !strings.HasPrefix(text, "usage: ") {
			continue // a command without flags prints its result, not help
		}
		if err := ParseCommandHelp(name, c, text); err != nil {
			return t, err
		}
	}
	t.Commands = cmds
	return t, nil
}

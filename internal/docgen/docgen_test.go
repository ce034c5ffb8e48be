package docgen

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

const topUsage = `usage: tool [command] [flags] [arguments]

commands:
  serve      speak LSP
  check      report problems

Run "tool COMMAND -h" for a command's flags.
`

const checkHelp = `usage: tool check [flags] PATH...

Checks configs.
.dotted line that roff would take for a request.

flags:
  -fail-on SEVERITY
    	exit 1 at or above SEVERITY (default "error")
  -q	quiet
  -with-back\slash
    	a \ in the text
`

func TestParse(t *testing.T) {
	cmds, err := ParseCommandList(topUsage)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Command{{Name: "serve", Summary: "speak LSP"}, {Name: "check", Summary: "report problems"}}; !reflect.DeepEqual(cmds, want) {
		t.Fatalf("commands: got %+v, want %+v", cmds, want)
	}
	c := cmds[1]
	if err := ParseCommandHelp("tool", &c, checkHelp); err != nil {
		t.Fatal(err)
	}
	want := Command{Name: "check", Summary: "report problems", Synopsis: "[flags] PATH...",
		About: "Checks configs.\n.dotted line that roff would take for a request.",
		Flags: []Flag{
			{Name: "fail-on", Arg: "SEVERITY", Usage: `exit 1 at or above SEVERITY (default "error")`},
			{Name: "q", Usage: "quiet"},
			{Name: `with-back\slash`, Usage: `a \ in the text`},
		}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v\nwant %+v", c, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ name, help, want string }{
		{"other command", "usage: tool eval\n\nflags:\n", `help line 1 is not "usage: tool check"`},
		{"no flags line", "usage: tool check PATH\n\nAbout.\n", `no "flags:" line`},
		{"stray line", "usage: tool check\n\nflags:\n  -a\tx\nstray\n", `help line 5: "stray" is neither`},
		{"orphan description", "usage: tool check\n\nflags:\n    \tx\n", "a flag description before any flag"},
	} {
		cmd := Command{Name: "check"}
		err := ParseCommandHelp("tool", &cmd, c.help)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
	if _, err := ParseCommandList("usage: tool\n"); err == nil {
		t.Error("a usage without commands parsed")
	}
}

func TestWriters(t *testing.T) {
	tool, err := Load("tool", "a tool", "1.2.3", func(args []string) (string, error) {
		switch {
		case args == nil:
			return topUsage, nil
		case args[0] == "check":
			return checkHelp, nil
		}
		return "tool 1.2.3\n", nil // serve prints no help: it keeps its summary
	})
	if err != nil {
		t.Fatal(err)
	}
	var man, bash, zsh, fish bytes.Buffer
	for _, err := range []error{WriteMan(&man, tool, "2026-11-29", []string{"pminfo(1)"}), WriteBash(&bash, tool), WriteZsh(&zsh, tool), WriteFish(&fish, tool)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		out  *bytes.Buffer
		want []string
	}{
		{&man, []string{
			`.TH "TOOL" 1 "2026\-11\-29" "tool 1.2.3" "User Commands"`,
			"tool \\- a tool\n",
			"\\fB\\-\\-fail\\-on\\fR \\fISEVERITY\\fR\n",
			".TP\n\\fB\\-q\\fR\nquiet\n", // one dash for a one-letter flag
			"\\&.dotted line",            // a text line starting with "." is escaped
			`a \e in the text`,
			".SH SEE ALSO\npminfo(1)\n",
		}},
		{&bash, []string{"compgen -W 'serve check'", "flags='--fail-on -q --with-back\\slash'", "words=' -fail-on --fail-on '", "args='files'", "complete -o filenames -F _tool tool"}},
		{&zsh, []string{"#compdef tool", `'--fail-on[exit 1 at or above SEVERITY]:SEVERITY: '`, `'-q[quiet]'`, `'*:file:_files'`}},
		{&fish, []string{"-a check -d 'report problems'", "-n '__fish_seen_subcommand_from check' -l fail-on -x -d 'exit 1 at or above SEVERITY'", "-s q -d 'quiet'", "-n '__fish_seen_subcommand_from check' -F"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.out.String(), w) {
				t.Errorf("output lacks %q:\n%s", w, c.out)
			}
		}
	}
}

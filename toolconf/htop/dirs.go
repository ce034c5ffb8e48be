package htop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Env is what decides where pcp-htop looks for its files: its
// environment and PCP's configured directories.
type Env struct {
	HtopDir       string // $PCP_HTOP_DIR, "" when unset
	XDGConfigHome string // $XDG_CONFIG_HOME, "" when unset
	Home          string // $HOME (htop falls back to the passwd entry)
	SysconfDir    string // $PCP_SYSCONF_DIR, /etc/pcp on Debian
	ShareDir      string // $PCP_SHARE_DIR, /usr/share/pcp on Debian
}

// EnvFromOS is this process's Env, with Debian's PCP directories where
// the environment does not set them (pmGetConfig reads the environment
// first, then /etc/pcp.conf).
func EnvFromOS() Env {
	e := Env{
		HtopDir:       os.Getenv("PCP_HTOP_DIR"),
		XDGConfigHome: os.Getenv("XDG_CONFIG_HOME"),
		Home:          os.Getenv("HOME"),
		SysconfDir:    os.Getenv("PCP_SYSCONF_DIR"),
		ShareDir:      os.Getenv("PCP_SHARE_DIR"),
	}
	if e.Home == "" {
		e.Home, _ = os.UserHomeDir()
	}
	if e.SysconfDir == "" {
		e.SysconfDir = "/etc/pcp"
	}
	if e.ShareDir == "" {
		e.ShareDir = "/usr/share/pcp"
	}
	return e
}

// Dirs are the directories pcp-htop reads files of kind k from, in its
// order: $PCP_HTOP_DIR/KIND, the user's ($XDG_CONFIG_HOME/htop/KIND, else
// ~/.config/htop/KIND), $PCP_SYSCONF_DIR/htop/KIND, $PCP_SHARE_DIR/htop/KIND.
func (e Env) Dirs(k Kind) []string {
	var dirs []string
	if e.HtopDir != "" {
		dirs = append(dirs, filepath.Join(e.HtopDir, k.Dir()))
	}
	switch {
	case e.XDGConfigHome != "":
		dirs = append(dirs, filepath.Join(e.XDGConfigHome, "htop", k.Dir()))
	case e.Home != "":
		dirs = append(dirs, filepath.Join(e.Home, ".config/htop", k.Dir()))
	}
	return append(dirs, filepath.Join(e.SysconfDir, "htop", k.Dir()), filepath.Join(e.ShareDir, "htop", k.Dir()))
}

// ListDir lists the files pcp-htop reads from dir, in the order it reads
// them: the directory's own order (readdir), every name not starting
// with "." (htop needs no suffix; it opens directories too, which read as
// empty, so they are left out). A missing directory lists nothing.
func ListDir(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading htop's directory: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("reading htop's directory %s: %w", dir, err)
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			continue
		}
		p := filepath.Join(dir, n)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// RunFiles lists every file one pcp-htop run reads, by kind, in its
// order: what a Reader must be given, one file after another, to read
// them as that run does.
func (e Env) RunFiles() (map[Kind][]string, error) {
	out := map[Kind][]string{}
	for _, k := range []Kind{Meter, Column, Screen} {
		for _, dir := range e.Dirs(k) {
			files, err := ListDir(dir)
			if err != nil {
				return nil, err
			}
			out[k] = append(out[k], files...)
		}
	}
	return out, nil
}

// Package fleet checks one derived-metric config against many hosts at
// once, the way it is deployed: each host reached on its own (its pmcd,
// its pmcd through pmproxy, or its latest pmlogger archive), each
// host's PCP release resolved on its own, and the verdicts lined up per
// definition: valid on these hosts, rejected on those (and why), silently
// absent on others, and which hosts could not be asked.
package fleet

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/safeopen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/choose"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy"
)

// Target is one host of the fleet: what reports call it and where its
// metadata comes from (a pmcd, that pmcd through a pmproxy, or an
// archive), opened as every other source is (package choose).
type Target struct {
	// Name is what reports call the host: as the user wrote it, or the
	// folder of a pmlogger farm.
	Name   string
	Source choose.Spec
}

// String is the host's name and, for a host not reached at its name,
// how it is reached.
func (t Target) String() string {
	if t.Source.PMProxy == "" && t.Source.Archive == "" && t.Source.Metadata == "" {
		return t.Name
	}
	return fmt.Sprintf("%s (%s)", t.Name, t.Source)
}

// live says the target is a host that answers (pmcd, pmproxy), not a file.
func (t Target) live() bool { return t.Source.Archive == "" && t.Source.Metadata == "" }

// ParseTarget reads one host as --hosts and --hosts-file take them:
//
//	HOST[:PORT], unix:PATH, local:     the host's pmcd (through proxy when
//	                                   proxy is not "")
//	http[s]://PROXY[:PORT]?hostspec=H  pmcd H through that pmproxy
//	archive:PATH                       a PCP archive
//	NAME=any of the above              the same, called NAME in reports
func ParseTarget(s, proxy string) (Target, error) {
	s = strings.TrimSpace(s)
	name, spec := s, s
	if n, rest, ok := strings.Cut(s, "="); ok && !strings.Contains(n, "/") && !strings.Contains(n, ":") && !strings.Contains(n, "?") {
		name, spec = strings.TrimSpace(n), strings.TrimSpace(rest)
	}
	switch {
	case spec == "" || name == "":
		return Target{}, fmt.Errorf("host %q: empty", s)
	case strings.ContainsAny(spec, " \t\x00"):
		return Target{}, fmt.Errorf("host %q: spaces in a host specification", s)
	case strings.HasPrefix(spec, "http://"), strings.HasPrefix(spec, "https://"):
		u, err := url.Parse(spec)
		if err != nil {
			return Target{}, fmt.Errorf("host %q: %w", s, err)
		}
		hostspec := u.Query().Get("hostspec")
		if _, err := pmproxy.ParseURL(spec); err != nil {
			return Target{}, fmt.Errorf("host %q: %w", s, err)
		}
		u.RawQuery = ""
		if name == spec && hostspec != "" {
			name = hostspec
		}
		return Target{Name: name, Source: choose.Spec{PMProxy: u.String(), Hostspec: hostspec}}, nil
	case strings.Contains(spec, "://") && !strings.HasPrefix(spec, "http://") && !strings.HasPrefix(spec, "https://"):
		return Target{}, fmt.Errorf("host %q: want a host, http[s]://PROXY?hostspec=HOST or archive:PATH", s)
	case strings.HasPrefix(spec, "archive:"):
		path := strings.TrimPrefix(spec, "archive:")
		if path == "" {
			return Target{}, fmt.Errorf("host %q: archive: names no archive", s)
		}
		if name == spec {
			name = path
		}
		return Target{Name: name, Source: choose.Spec{Archive: path}}, nil
	case proxy != "":
		return Target{Name: name, Source: choose.Spec{PMProxy: proxy, Hostspec: spec}}, nil
	}
	return Target{Name: name, Source: choose.Spec{Host: spec}}, nil
}

// Hosts are the ways a user names a fleet, as check's flags and the
// server's fleet setting both take them.
type Hosts struct {
	List       []string // hosts as ParseTarget reads them
	File       string   // a hosts file (ReadHostsFile)
	ArchiveDir string   // a pmlogger farm (ArchiveFarm)
	PMProxy    string   // reaches the bare hosts through this pmproxy
}

// HostsNames are what the user calls Hosts' settings, for errors:
// "--hosts", "--hosts-file", "--archive-dir" on the command line.
type HostsNames struct{ List, File, ArchiveDir string }

// Targets lists the hosts in order: the list, then the file, then the
// farm. Errors name the setting; two hosts of one name are refused (the
// report could not tell them apart).
func (h Hosts) Targets(names HostsNames) ([]Target, error) {
	var out []Target
	for _, s := range h.List {
		if strings.TrimSpace(s) == "" {
			continue
		}
		t, err := ParseTarget(s, h.PMProxy)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", names.List, err)
		}
		out = append(out, t)
	}
	if h.File != "" {
		file, err := safeopen.Open(h.File, MaxHostsFileBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", names.File, err)
		}
		ts, err := ReadHostsFile(file, h.File, h.PMProxy)
		file.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	if h.ArchiveDir != "" {
		ts, err := ArchiveFarm(h.ArchiveDir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", names.ArchiveDir, err)
		}
		out = append(out, ts...)
	}
	seen := map[string]bool{}
	for _, t := range out {
		if seen[t.Name] {
			return nil, fmt.Errorf("host %s is named twice (give one a NAME=)", t.Name)
		}
		seen[t.Name] = true
	}
	return out, nil
}

// maxHostsLine bounds one line of a hosts file.
const maxHostsLine = 64 << 10

// MaxHostsFileBytes bounds a whole hosts file (safeopen.Open's cap):
// about 500,000 hosts.
const MaxHostsFileBytes = 16 << 20

// ReadHostsFile reads --hosts-file: one host per line (see ParseTarget),
// blank lines and "#" comments ignored. Errors name the line.
func ReadHostsFile(r io.Reader, name, proxy string) ([]Target, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxHostsLine)
	var out []Target
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		t, err := ParseTarget(text, proxy)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// ArchiveFarm lists a pmlogger farm as pmlogger_check lays it out: one
// folder per host under dir, each holding that host's archives. A
// host's target is its latest archive: the one whose metadata file
// (.meta, .meta.xz, ...) was written last, the archive pmlogger is
// writing or wrote last; ties go to the later name (pmlogger's names,
// YYYYMMDD.HH.MM, sort by time). Folders with no archive are skipped.
func ArchiveFarm(dir string) ([]Target, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("archive farm: %w", err)
	}
	var out []Target
	for _, e := range entries {
		hostDir := filepath.Join(dir, e.Name())
		if info, err := os.Stat(hostDir); err != nil || !info.IsDir() {
			continue
		}
		latest, err := LatestArchive(hostDir)
		if errors.Is(err, errNoArchive) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Target{Name: e.Name(), Source: choose.Spec{Archive: latest}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		return nil, fmt.Errorf("archive farm %s: no folder holds a PCP archive (HOST/NAME.meta)", dir)
	}
	return out, nil
}

var errNoArchive = errors.New("no PCP archive")

// LatestArchive returns the base name of the latest archive in dir (see
// ArchiveFarm).
func LatestArchive(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("archive folder: %w", err)
	}
	best, bestTime := "", int64(0)
	for _, e := range entries {
		base, ok := metaBase(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		t := info.ModTime().UnixNano()
		if best == "" || t > bestTime || t == bestTime && base > filepath.Base(best) {
			best, bestTime = filepath.Join(dir, base), t
		}
	}
	if best == "" {
		return "", fmt.Errorf("%s: %w", dir, errNoArchive)
	}
	return best, nil
}

// metaBase is the archive base name of a metadata file name.
func metaBase(name string) (string, bool) {
	for _, suffix := range []string{".meta", ".meta.xz"} { // what package archive reads
		if base, ok := strings.CutSuffix(name, suffix); ok && base != "" {
			return base, true
		}
	}
	return "", false
}

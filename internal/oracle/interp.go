package oracle

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed archive.py
var archiveScript []byte

// archiveCtypesScript is archive.py for the releases without python3-pcp,
// driving their libpcp through ctypes.
//
//go:embed archive_ctypes.py
var archiveCtypesScript []byte

// archiveCommonModule is what both archive scripts import: the command
// line, the canonical output and the fetch loop.
//
//go:embed archive_common.py
var archiveCommonModule []byte

// Interpolate fetches the named metrics (derived from config, or plain;
// config "" loads none) from an archive (base name) with the release's
// libpcp in interpolation mode: samples fetches from origin, step
// apart, as pmval -a and pmrep -a fetch. It returns archive.py's
// canonical lines ("T sec.usec", then "name inst value", "name
// NOVALUES", "name ERR code"; "EOL" for a fetch past the end). PCP 5
// takes the origin and step in microseconds.
func (r Release) Interpolate(ctx context.Context, archive, config string, names []string, origin time.Time, step time.Duration, samples int) (string, error) {
	window := []string{strconv.FormatInt(origin.Unix(), 10), strconv.Itoa(origin.Nanosecond()),
		strconv.FormatInt(int64(step/time.Second), 10), strconv.FormatInt(int64(step%time.Second), 10),
		strconv.Itoa(samples)}
	return r.runArchiveScript(ctx, r.archiveScript(), "interp", archive, config, window, names)
}

// ReplayArchive evaluates the named derived metrics over every record of
// an archive (base name) with the release's pmFetch, record by record, and returns archive.py's canonical lines.
func (r Release) ReplayArchive(ctx context.Context, archive, config string, names []string) (string, error) {
	return r.runArchiveScript(ctx, r.archiveScript(), "replay", archive, config, nil, names)
}

// archiveScript is archive.py, or its ctypes twin for a release without
// python3-pcp.
func (r Release) archiveScript() []byte {
	if r.HasPython() {
		return archiveScript
	}
	return archiveCtypesScript
}

// runArchiveScript runs an archive script (archive.py or its twin) in a
// mode over a copy of the archive's files where the release can read
// them, with config ("" for none) loaded, and returns what it prints.
func (r Release) runArchiveScript(ctx context.Context, source []byte, mode, archive, config string, modeArgs, names []string) (string, error) {
	script, cleanup, err := r.file("archive.py", source)
	if err != nil {
		return "", err
	}
	defer cleanup()
	dir := filepath.Dir(script)
	if err := os.WriteFile(filepath.Join("/", r.Root, dir, "archive_common.py"), archiveCommonModule, 0o644); err != nil {
		return "", fmt.Errorf("%s: %w", r, err)
	}
	if err := r.copyArchive(archive, dir); err != nil {
		return "", err
	}
	confArg := "-"
	if config != "" {
		if err := os.WriteFile(filepath.Join("/", r.Root, dir, "archive.conf"), []byte(config), 0o644); err != nil {
			return "", err
		}
		confArg = filepath.Join(dir, "archive.conf")
	}
	args := append([]string{script, mode, filepath.Join(dir, filepath.Base(archive)), confArg}, modeArgs...)
	cmd := r.command(ctx, "python3", append(args, names...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		verb := map[string]string{"interp": "interpolating", "replay": "replaying"}[mode]
		return "", fmt.Errorf("%s: %s %s: %w: %.300s", r, verb, archive, err, stderr.String())
	}
	return string(out), nil
}

//go:embed timewindow.py
var timeWindowScript []byte

// TimeWindows resolves time window arguments (-S, -T, -A, -O; "" when
// not given) with the release's pmParseTimeWindow against an archive
// bounded by first and last (whole microseconds: the API takes
// timevals), in the time zone tz. Per window it returns "OK start end
// origin" (seconds.microseconds), "WARN ..." when the alignment was not
// applied, or "ERR".
func (r Release) TimeWindows(ctx context.Context, first, last time.Time, tz string, windows [][4]string) ([]string, error) {
	script, cleanup, err := r.file("timewindow.py", timeWindowScript)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var in bytes.Buffer
	for _, w := range windows {
		fmt.Fprintf(&in, "%s\t%s\t%s\t%s\n", w[0], w[1], w[2], w[3])
	}
	cmd := r.command(ctx, "python3", script,
		strconv.FormatInt(first.Unix(), 10), strconv.Itoa(first.Nanosecond()/1000),
		strconv.FormatInt(last.Unix(), 10), strconv.Itoa(last.Nanosecond()/1000))
	cmd.Env = append(cmd.Env, "TZ="+tz)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: pmParseTimeWindow: %w: %.300s", r, err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(windows) {
		return nil, fmt.Errorf("%s: pmParseTimeWindow answered %d of %d windows: %s", r, len(lines), len(windows), stderr.String())
	}
	return lines, nil
}

// Package labeltest compares a source's labels with pminfo -l, for the
// tests of every source that holds labels.
package labeltest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

var instLine = regexp.MustCompile(`^    inst \[(-?\d+) or ".*"\] labels (\{.*\})$`)

// ParsePminfo reads pminfo -l output into, per metric, "labels {...}" and
// "inst N labels {...}" lines in pminfo's order.
func ParsePminfo(out []byte) (map[string][]string, error) {
	got := map[string][]string{}
	var name string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
		case !strings.HasPrefix(line, " "):
			name = line
			got[name] = nil
		case strings.HasPrefix(line, "    labels "):
			got[name] = append(got[name], strings.TrimPrefix(line, "    "))
		default:
			m := instLine.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("unexpected pminfo -l line %q", line)
			}
			got[name] = append(got[name], fmt.Sprintf("inst %s labels %s", m[1], m[2]))
		}
	}
	return got, sc.Err()
}

// Render prints one metric's merged labels in the form ParsePminfo returns.
func Render(ctx context.Context, src pmclient.Labeler, d pmapi.Desc) ([]string, error) {
	ml, err := pmclient.LookupMetricLabels(ctx, src, d)
	if err != nil {
		return nil, err
	}
	var out []string
	if len(ml.Metric) > 0 {
		out = append(out, "labels "+pmclient.FormatLabels(ml.Metric))
	}
	for _, set := range ml.Instances {
		out = append(out, fmt.Sprintf("inst %d labels %s", set.Inst, pmclient.FormatLabels(set.Labels)))
	}
	return out, nil
}

// Volatile reports metrics whose instance domains change between two reads
// of the same pmcd: processes, each client's own pmcd.client entry, and the
// sample PMDA's deliberately changing domains.
func Volatile(name string) bool {
	for _, p := range []string{"proc.", "hotproc.", "pmcd.client.", "pmcd.pmlogger.", "sample.mirage", "sample.dynamic.", "sample.scramble.", "sample.proc.",
		"sampledso.mirage", "sampledso.dynamic.", "sampledso.scramble.", "sampledso.proc."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

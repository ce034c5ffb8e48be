package pmcd

import (
	"context"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/labeltest"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

func pminfoLabels(t *testing.T, host string) map[string][]string {
	t.Helper()
	out, err := exec.Command("pminfo", "-h", host, "-l").Output()
	if err != nil {
		t.Fatalf("pminfo -h %s -l: %v", host, err)
	}
	got, err := labeltest.ParsePminfo(out)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestLabelsAgainstPminfo: for every metric, the labels we read and merge
// (context < domain < indom < cluster < item < instance) print exactly as
// pminfo -l prints libpcp's, over TCP (no user labels) and the unix socket
// (pmcd adds userid and groupid).
func TestLabelsAgainstPminfo(t *testing.T) {
	requirePmcd(t)
	ctx := context.Background()
	for _, tc := range []struct{ spec, pminfoHost string }{{"127.0.0.1", "127.0.0.1"}, {"unix:", "local:"}} {
		want := pminfoLabels(t, tc.pminfoHost)
		c, err := New(tc.spec, Options{})
		if err != nil {
			t.Fatal(err)
		}
		src := pmclient.NewCache(c)
		names := make([]string, 0, len(want))
		for n := range want {
			names = append(names, n)
		}
		sort.Strings(names)
		pmids, errs, err := src.LookupNames(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		descs, derrs, err := src.Descs(ctx, pmids)
		if err != nil {
			t.Fatal(err)
		}
		compared, withInstances, diffs := 0, 0, 0
		for i, name := range names {
			if errs[i] != nil || derrs[i] != nil {
				continue // the namespace moved between the two reads
			}
			got, err := labeltest.Render(ctx, src, descs[i])
			if err != nil {
				t.Errorf("%s %s: %v", tc.spec, name, err)
				continue
			}
			wantLines := want[name]
			if volatileInstances(name) {
				// Processes come and go between the two reads, and each
				// client sees its own pmcd.client instance.
				got, wantLines = got[:min(1, len(got))], wantLines[:min(1, len(wantLines))]
			}
			if len(got) > 1 {
				withInstances++
			}
			compared++
			if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
				// A label may change between the two reads (another
				// test restarted pmproxy: its pid label moved). Only a
				// difference that two fresh reads, close together,
				// still show counts.
				if again, ours := pminfoMetricLabels(t, tc.pminfoHost, name), freshLabels(ctx, t, tc.spec, name); again != nil && strings.Join(ours, "\n") == strings.Join(again, "\n") {
					t.Logf("%s %s: its labels changed between the reads; equal read again", tc.spec, name)
					continue
				}
				if diffs++; diffs <= 5 {
					t.Errorf("%s %s:\nours:\n%s\npminfo -l:\n%s", tc.spec, name, strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
				}
			}
		}
		c.Close()
		if compared < 2000 || withInstances < 100 {
			t.Errorf("%s: compared only %d metrics (%d with instance labels)", tc.spec, compared, withInstances)
		}
		if diffs > 0 {
			t.Errorf("%s: %d of %d metrics differ", tc.spec, diffs, compared)
		}
		t.Logf("%s: labels of %d metrics (%d with instance labels) identical to pminfo -l", tc.spec, compared, withInstances)
	}
}

func volatileInstances(name string) bool { return labeltest.Volatile(name) }

// pminfoMetricLabels is pminfo -l of one metric, nil when it is gone.
func pminfoMetricLabels(t *testing.T, host, name string) []string {
	t.Helper()
	out, err := exec.Command("pminfo", "-h", host, "-l", name).Output()
	if err != nil {
		return nil
	}
	got, err := labeltest.ParsePminfo(out)
	if err != nil {
		t.Fatal(err)
	}
	return got[name]
}

// freshLabels are one metric's labels through a new connection (no
// cache of an earlier read).
func freshLabels(ctx context.Context, t *testing.T, spec, name string) []string {
	t.Helper()
	c, err := New(spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	src := pmclient.NewCache(c)
	pmids, errs, err := src.LookupNames(ctx, []string{name})
	if err != nil || errs[0] != nil {
		return nil
	}
	descs, derrs, err := src.Descs(ctx, pmids)
	if err != nil || derrs[0] != nil {
		return nil
	}
	got, err := labeltest.Render(ctx, src, descs[0])
	if err != nil {
		return nil
	}
	return got
}

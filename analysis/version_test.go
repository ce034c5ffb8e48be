package analysis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// versionSource is a source that only says its PCP version.
type versionSource struct {
	pmclient.Source
	version string
	err     error
}

func (s versionSource) Describe() string                        { return "test source" }
func (s versionSource) Version(context.Context) (string, error) { return s.version, s.err }

func TestResolveVersion(t *testing.T) {
	for _, tc := range []struct {
		requested string
		src       pmclient.Source
		want      pcpver.Version
		why       string // part of the reason
		err       bool
	}{
		{"6.0.3", versionSource{version: "7.2.2"}, pcpver.V6_0_3, "--pcp-version 6.0.3", false},
		{"pcp6", nil, pcpver.V6_0_3, "--pcp-version pcp6", false},
		{"pcp7", nil, pcpver.Latest, "--pcp-version pcp7", false},
		{"latest", nil, pcpver.Latest, "--pcp-version latest", false},
		{"", versionSource{version: "6.0.3"}, pcpver.V6_0_3, "test source reports PCP 6.0.3", false},
		{"auto", versionSource{version: "5.2.6"}, pcpver.V5_2_6, "test source reports PCP 5.2.6", false},
		{"auto", versionSource{version: "6.3.8-1"}, pcpver.V6_3_8, "reports PCP 6.3.8-1", false},
		// The releases other distributions ship are proved too: their own rules, no note.
		{"auto", versionSource{version: "5.3.7-22.el8"}, pcpver.V5_3_7, "test source reports PCP 5.3.7-22.el8", false},
		{"auto", versionSource{version: "6.2.0"}, pcpver.V6_2_0, "test source reports PCP 6.2.0", false},
		{"6.2", nil, pcpver.V6_2_0, "--pcp-version 6.2", false},
		{"auto", versionSource{version: "7.0.2"}, pcpver.V7_0_2, "test source reports PCP 7.0.2", false},
		{"auto", versionSource{version: ""}, pcpver.Latest, "records no PCP version", false},
		{"auto", versionSource{version: "4.3.2"}, pcpver.Latest, "records no PCP version", false},
		{"auto", versionSource{err: errors.New("connection refused")}, pcpver.Latest, "did not say its PCP version (connection refused)", false},
		{"auto", nil, pcpver.Latest, "no metadata source", false},
		// Outside the releases proved: the reason says whose rules apply.
		{"8.0", nil, pcpver.Version{Major: 8}, "--pcp-version 8.0; newer than the latest release modelled: 7.2.2's rules apply", false},
		{"auto", versionSource{version: "7.3.0"}, pcpver.Version{Major: 7, Minor: 3}, "reports PCP 7.3.0; newer than the latest", false},
		{"5.1", nil, pcpver.Version{Major: 5, Minor: 1}, "--pcp-version 5.1; older than 5.2.6, the oldest release checked against its own libpcp", false},
		{"6.x", nil, pcpver.Version{}, "", true},
		{"4.1", nil, pcpver.Version{}, "", true},
	} {
		got, err := ResolveVersion(context.Background(), tc.requested, "--pcp-version", tc.src)
		if (err != nil) != tc.err {
			t.Errorf("%q: error %v, want error %v", tc.requested, err, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		if got.Version != tc.want || !strings.Contains(got.Reason, tc.why) ||
			slices.Contains(pcpver.Proved(), tc.want) && strings.Contains(got.Reason, ";") {
			t.Errorf("%q with %v: %s, want %s (%s)", tc.requested, tc.src, got, tc.want, tc.why)
		}
	}
}

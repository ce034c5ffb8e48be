// Package analysis is the one way from a config path to findings, shared by
// the command line and the language server. This file resolves which PCP
// release's libpcp the analysis follows.
package analysis

import (
	"context"
	"fmt"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// Auto asks ResolveVersion to take the release from the metadata source.
const Auto = "auto"

// VersionChoice is the release an analysis follows and why: every output
// header and the server's status show both.
type VersionChoice struct {
	Version pcpver.Version
	Reason  string // "pmcd at 127.0.0.1:44321 runs PCP 6.0.3", "--pcp-version 6.0", ...
}

func (c VersionChoice) String() string { return fmt.Sprintf("PCP %s (%s)", c.Version, c.Reason) }

// ResolveVersion turns a requested version ("6.0.3", "6.2", "pcp6", "latest",
// or Auto/"") into a release. Auto asks the source: a live pmcd's
// pmcd.version, the version an archive logged, the version a snapshot
// recorded of its host (the embedded default too); when the source says
// nothing usable, the latest release. what names the setting for the
// reason ("--pcp-version", "pcpVersion"). src may be nil.
func ResolveVersion(ctx context.Context, requested, what string, src pmclient.Source) (VersionChoice, error) {
	if requested != "" && requested != Auto {
		v, err := pcpver.Parse(requested)
		if err != nil {
			return VersionChoice{}, fmt.Errorf("%s: %w", what, err)
		}
		return VersionChoice{v, fmt.Sprintf("%s %s", what, requested)}, nil
	}
	latest := VersionChoice{pcpver.Latest, "latest release: no PCP version known for the metadata source"}
	if src == nil {
		latest.Reason = "latest release: no metadata source"
		return latest, nil
	}
	raw, err := src.Version(ctx)
	if err != nil {
		latest.Reason = fmt.Sprintf("latest release: %s did not say its PCP version (%v)", src.Describe(), err)
		return latest, nil
	}
	v, perr := pcpver.Parse(raw)
	if raw == "" || perr != nil {
		latest.Reason = fmt.Sprintf("latest release: %s records no PCP version", src.Describe())
		return latest, nil
	}
	return VersionChoice{v, fmt.Sprintf("%s reports PCP %s", src.Describe(), raw)}, nil
}

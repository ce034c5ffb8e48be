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

// VersionRequest is what a user asked to follow: the PCP version setting
// and its older spelling, the dialect, each with the name the user knows
// it by ("--pcp-version" and "--dialect" on the command line,
// "pcpVersion" and "dialect" in an editor's settings).
type VersionRequest struct {
	PCPVersion, Dialect         string
	PCPVersionName, DialectName string
}

// Pick returns the setting that counts and its name: the PCP version,
// unless it is unset or auto and the dialect is set to something else.
func (r VersionRequest) Pick() (value, name string) {
	if (r.PCPVersion == "" || r.PCPVersion == Auto) && r.Dialect != "" && r.Dialect != Auto {
		return r.Dialect, r.DialectName
	}
	if r.PCPVersion == "" {
		return Auto, r.PCPVersionName
	}
	return r.PCPVersion, r.PCPVersionName
}

// Resolve is ResolveVersion of the setting that counts: the one way the
// command line and the server decide the release, auto included.
func (r VersionRequest) Resolve(ctx context.Context, src pmclient.Source) (VersionChoice, error) {
	value, name := r.Pick()
	return ResolveVersion(ctx, value, name, src)
}

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
		return VersionChoice{v, fmt.Sprintf("%s %s", what, requested) + modelNote(v)}, nil
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
	return VersionChoice{v, fmt.Sprintf("%s reports PCP %s", src.Describe(), raw) + modelNote(v)}, nil
}

// modelNote says, for a release outside the ones proved against their
// own libpcp, whose rules apply: a newer one follows the latest release
// modelled, an older one the rules PCP's history gives it, unchecked.
func modelNote(v pcpver.Version) string {
	proved := pcpver.Proved()
	oldest, newest := proved[0], proved[len(proved)-1]
	switch {
	case newest.Less(v):
		return fmt.Sprintf("; newer than the latest release modelled: %s's rules apply", newest)
	case v.Less(oldest):
		return fmt.Sprintf("; older than %s, the oldest release checked against its own libpcp: its rules are modelled, not proved", oldest)
	}
	return ""
}

// Package pcpver names PCP releases and the changes each made to the
// derived-metric language, so that every version-dependent rule in the
// grammar, the checker and the evaluator asks one question — "does the
// target release have feature F?" — and the answer for each feature is
// written down once, here, with the release that introduced it.
//
// The releases a user names are the ones libpcp reports in pmcd.version
// ("6.0.3"); shorter forms name the first release of a line ("6.2" is
// 6.2.0, as Ubuntu 24.04 ships it). The old dialect names stay as aliases:
// "pcp6" is 6.0.3 (Debian 12) and "pcp7" the latest release we model.
package pcpver

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a PCP release, major.minor.patch. The zero Version is not a
// release; Latest is what an unknown target resolves to.
type Version struct {
	Major, Minor, Patch int
}

// Releases proved against a real libpcp of that release in every test run:
// Debian's packages of bullseye (5.2.6), bookworm (6.0.3), trixie (6.3.8)
// and sid (7.2.2), and upstream builds of the releases other distributions
// ship, 5.3.7 (RHEL 8), 6.2.0 (Ubuntu 24.04) and 7.0.2 (Ubuntu 26.04).
var (
	V5_2_6 = Version{5, 2, 6}
	V5_3_7 = Version{5, 3, 7}
	V6_0_3 = Version{6, 0, 3}
	V6_2_0 = Version{6, 2, 0}
	V6_3_8 = Version{6, 3, 8}
	V7_0_2 = Version{7, 0, 2}
	V7_2_2 = Version{7, 2, 2}
)

// Latest is the newest release we model: the target when nothing says
// otherwise.
var Latest = V7_2_2

// Oldest is the oldest release we model; older targets are refused rather
// than guessed at.
var Oldest = Version{5, 0, 0}

// Proved lists the releases our tests compare with the real library,
// oldest first.
func Proved() []Version { return []Version{V5_2_6, V5_3_7, V6_0_3, V6_2_0, V6_3_8, V7_0_2, V7_2_2} }

// Parse reads "X", "X.Y", "X.Y.Z" (a trailing package suffix such as
// "6.0.3-1.1" is ignored), "latest", or the dialect aliases "pcp6" and
// "pcp7".
func Parse(s string) (Version, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "latest", "pcp7":
		return Latest, nil
	case "pcp6":
		return V6_0_3, nil
	}
	core, _, _ := strings.Cut(strings.TrimSpace(s), "-")
	parts := strings.Split(core, ".")
	if len(parts) > 3 || core == "" {
		return Version{}, fmt.Errorf("PCP version %q: want X.Y or X.Y.Z (for example 6.0.3), latest, pcp6 or pcp7", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v > 999 {
			return Version{}, fmt.Errorf("PCP version %q: %q is not a release number", s, p)
		}
		n[i] = v
	}
	v := Version{n[0], n[1], n[2]}
	if v.Less(Oldest) {
		return Version{}, fmt.Errorf("PCP version %s: releases before %d.%d are not modelled", v, Oldest.Major, Oldest.Minor)
	}
	return v, nil
}

// ParseList reads a comma-separated list of versions; "all" is every
// release in Proved.
func ParseList(s string) ([]Version, error) {
	if strings.TrimSpace(strings.ToLower(s)) == "all" {
		return Proved(), nil
	}
	var out []Version
	seen := map[Version]bool{}
	for _, f := range strings.Split(s, ",") {
		v, err := Parse(f)
		if err != nil {
			return nil, err
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

func (v Version) String() string {
	if v == (Version{}) {
		return "unknown"
	}
	return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// Compare orders versions: -1, 0 or +1.
func (v Version) Compare(o Version) int {
	for _, d := range [3]int{v.Major - o.Major, v.Minor - o.Minor, v.Patch - o.Patch} {
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
	}
	return 0
}

// Less reports whether v is an older release than o.
func (v Version) Less(o Version) bool { return v.Compare(o) < 0 }

// AtLeast reports whether v is o or newer.
func (v Version) AtLeast(o Version) bool { return v.Compare(o) >= 0 }

// Has reports whether release v has feature f.
func (v Version) Has(f Feature) bool { return v.AtLeast(f.Since()) }

// Line names the release line for messages: "6.0" for 6.0.3.
func (v Version) Line() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Package pmclient reads metric metadata and values from where PCP users have
// them: a live pmcd, an archive, a metadata snapshot, or the snapshot embedded
// in the binary. Every source answers the same Source interface, in batches.
package pmclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// Source is one place metric metadata and values come from. Every method takes
// a batch so that callers never pay a round trip per metric. Implementations
// are safe for concurrent use.
type Source interface {
	// Describe names the source for humans ("pmcd at 127.0.0.1:44321",
	// "archive /var/log/pcp/pmlogger/host/20260101", "embedded default").
	Describe() string
	// Version is the PCP version of the source (pmcd.version, or the
	// version recorded in the archive or snapshot), "" when unknown.
	Version(ctx context.Context) (string, error)

	// LookupNames maps names to PMIDs. errs[i] is non-nil (for example
	// ErrUnknownName) for names that do not resolve; err is for the call.
	LookupNames(ctx context.Context, names []string) (pmids []pmapi.PMID, errs []error, err error)
	// NamesOf maps PMIDs back to all their names.
	NamesOf(ctx context.Context, pmids []pmapi.PMID) (names [][]string, errs []error, err error)
	// Children lists the children of a PMNS node ("" is the root).
	Children(ctx context.Context, name string) ([]Child, error)
	// Descs returns descriptors for PMIDs.
	Descs(ctx context.Context, pmids []pmapi.PMID) (descs []pmapi.Desc, errs []error, err error)
	// Instances lists every instance of an instance domain.
	Instances(ctx context.Context, indom pmapi.InDom) ([]Instance, error)
	// HelpText returns one-line or long help for a metric or instance domain.
	HelpText(ctx context.Context, target HelpTarget, long bool) (string, error)
	// Fetch returns current values; for archives the next record.
	Fetch(ctx context.Context, pmids []pmapi.PMID) (*Result, error)
}

// Recording is implemented by sources whose Fetch steps through recorded
// time (archives): each Fetch moves to the next record, even one asking for
// no metric, and the recording ends with io.EOF. A caller that evaluates
// only constants still walks the recording's timeline and so ends.
type Recording interface {
	Source
	// Recorded reports that Fetch replays a recording.
	Recorded() bool
}

// FetchReuser is implemented by sources that can deliver a fetch into
// memory they reuse (archives): FetchReused is Fetch, but its Result, the
// Metrics in it and their Values are valid only until the source's next
// Fetch or FetchReused (strings stay valid). A caller that uses each
// result before asking for the next (a replay, an evaluation) then costs
// no allocation per fetch.
type FetchReuser interface {
	FetchReused(ctx context.Context, pmids []pmapi.PMID) (*Result, error)
}

// Child is one entry of a PMNS node listing.
type Child struct {
	Name string
	Leaf bool
}

// Instance is one member of an instance domain.
type Instance struct {
	ID   int32
	Name string
}

// HelpTarget names what help text is asked for: a metric or an instance domain.
type HelpTarget struct {
	PMID  pmapi.PMID  // used when InDom is pmapi.InDomNull
	InDom pmapi.InDom // pmapi.InDomNull when asking about a metric
}

// Result is one fetch: a timestamp and, per requested PMID, values or an
// error. From an archive, Mark reports a gap in the recording (a <mark>
// record): values before and after it are not continuous.
type Result struct {
	Timestamp time.Time
	Metrics   []MetricValues
	Mark      bool
}

// MetricValues holds the values of one metric in a Result. Err is set (and
// Values empty) when the PMDA returned an error for this metric; no values
// with no error means "no values available".
type MetricValues struct {
	PMID   pmapi.PMID
	Err    error
	Values []pmapi.Value
}

// Value is one instance's value, pmapi's: the sources' results carry the
// values the evaluator reads, in the form pmapi.Value describes.
type Value = pmapi.Value

// InNull is PM_IN_NULL, the instance of a singular metric's only value.
const InNull = pmapi.InNull

// NameLister is implemented by sources that can list their whole namespace
// cheaply (snapshots, archives); the checker uses it for "did you mean".
type NameLister interface {
	AllNames(ctx context.Context) ([]string, error)
}

// InstanceLookuper is implemented by sources whose agents resolve
// instance names themselves (pmcd's PMDAs, for pmLookupInDom).
type InstanceLookuper interface {
	LookupInstance(ctx context.Context, indom pmapi.InDom, name string) (int32, error)
}

// Resolved is a metric name bound the way libpcp binds an operand: a PMID
// (pmLookupName) and a descriptor (pmLookupDesc).
type Resolved struct {
	Name string
	PMID pmapi.PMID
	Desc pmapi.Desc
}

// Resolve binds names with one batched name lookup and one batched
// descriptor request. Names that fail either step are left out; err is
// for a failed request.
func Resolve(ctx context.Context, src Source, names []string) ([]Resolved, error) {
	found, _, err := ResolveNames(ctx, src, names)
	return found, err
}

// ResolveNames is Resolve that also returns the names that are in the
// namespace but have no descriptor (libpcp 7.1+ reports those apart:
// "Metadata for operand metric not available").
func ResolveNames(ctx context.Context, src Source, names []string) (found []Resolved, noDesc []string, err error) {
	if len(names) == 0 {
		return nil, nil, nil
	}
	pmids, errs, err := src.LookupNames(ctx, names)
	if err != nil {
		return nil, nil, fmt.Errorf("looking up %d metric names in %s: %w", len(names), src.Describe(), err)
	}
	var ids []pmapi.PMID
	for i, n := range names {
		if errs[i] == nil {
			found = append(found, Resolved{Name: n, PMID: pmids[i]})
			ids = append(ids, pmids[i])
		}
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	descs, derrs, err := src.Descs(ctx, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("fetching %d descriptors from %s: %w", len(ids), src.Describe(), err)
	}
	out := found[:0]
	for i, r := range found {
		if derrs[i] == nil {
			r.Desc = descs[i]
			out = append(out, r)
		} else {
			noDesc = append(noDesc, r.Name)
		}
	}
	return out, noDesc, nil
}

// FetchVersion is Version for a live source: the value of pmcd.version,
// looked up and fetched through src.
func FetchVersion(ctx context.Context, src Source) (string, error) {
	ids, errs, err := src.LookupNames(ctx, []string{"pmcd.version"})
	if err != nil {
		return "", err
	}
	if errs[0] != nil {
		return "", fmt.Errorf("pmcd.version: %w", errs[0])
	}
	res, err := src.Fetch(ctx, ids)
	if err != nil {
		return "", err
	}
	if len(res.Metrics) != 1 || res.Metrics[0].Err != nil || len(res.Metrics[0].Values) != 1 {
		return "", errors.New("pmcd.version: no value")
	}
	return res.Metrics[0].Values[0].String, nil
}

// Package snapshot reads and writes metadata snapshots: a JSON file holding
// a host's metric namespace, descriptors, instance domains and help text,
// so configs can be checked where no pmcd runs (CI, a laptop).
//
// Format (version 1), all fields required unless marked optional:
//
//	{
//	  "format": "pcp-derive-lsp-snapshot",
//	  "version": 1,
//	  "source": "pmcd at 127.0.0.1",            // where it was captured
//	  "pcpVersion": "6.0.3",                      // pmcd.version
//	  "hostname": "db1",                          // optional
//	  "captured": "2026-11-22T15:00:00Z",         // optional
//	  "metrics": [{
//	    "name": "kernel.all.load",
//	    "pmid": "60.2.0",
//	    "type": "FLOAT",                          // pmTypeStr spelling
//	    "indom": "60.2",                          // "" for PM_INDOM_NULL
//	    "sem": "instant",                         // counter|instant|discrete (or a number)
//	    "units": "",                              // pmUnitsStr ("" = none; 7.2 extra units allowed)
//	    "oneline": "...", "help": "..."           // optional
//	  }],
//	  "indoms": [{
//	    "indom": "60.2",
//	    "instances": [{"id": 1, "name": "1 minute"}],
//	    "oneline": "...", "help": "..."           // optional
//	  }],
//	  "labels": [{                                // optional
//	    "type": 16,                               // 1 context, 2 domain, 4 indom, 8 cluster, 16 item, 32 instances
//	    "ident": 121634822,                       // as pmclient.LabelIdent
//	    "sets": [{"inst": -1, "labels": [{"name": "agent", "value": "sample", "flags": 2}]}]
//	  }]
//	}
//
// Label values are JSON values kept as pmcd sent them.
package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

const formatName = "pcp-derive-lsp-snapshot"

// File is the JSON document.
type File struct {
	Format     string   `json:"format"`
	Version    int      `json:"version"`
	Source     string   `json:"source"`
	PCPVersion string   `json:"pcpVersion"`
	Hostname   string   `json:"hostname,omitempty"`
	Captured   string   `json:"captured,omitempty"`
	Metrics    []Metric `json:"metrics"`
	InDoms     []InDom  `json:"indoms"`
	Labels     []Labels `json:"labels,omitempty"`
}

// Labels are the label sets of one level of the metadata hierarchy.
type Labels struct {
	Type  uint32     `json:"type"`
	Ident uint32     `json:"ident"`
	Sets  []LabelSet `json:"sets"`
}

// LabelSet is one set; Inst is -1 except for instance labels.
type LabelSet struct {
	Inst   int32   `json:"inst"`
	Labels []Label `json:"labels"`
}

// Label is a name and its JSON value.
type Label struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
	Flags uint8           `json:"flags"`
}

// LabelsFrom converts a source's label sets for the file.
func LabelsFrom(typ pmclient.LabelType, ident uint32, sets []pmclient.LabelSet) Labels {
	out := Labels{Type: uint32(typ), Ident: ident, Sets: make([]LabelSet, len(sets))}
	for i, set := range sets {
		out.Sets[i] = LabelSet{Inst: set.Inst, Labels: make([]Label, len(set.Labels))}
		for j, l := range set.Labels {
			out.Sets[i].Labels[j] = Label{Name: l.Name, Value: json.RawMessage(l.Value), Flags: l.Flags}
		}
	}
	return out
}

// Metric is one metric's metadata.
type Metric struct {
	Name    string `json:"name"`
	PMID    string `json:"pmid"`
	Type    string `json:"type"`
	InDom   string `json:"indom"`
	Sem     string `json:"sem"`
	Units   string `json:"units"`
	OneLine string `json:"oneline,omitempty"`
	Help    string `json:"help,omitempty"`
}

// InDom is one instance domain.
type InDom struct {
	InDom     string     `json:"indom"`
	Instances []Instance `json:"instances"`
	OneLine   string     `json:"oneline,omitempty"`
	Help      string     `json:"help,omitempty"`
}

// Instance is one member of an instance domain.
type Instance struct {
	ID   int32  `json:"id"`
	Name string `json:"name"`
}

// index is pmclient.Index under a name that is not exported, so that
// Source embeds it (and gets its namespace, descriptor, instance, help
// text and label requests) without exporting the field.
type index = pmclient.Index

// Source serves a snapshot through pmclient.Source.
type Source struct {
	*index
	describe   string
	pcpVersion string
	labeled    bool // the file has labels (without, Labels answers ErrNoLabels)
}

// Read decodes and validates a snapshot. name describes where it came from
// ("snapshot FILE", "embedded default"), with the default Options.
func Read(r io.Reader, name string) (*Source, error) { return ReadWith(r, name, Options{}) }

// ErrTooLarge is wrapped by the error for a snapshot over Options.MaxBytes.
var ErrTooLarge = errors.New("snapshot over its size limit (see docs/limits.md)")

// ReadWith is Read with options.
func ReadWith(r io.Reader, name string, opts Options) (*Source, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	// Reading one byte past the cap tells a snapshot of exactly the cap
	// from a larger one.
	lr := &io.LimitedReader{R: r, N: opts.MaxBytes + 1}
	d := &decoder{dec: json.NewDecoder(lr), name: name, descs: map[pmapi.PMID]named{}}
	if err := d.read(); err != nil {
		if lr.N == 0 {
			return nil, fmt.Errorf("%s: larger than %d bytes, the cap on a snapshot (raise it with snapshot.Options.MaxBytes or $PCP_DERIVE_LSP_MAX_METADATA_MB): %w", name, opts.MaxBytes, ErrTooLarge)
		}
		return nil, err
	}
	f := d.head
	if f.Format != formatName || f.Version != 1 {
		return nil, fmt.Errorf("%s: not a version 1 %s file (format %q, version %d)", name, formatName, f.Format, f.Version)
	}
	return &Source{
		index:      d.b.Build(),
		describe:   fmt.Sprintf("%s (captured from %s, PCP %s)", name, f.Source, f.PCPVersion),
		pcpVersion: f.PCPVersion,
		labeled:    d.labeled,
	}, nil
}

// Write encodes a snapshot, metrics sorted by name.
func Write(w io.Writer, f *File) error {
	f.Format, f.Version = formatName, 1
	sort.Slice(f.Metrics, func(i, j int) bool { return f.Metrics[i].Name < f.Metrics[j].Name })
	sort.Slice(f.InDoms, func(i, j int) bool { return f.InDoms[i].InDom < f.InDoms[j].InDom })
	sort.Slice(f.Labels, func(i, j int) bool {
		a, b := f.Labels[i], f.Labels[j]
		return a.Type < b.Type || a.Type == b.Type && a.Ident < b.Ident
	})
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(f)
}

// MetricFromDesc fills a snapshot entry from a descriptor.
func MetricFromDesc(name string, d pmapi.Desc) Metric {
	units := d.Units.String()
	if d.Units.ExtraUnit != 0 {
		units = d.Units.Format(true) // PCP 7.2's spelling carries extra units
	}
	m := Metric{Name: name, PMID: d.PMID.String(), Type: d.Type.String(), Sem: d.Sem.String(), Units: units}
	if d.InDom != pmapi.InDomNull {
		m.InDom = d.InDom.String()
	}
	return m
}

// Desc is the entry's descriptor.
func (m Metric) Desc() (pmapi.Desc, error) {
	var d pmapi.Desc
	var err error
	if d.PMID, err = pmapi.ParsePMID(m.PMID); err != nil {
		return d, err
	}
	var ok bool
	if d.Type, ok = pmapi.ParseType(m.Type); !ok {
		return d, fmt.Errorf("type %q", m.Type)
	}
	d.InDom = pmapi.InDomNull
	if m.InDom != "" {
		if d.InDom, err = pmapi.ParseInDom(m.InDom); err != nil {
			return d, err
		}
	}
	if d.Sem, ok = pmapi.ParseSem(m.Sem); !ok {
		// A PMDA may declare no valid semantics: Sem.String's
		// "unknown (0)", or the number alone.
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(m.Sem, "unknown ("), ")"))
		if err != nil {
			return d, fmt.Errorf("semantics %q", m.Sem)
		}
		d.Sem = pmapi.Sem(n)
	}
	if d.Units, _, err = pmapi.ParseUnitsExtra(m.Units); err != nil {
		return d, fmt.Errorf("units %q: %w", m.Units, err)
	}
	return d, nil
}

// Describe implements pmclient.Source.
func (s *Source) Describe() string { return s.describe }

// Version implements pmclient.Source.
func (s *Source) Version(context.Context) (string, error) { return s.pcpVersion, nil }

// Fetch implements pmclient.Source: a snapshot has no values.
func (s *Source) Fetch(context.Context, []pmapi.PMID) (*pmclient.Result, error) {
	return nil, pmclient.ErrNoValues
}

// Names lists every metric name in the snapshot, sorted.
func (s *Source) Names() []string {
	out := s.index.Names()
	sort.Strings(out)
	return out
}

// AllNames implements pmclient.NameLister, sorted.
func (s *Source) AllNames(context.Context) ([]string, error) { return s.Names(), nil }

// Labels implements pmclient.Labeler. A snapshot without labels answers
// ErrNoLabels.
func (s *Source) Labels(ctx context.Context, typ pmclient.LabelType, ident uint32) ([]pmclient.LabelSet, error) {
	if !s.labeled {
		return nil, pmclient.ErrNoLabels
	}
	return s.index.Labels(ctx, typ, ident)
}

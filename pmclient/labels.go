package pmclient

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// LabelType is the level of the metadata hierarchy a label set belongs to
// (PM_LABEL_CONTEXT ... PM_LABEL_INSTANCES). The values are the bits PCP
// uses on the wire, in archives and in a label's flags.
type LabelType uint32

// Label levels, lowest precedence first.
const (
	LabelContext   LabelType = 1
	LabelDomain    LabelType = 2
	LabelInDom     LabelType = 4
	LabelCluster   LabelType = 8
	LabelItem      LabelType = 16
	LabelInstances LabelType = 32
)

// Label flags beyond the level bits.
const (
	LabelCompound = 0x40
	LabelOptional = 0x80
)

// Label is one name:value pair. Value is raw JSON text, so strings keep
// their quotes ("\"localdomain\"") and numbers do not ("100").
type Label struct {
	Name  string
	Value string
	Flags uint8
}

// LabelSet is the labels of one level; Inst is the instance for
// LabelInstances sets and -1 (PM_IN_NULL) otherwise.
type LabelSet struct {
	Inst   int32
	Labels []Label
}

// Labeler is implemented by sources that hold labels (pmcd when it
// advertises label support, archives, snapshots). ident is what PCP names
// for each level: PM_ID_NULL for the context, a domain number, an indom, a
// PMID (the cluster level ignores the item) or, for instances, the indom.
// A source with no labels at a level returns no sets and no error.
type Labeler interface {
	Labels(ctx context.Context, typ LabelType, ident uint32) ([]LabelSet, error)
}

// LabelIdent is the identifier a Labeler expects for a metric's level.
func LabelIdent(typ LabelType, d pmapi.Desc) uint32 {
	switch typ {
	case LabelContext:
		return 0xffffffff
	case LabelDomain:
		return d.PMID.Domain()
	case LabelInDom, LabelInstances:
		return uint32(d.InDom)
	case LabelCluster:
		return uint32(d.PMID) &^ 0x3ff
	default:
		return uint32(d.PMID)
	}
}

// MetricLabels are a metric's labels merged the way pmLookupLabels and
// pminfo -l merge them: context < domain < indom < cluster < item, and for
// each instance the instance's own set on top.
type MetricLabels struct {
	Metric []Label
	// Instances are the merged sets of the instances the source reported,
	// in its order.
	Instances []LabelSet
}

// Instance is the merged label set of one instance: the metric's labels
// with the instance's own set (if it has one) on top.
func (m MetricLabels) Instance(id int32) []Label {
	for _, s := range m.Instances {
		if s.Inst == id {
			return s.Labels
		}
	}
	return m.Metric
}

// LookupMetricLabels gathers and merges the label hierarchy of one metric.
func LookupMetricLabels(ctx context.Context, src Labeler, d pmapi.Desc) (MetricLabels, error) {
	levels := []LabelType{LabelContext, LabelDomain, LabelInDom, LabelCluster, LabelItem}
	var merged []Label
	for _, typ := range levels {
		if typ == LabelInDom && d.InDom == pmapi.InDomNull {
			continue
		}
		sets, err := src.Labels(ctx, typ, LabelIdent(typ, d))
		if err != nil {
			if errors.Is(err, ErrNoLabels) {
				continue
			}
			return MetricLabels{}, err
		}
		for _, s := range sets {
			merged = MergeLabels(merged, s.Labels)
		}
	}
	out := MetricLabels{Metric: merged}
	if d.InDom == pmapi.InDomNull {
		return out, nil
	}
	sets, err := src.Labels(ctx, LabelInstances, uint32(d.InDom))
	if err != nil && !errors.Is(err, ErrNoLabels) {
		return MetricLabels{}, err
	}
	if lister, ok := src.(interface {
		Instances(context.Context, pmapi.InDom) ([]Instance, error)
	}); ok && len(sets) == 0 {
		// Like pmGetInstancesLabels: when the agent has no instance
		// labels, every current instance still gets a (merged) set.
		insts, _ := lister.Instances(ctx, d.InDom)
		for _, in := range insts {
			sets = append(sets, LabelSet{Inst: in.ID})
		}
	}
	out.Instances = make([]LabelSet, len(sets))
	for i, s := range sets {
		out.Instances[i] = LabelSet{Inst: s.Inst, Labels: MergeLabels(merged, s.Labels)}
	}
	return out, nil
}

// MergeLabels returns the union of two label lists sorted by name, where a
// name in upper replaces the same name in lower.
func MergeLabels(lower, upper []Label) []Label {
	byName := make(map[string]Label, len(lower)+len(upper))
	for _, l := range lower {
		byName[l.Name] = l
	}
	for _, l := range upper {
		byName[l.Name] = l
	}
	out := make([]Label, 0, len(byName))
	for _, l := range byName {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// FormatLabels renders labels as one JSON object in the order given, the
// form pminfo -l prints: {"agent":"linux","hostname":"vm"}.
func FormatLabels(ls []Label) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, l := range ls {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		b.WriteString(l.Name)
		b.WriteString(`":`)
		b.WriteString(l.Value)
	}
	b.WriteByte('}')
	return b.String()
}

// ParseLabelSet decodes the shared encoding of a label set used on the wire
// and in archives: the set's JSON text and its 8-byte label entries (BE16
// name offset, u8 name length, u8 flags, BE16 value offset, BE16 value
// length, offsets into the JSON). It checks every reference.
//
// Names and values are substrings of json, never copies: entries are 8
// bytes but may each claim up to 64 KiB of the text, and copying would
// let a hostile set cost thousands of times its size.
func ParseLabelSet(inst int32, json string, entries []byte) (LabelSet, error) {
	if len(entries)%8 != 0 {
		return LabelSet{}, errors.New("label entries are not a multiple of 8 bytes")
	}
	set := LabelSet{Inst: inst, Labels: make([]Label, 0, len(entries)/8)}
	for e := 0; e < len(entries); e += 8 {
		nameOff := int(entries[e])<<8 | int(entries[e+1])
		nameLen := int(entries[e+2])
		flags := entries[e+3]
		valueOff := int(entries[e+4])<<8 | int(entries[e+5])
		valueLen := int(entries[e+6])<<8 | int(entries[e+7])
		if nameLen == 0 || nameOff+nameLen > len(json) || valueOff+valueLen > len(json) || valueLen == 0 {
			return LabelSet{}, errors.New("label name or value lies outside the set's JSON text")
		}
		set.Labels = append(set.Labels, Label{
			Name:  json[nameOff : nameOff+nameLen],
			Value: json[valueOff : valueOff+valueLen],
			Flags: flags,
		})
	}
	return set, nil
}

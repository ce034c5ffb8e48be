package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// decoder reads a snapshot an element at a time and validates each as it
// comes: a metric, instance domain or label set is checked and added to
// the index before the next is read, so a bad one stops the read there
// (decoding the whole file first would hold all its objects before an
// error in the last: docs/limits.md), and what is held is
// the index being built, not the file's objects as well.
type decoder struct {
	dec  *json.Decoder
	name string
	head File // the scalars: format, version, source, ...
	b    pmclient.IndexBuilder
	// descs is each PMID's descriptor and the first name that gave it:
	// two names of one PMID must describe it alike.
	descs   map[pmapi.PMID]named
	labeled bool
}

type named struct {
	name string
	desc pmapi.Desc
}

// read reads the whole document.
func (d *decoder) read() error {
	if err := d.delim('{'); err != nil {
		return err
	}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.notSnapshot(err)
		}
		key, _ := tok.(string)
		switch key {
		case "format":
			err = d.value(&d.head.Format)
		case "version":
			err = d.value(&d.head.Version)
		case "source":
			err = d.value(&d.head.Source)
		case "pcpVersion":
			err = d.value(&d.head.PCPVersion)
		case "hostname":
			err = d.value(&d.head.Hostname)
		case "captured":
			err = d.value(&d.head.Captured)
		case "metrics":
			err = d.each(d.metric)
		case "indoms":
			err = d.each(d.indom)
		case "labels":
			err = d.each(d.labels)
		default:
			var skip json.RawMessage
			err = d.value(&skip)
		}
		if err != nil {
			return err
		}
	}
	return d.delim('}')
}

// notSnapshot is the error of text that is not a snapshot's JSON.
func (d *decoder) notSnapshot(err error) error {
	return fmt.Errorf("%s: not a snapshot: %w", d.name, err)
}

// delim reads the delimiter want.
func (d *decoder) delim(want json.Delim) error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.notSnapshot(err)
	}
	if tok != want {
		return d.notSnapshot(fmt.Errorf("%v at byte %d, want %v", tok, d.dec.InputOffset(), want))
	}
	return nil
}

// value decodes the next value into v.
func (d *decoder) value(v any) error {
	if err := d.dec.Decode(v); err != nil {
		return d.notSnapshot(err)
	}
	return nil
}

// each reads an array (or null), handing each element's index to one,
// which decodes it.
func (d *decoder) each(one func(i int) error) error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.notSnapshot(err)
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('[') {
		return d.notSnapshot(fmt.Errorf("%v at byte %d, want an array", tok, d.dec.InputOffset()))
	}
	for i := 0; d.dec.More(); i++ {
		if err := one(i); err != nil {
			return err
		}
	}
	return d.delim(']')
}

// at names element i of a list, and where it ends in the file.
func (d *decoder) at(what string, i int) string {
	return fmt.Sprintf("%s: %s %d (ending at byte %d)", d.name, what, i, d.dec.InputOffset())
}

func (d *decoder) metric(i int) error {
	var m Metric
	if err := d.value(&m); err != nil {
		return err
	}
	desc, err := m.Desc()
	if err != nil {
		return fmt.Errorf("%s: metric %q: %w", d.at("metric", i), m.Name, err)
	}
	if m.Name == "" {
		return fmt.Errorf("%s: no name", d.at("metric", i))
	}
	if first, ok := d.descs[desc.PMID]; ok && first.desc != desc {
		return fmt.Errorf("%s: metric %q: PMID %s is described otherwise by metric %q (%s, not %s): a PMID has one descriptor", d.at("metric", i), m.Name, desc.PMID, first.name, descText(first.desc), descText(desc))
	} else if !ok {
		d.descs[desc.PMID] = named{m.Name, desc}
	}
	d.b.AddDesc(desc)
	d.b.AddName(m.Name, desc.PMID)
	target := pmclient.HelpTarget{PMID: desc.PMID, InDom: pmapi.InDomNull}
	d.b.AddHelp(target, false, m.OneLine)
	d.b.AddHelp(target, true, m.Help)
	return nil
}

func (d *decoder) indom(i int) error {
	var in InDom
	if err := d.value(&in); err != nil {
		return err
	}
	id, err := pmapi.ParseInDom(in.InDom)
	if err != nil {
		return fmt.Errorf("%s: %w", d.at("instance domain", i), err)
	}
	insts := make([]pmclient.Instance, len(in.Instances))
	for k, inst := range in.Instances {
		insts[k] = pmclient.Instance{ID: inst.ID, Name: inst.Name}
	}
	d.b.AddInstances(id, insts)
	d.b.AddHelp(pmclient.HelpTarget{InDom: id}, false, in.OneLine)
	d.b.AddHelp(pmclient.HelpTarget{InDom: id}, true, in.Help)
	return nil
}

func (d *decoder) labels(i int) error {
	var l Labels
	if err := d.value(&l); err != nil {
		return err
	}
	switch pmclient.LabelType(l.Type) {
	case pmclient.LabelContext, pmclient.LabelDomain, pmclient.LabelInDom, pmclient.LabelCluster, pmclient.LabelItem, pmclient.LabelInstances:
	default:
		return fmt.Errorf("%s: label type %d", d.at("label list", i), l.Type)
	}
	sets := make([]pmclient.LabelSet, len(l.Sets))
	for k, set := range l.Sets {
		sets[k] = pmclient.LabelSet{Inst: set.Inst, Labels: make([]pmclient.Label, len(set.Labels))}
		for j, lab := range set.Labels {
			if lab.Name == "" || !json.Valid(lab.Value) {
				return fmt.Errorf("%s: label %q of type %d ident %d: a name and a JSON value are required", d.at("label list", i), lab.Name, l.Type, l.Ident)
			}
			var compact bytes.Buffer
			json.Compact(&compact, lab.Value) // undo the file's indentation
			sets[k].Labels[j] = pmclient.Label{Name: lab.Name, Value: compact.String(), Flags: lab.Flags}
		}
	}
	d.b.AddLabels(pmclient.LabelType(l.Type), l.Ident, sets)
	d.labeled = true
	return nil
}

// descText is a descriptor in words, for an error.
func descText(d pmapi.Desc) string {
	return fmt.Sprintf("type %s, indom %s, semantics %s, units %q", d.Type, d.InDom, d.Sem, d.Units.String())
}

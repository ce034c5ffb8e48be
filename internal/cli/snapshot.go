package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

func runSnapshot(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "snapshot", "[flags]",
		"Saves a host's metric namespace, descriptors, instance domains and help text\nas JSON, for `check --metadata FILE` where no pmcd runs.")
	host := fs.String("host", "local:", "capture from pmcd on `HOST` (local:, unix:PATH, host[:port])")
	out := fs.String("o", "-", "write the snapshot to `FILE` (- for stdout)")
	exclude := fs.String("exclude", "", "leave out metrics under these comma-separated `PREFIXES`")
	maxInstances := fs.Int("max-instances", -1, "drop instance lists longer than `N` (-1 keeps all)")
	noHelp := fs.Bool("no-help", false, "leave out help text")
	noLabels := fs.Bool("no-labels", false, "leave out labels")
	pcpVersion := fs.String("pcp-version", "", "record PCP `VERSION` as the host's release (default: the pmcd.version the host reports); check follows it for --pcp-version auto")
	extra, status, done := parseFlags(fs, env, args)
	if done {
		return status
	}
	if len(extra) > 0 {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp snapshot: unexpected argument %q\n", extra[0])
		fs.Usage()
		return ExitUsage
	}
	c, err := pmcd.New(*host, pmcd.Options{Getenv: env.Getenv})
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp snapshot: %v\n", err)
		return ExitUsage
	}
	defer c.Close()
	if *pcpVersion != "" {
		v, err := pcpver.Parse(*pcpVersion)
		if err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp snapshot: --pcp-version: %v\n", err)
			return ExitUsage
		}
		*pcpVersion = v.String()
	}
	snap, err := capture(ctx, c, captureOptions{exclude: splitList(*exclude), maxInstances: *maxInstances, help: !*noHelp, labels: !*noLabels})
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp snapshot: %v\n", err)
		return ExitUsage
	}
	if *pcpVersion != "" {
		snap.PCPVersion = *pcpVersion
	}
	w := env.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp snapshot: %v\n", err)
			return ExitUsage
		}
		defer f.Close()
		w = f
	}
	if err := snapshot.Write(w, snap); err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp snapshot: writing: %v\n", err)
		return ExitUsage
	}
	fmt.Fprintf(env.Stderr, "captured %d metrics and %d instance domains from %s\n", len(snap.Metrics), len(snap.InDoms), c.Describe())
	return ExitOK
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// captureOptions say what a snapshot leaves out.
type captureOptions struct {
	exclude      []string // PMNS subtrees
	maxInstances int      // drop longer instance lists (-1 keeps all)
	help         bool
	labels       bool
}

// capture reads a whole namespace from a source: one traversal, one
// batched name lookup, one batched descriptor request, then help text,
// instances and labels.
func capture(ctx context.Context, src interface {
	pmclient.Source
	pmclient.NameLister
}, opts captureOptions) (*snapshot.File, error) {
	exclude, maxInstances, help := opts.exclude, opts.maxInstances, opts.help
	names, err := src.AllNames(ctx)
	if err != nil {
		return nil, err
	}
	kept := names[:0]
	for _, n := range names {
		skip := false
		for _, p := range exclude {
			skip = skip || n == p || strings.HasPrefix(n, p+".")
		}
		if !skip {
			kept = append(kept, n)
		}
	}
	names = kept
	pmids, errs, err := src.LookupNames(ctx, names)
	if err != nil {
		return nil, err
	}
	descs, derrs, err := src.Descs(ctx, pmids)
	if err != nil {
		return nil, err
	}
	version, _ := src.Version(ctx)
	snap := &snapshot.File{Source: src.Describe(), PCPVersion: version, Captured: time.Now().UTC().Format(time.RFC3339)}
	if h, err := os.Hostname(); err == nil {
		snap.Hostname = h
	}
	seen := map[pmapi.InDom]bool{}
	for i, n := range names {
		if errs[i] != nil || derrs[i] != nil {
			continue
		}
		m := snapshot.MetricFromDesc(n, descs[i])
		if help {
			target := pmclient.HelpTarget{PMID: descs[i].PMID, InDom: pmapi.InDomNull}
			m.OneLine, _ = src.HelpText(ctx, target, false)
			m.Help, _ = src.HelpText(ctx, target, true)
		}
		snap.Metrics = append(snap.Metrics, m)
		indom := descs[i].InDom
		if indom == pmapi.InDomNull || seen[indom] {
			continue
		}
		seen[indom] = true
		insts, err := src.Instances(ctx, indom)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		if maxInstances >= 0 && len(insts) > maxInstances {
			insts = nil
		}
		d := snapshot.InDom{InDom: indom.String()}
		for _, in := range insts {
			d.Instances = append(d.Instances, snapshot.Instance{ID: in.ID, Name: in.Name})
		}
		if help {
			target := pmclient.HelpTarget{InDom: indom}
			d.OneLine, _ = src.HelpText(ctx, target, false)
			d.Help, _ = src.HelpText(ctx, target, true)
		}
		snap.InDoms = append(snap.InDoms, d)
	}
	if l, ok := src.(pmclient.Labeler); ok && opts.labels {
		if err := captureLabels(ctx, l, snap); err != nil {
			return nil, err
		}
	}
	return snap, nil
}

// captureLabels records every level of label sets the snapshot's metrics
// use, once per level, leaving out empty sets.
func captureLabels(ctx context.Context, src pmclient.Labeler, snap *snapshot.File) error {
	seen := map[[2]uint32]bool{}
	kept := map[pmapi.InDom]bool{}
	for _, d := range snap.InDoms {
		if len(d.Instances) > 0 {
			id, _ := pmapi.ParseInDom(d.InDom)
			kept[id] = true
		}
	}
	for _, m := range snap.Metrics {
		d, err := m.Desc()
		if err != nil {
			return err
		}
		for _, typ := range []pmclient.LabelType{pmclient.LabelContext, pmclient.LabelDomain, pmclient.LabelInDom, pmclient.LabelCluster, pmclient.LabelItem, pmclient.LabelInstances} {
			if (typ == pmclient.LabelInDom || typ == pmclient.LabelInstances) && d.InDom == pmapi.InDomNull ||
				typ == pmclient.LabelInstances && !kept[d.InDom] {
				continue
			}
			key := [2]uint32{uint32(typ), pmclient.LabelIdent(typ, d)}
			if seen[key] {
				continue
			}
			seen[key] = true
			sets, err := src.Labels(ctx, typ, key[1])
			if errors.Is(err, pmclient.ErrNoLabels) {
				return nil
			}
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				continue // this level is unavailable, like a PMDA without labels
			}
			nonEmpty := sets[:0:0]
			for _, set := range sets {
				if len(set.Labels) > 0 {
					nonEmpty = append(nonEmpty, set)
				}
			}
			if len(nonEmpty) > 0 {
				snap.Labels = append(snap.Labels, snapshot.LabelsFrom(typ, key[1], nonEmpty))
			}
		}
	}
	return nil
}

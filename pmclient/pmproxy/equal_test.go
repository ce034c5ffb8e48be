package pmproxy_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/oracle"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy"
)

// testHost is the test pmcd (scripts/pcp-testenv.sh).
const testHost = "127.0.0.1"

// volatile are instance domains whose members change by themselves:
// pmcd's clients (pmproxy is one more), the pmloggers running (other
// tests record archives meanwhile), the sample PMDAs' "mirage" and
// fake "process" domains, which change every few seconds, and their
// "scramble" domains, which change whenever anyone (another test running
// meanwhile) fetches sample.scramble.bin.
// volatileName reports a metric of the MMV agent other than its own
// controls: one that comes and goes with the processes that export it.
func volatileName(name string) bool {
	return strings.HasPrefix(name, "mmv.") && !strings.HasPrefix(name, "mmv.control.")
}

var volatile = map[pmapi.InDom]bool{
	pmapi.NewInDom(2, 1):   true,
	pmapi.NewInDom(2, 6):   true,
	pmapi.NewInDom(29, 3):  true,
	pmapi.NewInDom(30, 3):  true,
	pmapi.NewInDom(29, 12): true,
	pmapi.NewInDom(30, 12): true,
	pmapi.NewInDom(29, 9):  true,
	pmapi.NewInDom(30, 9):  true,
}

// sources returns the test pmcd directly and through a pmproxy this test
// starts.
func sources(t *testing.T) (direct *pmcd.Client, proxied *pmproxy.Client, proxyURL string) {
	t.Helper()
	direct, err := pmcd.New(testHost, pmcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { direct.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := direct.Version(ctx); err != nil {
		t.Fatalf("the test pmcd does not answer (run scripts/pcp-testenv.sh): %v", err)
	}
	proxy := oracle.PMProxyFor(t)
	proxied, err = pmproxy.New(proxy.URL, pmproxy.Options{Hostspec: testHost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxied.Close() })
	return direct, proxied, proxy.URL
}

// canonicalUnits zeroes the scale of every dimension that is zero:
// pmUnitsStr, pmproxy's only way of saying units, does not print them,
// and no libpcp computation reads them.
func canonicalUnits(u pmapi.Units) pmapi.Units {
	if u.DimSpace == 0 {
		u.ScaleSpace = 0
	}
	if u.DimTime == 0 {
		u.ScaleTime = 0
	}
	if u.DimCount == 0 && u.DimSpace != 0 || u.DimCount == 0 && u.DimTime != 0 {
		u.ScaleCount = 0
	}
	if u.ExtraUnit == 0 {
		u.ExtraScale = 0
	}
	return u
}

// compulsory drops optional labels, which pmproxy does not send.
func compulsory(ls []pmclient.Label) []pmclient.Label {
	var out []pmclient.Label
	for _, l := range ls {
		if l.Flags&pmclient.LabelOptional == 0 {
			out = append(out, pmclient.Label{Name: l.Name, Value: l.Value})
		}
	}
	return out
}

// TestSameAsPmcd compares the pmproxy source with the direct pmcd source
// on the whole namespace of the test pmcd: names, PMIDs, descriptors,
// help, labels, instances, the namespace tree, PMIDs back to names,
// errors for unknown and non-leaf names, and the values of metrics that
// do not change.
func TestSameAsPmcd(t *testing.T) {
	direct, proxied, proxyURL := sources(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	dv, err := direct.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pv, err := proxied.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if dv != pv {
		t.Errorf("version: pmcd %q, pmproxy %q", dv, pv)
	}

	names, err := direct.AllNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pnames, err := proxied.AllNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// libpcp registers event.flags and event.missed itself (anonymous
	// metrics for event records): pmproxy's libpcp has them, pmcd not.
	pnames = slices.DeleteFunc(pnames, func(n string) bool { return n == "event.flags" || n == "event.missed" })
	// The MMV agent's namespace follows the processes that map MMV files
	// (pmproxy, and pmloggers other tests start meanwhile): it can change
	// between the two reads, as the volatile instance domains do.
	names = slices.DeleteFunc(names, volatileName)
	pnames = slices.DeleteFunc(pnames, volatileName)
	sort.Strings(names)
	sort.Strings(pnames)
	if !reflect.DeepEqual(names, pnames) {
		t.Fatalf("namespaces differ: pmcd %d names, pmproxy %d: %v", len(names), len(pnames), symDiff(names, pnames))
	}
	if len(names) < 1000 {
		t.Fatalf("only %d names on the test pmcd: is the sample PMDA installed?", len(names))
	}

	// A fresh client, so names are looked up in batches, not answered
	// from what AllNames learnt.
	fresh, err := pmproxy.New(proxyURL, pmproxy.Options{Hostspec: testHost})
	if err != nil {
		t.Fatal(err)
	}
	dfound, dnoDesc, err := pmclient.ResolveNames(ctx, direct, names)
	if err != nil {
		t.Fatal(err)
	}
	pfound, pnoDesc, err := pmclient.ResolveNames(ctx, fresh, names)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dnoDesc, pnoDesc) {
		t.Errorf("names without a descriptor: pmcd %v, pmproxy %v", dnoDesc, pnoDesc)
	}
	if len(dfound) != len(pfound) {
		t.Fatalf("resolved names: pmcd %d, pmproxy %d", len(dfound), len(pfound))
	}
	indoms := map[pmapi.InDom]bool{}
	pmids := map[pmapi.PMID]bool{}
	for i, d := range dfound {
		p := pfound[i]
		dd, pd := d.Desc, p.Desc
		dd.Units, pd.Units = canonicalUnits(dd.Units), canonicalUnits(pd.Units)
		if d.Name != p.Name || d.PMID != p.PMID || dd != pd {
			t.Errorf("%s: pmcd %v %+v, pmproxy %s %v %+v", d.Name, d.PMID, d.Desc, p.Name, p.PMID, p.Desc)
			continue
		}
		if d.Desc.InDom != pmapi.InDomNull {
			indoms[d.Desc.InDom] = true
		}
		pmids[d.PMID] = true
	}

	// Help and labels of every metric.
	ownLabels := map[pmapi.InDom]bool{} // indoms whose instances have labels
	for _, r := range dfound {
		if r.Desc.InDom == pmapi.InDomNull || ownLabels[r.Desc.InDom] {
			continue
		}
		if sets, err := direct.Labels(ctx, pmclient.LabelInstances, uint32(r.Desc.InDom)); err == nil {
			for _, s := range sets {
				if len(compulsory(s.Labels)) > 0 {
					ownLabels[r.Desc.InDom] = true
				}
			}
		}
	}
	t.Logf("%d instance domains have instances with labels of their own, which pmproxy does not serve", len(ownLabels))
	for _, r := range dfound {
		for _, long := range []bool{false, true} {
			dt, derr := direct.HelpText(ctx, pmclient.HelpTarget{PMID: r.PMID, InDom: pmapi.InDomNull}, long)
			pt, perr := fresh.HelpText(ctx, pmclient.HelpTarget{PMID: r.PMID, InDom: pmapi.InDomNull}, long)
			if dt != pt || !sameError(derr, perr) {
				t.Errorf("%s help (long %v): pmcd %q %v, pmproxy %q %v", r.Name, long, dt, derr, pt, perr)
			}
		}
		dl, derr := pmclient.LookupMetricLabels(ctx, direct, r.Desc)
		pl, perr := pmclient.LookupMetricLabels(ctx, fresh, r.Desc)
		if derr != nil || perr != nil {
			t.Errorf("%s labels: pmcd %v, pmproxy %v", r.Name, derr, perr)
			continue
		}
		if got, want := pmclient.FormatLabels(pl.Metric), pmclient.FormatLabels(compulsory(dl.Metric)); got != want {
			t.Errorf("%s labels: pmcd %s, pmproxy %s", r.Name, want, got)
		}
		// Instances' own labels are not served (pmproxy 6.0 gets them
		// wrong): each instance has the metric's labels, which are
		// right for every instance without labels of its own.
		for _, set := range pl.Instances {
			if got, want := pmclient.FormatLabels(set.Labels), pmclient.FormatLabels(pl.Metric); got != want {
				t.Errorf("%s instance %d labels: %s, not the metric's %s", r.Name, set.Inst, got, want)
			}
			if want := pmclient.FormatLabels(compulsory(dl.Instance(set.Inst))); !ownLabels[r.Desc.InDom] && pmclient.FormatLabels(set.Labels) != want {
				t.Errorf("%s instance %d labels: pmcd %s, pmproxy %s", r.Name, set.Inst, want, pmclient.FormatLabels(set.Labels))
			}
		}
	}

	// Instances and help of every instance domain.
	for id := range indoms {
		if volatile[id] {
			continue
		}
		di, derr := direct.Instances(ctx, id)
		if errors.Is(derr, pmclient.ErrPermission) {
			// pmproxy answers a failed instance request with no
			// instances, the REST API has no word for the error.
			if pi, perr := fresh.Instances(ctx, id); len(pi) > 0 || perr != nil {
				t.Errorf("indom %s: pmcd %v, pmproxy %v %v", id, derr, pi, perr)
			}
			continue
		}
		pi, perr := fresh.Instances(ctx, id)
		sort.Slice(di, func(i, j int) bool { return di[i].ID < di[j].ID })
		if derr != nil || perr != nil || !reflect.DeepEqual(di, pi) && len(di)+len(pi) > 0 {
			t.Errorf("indom %s instances: pmcd %v %v, pmproxy %v %v", id, di, derr, pi, perr)
		}
		for _, long := range []bool{false, true} {
			dt, derr := direct.HelpText(ctx, pmclient.HelpTarget{InDom: id}, long)
			pt, perr := fresh.HelpText(ctx, pmclient.HelpTarget{InDom: id}, long)
			if dt != pt || !sameError(derr, perr) {
				t.Errorf("indom %s help (long %v): pmcd %q %v, pmproxy %q %v", id, long, dt, derr, pt, perr)
			}
		}
	}

	// The namespace tree: every non-leaf node's children.
	nodes := map[string]bool{"": true}
	for _, n := range names {
		for i := strings.IndexByte(n, '.'); i >= 0; i = next(n, i) {
			nodes[n[:i]] = true
		}
	}
	for node := range nodes {
		dc, derr := direct.Children(ctx, node)
		pc, perr := fresh.Children(ctx, node)
		if node == "" {
			pc = slices.DeleteFunc(pc, func(c pmclient.Child) bool { return c.Name == "event" }) // libpcp's, as above
		}
		sortChildren(dc)
		sortChildren(pc)
		if derr != nil || perr != nil || !reflect.DeepEqual(dc, pc) {
			t.Errorf("children of %q: pmcd %v %v, pmproxy %v %v", node, dc, derr, pc, perr)
		}
	}

	// PMIDs back to names.
	var ids []pmapi.PMID
	for id := range pmids {
		ids = append(ids, id)
	}
	dn, derrs, err := direct.NamesOf(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	pn, perrs, err := fresh.NamesOf(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		sort.Strings(dn[i])
		sort.Strings(pn[i])
		if !reflect.DeepEqual(dn[i], pn[i]) || !sameError(derrs[i], perrs[i]) {
			t.Errorf("names of %s: pmcd %v %v, pmproxy %v %v", id, dn[i], derrs[i], pn[i], perrs[i])
		}
	}

	// Errors for names that are not metrics.
	odd := []string{"no.such.metric", "sample", "sample.long", "sample.long.one.below"}
	_, derrs, err = direct.LookupNames(ctx, odd)
	if err != nil {
		t.Fatal(err)
	}
	_, perrs, err = fresh.LookupNames(ctx, odd)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range odd {
		if derrs[i] == nil || !sameError(derrs[i], perrs[i]) {
			t.Errorf("%s: pmcd %v, pmproxy %v", n, derrs[i], perrs[i])
		}
	}

	// Values of metrics that do not change.
	var fixed []pmclient.Resolved
	for _, r := range dfound {
		if strings.HasPrefix(r.Name, "sample.long.") || strings.HasPrefix(r.Name, "sample.string.") ||
			strings.HasPrefix(r.Name, "sample.ulonglong.") || strings.HasPrefix(r.Name, "sample.double.") ||
			strings.HasPrefix(r.Name, "sample.float.") || r.Name == "sample.bin" {
			if !strings.Contains(r.Name, "write_me") && !strings.HasSuffix(r.Name, "_ctr") {
				fixed = append(fixed, r)
			}
		}
	}
	if len(fixed) < 20 {
		t.Fatalf("only %d sample metrics with fixed values", len(fixed))
	}
	fids := make([]pmapi.PMID, len(fixed))
	for i, r := range fixed {
		fids[i] = r.PMID
	}
	dres, err := direct.Fetch(ctx, fids)
	if err != nil {
		t.Fatal(err)
	}
	pres, err := fresh.Fetch(ctx, fids)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range fixed {
		if !reflect.DeepEqual(dres.Metrics[i], pres.Metrics[i]) {
			t.Errorf("%s values: pmcd %+v, pmproxy %+v", r.Name, dres.Metrics[i], pres.Metrics[i])
		}
	}
	if d := pres.Timestamp.Sub(dres.Timestamp); d < 0 || d > time.Minute {
		t.Errorf("fetch timestamps: pmcd %v, pmproxy %v", dres.Timestamp, pres.Timestamp)
	}
}

func next(s string, i int) int {
	j := strings.IndexByte(s[i+1:], '.')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

func sortChildren(c []pmclient.Child) {
	sort.Slice(c, func(i, j int) bool { return c[i].Name < c[j].Name })
}

// sameError compares errors by the PCP error they carry.
func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var pa, pb pmclient.Error
	if errors.As(a, &pa) && errors.As(b, &pb) {
		return pa == pb
	}
	return a.Error() == b.Error()
}

// symDiff lists what only one of two sorted lists has.
func symDiff(a, b []string) []string {
	in := map[string]int{}
	for _, x := range a {
		in[x] |= 1
	}
	for _, x := range b {
		in[x] |= 2
	}
	var out []string
	for x, w := range in {
		if w != 3 {
			out = append(out, fmt.Sprintf("%s(only %d)", x, w))
		}
	}
	sort.Strings(out)
	return out
}

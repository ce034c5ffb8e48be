package pmconfig

import "strings"

// Select is the metric name a tool gives the spec "SECTION:KEY" names
// (the way eval and explain pick one in a tool's file): for pmrep the
// spec's metric (its formula's registered name, or the metric it
// shows), for pcp-dstat the column's registered dstat.SECTION.KEY. ok is
// false when sel is no such selector of this file.
func (d *Doc) Select(sel string) (name string, ok bool) {
	section, key, found := strings.Cut(sel, ":")
	if !found || key == "" {
		return "", false
	}
	if d.Tool == Dstat {
		name = "dstat." + section + "." + key
		for _, def := range d.File.Definitions.All() {
			if def.Name == name {
				return name, true
			}
		}
		return "", false
	}
	for _, sp := range d.Specs {
		if sp.Section.Name == section && sp.Key == key {
			return strings.TrimFunc(sp.Metric, IsPySpace), true
		}
	}
	return "", false
}

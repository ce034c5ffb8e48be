package checker

import (
	"fmt"
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
)

// PminfoDesc renders a descriptor the way `pminfo -d` prints it (two
// lines, indented by four spaces), for describe --format pminfo.
func PminfoDesc(d pmapi.Desc) string {
	indom := "PM_INDOM_NULL 0xffffffff"
	if d.InDom != pmapi.InDomNull {
		indom = fmt.Sprintf("%s 0x%x", d.InDom, uint32(d.InDom))
	}
	units := d.Units.String()
	if units == "" {
		units = "none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "    Data Type: %s  InDom: %s\n", typeText(d.Type), indom)
	fmt.Fprintf(&b, "    Semantics: %s  Units: %s\n", d.Sem, units)
	return b.String()
}

package evaluator

import (
	"fmt"
	"io"
	"strconv"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// WritePminfo prints a sample as `pminfo -f` prints the same metrics.
// instName names an instance of an instance domain ("" if unknown).
func WritePminfo(w io.Writer, s *Sample, instName func(pmapi.InDom, int32) string) {
	for _, r := range s.Results {
		fmt.Fprintf(w, "\n%s\n", r.Name)
		switch {
		case r.Err != nil:
			fmt.Fprintf(w, "Error: %v\n", r.Err)
		case len(r.Values) == 0:
			fmt.Fprintln(w, "No value(s) available!")
		}
		for _, v := range r.Values {
			fmt.Fprint(w, "    ")
			if v.Inst != pmclient.InNull && r.Desc.InDom != pmapi.InDomNull {
				if name := instName(r.Desc.InDom, v.Inst); name != "" {
					fmt.Fprintf(w, "inst [%d or %s] ", v.Inst, strconv.Quote(name))
				} else {
					fmt.Fprintf(w, "inst [%d] ", v.Inst)
				}
			}
			fmt.Fprintf(w, "value %s\n", Format(r.Desc.Type, v))
		}
	}
}

// InstanceName looks an instance up in the evaluator's latest instance
// lists (for printing).
func (e *Evaluator) InstanceName(indom pmapi.InDom, id int32) string {
	for _, in := range e.insts[indom] {
		if in.ID == id {
			return in.Name
		}
	}
	return ""
}

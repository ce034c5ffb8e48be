package checker

import (
	_ "embed"
	"strings"
	"sync"
)

// pmdaRootsText lists PCP's top-level namespace names with the PMDAs that
// define them (generated from PCP's source by scripts/gen-pmda-roots.py).
//
//go:embed pmdaroots.txt
var pmdaRootsText string

// pmdaRoots is pmdaRootsText read once: root name to PMDAs.
var pmdaRoots = sync.OnceValue(func() map[string]string {
	roots := map[string]string{}
	for _, line := range strings.Split(pmdaRootsText, "\n") {
		if r, p, ok := strings.Cut(line, " "); ok && !strings.HasPrefix(line, "#") {
			roots[r] = p
		}
	}
	return roots
})

// pmdaOf returns the PMDAs that define the top-level name of a metric
// name ("mssql" for mssql.memory_manager.total), "" when no PCP PMDA
// does: then an unknown name is a mistake, not an agent missing here.
func pmdaOf(name string) (root, pmdas string) {
	root, _, _ = strings.Cut(name, ".")
	return root, pmdaRoots()[root]
}

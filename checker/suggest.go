package checker

import (
	"context"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
)

// NameSuggester returns "did you mean" for names src does not know, up to
// three names of its namespace nearest first, as the checker suggests
// for unknown operands (the namespace is listed once, on first use; a
// source that cannot list it suggests nothing). For readers of other
// files that name metrics (pmrep's specs).
func NameSuggester(ctx context.Context, src pmclient.Source) func(unknown string) []string {
	var all []string
	read := false
	s := newSuggester(func() []string {
		if lister, ok := src.(pmclient.NameLister); ok && !read {
			all, _ = lister.AllNames(ctx)
		}
		read = true
		return all
	})
	return s.suggest
}

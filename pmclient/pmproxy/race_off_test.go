//go:build !race

package pmproxy_test

import "github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy"

// hostileTimeout is a request's timeout in TestHostileAnswers: the
// default.
const hostileTimeout = pmproxy.DefaultRequestTimeout

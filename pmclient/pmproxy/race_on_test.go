//go:build race

package pmproxy_test

import "time"

// hostileTimeout is a request's timeout in TestHostileAnswers: the race
// detector slows decoding (and the fake pmproxy's writing) of a 60 MB
// answer past the default 10 s on a busy machine.
const hostileTimeout = 60 * time.Second

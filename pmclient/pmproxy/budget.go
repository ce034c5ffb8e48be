package pmproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
)

// Decoding budgets. An answer's bytes are capped (Options.MaxResponse),
// but what they decode to is not proportional to them: the three bytes
// "{}," become a 168-byte metric element, so 60 MB of them cost gigabytes.
// What an answer may decode to is therefore counted in JSON values
// (objects, arrays, and the elements and members that follow a comma) as
// its bytes stream into the decoder, before anything is built from them.
const (
	// DefaultMaxValues bounds the values of one answer. A whole
	// namespace with help text and labels is about 12 values a metric:
	// a million is some 80,000 metrics, or a fetch of 300,000 instances.
	DefaultMaxValues = 1_000_000
	// DefaultFleetValues bounds the values of every answer being decoded
	// at once by the clients of one Gates (a fleet): two answers at the
	// cap, or many small ones.
	DefaultFleetValues = 2 * DefaultMaxValues
	// budgetChunk is how many values an answer takes from a shared
	// Budget at a time.
	budgetChunk = 4096
)

// ErrBudget is what an answer over a decoding budget wraps.
var ErrBudget = errors.New("over the decoding budget")

// Budget is a number of JSON values that answers being decoded at once
// may hold between them. An answer takes values as it decodes and gives
// them back when it is done. An answer that has not started waits for
// room, within its request's deadline; one under way that finds the
// budget spent fails at once: waiting while holding values could wait
// for ever on others that wait likewise.
type Budget struct {
	mu    sync.Mutex
	total int64
	free  int64
	freed chan struct{} // closed when values are given back
}

// NewBudget makes a budget of n values (at least budgetChunk).
func NewBudget(n int64) *Budget {
	n = max(n, budgetChunk)
	return &Budget{total: n, free: n, freed: make(chan struct{})}
}

// take takes n values. held is what the caller holds already: with
// none it waits for them while ctx lasts, else it fails when they are
// not free; more than the whole budget is refused at once.
func (b *Budget) take(ctx context.Context, n, held int64) error {
	for {
		b.mu.Lock()
		if held+n > b.total {
			b.mu.Unlock()
			return fmt.Errorf("%w: the answer has more than the %d JSON values shared by the answers decoded at once", ErrBudget, b.total)
		}
		if b.free >= n {
			b.free -= n
			b.mu.Unlock()
			return nil
		}
		if held > 0 {
			b.mu.Unlock()
			return fmt.Errorf("%w: the answers decoded at once hold the %d JSON values they share", ErrBudget, b.total)
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return fmt.Errorf("waiting for the answers decoded at once to leave room for this one: %w", context.Cause(ctx))
		}
	}
}

// give gives n values back.
func (b *Budget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// Gates hands out one Gate per pmproxy, known by scheme, host and port
// (not by how its URL is written: "proxy", "http://proxy:44322/" and
// "http://PROXY:44322/a/path" are one pmproxy), and gives them one
// decoding Budget, so that a fleet holds a bounded number of decoded
// values whatever its hosts and pmproxies answer.
type Gates struct {
	mu       sync.Mutex
	inFlight int
	budget   *Budget
	gates    map[string]*Gate
}

// NewGates lets inFlight requests be in flight to each pmproxy, and
// budget values (DefaultFleetValues when 0) be decoded at once by all.
func NewGates(inFlight int, budget int64) *Gates {
	if budget <= 0 {
		budget = DefaultFleetValues
	}
	return &Gates{inFlight: inFlight, budget: NewBudget(budget), gates: map[string]*Gate{}}
}

// For returns the gate of the pmproxy at rawURL.
func (g *Gates) For(rawURL string) *Gate {
	key := GateKey(rawURL)
	g.mu.Lock()
	defer g.mu.Unlock()
	gate := g.gates[key]
	if gate == nil {
		gate = NewGate(g.inFlight)
		gate.budget = g.budget
		g.gates[key] = gate
	}
	return gate
}

// GateKey is what tells one pmproxy from another: its URL's scheme, host
// (in lower case) and port, the default port filled in. A URL that does
// not parse is its own key.
func GateKey(rawURL string) string {
	u, err := ParseURL(rawURL)
	if err != nil {
		return rawURL
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), u.Port())
}

// valueCounter counts the JSON values of an answer as its bytes pass to
// the decoder, and fails the read that takes them over the answer's cap
// or the shared budget: the decoder then stops before it has built
// anything from them (encoding/json reads a whole value before it
// decodes it). The count is each '{' and '[' and each ',' outside
// strings: every object and array, and every element or member after the
// first of its container.
type valueCounter struct {
	r        io.Reader
	ctx      context.Context
	max      int64
	budget   *Budget // nil: no shared budget
	n        int64   // values counted
	held     int64   // values taken from budget
	inString bool
	escaped  bool
	err      error
}

func (c *valueCounter) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	for _, b := range p[:n] {
		switch {
		case c.inString:
			switch {
			case c.escaped:
				c.escaped = false
			case b == '\\':
				c.escaped = true
			case b == '"':
				c.inString = false
			}
		case b == '"':
			c.inString = true
		case b == '{' || b == '[' || b == ',':
			c.n++
		}
	}
	if c.n > c.max {
		c.err = fmt.Errorf("%w: the answer has more than %d JSON values, the cap on one answer ($PCP_DERIVE_LSP_PMPROXY_MAX_VALUES)", ErrBudget, c.max)
		return 0, c.err
	}
	if c.budget != nil && c.n > c.held {
		want := (c.n - c.held + budgetChunk - 1) / budgetChunk * budgetChunk
		if err := c.budget.take(c.ctx, want, c.held); err != nil {
			c.err = err
			return 0, err
		}
		c.held += want
	}
	return n, err
}

// release gives back what the answer took from the shared budget.
func (c *valueCounter) release() {
	if c.budget != nil {
		c.budget.give(c.held)
		c.held = 0
	}
}

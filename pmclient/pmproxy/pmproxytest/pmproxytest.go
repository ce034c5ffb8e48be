// Package pmproxytest is a fake pmproxy on 127.0.0.1 for tests: it
// answers /pmapi requests from handlers (under any URL path before
// /pmapi/, as a pmproxy behind a reverse proxy is reached), counts the
// requests in flight at once, and streams hostile answers (Hostile),
// generated as they are written rather than held in memory.
package pmproxytest

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Server is a fake pmproxy.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL         string
	inFlight    atomic.Int64
	maxInFlight atomic.Int64
}

// New starts a fake pmproxy that answers endpoint (the path after
// /pmapi/: "metric", "fetch", ...) with handlers[endpoint], /pmapi/context
// with a context unless handlers say otherwise, and anything else with
// pmproxy's 400 answer. It stops when the test ends.
func New(t testing.TB, handlers map[string]http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for m := s.maxInFlight.Load(); n > m && !s.maxInFlight.CompareAndSwap(m, n); m = s.maxInFlight.Load() {
		}
		_, ep, _ := strings.Cut(r.URL.Path, "/pmapi/")
		if h, ok := handlers[ep]; ok {
			h(w, r)
			return
		}
		if ep == "context" {
			io.WriteString(w, `{"context":7,"source":"x","hostspec":"h","labels":{"hostname":"h"}}`)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"message":"no such endpoint","success":false}`)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// MaxInFlight is the most requests the server has had in flight at once.
func (s *Server) MaxInFlight() int64 { return s.maxInFlight.Load() }

// Repeat answers head, then n copies of item separated by commas, then
// tail, streamed: a 60 MB answer costs the server a buffer, not 60 MB.
// item may contain %d, replaced by the copy's number.
func Repeat(head, item, tail string, n int) http.HandlerFunc {
	return Answer{Head: head, Item: item, Tail: tail, N: n}.Handler()
}

// Answer is an answer of many copies of one item: Head, N copies of Item
// separated by commas (a "%d" in Item is the copy's number), Tail.
type Answer struct {
	// Endpoint is the request it answers ("metric", "indom", ...).
	Endpoint         string
	Head, Item, Tail string
	N                int
}

// Handler streams the answer as it is written.
func (a Answer) Handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		bw := bufio.NewWriterSize(w, 64<<10)
		a.write(bw, a.N, func() bool { return r.Context().Err() != nil })
		bw.Flush()
	}
}

// Body is the answer with n copies of its item, in memory (fuzz seeds).
func (a Answer) Body(n int) []byte {
	var b strings.Builder
	bw := bufio.NewWriter(&b)
	a.write(bw, n, func() bool { return false })
	bw.Flush()
	return []byte(b.String())
}

func (a Answer) write(bw *bufio.Writer, n int, gone func() bool) {
	bw.WriteString(a.Head)
	numbered := strings.Contains(a.Item, "%d")
	for i := 0; i < n; i++ {
		if i%4096 == 0 && gone() {
			return // the client has gone
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		if numbered {
			fmt.Fprintf(bw, a.Item, i)
		} else {
			bw.WriteString(a.Item)
		}
	}
	bw.WriteString(a.Tail)
}

// Hostile are hostile answers by name, each about 60 MB of JSON
// that decodes to 20 or 30 times its bytes.
func Hostile() map[string]Answer {
	return map[string]Answer{
		"20M empty metrics":    {"metric", `{"metrics":[`, `{}`, `]}`, 20_000_000},
		"10M instances":        {"indom", `{"indom":"1.2","instances":[`, `{}`, `]}`, 10_000_000},
		"12.5M children names": {"children", `{"name":"","leaf":[`, `""`, `]}`, 12_500_000},
		"4.8M labels":          {"context", `{"context":7,"labels":{`, `"%d":1`, `}}`, 4_800_000},
		"10M fetched values":   {"fetch", `{"timestamp":1.0,"values":[{"pmid":"1.0.1","name":"a","instances":[`, `{}`, `]}]}`, 10_000_000},
	}
}

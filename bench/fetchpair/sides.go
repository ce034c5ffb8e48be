package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
)

// timing is one burst's cost per fetch.
type timing struct {
	wall, cpu time.Duration
}

// side is a client that fetches the metrics in bursts.
type side interface {
	burst(n int) (timing, error)
}

// ours is this project's pmcd client, in this process.
type ours struct {
	ctx    context.Context
	c      *pmcd.Client
	pmids  []pmapi.PMID
	values int // in one fetch's answer
}

// newOurs connects, looks the names up and fetches 20 times, as the
// libpcp side does before it says it is ready.
func newOurs(ctx context.Context, host string, names []string) (*ours, error) {
	c, err := pmcd.New(host, pmcd.Options{})
	if err != nil {
		return nil, err
	}
	pmids, errs, err := c.LookupNames(ctx, names)
	if err == nil {
		err = errors.Join(errs...)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("looking the names up: %w", err)
	}
	o := &ours{ctx: ctx, c: c, pmids: pmids}
	for range 21 {
		res, err := c.Fetch(ctx, pmids)
		if err != nil {
			c.Close()
			return nil, err
		}
		o.values = 0
		for _, m := range res.Metrics {
			o.values += len(m.Values)
		}
	}
	return o, nil
}

func (o *ours) burst(n int) (timing, error) {
	cpu0 := cpuTime()
	start := time.Now()
	for range n {
		if _, err := o.c.Fetch(o.ctx, o.pmids); err != nil {
			return timing{}, err
		}
	}
	wall := time.Since(start)
	return timing{wall / time.Duration(n), (cpuTime() - cpu0) / time.Duration(n)}, nil
}

// allocsPerFetch measures the heap allocations of n fetches, apart from
// the timed bursts (reading the statistics stops the world).
func (o *ours) allocsPerFetch(n int) (allocs, bytes float64, err error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if _, err := o.c.Fetch(o.ctx, o.pmids); err != nil {
			return 0, 0, err
		}
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(n), float64(after.TotalAlloc-before.TotalAlloc) / float64(n), nil
}

func (o *ours) close() { o.c.Close() }

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// child is the libpcp side: a process speaking bench/lib/pmfetch.py's
// protocol on its stdin and stdout.
type child struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	values int           // in one fetch's answer
	loop   time.Duration // what the child's loop adds to a fetch
}

func startChild(ctx context.Context, argv []string) (*child, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	c := &child{cmd: cmd, in: in, out: bufio.NewReader(out)}
	line, err := c.line()
	if err == nil {
		err = c.parseReady(line)
	}
	if err != nil {
		c.close()
		return nil, fmt.Errorf("%s: %w", argv[0], err)
	}
	return c, nil
}

// parseReady reads "ready VALUES LOOP_NS", the child's first line.
func (c *child) parseReady(line string) error {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "ready" {
		return fmt.Errorf("%q, not ready VALUES LOOP_NS", line)
	}
	values, err := strconv.Atoi(f[1])
	if err != nil {
		return fmt.Errorf("%q: values: %w", line, err)
	}
	loop, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return fmt.Errorf("%q: loop: %w", line, err)
	}
	c.values, c.loop = values, time.Duration(loop)
	return nil
}

// line reads one line of the child's answer; a child that ended says
// how.
func (c *child) line() (string, error) {
	s, err := c.out.ReadString('\n')
	if err != nil {
		if err == io.EOF {
			if werr := c.cmd.Wait(); werr != nil {
				return "", fmt.Errorf("exited: %w", werr)
			}
			return "", errors.New("exited")
		}
		return "", err
	}
	return strings.TrimSuffix(s, "\n"), nil
}

// burstTimeout bounds one burst of the child's: one that hangs (pmcd
// gone, libpcp waiting out its own timeouts) is killed, and says so.
const burstTimeout = time.Minute

func (c *child) burst(n int) (timing, error) {
	kill := time.AfterFunc(burstTimeout, func() { c.cmd.Process.Kill() })
	defer kill.Stop()
	if _, err := fmt.Fprintln(c.in, n); err != nil {
		return timing{}, fmt.Errorf("libpcp side: %w", err)
	}
	line, err := c.line()
	if err != nil {
		if !kill.Stop() {
			return timing{}, fmt.Errorf("libpcp side: no answer to a burst of %d fetches within %v: %w", n, burstTimeout, err)
		}
		return timing{}, fmt.Errorf("libpcp side: %w", err)
	}
	return parseTiming(line)
}

// parseTiming reads "WALL_NS CPU_NS", a burst's answer.
func parseTiming(line string) (timing, error) {
	f := strings.Fields(line)
	if len(f) != 2 {
		return timing{}, fmt.Errorf("libpcp side answered %q, not WALL_NS CPU_NS", line)
	}
	var ns [2]int64
	for i, s := range f {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return timing{}, fmt.Errorf("libpcp side answered %q, not WALL_NS CPU_NS", line)
		}
		ns[i] = v
	}
	return timing{time.Duration(ns[0]), time.Duration(ns[1])}, nil
}

func (c *child) close() {
	c.in.Close() // the child ends at the end of its input
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// Package recordtest records the archives the interpolation tests replay
// (pmclient/archive/interp, evaluator, the eval command), once per test
// binary, with the machine's pmlogger from the test pmcd
// (scripts/pcp-testenv.sh starts it), through its local socket: the proc
// PMDA gives process values only to a client it knows (over TCP it
// answers "No permission").
package recordtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Logged are the metrics the archives hold: counters, instantaneous and
// discrete values of every numeric type, strings, instance domains that
// change (sample.mirage, sample.dynamic) and a large one with processes
// born and dying during the recording (proc), some logged every 250
// milliseconds, some every second (so records do not all hold the same
// metrics).
var Logged = []string{
	// every 250 milliseconds
	"sample.milliseconds", "sample.byte_ctr", "sample.long.bin_ctr", "sample.ulong.bin_ctr",
	"sample.longlong.bin_ctr", "sample.ulonglong.bin_ctr", "sample.float.bin_ctr", "sample.double.bin_ctr",
	"sample.step_counter", "sample.long.one", "sample.double.ten", "sample.float.one", "sample.bin",
	"sample.colour", "sample.mirage", "sample.mirage_longlong", "sample.dynamic.counter",
	"sample.dynamic.instant", "sample.dynamic.discrete", "sample.lights", "sample.string.hullo",
	"kernel.all.load", "hinv.ncpu", "sample.scramble.bin",
	// every second
	"sample.drift", "sample.step", "sample.long.hundred", "kernel.all.cpu.user",
	// every 500 milliseconds
	"proc.psinfo.utime", "proc.psinfo.rss", "proc.psinfo.ppid", "proc.psinfo.sname",
}

const loggerConfig = `log mandatory on 250msec {
	sample.milliseconds sample.byte_ctr sample.long.bin_ctr sample.ulong.bin_ctr
	sample.longlong.bin_ctr sample.ulonglong.bin_ctr sample.float.bin_ctr sample.double.bin_ctr
	sample.step_counter sample.long.one sample.double.ten sample.float.one sample.bin
	sample.colour sample.mirage sample.mirage_longlong sample.dynamic.counter
	sample.dynamic.instant sample.dynamic.discrete sample.lights sample.string.hullo
	kernel.all.load hinv.ncpu sample.scramble.bin
}
log mandatory on 1sec { sample.drift sample.step sample.long.hundred kernel.all.cpu.user }
log mandatory on 500msec { proc.psinfo.utime proc.psinfo.rss proc.psinfo.ppid proc.psinfo.sname }
`

// Recordings are the archives' base names.
type Recordings struct {
	Dir string
	// Mixed: ten seconds, version 3.
	Mixed string
	// Merged: two recordings of three seconds, a second and a half
	// apart, merged by pmlogextract: a <mark> where they meet.
	Merged string
	// V2: Mixed's contents in a version 2 archive (for PCP 5, which reads
	// no other).
	V2 string
}

var (
	once sync.Once
	recs Recordings
	err  error
)

// Archives records the archives on the first call (about ten seconds)
// and returns them; the test fails if PCP's tools are missing. The
// recordings stay in their directory (its path is logged), and
// $PCP_DERIVE_LSP_ARCHIVES=DIR replays a kept one instead of recording:
// content varies from one recording to the next (instances come and
// go), so a failure is reproduced from the recording that showed it.
func Archives(t testing.TB) Recordings {
	t.Helper()
	if os.Getenv("PCP_DERIVE_LSP_NO_ORACLE") == "1" {
		t.Skip("PCP_DERIVE_LSP_NO_ORACLE=1")
	}
	if dir := os.Getenv("PCP_DERIVE_LSP_ARCHIVES"); dir != "" {
		t.Logf("archives kept in %s ($PCP_DERIVE_LSP_ARCHIVES)", dir)
		return named(dir)
	}
	for _, tool := range []string{"pmlogger", "pmlogextract"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s missing: run scripts/pcp-testenv.sh", tool)
		}
	}
	once.Do(func() { recs, err = record() })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("archives recorded in %s (replay them with PCP_DERIVE_LSP_ARCHIVES=%[1]s)", recs.Dir)
	return recs
}

// named are the recordings' paths in dir.
func named(dir string) Recordings {
	return Recordings{Dir: dir, Mixed: filepath.Join(dir, "mixed"), Merged: filepath.Join(dir, "merged"), V2: filepath.Join(dir, "v2")}
}

func record() (Recordings, error) {
	dir, err := os.MkdirTemp("", "pcp-interp-archives")
	if err != nil {
		return Recordings{}, err
	}
	r := named(dir)
	if err := os.WriteFile(filepath.Join(dir, "cfg"), []byte(loggerConfig), 0o644); err != nil {
		return r, err
	}
	run := func(args ...string) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %v\n%s", args, err, out)
		}
		return nil
	}
	// Processes born and dying while the recordings run, so that the
	// proc instance domain changes.
	stop := make(chan struct{})
	churned := make(chan struct{})
	go func() {
		defer close(churned)
		tick := time.NewTicker(300 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				cmd := exec.Command("sleep", "0.7")
				if cmd.Start() == nil {
					go cmd.Wait()
				}
			}
		}
	}()
	logger := func(name, version, duration string) []string {
		return []string{"pmlogger", "-h", "local:", "-c", "cfg", "-T", duration, "-V" + version, name}
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	wg.Add(3)
	go func() { defer wg.Done(); errs[0] = run(logger("mixed", "3", "10sec")...) }()
	go func() { defer wg.Done(); errs[1] = run(logger("v2", "2", "10sec")...) }()
	go func() {
		defer wg.Done()
		if errs[2] = run(logger("one", "3", "3sec")...); errs[2] != nil {
			return
		}
		time.Sleep(1500 * time.Millisecond)
		errs[2] = run(logger("two", "3", "3sec")...)
	}()
	wg.Wait()
	close(stop)
	<-churned
	for _, e := range errs {
		if e != nil {
			return r, e
		}
	}
	return r, run("pmlogextract", "-m", "one", "two", "merged")
}

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/web"
)

// defaultListen is where the page is served unless --listen says
// otherwise: this machine only, a free port.
const defaultListen = "127.0.0.1:0"

func runWeb(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "web", "[flags] [CONFIG...]",
		"Serves the explain page: pick a definition of the CONFIGs or type an expression\n"+
			"(checked as you type), and see its explain tree with, beside each node, a plot\n"+
			"of its values over the archive's window or the last minutes live; a slider\n"+
			"picks the sample the tree explains. The page's URL is printed on start. It\n"+
			"listens on 127.0.0.1 unless --listen names another address, and everything\n"+
			"it serves is in the binary. Interrupt (Ctrl-C) stops it.")
	var version versionFlag
	version.register(fs)
	listen := fs.String("listen", defaultListen, "serve on `ADDR` (HOST:PORT; port 0 picks a free one). An address other than loopback must be named: \":PORT\" is refused")
	limits := web.DefaultLimits
	durationFlag(fs, "interval", "time between live samples, in PCP's `INTERVAL` syntax (default 1sec)", &limits.Interval)
	durationFlag(fs, "window", "how far back the live plots reach, in PCP's `INTERVAL` syntax (default 5min)", &limits.Window)
	fs.IntVar(&limits.MaxSamples, "max-samples", limits.MaxSamples, "samples kept per definition, the points of each plotted line (`N`): a longer archive window is thinned to every 2nd, 4th, ... record")
	fs.IntVar(&limits.MaxValues, "max-values", limits.MaxValues, "values kept per definition, all nodes and instances (`N`), thinned as --max-samples")
	fs.IntVar(&limits.MaxRecords, "max-records", limits.MaxRecords, "archive records read per definition (`N`); the window ends there")
	startText := fs.String("start", "", "from an archive, the window starts at the first record at or after `TIME` (as explain --start; default the archive's first)")
	finishText := fs.String("finish", "", "from an archive, the window ends at the last record at or before `TIME` (the same forms; default the archive's last)")
	var src sourceFlags
	src.register(fs, forValues)
	paths, status, done := parseFlags(fs, env, args)
	if done {
		return status
	}
	fail := func(msg string, a ...any) int {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp web: "+msg+"\n", a...)
		return ExitUsage
	}
	if limits.MaxSamples < 2 || limits.MaxValues < 1 || limits.MaxRecords < 1 {
		return fail("--max-samples must be at least 2, --max-values and --max-records at least 1")
	}
	if err := checkListen(*listen); err != nil {
		return fail("%v", err)
	}
	if (*startText != "" || *finishText != "") && src.spec.Archive == "" {
		return fail("--start and --finish need --archive (live values are sampled now)")
	}
	source, err := src.open(ctx, env)
	if err != nil {
		return fail("%v", err)
	}
	if c, ok := source.(interface{ Close() error }); ok {
		defer c.Close()
	}
	for _, f := range []struct {
		name, text string
		at         *time.Time
	}{{"--start", *startText, &limits.Start}, {"--finish", *finishText, &limits.Finish}} {
		if f.text == "" {
			continue
		}
		if *f.at, err = archiveTime(source, f.text); err != nil {
			return fail("%s: %v", f.name, err)
		}
	}
	if !limits.Finish.IsZero() && limits.Finish.Before(limits.Start) {
		return fail("--finish is before --start")
	}
	choice, vok := version.resolve(ctx, env, "web", source)
	if !vok {
		return ExitUsage
	}
	log := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(env.Stderr), zapcore.WarnLevel))
	srv := web.New(web.Options{Source: source, Paths: paths, Version: choice.Version, InDoms: src.equivalence(env), Limits: limits, Log: log})
	defer srv.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail("%v", err)
	}
	handler := srv.Handler()
	if ip := net.ParseIP(strings.Trim(hostOf(*listen), "[]")); ip != nil && ip.IsLoopback() || hostOf(*listen) == "localhost" {
		handler = web.LoopbackOnly(handler)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: zap.NewStdLog(log)}
	// The URL is the command's output (a script or the editor reads it);
	// logs go to stderr.
	fmt.Fprintf(env.Stdout, "pcp-derive-lsp web: serving http://%s/ (values from %s)\n", ln.Addr(), source.Describe())
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shut)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fail("%v", err)
	}
	return ExitOK
}

// checkListen refuses an address that listens beyond this machine without
// naming it: ":8080" means every interface.
func checkListen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want HOST:PORT (%v)", addr, err)
	}
	if host == "" {
		return fmt.Errorf("--listen %q serves every interface: name the address (127.0.0.1%s, or 0.0.0.0%s to serve other machines)", addr, addr, addr)
	}
	return nil
}

func hostOf(addr string) string {
	host, _, _ := net.SplitHostPort(addr)
	return host
}

// durationFlag reads a flag in PCP's interval syntax, more than zero.
func durationFlag(fs *flag.FlagSet, name, usage string, d *time.Duration) {
	fs.Func(name, usage, func(s string) error {
		v, err := pmapi.ParseInterval(s)
		if err != nil {
			return err
		}
		if v <= 0 {
			return errors.New("must be more than zero")
		}
		*d = v
		return nil
	})
}

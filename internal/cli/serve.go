package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/codes"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pipesize"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/lsp"
)

// stdio joins standard input and output into the LSP stream.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }

func runServe(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "serve", "[flags]",
		"Speaks the Language Server Protocol on stdin/stdout, for editors. It is the\ndefault command when stdin is not a terminal. Logs go to stderr or --log-file.")
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the only transport; accepted for editors that pass it)")
	logFile := fs.String("log-file", "", "write logs to `FILE` instead of stderr")
	logLevel := fs.String("log-level", "info", "log `LEVEL`: debug, info, warn or error")
	maxMessage := fs.Int64("max-message-size", lsp.MaxMessageSize, "largest LSP message body read, in `BYTES`; a larger one is skipped and answered with an error")
	docsURL := fs.String("docs-url", codes.DefaultDocsURL, "`BASE` URL of the finding codes' pages (CODE.md) each diagnostic links to")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole session to `FILE` (go tool pprof)")
	memProfile := fs.String("memprofile", "", "write a heap profile to `FILE` when the session ends (go tool pprof)")
	if _, status, done := parseFlags(fs, env, args); done {
		return status
	}
	prof, err := startProfiles(*cpuProfile, *memProfile)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp serve: %v\n", err)
		return ExitUsage
	}
	defer func() {
		if err := prof.stop(); err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp serve: %v\n", err)
		}
	}()
	level, err := zapcore.ParseLevel(*logLevel)
	if err != nil {
		fmt.Fprintf(env.Stderr, "pcp-derive-lsp serve: %v\n", err)
		return ExitUsage
	}
	out := zapcore.AddSync(env.Stderr)
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintf(env.Stderr, "pcp-derive-lsp serve: %v\n", err)
			return ExitUsage
		}
		defer f.Close()
		out = zapcore.AddSync(f)
	}
	// Logs never go to stdout: that is the LSP channel.
	atom := zap.NewAtomicLevelAt(level) // the logLevel setting changes it
	logger := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), out, atom))
	defer logger.Sync()
	if err := pipesize.Grow(env.Stdout, pipesize.Stdout); err != nil {
		logger.Debug("keeping the pipe's size", zap.Error(err))
	}
	logger.Info("pcp-derive-lsp language server starting", zap.String("version", Version))
	err = lsp.Serve(ctx, stdio{env.Stdin, env.Stdout}, lsp.Options{Logger: logger, Level: &atom, Getenv: env.Getenv, Version: Version, MaxMessageSize: *maxMessage, DocsURL: *docsURL, OpenDocuments: env.OpenDocuments})
	switch {
	case err == nil, ctx.Err() != nil:
		return ExitOK
	case errors.Is(err, lsp.ErrExitWithoutShutdown):
		// The LSP's status for exit without shutdown (not a usage error).
		logger.Warn("exit without shutdown")
		return 1
	default:
		logger.Error("server stopped", zap.Error(err))
		return ExitUsage
	}
}

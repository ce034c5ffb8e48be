// Command pcp-derive-lsp is the language server, CI linter and live
// previewer for Performance Co-Pilot derived metrics.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	status := cli.Main(ctx, cli.Env{
		Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
	})
	stop()
	os.Exit(status)
}

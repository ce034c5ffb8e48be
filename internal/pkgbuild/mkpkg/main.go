// Command mkpkg makes pcp-derive-lsp's .deb and .rpm for one arch
// (internal/pkgbuild); scripts/release.sh runs it for each linux target.
//
//	go run ./internal/pkgbuild/mkpkg -arch amd64 -version 0.2.0 -bin BINARY -gen DIR -o DIST
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/pkgbuild"
)

func main() {
	var s pkgbuild.Spec
	flag.StringVar(&s.Arch, "arch", "", "the packages' `GOARCH` (amd64, arm64)")
	flag.StringVar(&s.Version, "version", "", "the packages' `VERSION`")
	flag.StringVar(&s.Binary, "bin", "", "the static linux `BINARY` to install as /usr/bin/pcp-derive-lsp")
	flag.StringVar(&s.GenDir, "gen", "", "the `DIR` gendocs wrote the man page and completions into")
	flag.StringVar(&s.RepoDir, "repo", ".", "the checkout's `DIR` (README.md, CHANGELOG.md, LICENSE, testdata/examples)")
	out := flag.String("o", "", "write the packages into `DIR`")
	epoch := flag.String("epoch", os.Getenv("SOURCE_DATE_EPOCH"), "the files' time, in `SECONDS` since 1970 (default $SOURCE_DATE_EPOCH, else now)")
	flag.Parse()
	if s.Arch == "" || s.Version == "" || s.Binary == "" || s.GenDir == "" || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: mkpkg -arch GOARCH -version VERSION -bin BINARY -gen DIR -o DIST [-repo DIR] [-epoch SECONDS]")
		os.Exit(2)
	}
	s.MTime = time.Now()
	if *epoch != "" {
		sec, err := strconv.ParseInt(*epoch, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mkpkg: -epoch %q: %v\n", *epoch, err)
			os.Exit(2)
		}
		s.MTime = time.Unix(sec, 0).UTC()
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "mkpkg:", err)
		os.Exit(1)
	}
	stage, err := os.MkdirTemp("", "mkpkg")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkpkg:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(stage)
	for _, format := range pkgbuild.Formats {
		s.Format = format
		path, err := pkgbuild.Build(s, *out, stage)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkpkg:", err)
			os.RemoveAll(stage)
			os.Exit(1)
		}
		fmt.Println(path)
	}
}

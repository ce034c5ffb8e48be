// Command mkimage writes pcp-derive-lsp's container image as an OCI
// image layout (internal/ociimage); scripts/release.sh runs it once with
// every linux binary it built and archives the layout.
//
//	go run ./internal/ociimage/mkimage -o DIR -version 0.2.0 -bin amd64=BINARY -bin arm64=BINARY
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/ociimage"
)

// binaries collects -bin ARCH=PATH flags.
type binaries []ociimage.Binary

func (b *binaries) String() string { return fmt.Sprint(*b) }

func (b *binaries) Set(v string) error {
	arch, path, ok := strings.Cut(v, "=")
	if !ok || arch == "" || path == "" {
		return fmt.Errorf("want ARCH=PATH, got %q", v)
	}
	*b = append(*b, ociimage.Binary{Arch: arch, Path: path})
	return nil
}

func main() {
	var im ociimage.Image
	var bins binaries
	flag.StringVar(&im.Version, "version", "", "the image's `VERSION` (its tag in the layout)")
	flag.StringVar(&im.Revision, "revision", "", "the `COMMIT` the binaries were built from (a label)")
	flag.StringVar(&im.Source, "source", "https://github.com/pcp-derive-lsp/pcp-derive-lsp", "the repository's `URL` (a label)")
	flag.Var(&bins, "bin", "a static linux binary as `ARCH=PATH` (repeatable)")
	out := flag.String("o", "", "write the layout into `DIR` (new or empty)")
	epoch := flag.String("epoch", os.Getenv("SOURCE_DATE_EPOCH"), "the image's time, in `SECONDS` since 1970 (default $SOURCE_DATE_EPOCH, else now)")
	flag.Parse()
	if im.Version == "" || len(bins) == 0 || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: mkimage -o DIR -version VERSION -bin ARCH=PATH... [-revision COMMIT] [-epoch SECONDS]")
		os.Exit(2)
	}
	im.Binaries = bins
	im.Created = time.Now().UTC().Truncate(time.Second)
	if *epoch != "" {
		sec, err := strconv.ParseInt(*epoch, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mkimage: -epoch %q: %v\n", *epoch, err)
			os.Exit(2)
		}
		im.Created = time.Unix(sec, 0).UTC()
	}
	if err := ociimage.Write(*out, im); err != nil {
		fmt.Fprintln(os.Stderr, "mkimage:", err)
		os.Exit(1)
	}
}

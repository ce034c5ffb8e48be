// Package choose opens the metadata source a user asked for, with the
// precedence every command, the language server and each host of a
// fleet share: explicit settings, then $PCP_HOST and $PCP_ARCHIVE, then a
// pmcd on this host if it answers quickly, then the snapshot embedded in
// the binary.
package choose

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/internal/safeopen"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmapi"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/archive"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/embedded"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmcd"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/pmproxy"
	"github.com/pcp-derive-lsp/pcp-derive-lsp/pmclient/snapshot"
)

// Embedded is the Metadata that names the snapshot built into the binary.
const Embedded = "embedded"

// Spec is the one description of where metadata comes from. The command
// line's source flags, the server's source settings (its JSON names are
// the settings' names: pcpDerived.source.host, ...) and each host of a
// fleet are read into one; Open opens it. At most one of Host, Socket,
// Archive, Metadata, PMProxy is normally set; when several are, Open
// takes them in the order metadata, archive, pmproxy, host, socket. The
// zero Spec asks for the default source (see the package comment).
type Spec struct {
	// Host is a pmcd's host specification: HOST[:PORT], local:,
	// unix:PATH.
	Host string `json:"host"`
	// Socket is the path of a pmcd's unix domain socket.
	Socket string `json:"socket"`
	// Archive is a PCP archive: its base name or any of its files.
	Archive string `json:"archive"`
	// Metadata is a snapshot file (the snapshot command's), or Embedded.
	Metadata string `json:"metadata"`
	// PMProxy is the URL of a pmproxy to reach pmcd through (its REST
	// API); Hostspec, else Host, is the pmcd it is to reach ("" for
	// pmproxy's own host).
	PMProxy  string `json:"pmproxy"`
	Hostspec string `json:"hostspec"`
	// None asks for no source: syntax checks only (check --no-metadata).
	None bool `json:"-"`
}

// String describes the spec as a user would name it.
func (s Spec) String() string {
	switch {
	case s.None:
		return "no metadata"
	case s.Metadata == Embedded:
		return "the embedded snapshot"
	case s.Metadata != "":
		return "snapshot " + s.Metadata
	case s.Archive != "":
		return "archive " + s.Archive
	case s.PMProxy != "":
		return fmt.Sprintf("pmcd %s through pmproxy %s", s.proxiedHost(), s.PMProxy)
	case s.Host != "":
		return "pmcd at " + s.Host
	case s.Socket != "":
		return "pmcd at unix:" + s.Socket
	}
	return "the default source"
}

// proxiedHost is the pmcd a pmproxy is to reach.
func (s Spec) proxiedHost() string {
	if s.Hostspec != "" {
		return s.Hostspec
	}
	return s.Host
}

// Options say how Open opens a spec.
type Options struct {
	// Getenv reads the environment (default os.Getenv): $PCP_HOST,
	// $PCP_ARCHIVE, pmcd's timeouts, the metadata cap.
	Getenv func(string) string
	// Lazy returns a named pmcd's or pmproxy's client without checking
	// that it answers: a language server keeps it and reconnects later,
	// a fleet asks each host once.
	Lazy bool
	// Gate bounds the requests in flight to a pmproxy, shared by the
	// clients of one pmproxy (nil: a gate of the client's own).
	Gate *pmproxy.Gate
}

// Open returns the source the spec asks for; nil, nil for Spec.None.
// Files (archives, snapshots) are read under the metadata cap
// ($PCP_DERIVE_LSP_MAX_METADATA_MB).
func Open(ctx context.Context, s Spec, o Options) (pmclient.Source, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case s.None:
		return nil, nil
	case s.Metadata == Embedded:
		return embedded.Source()
	case s.Metadata != "":
		// A pipe (--metadata /dev/stdin) is read as a stream; a device
		// is refused.
		f, err := safeopen.OpenWith(s.Metadata, safeopen.NoLimit, safeopen.Options{Streams: true})
		if err != nil {
			return nil, fmt.Errorf("metadata snapshot: %w", err)
		}
		defer f.Close()
		return snapshot.ReadWith(f, "snapshot "+s.Metadata, snapshot.Options{MaxBytes: maxMetadata(getenv)})
	case s.Archive != "":
		return archive.OpenWith(s.Archive, archive.Options{MaxMetadataBytes: maxMetadata(getenv)})
	case s.PMProxy != "":
		return proxy(ctx, s, o, getenv)
	case s.Host == "" && s.Socket == "" && getenv("PCP_ARCHIVE") != "":
		return archive.OpenWith(getenv("PCP_ARCHIVE"), archive.Options{MaxMetadataBytes: maxMetadata(getenv)})
	case s.Host != "":
		return connect(ctx, s.Host, o.Lazy, getenv)
	case s.Socket != "":
		return connect(ctx, "unix:"+s.Socket, o.Lazy, getenv)
	case getenv("PCP_HOST") != "":
		return connect(ctx, getenv("PCP_HOST"), o.Lazy, getenv)
	}
	if c, err := pmcd.New("local:", pmcd.Options{ConnectTimeout: time.Second, RequestTimeout: 2 * time.Second, Getenv: getenv}); err == nil {
		probe, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, verr := c.Version(probe)
		cancel()
		if verr == nil {
			return c, nil
		}
		c.Close()
	}
	return embedded.Source()
}

// maxMetadata is $PCP_DERIVE_LSP_MAX_METADATA_MB in bytes: the cap on the
// metadata an archive or a snapshot may load, raised for the rare host
// whose metadata is larger than the packages' defaults. 0 (unset or not a
// positive number) leaves the packages' defaults.
func maxMetadata(getenv func(string) string) int64 {
	mb, err := strconv.ParseInt(getenv("PCP_DERIVE_LSP_MAX_METADATA_MB"), 10, 64)
	if err != nil || mb <= 0 || mb > 1<<40 {
		return 0
	}
	return mb << 20
}

func connect(ctx context.Context, spec string, lazy bool, getenv func(string) string) (pmclient.Source, error) {
	if lazy {
		return pmcd.New(spec, pmcd.Options{Getenv: getenv})
	}
	c, err := Connect(ctx, spec, getenv)
	if err != nil {
		return nil, err // not a typed nil *pmcd.Client
	}
	return c, nil
}

// proxy opens a pmproxy client and, unless Lazy, checks that the pmcd
// behind it answers.
func proxy(ctx context.Context, s Spec, o Options, getenv func(string) string) (pmclient.Source, error) {
	c, err := pmproxy.New(s.PMProxy, pmproxy.Options{Hostspec: s.proxiedHost(), Gate: o.Gate, Getenv: getenv})
	if err != nil {
		return nil, err
	}
	if !o.Lazy {
		if _, err := c.Version(ctx); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// Connect opens a pmcd and checks that it answers.
func Connect(ctx context.Context, spec string, getenv func(string) string) (*pmcd.Client, error) {
	c, err := pmcd.New(spec, pmcd.Options{Getenv: getenv})
	if err != nil {
		return nil, err
	}
	if _, err := c.Version(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// MaxIndomConfigBytes bounds an indom config: a few lines of instance
// domains (libpcp reads one whole, too).
const MaxIndomConfigBytes = 16 << 20

// Equivalence reads the equivalent instance domains the way libpcp finds
// them: the explicit path if given, else $PCP_INDOM_CONFIG (set but empty:
// none), else $PCP_ETC_DIR/pcp/indom.conf. A missing default file means no
// equivalences; a missing explicit one is an error, and so is a file that
// is not a regular one (a FIFO, /dev/zero) or is over MaxIndomConfigBytes.
func Equivalence(path string, getenv func(string) string) (*pmapi.InDomEquivalence, []*pmapi.IndomConfigError, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	explicit := path != ""
	if !explicit {
		if v, set := lookupEnv(getenv, "PCP_INDOM_CONFIG"); set {
			if v == "" {
				return nil, nil, nil
			}
			path, explicit = v, true
		} else {
			etc := getenv("PCP_ETC_DIR")
			if etc == "" {
				etc = "/etc"
			}
			path = filepath.Join(etc, "pcp", "indom.conf")
		}
	}
	f, err := safeopen.Open(path, MaxIndomConfigBytes)
	if err != nil {
		if explicit || !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, err
		}
		return nil, nil, nil
	}
	defer f.Close()
	eq, problems := pmapi.ParseIndomConfig(f, path)
	return eq, problems, nil
}

// lookupEnv tells a variable set to "" from an unset one. getenv cannot,
// so "set but empty" is taken from the process environment.
func lookupEnv(getenv func(string) string, name string) (string, bool) {
	if v := getenv(name); v != "" {
		return v, true
	}
	if v, ok := os.LookupEnv(name); ok && v == "" {
		return "", true
	}
	return "", false
}

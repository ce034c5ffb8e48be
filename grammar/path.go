package grammar

import (
	"strings"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/pcpver"
)

// Source is one config file's name and contents.
type Source struct {
	Path string
	Src  []byte
	// Text is Src as a Text when the caller has one (an editor's
	// buffer), which the File then keeps; nil otherwise.
	Text *Text
}

// AsText is the source as a Text: the caller's, or one made of Src.
func (s Source) AsText() *Text {
	if s.Text != nil {
		return s.Text
	}
	return NewText(s.Src)
}

// ParseConfigs parses the files of one config path in order, the way a
// single process loads them: names registered by earlier files count as
// duplicates in later ones, and libpcp's lexer state carries over.
func ParseConfigs(srcs []Source, v pcpver.Version) []*File {
	return ParseConfigsWith(srcs, Options{Version: v})
}

// ParseConfigsWith is ParseConfigs with the options each file is read
// with (Version, MaxPerCode, Suppressed; the rest are the path's own).
func ParseConfigsWith(srcs []Source, opts Options) []*File {
	v := opts.Version
	registered := map[string]bool{}
	leak := false
	var ctl *controls
	files := make([]*File, 0, len(srcs))
	total := 0
	for _, s := range srcs {
		total += len(s.Src)
	}
	for _, s := range srcs {
		text := textOf(s.Src)
		var pre *prefetched
		if total > 64<<10 {
			pre = prefetchVerdicts(text, v)
		}
		f := parseConfig(s.Path, s.AsText(), Options{Version: v, Leak: leak, Registered: registered, MaxPerCode: opts.MaxPerCode, Suppressed: opts.Suppressed, DerivedControl: opts.DerivedControl, ctl: ctl, after: last(files)}, pre)
		ctl = &f.ctl
		if len(files) < len(srcs)-1 { // another file follows: it sees these names
			for _, def := range f.Definitions.All() {
				if def.Registered {
					registered[def.Name] = true
				}
			}
		}
		leak = f.Leak
		files = append(files, f)
	}
	return files
}

// SplitConfigPath splits a PCP_DERIVED_CONFIG-style list at ":". Empty
// components are dropped, as libpcp ignores them in the environment
// variable.
func SplitConfigPath(path string) []string {
	var out []string
	for _, p := range strings.Split(path, ":") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// last is the last file of files, or nil.
func last(files []*File) *File {
	if len(files) == 0 {
		return nil
	}
	return files[len(files)-1]
}

package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/rules"
)

// projectRules gives each document the project rules check would use for
// it: the nearest rules.FileName at or above the document's directory.
// The file is looked for on every analysis (a few stat calls) and read
// again whenever its size or modification time changed, so an edit to it
// counts at the next analysis even when the client sends no
// workspace/didChangeWatchedFiles.
type projectRules struct {
	mu    sync.Mutex
	files map[string]*rulesFile // rules file path → its last read
}

// rulesFile is one read of a rules file.
type rulesFile struct {
	modTime time.Time
	size    int64
	rules   rules.Rules
	err     error // what is wrong with it (its valid settings still apply)
}

func newProjectRules() *projectRules { return &projectRules{files: map[string]*rulesFile{}} }

// rulesFor returns the rules for a document, and fresh is the error of a
// rules file read just now (nil when it reads fine or was read before), so
// that the user hears of a problem once per change of the file. Documents
// that are not files ("untitled:") follow no project file.
func (p *projectRules) rulesFor(u uri.URI) (_ rules.Rules, fresh error) {
	if u.Scheme() != "file" {
		return rules.Rules{}, nil
	}
	path := rules.Find(filepath.Dir(u.FsPath()))
	if path == "" {
		return rules.Rules{}, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return rules.Rules{}, nil // gone between Find and now
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if f := p.files[path]; f != nil && f.modTime.Equal(info.ModTime()) && f.size == info.Size() {
		return f.rules, nil
	}
	rl, err := rules.Load(path)
	p.files[path] = &rulesFile{modTime: info.ModTime(), size: info.Size(), rules: rl, err: err}
	return rl, err
}

// forget drops what was read of a rules file (it changed or went away).
func (p *projectRules) forget(path string) {
	p.mu.Lock()
	delete(p.files, path)
	p.mu.Unlock()
}

// rulesFor is the project rules of a document. A rules file with
// problems is reported once per change of it (a message and the log);
// its valid settings still apply, where check refuses to run.
func (s *server) rulesFor(u uri.URI) rules.Rules {
	rl, err := s.rules.rulesFor(u)
	if err != nil {
		s.log.Warn("project rules", zap.Error(err))
		s.client.ShowMessage(s.bg, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning,
			Message: fmt.Sprintf("pcp-derive-lsp: %v (the rest of the file applies)", err)})
	}
	return rl
}

// rulesWatchID names the registration of the rules file watcher.
const rulesWatchID = "pcp-derive-lsp/rules-file"

// watchRulesFiles asks a client that allows it to report changes to
// project rules files anywhere in the workspace.
func (s *server) watchRulesFiles() {
	defer s.survive("registering the rules file watcher")
	if !s.session.clientCaps().watchFiles {
		return
	}
	opts, _ := json.Marshal(protocol.DidChangeWatchedFilesRegistrationOptions{
		Watchers: []protocol.FileSystemWatcher{{GlobPattern: protocol.Pattern("**/" + rules.FileName)}},
	})
	ctx, cancel := detach(s.bg)
	defer cancel()
	if err := s.client.RegisterCapability(ctx, &protocol.RegistrationParams{Registrations: []protocol.Registration{{
		ID: rulesWatchID, Method: protocol.MethodWorkspaceDidChangeWatchedFiles, RegisterOptions: protocol.LSPAny(opts),
	}}}); err != nil {
		s.log.Debug("registering the rules file watcher", zap.Error(err))
	}
}

// DidChangeWatchedFiles re-analyses the open documents when a project
// rules file was created, changed or deleted.
func (s *server) DidChangeWatchedFiles(ctx context.Context, params *protocol.DidChangeWatchedFilesParams) error {
	changed := false
	for _, ch := range params.Changes {
		if ch.URI.Scheme() == "file" && filepath.Base(ch.URI.FsPath()) == rules.FileName {
			s.rules.forget(ch.URI.FsPath())
			changed = true
		}
	}
	if changed {
		s.reanalyseAll()
	}
	return nil
}

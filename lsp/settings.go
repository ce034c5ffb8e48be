package lsp

import (
	"encoding/json"
	"fmt"
)

// settingsSection is the section name clients use for our settings
// (VS Code's pcpDerive.*, workspace/configuration's section).
const settingsSection = "pcpDerive"

// settingsLayer merges what a client says about settings over what it
// said before. Clients send partial settings: eglot sends
// didChangeConfiguration {"settings": {}} right after initialize, Helix
// sends only what languages.toml sets, and VS Code only the changed
// section. A key that is missing keeps its value; a key set to null goes
// back to the default.
type settingsLayer struct {
	raw map[string]any
}

// merge folds one message's settings (initializationOptions,
// didChangeConfiguration's settings, or a workspace/configuration
// answer) into the layer, and returns the effective settings.
func (l *settingsLayer) merge(msg []byte) (Settings, error) {
	incoming, err := settingsObject(msg)
	if err != nil {
		st, _ := l.settings()
		return st, err // the message is ignored; the settings stand
	}
	if l.raw == nil {
		l.raw = map[string]any{}
	}
	mergeInto(l.raw, incoming)
	return l.settings()
}

// snapshot is the merged settings as JSON, to tell whether a message
// changed them.
func (l *settingsLayer) snapshot() string {
	b, _ := json.Marshal(l.raw) // map keys are sorted: equal settings, equal text
	return string(b)
}

// settings decodes the merged settings.
func (l *settingsLayer) settings() (Settings, error) {
	var st Settings
	if len(l.raw) == 0 {
		return st, nil
	}
	b, err := json.Marshal(l.raw)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("settings: %w", err)
	}
	return st, nil
}

// settingsObject reads a settings message: our section (under
// "pcpDerive") or the bare object; null or empty is no change.
func settingsObject(msg []byte) (map[string]any, error) {
	if len(msg) == 0 || string(msg) == "null" {
		return nil, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(msg, &obj); err != nil {
		return nil, fmt.Errorf("settings are not a JSON object: %w", err)
	}
	if sec, ok := obj[settingsSection].(map[string]any); ok {
		return sec, nil
	}
	return obj, nil
}

// atomicSettings are objects replaced whole: the keys of "source" are
// alternatives (a host, a socket, an archive or a snapshot), so naming
// one drops the others.
var atomicSettings = map[string]bool{"source": true}

// mergeInto sets every key of src in dst: objects merge key by key
// (except atomicSettings), null deletes, anything else replaces.
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		switch v := v.(type) {
		case nil:
			delete(dst, k)
		case map[string]any:
			if atomicSettings[k] {
				dst[k] = v
				continue
			}
			sub, ok := dst[k].(map[string]any)
			if !ok {
				sub = map[string]any{}
				dst[k] = sub
			}
			mergeInto(sub, v)
		default:
			dst[k] = v
		}
	}
}

package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
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
// answer) into the layer, and returns the effective settings and the
// settings among them whose values are of the wrong type (each left at
// its default). err says the message was not a settings object at all.
func (l *settingsLayer) merge(msg []byte) (Settings, []settingProblem, error) {
	incoming, err := settingsObject(msg)
	if err != nil {
		st, problems := l.settings()
		return st, problems, err // the message is ignored; the settings stand
	}
	if l.raw == nil {
		l.raw = map[string]any{}
	}
	mergeInto(l.raw, incoming)
	st, problems := l.settings()
	return st, problems, nil
}

// snapshot is the merged settings as JSON, to tell whether a message
// changed them.
func (l *settingsLayer) snapshot() string {
	b, _ := json.Marshal(l.raw) // map keys are sorted: equal settings, equal text
	return string(b)
}

// settings decodes the merged settings key by key: a value of the wrong
// type ("debounce": "fast") leaves that one setting at its default and
// is returned as a problem; every other setting applies.
func (l *settingsLayer) settings() (Settings, []settingProblem) {
	var st Settings
	return st, decodeSettings(&st, l.raw, nil)
}

// settingProblem is a setting whose value is not of the type it takes.
type settingProblem struct {
	key   string // "debounce", "source.host"
	value string // as the client sent it, in JSON
	want  string // what the setting takes: "a whole number", "an object"
}

func (p settingProblem) String() string {
	return fmt.Sprintf("setting %s.%s is %s, but it takes %s: it is ignored, and the other settings apply", settingsSection, p.key, p.value, p.want)
}

// decodeSettings sets in st every member of obj (at path) whose value
// decodes, and returns the ones that do not. An object that fails is
// decoded member by member, so one bad "source.host" keeps
// "source.archive".
func decodeSettings(st *Settings, obj map[string]any, path []string) []settingProblem {
	var problems []settingProblem
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v, at := obj[k], append(slices.Clip(path), k)
		var wrapped any = v
		for i := len(at) - 1; i >= 0; i-- {
			wrapped = map[string]any{at[i]: wrapped}
		}
		b, err := json.Marshal(wrapped)
		if err == nil {
			// encoding/json merges into what the struct holds already, so
			// each member decoded alone adds to the others; it is decoded
			// into a copy, as a failed decode may leave a half-set field
			// (a pointer allocated, its value not read).
			trial := *st
			if err = json.Unmarshal(b, &trial); err == nil {
				*st = trial
				continue
			}
		}
		te, typed := errors.AsType[*json.UnmarshalTypeError](err)
		if sub, ok := v.(map[string]any); ok && typed && te.Value != "object" {
			problems = append(problems, decodeSettings(st, sub, at)...) // the fault is inside
			continue
		}
		value, _ := json.Marshal(v)
		want := "another type"
		if typed {
			want = takes(te.Type)
		}
		problems = append(problems, settingProblem{key: strings.Join(at, "."), value: string(value), want: want})
	}
	return problems
}

// takes says, for a user, what values a setting of type t takes.
func takes(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(takes(t.Elem()), "a "), "an ") + "s"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "another type"
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

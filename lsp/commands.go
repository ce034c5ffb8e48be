package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// The commands the server runs (workspace/executeCommand): the values
// preview, explain and, for clients without code action literals, a
// quick fix's edit.

// ExecuteCommand runs the preview command and shows its answer.
func (s *server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	switch params.Command {
	case cmdApplyFix:
		return nil, s.applyFix(ctx, params.Arguments)
	case cmdExplain, cmdPreview:
		if len(params.Arguments) != 1 {
			return nil, invalidParamsf("arguments: %s takes one argument, {textDocument, position}; got %d", params.Command, len(params.Arguments))
		}
	default:
		return nil, fmt.Errorf("unknown command %q: the server runs %s, %s and %s", params.Command, cmdPreview, cmdExplain, cmdApplyFix)
	}
	if params.Command == cmdExplain {
		release(ctx) // fetches, maybe twice a second apart
		var p explainParams
		if err := decodeMember("arguments[0]", params.Arguments[0], &p); err != nil {
			return nil, err
		}
		res, err := s.explainCommand(ctx, p)
		if err != nil {
			return nil, err
		}
		return marshalAny(res)
	}
	release(ctx)
	var p previewParams
	if err := decodeMember("arguments[0]", params.Arguments[0], &p); err != nil {
		return nil, err
	}
	res, err := s.preview(ctx, p)
	if err != nil {
		return nil, err
	}
	s.client.ShowMessage(s.bg, &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: res.Text})
	return marshalAny(res)
}

// decodeAny decodes a custom request's params into v; a value of the
// wrong shape is InvalidParams naming the member.
func decodeAny(params any, v any) error {
	raw, ok := params.(protocol.LSPAny)
	if !ok {
		b, err := json.Marshal(params)
		if err != nil {
			return invalidParamsf("params: %v", err)
		}
		raw = b
	}
	return decodeMember("", raw, v)
}

func marshalAny(v any) (protocol.LSPAny, error) {
	b, err := json.Marshal(v)
	return protocol.LSPAny(b), err
}

// applyFix asks the client to apply a quick fix's edit: the code action
// of a client that takes code actions only as Commands (cmdApplyFix).
func (s *server) applyFix(ctx context.Context, args []protocol.LSPAny) error {
	if len(args) != 1 {
		return invalidParamsf("arguments: %s takes one argument, a WorkspaceEdit; got %d", cmdApplyFix, len(args))
	}
	var edit protocol.WorkspaceEdit
	if err := protocol.Unmarshal(args[0], &edit); err != nil {
		return invalidParams(cmdApplyFix, args[0], err)
	}
	release(ctx) // waits for the client, which may be waiting on us
	ctx, cancel := detach(ctx)
	defer cancel()
	res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Edit: edit})
	if err != nil {
		return fmt.Errorf("workspace/applyEdit: %w", err)
	}
	if !res.Applied {
		reason := "no reason given"
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		return fmt.Errorf("the editor did not apply the fix: %s", reason)
	}
	return nil
}

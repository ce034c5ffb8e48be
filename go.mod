module github.com/pcp-derive-lsp/pcp-derive-lsp

go 1.26.8

require (
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/ulikunitz/xz v0.5.17
	go.lsp.dev/jsonrpc2 v1.0.1
	go.lsp.dev/protocol v1.0.1
	go.lsp.dev/uri v1.0.1
	go.uber.org/zap v1.28.0
	go.yaml.in/yaml/v3 v3.0.6
)

require (
	github.com/go-json-experiment/json v0.0.0-20260623181947-01eb4420fa68 // indirect
	go.uber.org/multierr v1.11.0 // indirect
)

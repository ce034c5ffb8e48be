package editortest

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestLspconfigConventions holds editors/neovim/lsp/pcp_derive_lsp.lua,
// the file to propose to nvim-lspconfig as it is, to that project's rules
// (its CONTRIBUTING.md and .github/ci/lint.sh): named after the server
// with dashes as underscores, the @brief docs first with the server's
// URL, the ---@type vim.lsp.Config annotation, the minimal properties
// cmd, filetypes and root_markers, and none of the helpers its lint
// refuses. TestNeovim012 shows Neovim loading it.
func TestLspconfigConventions(t *testing.T) {
	const server = "pcp-derive-lsp"
	path := "../neovim/lsp/" + strings.ReplaceAll(server, "-", "_") + ".lua"
	b, err := os.ReadFile(path)
	must(t, err)
	src := string(b)
	first, _, _ := strings.Cut(src, "\n")
	if first != "---@brief" {
		t.Errorf("%s starts with %q: lspconfig wants the @brief docstring on the first line", path, first)
	}
	brief := regexp.MustCompile(`(?s)^---@brief\n---\n--- (https://\S+)\n---\n--- \S`).FindStringSubmatch(src)
	if brief == nil || brief[1] != "https://github.com/pcp-derive-lsp/pcp-derive-lsp" {
		t.Errorf("%s: the @brief block does not open with the server's URL and a description", path)
	}
	if !strings.Contains(src, "\n---@type vim.lsp.Config\nreturn {\n") {
		t.Errorf("%s: the returned table lacks the ---@type vim.lsp.Config annotation", path)
	}
	for _, want := range []string{
		"  cmd = { '" + server + "', 'serve' },\n",
		"  filetypes = { 'pcpderived', 'pcptoolconf' },\n",
		"  root_markers = { '.pcp-derive-lsp.yaml', '.git' },\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("%s lacks %q", path, want)
		}
	}
	for _, refused := range []string{"nvim_create_user_command", "workspace/executeCommand", "single_file_support",
		"is_descendant", "search_ancestors", "validate_bufnr", "vim.fn.cwd", "util.", "require('lspconfig"} {
		if strings.Contains(src, refused) {
			t.Errorf("%s uses %s, which nvim-lspconfig's lint refuses", path, refused)
		}
	}
}

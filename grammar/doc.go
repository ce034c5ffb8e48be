// Package grammar reads derived-metric config files the way libpcp does
// and describes them exactly.
//
// It owns:
//   - the lexer (lexer.go): libpcp's tokens, including the matchinst
//     flag that makes "/" start a pattern;
//   - libpcp's verdict on each expression (libpcp.go over grammar/lalr,
//     the bison automaton of each release's grammar): accepted or not,
//     the caret and the message, byte for byte;
//   - the syntax tree the checker and the editor features walk (parser.go,
//     a participle grammar over the same tokens; ast.go), built lazily by
//     Definition.Tree;
//   - the config-file layer (reader.go, control.go): pmLoadDerivedConfig's
//     line rules, attributes and "#control" lines, and the findings they
//     give (Diagnostic, diag.go);
//   - positions (position.go): bytes, lines and UTF-16 columns;
//   - the memo (memo.go) that lets an editor re-read a file without
//     parsing its unchanged lines again.
//
// Memory is proportional to the text: a Definition keeps its name and
// expression (substrings of one copy of the file), its verdict and, once
// asked for, its tree; tokens are lexed again when asked for rather than
// kept.
package grammar

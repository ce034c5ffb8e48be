package checker

import (
	"runtime"
	"sync"

	"github.com/pcp-derive-lsp/pcp-derive-lsp/grammar"
)

// wordsInOrder lists, without repeats and in order of first appearance,
// each metric's name and every word and string of its expression as the
// tree reads it (a superset of its operands: a spec value such as u32 is
// looked up for nothing), for a check that has no trees yet. The metrics
// are lexed in contiguous chunks on all CPUs, each chunk listing its own
// first appearances; joining the chunks' lists in order, without repeats,
// gives the order of one pass over all of them. When keep is not nil,
// only the words it keeps are listed (and remembered).
//
// A file whose read listed its expressions' words (grammar.File.ExprWords,
// gathered by the verdicts' parses) is not lexed again but for the
// definitions it did not list; its words come after the metrics' names
// and the others', in its order. The order is one of first appearance
// for each part: the lookup it feeds answers by name.
func wordsInOrder(metrics []*Metric, keep func(word string) bool) []string {
	var listedFiles []*grammar.File
	listed := map[*grammar.File]bool{} // files whose read listed their words
	unlisted := map[*grammar.Definition]bool{}
	for _, m := range metrics {
		if _, done := listed[m.file]; done {
			continue
		}
		_, un, ok := m.file.ExprWords()
		listed[m.file] = ok
		if ok {
			listedFiles = append(listedFiles, m.file)
			for _, d := range un {
				unlisted[d] = true
			}
		}
	}
	words, seen := metricWords(metrics, keep, func(m *Metric) bool { return !listed[m.file] || unlisted[m.Def] })
	for _, f := range listedFiles {
		fw, _, _ := f.ExprWords()
		for _, w := range fw {
			if !seen[w] && (keep == nil || keep(w)) {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	return words
}

// metricWords lists each metric's name and, where lex says so, the words
// of its expression, without repeats, in order, and the set of them:
// lexed in contiguous chunks on all CPUs.
func metricWords(metrics []*Metric, keep func(word string) bool, lex func(*Metric) bool) ([]string, map[string]bool) {
	const minChunk = 2048
	workers := min(runtime.NumCPU(), (len(metrics)+minChunk-1)/minChunk)
	if workers < 1 {
		workers = 1
	}
	lists := make([][]string, workers)
	seens := make([]map[string]bool, workers)
	var wg sync.WaitGroup
	per := (len(metrics) + workers - 1) / workers
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[w], seens[w] = chunkWords(metrics[min(w*per, len(metrics)):min((w+1)*per, len(metrics))], keep, lex)
		}()
	}
	wg.Wait()
	// The first chunk's list and set grow by the others' new words: a
	// third set of every word would be the biggest thing alive.
	words, seen := lists[0], seens[0]
	for w := 1; w < workers; w++ {
		for _, word := range lists[w] {
			if !seen[word] {
				seen[word] = true
				words = append(words, word)
			}
		}
		lists[w], seens[w] = nil, nil
	}
	return words, seen
}

// chunkWords is wordsInOrder for one chunk, and the set of its words. An
// expression already lexed in the chunk adds nothing new and is not
// lexed again (short ones are remembered: configs repeat those).
func chunkWords(metrics []*Metric, keep func(string) bool, lex func(*Metric) bool) ([]string, map[string]bool) {
	const shortExpr = 64
	// Sized for a new word a metric (its name; its operands are mostly
	// names seen before): grown one at a time, the sets of a million
	// words were rehashed again and again.
	room := len(metrics)
	if keep != nil {
		room = 0 // a few operands' names
	}
	words := make([]string, 0, room)
	seen := make(map[string]bool, room)
	lexed := map[string]bool{}
	add := func(word string) {
		if keep != nil && !keep(word) {
			return
		}
		if !seen[word] {
			seen[word] = true
			words = append(words, word)
		}
	}
	for _, m := range metrics {
		d := m.Def
		add(d.Name) // to find masking real metrics
		if !lex(m) {
			continue
		}
		if len(d.Expr) <= shortExpr {
			if lexed[d.Expr] {
				continue
			}
			lexed[d.Expr] = true
		}
		grammar.EachToken(d.Expr, m.file.Version, false, func(t grammar.Token) {
			switch t.Kind {
			case grammar.TokName, grammar.TokString:
				add(t.Value(d.Expr))
			}
		})
	}
	return words, seen
}

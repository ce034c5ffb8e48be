package lsp

// openSize follows the total size of the open documents for
// Options.OpenDocuments, under the documents' lock.
type openSize struct {
	total int64
	told  int64 // the total last told, -1 before the first
	tell  func(bytes int64)
}

// add changes the total by delta bytes and tells it when it moved by more
// than a sixteenth since last told, or to or from nothing: a keystroke
// does not (the runtime stops the world to change its memory limit).
func (o *openSize) add(delta int64) {
	o.total += delta
	if o.tell == nil {
		return
	}
	moved := o.total - o.told
	if moved < 0 {
		moved = -moved
	}
	if o.told >= 0 && moved <= o.told/16 && (o.total == 0) == (o.told == 0) {
		return
	}
	o.told = o.total
	o.tell(o.total)
}

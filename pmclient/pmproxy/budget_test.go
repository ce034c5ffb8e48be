package pmproxy

import (
	"context"
	"errors"
	"testing"
)

// TestBudgetTake: an answer that holds nothing waits for room; one that
// holds some fails at once when the rest is taken (two answers waiting
// on each other would wait for ever); more than the whole is refused.
func TestBudgetTake(t *testing.T) {
	b := NewBudget(3 * budgetChunk)
	ctx := context.Background()
	if err := b.take(ctx, 2*budgetChunk, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.take(ctx, budgetChunk, 2*budgetChunk); err != nil {
		t.Fatal(err)
	}
	if err := b.take(ctx, budgetChunk, budgetChunk); !errors.Is(err, ErrBudget) {
		t.Errorf("holding some, none free: %v", err)
	}
	if err := b.take(ctx, 4*budgetChunk, 0); !errors.Is(err, ErrBudget) {
		t.Errorf("more than the whole: %v", err)
	}
	waited := make(chan error)
	go func() { waited <- b.take(ctx, budgetChunk, 0) }()
	b.give(budgetChunk)
	if err := <-waited; err != nil {
		t.Errorf("holding none, after values were given back: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := b.take(cancelled, budgetChunk, 0); err == nil {
		t.Error("a wait past its context's end")
	}
}

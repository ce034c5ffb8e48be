package pmclient

import "errors"

// Errors every Source returns for the common cases, with libpcp's texts.
var (
	ErrUnknownName  = errors.New("Unknown metric name")
	ErrUnknownPMID  = errors.New("Unknown or illegal metric identifier")
	ErrUnknownInDom = errors.New("Unknown or illegal instance domain identifier")
	ErrNoHelp       = errors.New("One-line or help text is not available")
	ErrNoValues     = errors.New("this source has metadata but no values")
)

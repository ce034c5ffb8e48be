package pmcd

import "time"

// Caps and deadlines on talking to pmcd. A pmcd, or anything listening
// where one is expected, is outside input: every wait and every size it
// can choose is bounded by one of these. docs/limits.md lists them with
// what happens at each and how to raise it.
const (
	// DefaultMaxPDU bounds the length a reply may claim (libpcp has no
	// bound; real replies exceed 64 KiB). A longer claim fails the
	// request before anything is allocated for it; Options.MaxPDU
	// raises it.
	DefaultMaxPDU = 64 << 20

	// maxClientPDU is pmcd's own limit on the PDUs a client sends.
	maxClientPDU = 65536

	// DefaultConnectTimeout bounds connecting and the handshake, as
	// libpcp's $PMCD_CONNECT_TIMEOUT default does.
	DefaultConnectTimeout = 5 * time.Second

	// DefaultRequestTimeout bounds the wait for each PDU of a reply, as
	// libpcp's $PMCD_REQUEST_TIMEOUT default does. It restarts with every
	// PDU, so on its own it does not bound a request.
	DefaultRequestTimeout = 10 * time.Second

	// DefaultRequestDeadline bounds a whole request: sending it and
	// reading every PDU of the answer, including pmcd's positive ERROR
	// PDUs (state-change notices), each of which restarts the request
	// timeout. libpcp has no such bound; without it a peer sending a
	// notice just inside every timeout holds a request forever. It is
	// never shorter than RequestTimeout (see Options.RequestDeadline).
	DefaultRequestDeadline = 30 * time.Second
)

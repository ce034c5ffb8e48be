package pmclient

import (
	"fmt"
	"syscall"
)

// Error is a PCP error code (PM_ERR_*, -12345 and below) or a negated
// errno, as pmcd and archives report them. Its text is libpcp's
// pmErrStr, so messages read the same as PCP's own tools.
type Error int32

func (e Error) Error() string {
	if text, ok := errorText[e]; ok {
		return text
	}
	if e < 0 && e > -12345 {
		return syscall.Errno(-e).Error()
	}
	return fmt.Sprintf("Unknown error code %d", int32(e))
}

// Name is the symbolic name, e.g. "PM_ERR_NAME".
func (e Error) Name() string { return errorName[e] }

// The errors sources return most often.
const (
	ErrUnknownName  Error = -12357 // PM_ERR_NAME
	ErrUnknownPMID  Error = -12358 // PM_ERR_PMID
	ErrUnknownInDom Error = -12359 // PM_ERR_INDOM
	ErrUnknownInst  Error = -12360 // PM_ERR_INST
	ErrNoHelp       Error = -12349 // PM_ERR_TEXT
	ErrNonLeaf      Error = -12394 // PM_ERR_NONLEAF
	ErrTimeout      Error = -12353 // PM_ERR_TIMEOUT
	ErrIPC          Error = -12366 // PM_ERR_IPC
	ErrEOF          Error = -12368 // PM_ERR_EOF
	ErrNoAgent      Error = -12386 // PM_ERR_NOAGENT
	ErrPermission   Error = -12387 // PM_ERR_PERMISSION
	ErrNoProfile    Error = -12381 // PM_ERR_NOPROFILE
	ErrNoLabels     Error = -12410 // PM_ERR_NOLABELS
	ErrType         Error = -12397 // PM_ERR_TYPE
	ErrNotInArchive Error = -12378 // PM_ERR_PMID_LOG
	// ErrNoValues is not a PCP code: a source that has metadata only.
	ErrNoValues Error = -21345
)

// errorText and errorName are libpcp 6.0.3's table (pmerr -l).
var errorText = map[Error]string{
	-12345: "Generic error, already reported above",
	-12346: "Problems parsing PMNS definitions",
	-12347: "PMNS not accessible",
	-12348: "Attempt to reload the PMNS",
	-12349: "One-line or help text is not available",
	-12350: "Metric not supported by this version of monitored application",
	-12351: "Missing metric value(s)",
	-12353: "Timeout waiting for a response from PMCD",
	-12354: "Empty archive log file",
	-12355: "PMCD reset or configuration change",
	-12357: "Unknown metric name",
	-12358: "Unknown or illegal metric identifier",
	-12359: "Unknown or illegal instance domain identifier",
	-12360: "Unknown or illegal instance identifier",
	-12397: "Unknown or illegal metric type",
	-12361: "Illegal pmUnits specification",
	-12362: "Impossible value or scale conversion",
	-12363: "Truncation in value conversion",
	-12364: "Negative value in conversion to unsigned",
	-12365: "Explicit instance identifier(s) required",
	-12366: "IPC protocol failure",
	-12414: "TLS protocol failure",
	-12368: "IPC channel closed",
	-12369: "Operation requires context with host source of metrics",
	-12370: "End of PCP archive log",
	-12371: "Illegal mode specification",
	-12372: "Illegal label record at start of a PCP archive log file",
	-12373: "Corrupted record in a PCP archive log",
	-12375: "Missing PCP archive log file",
	-12374: "Operation requires context with archive source of metrics",
	-12376: "Attempt to use an illegal context",
	-12377: "NULL pmInDom with non-NULL instlist",
	-12378: "Metric not defined in the PCP archive log",
	-12379: "Instance domain identifier not defined in the PCP archive log",
	-12380: "Instance identifier not defined in the PCP archive log",
	-12381: "Missing profile - protocol botch",
	-12386: "No PMCD agent for domain of request",
	-12387: "No permission to perform requested operation",
	-12388: "PMCD connection limit for this host exceeded",
	-12389: "Try again. Information not currently available",
	-12390: "Already Connected",
	-12391: "Not Connected",
	-12392: "A non-null port name is required",
	-12394: "Metric name is not a leaf in PMNS",
	-13394: "PMDA is not yet ready to respond to requests",
	-13393: "PMDA is now responsive to requests",
	-12442: "Internal inconsistency detected or assertion failed",
	-12443: "Insufficient elements in list",
	-12444: "Result size exceeded",
	-12445: "QA fault injected",
	-12398: "Operation not supported for multi-threaded applications",
	-12399: "Container not found",
	-12400: "Bad input to pmstore",
	-12401: "Archives overlap in time",
	-12402: "Archives differ by host",
	-12404: "The type of a metric has changed in an archive",
	-12405: "The semantics of a metric has changed in an archive",
	-12406: "The instance domain of a metric has changed in an archive",
	-12407: "The units of a metric have changed in an archive",
	-12408: "PMCD requires a client certificate",
	-12409: "Derived metric definition failed",
	-12410: "No support for metric label metadata",
	-12411: "PMDA is currently fenced and unable to respond to requests",
	-12412: "Incorrect record type in an archive",
	-12413: "Archive feature not supported",
	-21344: "Functionality not yet implemented",
	-21345: "No values: this metadata source has none",
}

var errorName = map[Error]string{
	-12345: "PM_ERR_GENERIC",
	-12346: "PM_ERR_PMNS",
	-12347: "PM_ERR_NOPMNS",
	-12348: "PM_ERR_DUPPMNS",
	-12349: "PM_ERR_TEXT",
	-12350: "PM_ERR_APPVERSION",
	-12351: "PM_ERR_VALUE",
	-12353: "PM_ERR_TIMEOUT",
	-12354: "PM_ERR_NODATA",
	-12355: "PM_ERR_RESET",
	-12357: "PM_ERR_NAME",
	-12358: "PM_ERR_PMID",
	-12359: "PM_ERR_INDOM",
	-12360: "PM_ERR_INST",
	-12397: "PM_ERR_TYPE",
	-12361: "PM_ERR_UNIT",
	-12362: "PM_ERR_CONV",
	-12363: "PM_ERR_TRUNC",
	-12364: "PM_ERR_SIGN",
	-12365: "PM_ERR_PROFILE",
	-12366: "PM_ERR_IPC",
	-12414: "PM_ERR_TLS",
	-12368: "PM_ERR_EOF",
	-12369: "PM_ERR_NOTHOST",
	-12370: "PM_ERR_EOL",
	-12371: "PM_ERR_MODE",
	-12372: "PM_ERR_LABEL",
	-12373: "PM_ERR_LOGREC",
	-12375: "PM_ERR_LOGFILE",
	-12374: "PM_ERR_NOTARCHIVE",
	-12376: "PM_ERR_NOCONTEXT",
	-12377: "PM_ERR_PROFILESPEC",
	-12378: "PM_ERR_PMID_LOG",
	-12379: "PM_ERR_INDOM_LOG",
	-12380: "PM_ERR_INST_LOG",
	-12381: "PM_ERR_NOPROFILE",
	-12386: "PM_ERR_NOAGENT",
	-12387: "PM_ERR_PERMISSION",
	-12388: "PM_ERR_CONNLIMIT",
	-12389: "PM_ERR_AGAIN",
	-12390: "PM_ERR_ISCONN",
	-12391: "PM_ERR_NOTCONN",
	-12392: "PM_ERR_NEEDPORT",
	-12394: "PM_ERR_NONLEAF",
	-13394: "PM_ERR_PMDANOTREADY",
	-13393: "PM_ERR_PMDAREADY",
	-12442: "PM_ERR_BOTCH",
	-12443: "PM_ERR_TOOSMALL",
	-12444: "PM_ERR_TOOBIG",
	-12445: "PM_ERR_FAULT",
	-12398: "PM_ERR_THREAD",
	-12399: "PM_ERR_NOCONTAINER",
	-12400: "PM_ERR_BADSTORE",
	-12401: "PM_ERR_LOGOVERLAP",
	-12402: "PM_ERR_LOGHOST",
	-12404: "PM_ERR_LOGCHANGETYPE",
	-12405: "PM_ERR_LOGCHANGESEM",
	-12406: "PM_ERR_LOGCHANGEINDOM",
	-12407: "PM_ERR_LOGCHANGEUNITS",
	-12408: "PM_ERR_NEEDCLIENTCERT",
	-12409: "PM_ERR_BADDERIVE",
	-12410: "PM_ERR_NOLABELS",
	-12411: "PM_ERR_PMDAFENCED",
	-12412: "PM_ERR_RECTYPE",
	-12413: "PM_ERR_FEATURE",
	-21344: "PM_ERR_NYI",
}

// ErrorFromText finds the PCP error whose pmErrStr text ends msg, for
// gateways that pass errors on as text (pmproxy's REST API answers
// "child traversal failed - Unknown metric name"). ok is false when no
// known text ends msg.
func ErrorFromText(msg string) (e Error, ok bool) {
	best := 0
	for code, text := range errorText {
		if len(text) > best && len(msg) >= len(text) && msg[len(msg)-len(text):] == text {
			e, ok, best = code, true, len(text)
		}
	}
	return e, ok
}

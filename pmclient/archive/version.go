package archive

import (
	"context"
	"errors"
	"io"
)

// versionScanRecords bounds the records Version reads: pmlogger logs
// pmcd.version once, at the start.
const versionScanRecords = 64

// Version implements pmclient.Source: the first pmcd.version value the
// archive logged (pmlogconf's pcp-summary group logs it), or "" when it
// logged none in its first records. The label itself names no release.
func (a *Archive) Version(ctx context.Context) (string, error) {
	ids, errs, _ := a.LookupNames(ctx, []string{"pmcd.version"})
	if errs[0] != nil {
		return "", nil
	}
	pmid := ids[0]
	rd := a.Records()
	defer rd.Close()
	for range versionScanRecords {
		rec, err := rd.NextReused(ctx)
		if errors.Is(err, io.EOF) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		for _, m := range rec.Metrics {
			if m.PMID == pmid && len(m.Values) > 0 {
				return m.Values[0].String, nil
			}
		}
	}
	return "", nil
}

package pmcd

import "time"

func timeFrom(sec, nsec int64) time.Time { return time.Unix(sec, nsec) }

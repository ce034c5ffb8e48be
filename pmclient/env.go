package pmclient

import (
	"strconv"
	"time"
)

// EnvSeconds reads a timeout from the environment variable name the way
// libpcp reads $PMCD_CONNECT_TIMEOUT and $PMCD_REQUEST_TIMEOUT: seconds,
// fractions allowed. It is def when the variable is unset, not a number
// or not positive.
func EnvSeconds(getenv func(string) string, name string, def time.Duration) time.Duration {
	if v, err := strconv.ParseFloat(getenv(name), 64); err == nil && v > 0 {
		return time.Duration(v * float64(time.Second))
	}
	return def
}

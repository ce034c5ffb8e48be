package pmclient

import (
	"testing"
	"time"
)

func TestEnvSeconds(t *testing.T) {
	const def = 5 * time.Second
	cases := []struct {
		value string
		want  time.Duration
	}{
		{"", def},
		{"10", 10 * time.Second},
		{"0.25", 250 * time.Millisecond},
		{"1e1", 10 * time.Second},
		{"0", def},
		{"-3", def},
		{"ten", def},
		{"10s", def},
	}
	for _, c := range cases {
		getenv := func(name string) string {
			if name == "PMCD_REQUEST_TIMEOUT" {
				return c.value
			}
			return "99"
		}
		if got := EnvSeconds(getenv, "PMCD_REQUEST_TIMEOUT", def); got != c.want {
			t.Errorf("$PMCD_REQUEST_TIMEOUT=%q: %v, want %v", c.value, got, c.want)
		}
	}
}

package toolconf

import "testing"

// TestDetect: the kind of a file from its path (absolute or relative, as
// check is given it) and, failing that, its first line.
func TestDetect(t *testing.T) {
	tests := []struct {
		path, src string
		want      Kind
	}{
		{"/etc/pcp/htop/meters/load", "[load]\nl.metric = a\n", Htop},
		{"htop/columns/rss", "[rss]\nmetric = a\n", Htop},
		{"htop/screens/s", "anything", Htop},
		{"/usr/share/pcp/htop/meters/x", "x = 1\n", Htop}, // htop reads it all the same
		{"dstat/disk", "[disk]\nx = a\n", Dstat},
		{"/etc/pcp/pmrep/disk.conf", "# c\n[disk]\nx = a\n", Pmrep},
		{"my.conf", "\n; c\n[s]\n", Pmrep},
		{"my.conf", "m.a = 1\n", Derived},
		{"htop/meters.conf", "m.a = 1\n", Derived}, // not in a meters directory
	}
	for _, tc := range tests {
		if got := Detect(tc.path, []byte(tc.src)); got != tc.want {
			t.Errorf("Detect(%q) = %s, want %s", tc.path, got, tc.want)
		}
	}
}

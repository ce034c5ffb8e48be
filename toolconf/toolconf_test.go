package toolconf

import "testing"

// TestDetect: the kind of a file by its path, else its first line that
// is not blank or a comment.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		path, src string
		want      Kind
	}{
		{"/etc/pcp/pmrep/vmstat.conf", "#\n[vmstat]\nk = v\n", Pmrep},
		{"/etc/pcp/dstat/cpu", "; c\n[cpu]\nusr = kernel.all.cpu.user\n", Dstat},
		{"/usr/share/pcp/htop/meters/freespace", "[freespace]\n", Htop},
		{"/home/u/.pcp/pmrep.conf", "[options]\n", Pmrep},
		{"my.conf", "\n  # x\n[set]\nk = v\n", Pmrep},
		{"my.conf", "m.a = hinv.ncpu\n", Derived},
		{"/etc/pcp/pmrep/broken.conf", "m.a = 1\n", Derived}, // no section: not INI
		{"/var/lib/pcp/config/derived/x.conf", "[x]\n", Pmrep},
		{"empty.conf", "", Derived},
	} {
		if got := Detect(tc.path, []byte(tc.src)); got != tc.want {
			t.Errorf("Detect(%q, %q) = %s, want %s", tc.path, tc.src, got, tc.want)
		}
	}
	if _, err := ParseKind("pmrep"); err != nil {
		t.Error(err)
	}
	if _, err := ParseKind("ini"); err == nil {
		t.Error("ParseKind(ini): no error")
	}
}

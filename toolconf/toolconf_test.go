package toolconf

import "testing"

// TestDetect: the kind of a file from its path (absolute or relative, as
// check is given it) and, failing that, its first line that is not blank
// or a comment.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		path, src string
		want      Kind
	}{
		{"/etc/pcp/pmrep/vmstat.conf", "#\n[vmstat]\nk = v\n", Pmrep},
		{"/etc/pcp/dstat/cpu", "; c\n[cpu]\nusr = kernel.all.cpu.user\n", Dstat},
		{"dstat/disk", "[disk]\nx = a\n", Dstat},
		{"/usr/share/pcp/htop/meters/freespace", "[freespace]\n", Htop},
		{"/etc/pcp/htop/meters/load", "[load]\nl.metric = a\n", Htop},
		{"htop/columns/rss", "[rss]\nmetric = a\n", Htop},
		{"htop/screens/s", "anything", Htop},
		{"/usr/share/pcp/htop/meters/x", "x = 1\n", Htop}, // htop reads it all the same
		{"htop/meters.conf", "m.a = 1\n", Derived},        // not in a meters directory
		{"/home/u/.pcp/pmrep.conf", "[options]\n", Pmrep},
		{"my.conf", "\n  # x\n[set]\nk = v\n", Pmrep},
		{"my.conf", "\n; c\n[s]\n", Pmrep},
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

// TestHeadDecides: a text's head decides its kind when it holds the whole
// first line that is not blank or a comment; then every text that starts
// with it is detected as the head is.
func TestHeadDecides(t *testing.T) {
	for _, tc := range []struct {
		head string
		want bool
	}{
		{"", false},
		{"# only a comment\n\n; and another\n", false},
		{"# a comment cut sh", false},
		{"[sect", false},   // "[section]" or "[sect" followed by more
		{"a = b", false},   // a definition, or a line that goes on
		{"[sect]\n", true}, // a section: pmrep's
		{"#\n  a = b + c\nmore", true},
		{"a = b\r\n", true},
	} {
		if got := HeadDecides([]byte(tc.head)); got != tc.want {
			t.Errorf("HeadDecides(%q) = %v, want %v", tc.head, got, tc.want)
		}
		if !tc.want {
			continue
		}
		for _, rest := range []string{"", "[x]\n", "x = y]\n", "\n# c\n"} {
			if a, b := Detect("t.conf", []byte(tc.head)), Detect("t.conf", []byte(tc.head+rest)); a != b {
				t.Errorf("Detect(%q) = %v, but %v with %q after it", tc.head, a, b, rest)
			}
		}
	}
}

package pmconfig

// readDstat reads the sections as pcp-dstat's plugins.
func (d *Doc) readDstat() []pendingReg { return nil }

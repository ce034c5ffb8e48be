package htop

// The finding codes of the htop reader. Their registry entries (summary,
// behaviour, example and fix) are in codes/codes.go, kind codes.Tools.
const (
	CodeNotRead          = "htop-not-read"
	CodeNotHtop          = "htop-no-sections"
	CodeOutside          = "htop-outside-section"
	CodeBadName          = "htop-bad-name"
	CodeDuplicateSection = "htop-duplicate-section"
	CodeLongName         = "htop-long-name"
	CodeEmptyName        = "htop-empty-name"
	CodeNoValue          = "htop-no-value"
	CodeValueCut         = "htop-value-cut"
	CodeUnknownKey       = "htop-unknown-key"
	CodeUnknownColor     = "htop-unknown-color"
	CodeBadWidth         = "htop-bad-width"
	CodeBadValue         = "htop-bad-value"
	CodeInert            = "htop-inert-key"
	CodeDuplicateKey     = "htop-duplicate-key"
	CodeDuplicateMetric  = "htop-duplicate-metric"
	CodeNoMetric         = "htop-no-metric"
	CodeScreenColumnName = "htop-screen-column-name"
	CodeNUL              = "htop-nul-byte"
	CodeLostLine         = "htop-lost-line"
)

// ExampleKind is the kind of file each code's Example is (a meter file
// unless listed), for the analysis' example test: check it as
// /etc/pcp/htop/KIND.Dir()/example.
func ExampleKind(code string) Kind {
	switch code {
	case CodeBadWidth, CodeBadValue:
		return Column
	case CodeScreenColumnName:
		return Screen
	}
	return Meter
}

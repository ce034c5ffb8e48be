// Package pmapi holds the core Performance Co-Pilot data types shared by the
// grammar, checker, evaluator and pmclient packages: metric identifiers,
// descriptors, value types, semantics and units, with libpcp's spellings.
package pmapi

import (
	"fmt"
	"strconv"
	"strings"
)

// PMID identifies a metric: 10 bits of domain, 12 of cluster, 10 of item
// (the top bit is a flag that is always zero on the wire).
type PMID uint32

// PMIDNull is PM_ID_NULL.
const PMIDNull PMID = 0xffffffff

// NewPMID packs domain, cluster and item into a PMID.
func NewPMID(domain, cluster, item uint32) PMID {
	return PMID((domain&0x1ff)<<22 | (cluster&0xfff)<<10 | item&0x3ff)
}

// Domain, Cluster and Item unpack a PMID.
func (p PMID) Domain() uint32  { return uint32(p) >> 22 & 0x1ff }
func (p PMID) Cluster() uint32 { return uint32(p) >> 10 & 0xfff }
func (p PMID) Item() uint32    { return uint32(p) & 0x3ff }

// String renders a PMID as pmIDStr does: "domain.cluster.item" or PM_ID_NULL.
func (p PMID) String() string {
	if p == PMIDNull {
		return "PM_ID_NULL"
	}
	return fmt.Sprintf("%d.%d.%d", p.Domain(), p.Cluster(), p.Item())
}

// ParsePMID reads pmIDStr's "domain.cluster.item" (each part a decimal
// number; larger values are masked as NewPMID masks them).
func ParsePMID(s string) (PMID, error) {
	p := strings.Split(s, ".")
	if len(p) != 3 {
		return 0, fmt.Errorf("PMID %q: want domain.cluster.item", s)
	}
	var v [3]uint64
	for i, x := range p {
		n, err := strconv.ParseUint(x, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("PMID %q: %w", s, err)
		}
		v[i] = n
	}
	return NewPMID(uint32(v[0]), uint32(v[1]), uint32(v[2])), nil
}

// InDom identifies an instance domain: 10 bits of domain, 22 of serial.
type InDom uint32

// InDomNull is PM_INDOM_NULL: the metric has a single value.
const InDomNull InDom = 0xffffffff

// NewInDom packs domain and serial into an InDom.
func NewInDom(domain, serial uint32) InDom {
	return InDom((domain&0x1ff)<<22 | serial&0x3fffff)
}

// Domain and Serial unpack an InDom.
func (i InDom) Domain() uint32 { return uint32(i) >> 22 & 0x1ff }
func (i InDom) Serial() uint32 { return uint32(i) & 0x3fffff }

// String renders an InDom as pmInDomStr does: "domain.serial" or PM_INDOM_NULL.
func (i InDom) String() string {
	if i == InDomNull {
		return "PM_INDOM_NULL"
	}
	return fmt.Sprintf("%d.%d", i.Domain(), i.Serial())
}

// ParseInDom reads pmInDomStr's "domain.serial" (each part a decimal
// number; larger values are masked as NewInDom masks them).
func ParseInDom(s string) (InDom, error) {
	dom, serial, ok := strings.Cut(s, ".")
	d, err1 := strconv.ParseUint(dom, 10, 32)
	n, err2 := strconv.ParseUint(serial, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("instance domain %q: want domain.serial", s)
	}
	return NewInDom(uint32(d), uint32(n)), nil
}

// Type is a metric value type (PM_TYPE_*).
type Type int32

// The value types, numbered as in pmapi.h.
const (
	TypeNoSupport Type = -1
	TypeUnknown   Type = 255
)

// The value types a metric can have, numbered from 0 as in pmapi.h.
const (
	Type32 Type = iota
	TypeU32
	Type64
	TypeU64
	TypeFloat
	TypeDouble
	TypeString
	TypeAggregate
	TypeAggregateStatic
	TypeEvent
	TypeHighresEvent
)

// typeNames is pmTypeStr's spelling of every type: the one table of type
// names, read by String and ParseType (sources that spell them otherwise,
// such as pmproxy, translate to these).
var typeNames = [...]struct {
	t    Type
	name string
}{
	{TypeNoSupport, "NO_SUPPORT"}, {Type32, "32"}, {TypeU32, "U32"}, {Type64, "64"}, {TypeU64, "U64"},
	{TypeFloat, "FLOAT"}, {TypeDouble, "DOUBLE"}, {TypeString, "STRING"}, {TypeAggregate, "AGGREGATE"},
	{TypeAggregateStatic, "AGGREGATE_STATIC"}, {TypeEvent, "EVENT"}, {TypeHighresEvent, "HIGHRES_EVENT"},
	{TypeUnknown, "UNKNOWN"},
}

// Arithmetic reports whether values of the type can take part in arithmetic.
func (t Type) Arithmetic() bool { return t >= Type32 && t <= TypeDouble }

// String renders a type as pmTypeStr does ("32", "U32", "DOUBLE", ...).
func (t Type) String() string {
	for _, n := range typeNames {
		if n.t == t {
			return n.name
		}
	}
	return "???"
}

// ParseType reads a type spelt as pmTypeStr spells it (String's result,
// exactly); ok is false for anything else.
func ParseType(s string) (t Type, ok bool) {
	for _, n := range typeNames {
		if n.name == s {
			return n.t, true
		}
	}
	return 0, false
}

// Sem is a metric's semantics (PM_SEM_*).
type Sem int32

// The semantics, numbered as in pmapi.h.
const (
	SemCounter  Sem = 1
	SemInstant  Sem = 3
	SemDiscrete Sem = 4
)

// semNames is how pminfo -d and derived-metric specs spell the semantics:
// the one table of their names, read by String and ParseSem.
var semNames = [...]struct {
	s    Sem
	name string
}{{SemCounter, "counter"}, {SemInstant, "instant"}, {SemDiscrete, "discrete"}}

// String renders semantics the way pminfo -d prints them; semantics that
// are none of the three (a PMDA may declare 0) are "unknown (N)".
func (s Sem) String() string {
	for _, n := range semNames {
		if n.s == s {
			return n.name
		}
	}
	return fmt.Sprintf("unknown (%d)", int32(s))
}

// ParseSem reads the name of one of the three semantics ("counter",
// "instant", "discrete", exactly); ok is false for anything else.
func ParseSem(name string) (s Sem, ok bool) {
	for _, n := range semNames {
		if n.name == name {
			return n.s, true
		}
	}
	return 0, false
}

// Units is pmUnits: dimension and scale for space, time and count.
// Extra units (PCP 7.2: temperature, voltage, ...) are ExtraUnit/ExtraScale.
type Units struct {
	DimSpace, DimTime, DimCount       int8
	ScaleSpace, ScaleTime, ScaleCount int8
	ExtraUnit, ExtraScale             int8
}

// Dimensionless reports whether all dimensions are zero ("none").
func (u Units) Dimensionless() bool {
	return u.DimSpace == 0 && u.DimTime == 0 && u.DimCount == 0 && u.ExtraUnit == 0
}

// Space scales (PM_SPACE_*).
const (
	SpaceByte  = 0
	SpaceKByte = 1
	SpaceMByte = 2
	SpaceGByte = 3
	SpaceTByte = 4
	SpacePByte = 5
	SpaceEByte = 6
	SpaceZByte = 7
	SpaceYByte = 8
)

// Time scales (PM_TIME_*).
const (
	TimeNSec = 0
	TimeUSec = 1
	TimeMSec = 2
	TimeSec  = 3
	TimeMin  = 4
	TimeHour = 5
)

// Desc is pmDesc: everything a client needs to interpret a metric's values.
type Desc struct {
	PMID  PMID
	Type  Type
	InDom InDom
	Sem   Sem
	Units Units
}

// Wire packs units into the 32-bit form UnitsFromWire reads.
func (u Units) Wire() uint32 {
	nib := func(v int8, shift uint) uint32 { return uint32(uint8(v)&0xf) << shift }
	return nib(u.DimSpace, 28) | nib(u.DimTime, 24) | nib(u.DimCount, 20) |
		nib(u.ScaleSpace, 16) | nib(u.ScaleTime, 12) | nib(u.ScaleCount, 8) |
		uint32(uint8(u.ExtraUnit)&0x1f)<<3 | uint32(uint8(u.ExtraScale)&0x7)
}

// UnitsFromWire unpacks pmUnits from the 32-bit big-endian form used in
// PDUs and archives: dimSpace, dimTime, dimCount, scaleSpace, scaleTime,
// scaleCount in 4-bit fields (dimensions and scaleCount signed), then
// PCP 7.2's extra unit (5 bits, signed) and scale (3 bits).
func UnitsFromWire(v uint32) Units {
	nib := func(shift uint, signed bool) int8 {
		x := int8((v >> shift) & 0xf)
		if signed && x >= 8 {
			x -= 16
		}
		return x
	}
	extra := int8(v >> 3 & 0x1f)
	if extra >= 16 {
		extra -= 32
	}
	return Units{
		DimSpace: nib(28, true), DimTime: nib(24, true), DimCount: nib(20, true),
		ScaleSpace: nib(16, false), ScaleTime: nib(12, false), ScaleCount: nib(8, true),
		ExtraUnit: extra, ExtraScale: int8(v & 0x7),
	}
}

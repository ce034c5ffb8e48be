package pmapi

// InNull is PM_IN_NULL: the instance of a singular metric's only value.
const InNull int32 = -1

// Value is one instance's value of a metric: what sources deliver and what
// the evaluator computes with, in one form so that nothing converts values
// between them on every sample. The metric's type says which field holds
// it, and every source fills that field this way:
//
//   - 32 and 64: Int (a 32's value within int32)
//   - U32 and U64: Uint (a U32's value within uint32)
//   - FLOAT and DOUBLE: Float (a FLOAT's value rounded to float32)
//   - STRING: String
//   - aggregates and events: Blob, the raw bytes
//
// Other fields may hold other readings of the same bits (a value read in
// situ from a PDU is in both Int and Uint); they mean nothing.
type Value struct {
	Inst   int32 // InNull for singular metrics
	Int    int64
	Uint   uint64
	Float  float64
	String string
	Blob   []byte
}

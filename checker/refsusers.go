package checker

// Users are the derived metrics whose expressions name op (the editor's
// document highlight and call hierarchy read them); none for a nil index.
func (r *Refs) Users(op string) []string {
	if r == nil {
		return nil
	}
	return r.users(op)
}

package views

// CodeVM is one of the LMS's codes (a state, an error code, an admin action) with its words in the
// reader's language. Pages lead with the words; the code stays as secondary detail, for a person
// who talks to the LMS team or reads the database.
type CodeVM struct {
	Code  string
	Label string
}

// dashIfNone is c, or a dash in its place when there is no code.
func dashIfNone(c CodeVM) CodeVM {
	if c.Code == "" {
		return CodeVM{Code: "", Label: "—"}
	}
	return c
}

package views

// SettingsPageVM is /settings: one section per kind of setting, each its own component and form,
// so a section can be added without touching the others.
type SettingsPageVM struct {
	Page Page
	Mail SettingsMailVM
	// Tokens is the API-token section.
	Tokens APITokensVM
}

// SettingsMailVM is the section that chooses which alert mails an account gets.
type SettingsMailVM struct {
	// Immediate is the least severity mailed at once ("" none); Severities the choices.
	Immediate  string
	Severities []Option
	// Kinds are the alert kinds, ticked when chosen; none ticked is every kind.
	Kinds []CheckOption
	// Digest and DigestHour are the daily digest and its Helsinki hour.
	Digest     bool
	DigestHour string
	Hours      []Option
	// TeacherWeekly is shown to teachers only.
	ShowTeacherWeekly bool
	TeacherWeekly     bool
	// Defaults says these are the role's defaults, not yet saved.
	Defaults bool
	// Error names what was wrong with a submitted form; Saved that it was saved.
	Error string
	Saved bool
}

// CheckOption is one checkbox of a list.
type CheckOption struct {
	Value, Label, Hint string
	Checked            bool
}

package views

// IDAPITokens is the settings page's API-token section.
const IDAPITokens = "api-tokens"

// APITokensVM is the settings page's API-token section: the person's tokens, the form that makes
// one, and a token just made, shown this once.
type APITokensVM struct {
	Tokens []APITokenVM
	// NewToken is the token just made ("" otherwise); NewName its name.
	NewToken, NewName string
	Error             string
	// Example is a curl command reading the API with a token.
	Example string
}

// APITokenVM is one token in the list.
type APITokenVM struct {
	ID, Name  string
	Created   When
	LastUsed  When
	Revoked   bool
	RevokeURL string
}

package views

// IDAccounts is the admin's account list; IDAccountForm the form that adds an account.
const (
	IDAccounts    = "accounts"
	IDAccountForm = "account-add"
)

// AccountsVM is /admin/accounts: every account, and the form to add one.
type AccountsVM struct {
	Page     Page
	Accounts []AccountRowVM
	Add      AccountFormVM
	// Changes are the newest changes to any account.
	Changes []AccountChangeVM
}

// AccountRowVM is one account in the list.
type AccountRowVM struct {
	ID, Name, Email, Role string
	URL                   string
	Courses               string
	LastSignIn            When
	// Status is "active" or "disabled", StatusLabel its words; SignIn is how they sign in, in
	// words; RoleLabel the role's.
	Status, StatusLabel, SignIn, RoleLabel string
	Disabled                               bool
	// LMSUser is the LMS user the account is, in words ("" for none).
	LMSUser string
}

// AccountLMSVM is the LMS user an account is, on its page, with the form that changes it.
type AccountLMSVM struct {
	// Ref is what the form shows: the LMS user's e-mail address, or its id when it has none.
	Ref string
	// Line says who the account is in the LMS, or that it is nobody there; Warning, when not "",
	// says why the LMS will refuse the person's hand actions.
	Line, Warning string
}

// AccountFormVM is the form that adds an account, with what was typed when it comes back.
type AccountFormVM struct {
	Name, Email, Role, SignIn, Reason, LMSUser string
	Roles                                      []Option
	Courses                                    []Option
	Message                                    string
}

// AccountVM is one account's page: its facts, the forms that change it, and its record.
type AccountVM struct {
	Page    Page
	Account AccountRowVM
	// Roles and Courses are the edit form's choices, the account's own selected.
	Roles   []Option
	Courses []Option
	// Self is true on the admin's own account.
	Self    bool
	LMS     AccountLMSVM
	Changes []AccountChangeVM
}

// AccountChangeVM is one recorded change to an account.
type AccountChangeVM struct {
	When                When
	Account, AccountURL string
	Change, Who, Reason string
}

// PasswordLinkVM shows a one-time password link, once, to the admin who made it.
type PasswordLinkVM struct {
	Page    Page
	Account AccountRowVM
	Link    string
	// ExpiresAt is when the link stops working, in words.
	ExpiresAt  string
	AccountURL string
}

// PasswordSetVM is the page a one-time link opens: a form for the new password.
type PasswordSetVM struct {
	Page    Page
	Email   string
	Action  string
	Message string
	MinLen  int
}

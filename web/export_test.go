package web

import "golang.org/x/crypto/bcrypt"

// Tests hash many passwords; the cheapest cost keeps them fast and checks the same code.
func init() { passwordCost = bcrypt.MinCost }

// SafeNext exposes the open-redirect guard to the external tests.
var SafeNext = safeNext

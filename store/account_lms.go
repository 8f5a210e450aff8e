package store

import (
	"context"
	"fmt"
)

// AccountSetLMSUser records which LMS user (users.id) the account is, so regdesk shows "you" on
// the LMS's audit rows that name that user; "" clears it. An unknown account gives ErrNotFound, an
// LMS user another account already is ErrConflict.
func (q *Queries) AccountSetLMSUser(ctx context.Context, id, lmsUserID string) error {
	if !IsUUID(id) {
		return fmt.Errorf("AccountSetLMSUser: %w", ErrNotFound)
	}
	var lms *string
	if lmsUserID != "" {
		if !IsUUID(lmsUserID) {
			return fmt.Errorf("AccountSetLMSUser: %q is not an LMS user id", lmsUserID)
		}
		lms = &lmsUserID
	}
	tag, err := q.db.Exec(ctx, `UPDATE accounts SET lms_user_id = $2 WHERE id = $1`, id, lms)
	if err != nil {
		return dbError("AccountSetLMSUser", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("AccountSetLMSUser: %w", ErrNotFound)
	}
	return nil
}

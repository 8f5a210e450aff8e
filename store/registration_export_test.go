package store_test

import (
	"context"
	"testing"

	"regdesk/store"
	"regdesk/store/storetest"
)

func TestRegistrationExportStreamsInScopeUpToTheCap(t *testing.T) {
	t.Parallel()
	b := setupActions(t)
	ctx := context.Background()
	mine := map[string]bool{}
	for range 3 {
		mine[b.addRow(t, storetest.Registration{State: "failed_permanent", ErrorCode: "course_not_allowed"})] = true
	}
	other := storetest.AddCourse(t, b.st, storetest.Course{Name: "Tietokantojen perusteet", Code: "TKT10004"})
	foreign := storetest.AddRegistration(t, b.st, storetest.Registration{Student: b.student, Course: other, State: "failed_permanent"})

	export := func(f store.RegistrationFilter, limit int) (store.ExportHead, []string) {
		t.Helper()
		var head store.ExportHead
		var ids []string
		err := b.st.RegistrationExport(ctx, actionNow, f, limit, func(h store.ExportHead) error { head = h; return nil },
			func(r store.RegistrationListRow) error { ids = append(ids, r.ID); return nil })
		if err != nil {
			t.Fatal(err)
		}
		return head, ids
	}
	head, ids := export(store.RegistrationFilter{Scope: store.CoursesOnly([]string{b.course.ID})}, 100)
	if head.Rows != 3 || head.Truncated || len(ids) != 3 {
		t.Errorf("scoped: %+v %v", head, ids)
	}
	for _, id := range ids {
		if id == foreign || !mine[id] {
			t.Errorf("scoped export holds %s", id)
		}
	}
	head, ids = export(store.RegistrationFilter{Scope: store.AllCourses()}, 2)
	if head.Rows != 2 || !head.Truncated || len(ids) != 2 {
		t.Errorf("capped at 2 of 4: %+v %v", head, ids)
	}
	head, _ = export(store.RegistrationFilter{Scope: store.AllCourses()}, 4)
	if head.Rows != 4 || head.Truncated {
		t.Errorf("exactly at the cap: %+v", head)
	}
}

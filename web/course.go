package web

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"regdesk/schedule"
	"regdesk/store"
	"regdesk/views"
	"regdesk/views/i18n"
)

// courseListLimit bounds the registrations a course page lists; its counts count them all, and
// the page says how many it shows. 200 holds every student who can act in all but the largest
// courses (they come first); a longer page is the export. At 500 the largest course's page took
// 21 ms at a million rows, 11 ms of it reading and decoding the rows; at 200 it takes about 12.
const courseListLimit = 200

// courseList lists the courses the person may open: GET /courses. It is a teacher's landing page.
func (s *Server) courseList(w http.ResponseWriter, r *http.Request) error {
	a := actorFrom(r.Context())
	courses, err := s.store.CourseList(r.Context(), s.courseScope(r))
	if err != nil {
		return err
	}
	loc := i18n.From(r.Context())
	vm := views.CoursesVM{Page: s.page(r, loc.T("nav.courses")), Empty: loc.T("courses.empty")}
	if a.Role == RoleTeacher {
		vm.Empty = loc.T("courses.teacherEmpty")
		vm.Note = loc.T("courses.teacherNote")
	}
	for _, c := range courses {
		item := views.CourseItemVM{ID: c.ID, URL: "/courses/" + c.ID, Name: c.Name}
		if seesPipeline(a) {
			item.QueueURL = "/?" + url.Values{"show": {"all"}, "course": {c.ID}}.Encode()
		}
		vm.Courses = append(vm.Courses, item)
	}
	if seesPipeline(a) {
		if err := s.courseModulesVM(r, &vm); err != nil {
			return err
		}
	}
	return s.render(w, r, http.StatusOK, views.CoursesPage(vm), nil)
}

// foldFinishedAbove is how many finished registrations a course page lists before folding them.
const foldFinishedAbove = 10

// courseShow is a course's registrations by student-facing status: GET /courses/{id}. A teacher
// asking for a course they do not teach gets the same 404 as for one that does not exist.
func (s *Server) courseShow(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	q, err := query(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	now := s.clock()
	alert := parseAlertedAt(q, now)
	page, err := s.store.CoursePageGet(ctx, store.CoursePageParams{ID: id, Scope: s.courseScope(r), Limit: courseListLimit, Now: now,
		Since: alert.since(), ChangedLimit: alertChangesLimit + 1})
	if err != nil {
		return err
	}
	course, counts, rows := page.Course, page.Counts, page.Registrations
	staff := seesPipeline(actorFrom(ctx))
	loc := i18n.From(ctx)
	vm := views.CourseVM{Page: s.page(r, course.Name), ID: course.ID, Name: course.Name, Export: s.exportLinks("/courses/"+course.ID, "")}
	if staff {
		vm.QueueURL = "/?" + url.Values{"show": {"all"}, "course": {id}}.Encode()
		vm.NeedsAdminURL = "/?" + url.Values{"show": {"needs_admin"}, "course": {id}}.Encode()
	}

	sums := make([]schedule.StudentSummary, len(rows))
	byStatus := map[schedule.StudentStatus][]views.CourseRowVM{}
	canAct := map[schedule.StudentStatus]bool{}
	for i, row := range rows {
		sum := row.StudentView(row.Preconditions(), now)
		sums[i] = sum
		byStatus[sum.Status] = append(byStatus[sum.Status], courseRowVM(loc, row, sum, now))
		canAct[sum.Status] = canAct[sum.Status] || sum.WaitsOn == schedule.WaitsOnStudent
	}
	// The groups follow the list's order (store.CourseListOrder).
	order := store.CourseListOrder()
	for st := range counts {
		if !slices.Contains(order, st) {
			order = append(order, st) // a state schedule does not know shows as itself, last
		}
	}
	var total int64
	capped := false
	// A count at the cap is "that many or more" (store.CourseCountCap), and says so.
	countText := func(n int64) string {
		if n >= store.CourseCountCap {
			return loc.T("course.countAtLeast", "N", n)
		}
		return loc.Count(n)
	}
	for _, st := range order {
		n := counts[st]
		total += n
		capped = capped || n >= store.CourseCountCap
		if n == 0 && len(byStatus[st]) == 0 {
			continue
		}
		vm.Counts = append(vm.Counts, views.StatusCountVM{
			Status: string(st), Label: loc.Code("studentStatus", string(st)), Explanation: loc.CodeExplain("studentStatus", string(st)), N: countText(n), URL: "#status-" + string(st),
		})
		g := views.StatusGroupVM{
			Status: string(st), Label: loc.Code("studentStatus", string(st)), Explanation: loc.CodeExplain("studentStatus", string(st)), N: countText(n),
			StudentCanAct: canAct[st], Rows: byStatus[st],
			// Settled and dropped registrations need nobody; fold them when there are many.
			Folded: st.Finished() && len(byStatus[st]) > foldFinishedAbove,
		}
		// The students who can act come first within a group too.
		slices.SortStableFunc(g.Rows, func(a, b views.CourseRowVM) int {
			aFirst, bFirst := a.WaitsOn == string(schedule.WaitsOnStudent), b.WaitsOn == string(schedule.WaitsOnStudent)
			switch {
			case aFirst && !bFirst:
				return -1
			case bFirst && !aFirst:
				return 1
			}
			return 0
		})
		if staff {
			if states := statesOf(st); states != nil {
				v := url.Values{"show": {"all"}, "course": {id}}
				for _, x := range states {
					v.Add("state", string(x))
				}
				g.QueueURL = "/?" + v.Encode()
			}
		}
		vm.Groups = append(vm.Groups, g)
	}
	vm.Total = loc.T("course.total", "Count", total)
	if capped {
		vm.Total = loc.T("course.totalAtLeast", "Count", total)
	}
	if total > int64(len(rows)) {
		if capped {
			vm.Truncated = loc.T("course.truncatedAtLeast", "Count", total, "Shown", len(rows))
		} else {
			vm.Truncated = loc.T("course.truncated", "Count", total, "Shown", len(rows))
		}
	}
	if capped {
		vm.Truncated += " " + loc.T("course.capped", "Cap", store.CourseCountCap)
	}
	if total == 0 {
		vm.Truncated = loc.T("course.none")
	}
	vm.Alert = courseAlert(i18n.From(r.Context()), alert, page, sums, now)
	return s.render(w, r, http.StatusOK, views.CoursePage(vm), nil)
}

func courseRowVM(loc *i18n.Localizer, row store.RegistrationOverview, sum schedule.StudentSummary, now time.Time) views.CourseRowVM {
	return views.CourseRowVM{
		RegistrationID: row.ID,
		StudentURL:     "/students/" + row.StudentID + "#reg-" + row.ID,
		StudentName:    row.StudentName,
		StudentNumber:  store.Deref(row.StudentNumber),
		Module:         moduleLabel(loc, row.ModuleName),
		Grade:          gradeText(loc, row.Grade, row.GradeScaleID, row.Passed),
		WaitsOn:        string(sum.WaitsOn),
		WaitsOnLabel:   loc.Code("waitsOn", string(sum.WaitsOn)),
		Sentence:       nextSentence(loc, sum.Next, func(t time.Time) string { return loc.At(t, now) }),
	}
}

// preconditionVariants are every combination of a row's preconditions, for statesOf.
var preconditionVariants = func() []schedule.Preconditions {
	var out []schedule.Preconditions
	for bits := range 1 << 6 {
		out = append(out, schedule.Preconditions{
			CompletionDeleted: bits&1 != 0, CompletionEligible: bits&2 != 0, HasVerifiedStudentNumber: bits&4 != 0,
			CourseCodeAllowed: bits&8 != 0, EnrolmentResolved: bits&16 != 0, Submitted: bits&32 != 0,
		})
	}
	return out
}()

// statesOf returns the states whose rows have the student-facing status st and no other, when
// those are the only rows that can have st: then the queue's state filter shows exactly the
// group. It returns nil when a state that can have st can also have another status (a pending
// row, say, whose status depends on its preconditions), as no queue filter matches the group.
func statesOf(st schedule.StudentStatus) []schedule.State {
	var out []schedule.State
	for _, state := range schedule.States() {
		has, other := false, false
		for _, pre := range preconditionVariants {
			if schedule.StudentStatusOf(schedule.Row{State: state}, pre) == st {
				has = true
			} else {
				other = true
			}
		}
		switch {
		case has && other:
			return nil
		case has:
			out = append(out, state)
		}
	}
	return out
}

package demo

import (
	"hash/fnv"
	"strings"
	"time"
)

// gen generates the demo data in one pass. It owns the rng; nothing else draws from it.
type gen struct {
	now   time.Time
	rng   *rng
	truth func(SisuTruth)

	courses []*course
	modules []*module // in catalogue order; index = bit in student.taken

	born         time.Time // when the catalogue and the staff came to be
	organization [16]byte  // the organization every course belongs to
	staffDefs    []Staff
	staff        []*staffUser
	rosters      []*roster
	// emails holds a hash of every student address handed out: the LMS allows an address once
	// (users_email, in any letter case).
	emails map[uint64]struct{}

	numbers   *studentNumbers
	personMul uint64
	personAdd uint64
	personSeq uint64

	cur     *student // the student whose next completions are being generated
	curLeft int

	out *batch

	// arena holds the events' details and item ids; reqBuf and respBuf are scratch space for
	// the two halves of a Suotar exchange while it is built.
	arena   bytesArena
	reqBuf  []byte
	respBuf []byte
}

// bytesArena hands out byte slices carved from large blocks: the millions of event details
// and item ids become a few hundred allocations instead of millions. A block lives as long as
// any slice of it, so batches free their blocks when they are written and dropped.
type bytesArena struct{ block []byte }

// open returns an empty slice to append one value to, with room for any detail the demo writes.
func (a *bytesArena) open() []byte {
	if cap(a.block)-len(a.block) < 4096 {
		a.block = make([]byte, 0, 1<<20)
	}
	return a.block[len(a.block):len(a.block)]
}

// close keeps b, which was appended to the slice open returned, and returns it capped, so a
// later append to it cannot overwrite its neighbour.
func (a *bytesArena) close(b []byte) []byte {
	start := len(a.block)
	if cap(b) != cap(a.block)-start { // outgrew the block: it lives on its own
		return b
	}
	a.block = a.block[:start+len(b)]
	return a.block[start : start+len(b) : start+len(b)]
}

// batch is a slice of the data set that is written together: students before the completions
// that name them, completions before their rows, rows before their events.
type batch struct {
	students    []*student
	completions []*completion
	regs        []*reg
	events      int
}

const (
	// oldestCompletion bounds how far back the demo's history reaches: a year and a half of
	// settled rows, plus the longest path to a submission.
	settledMaxAge = 540 * 24 * time.Hour
	historyReach  = 800 * 24 * time.Hour
)

func newGen(cfg Config) *gen {
	g := &gen{now: cfg.Now, rng: newRNG(cfg.Seed, 0x7265676465736b), truth: cfg.Truth, staffDefs: cfg.Staff, emails: map[uint64]struct{}{}}
	if len(g.staffDefs) == 0 {
		g.staffDefs = DefaultStaff
	}
	g.buildCatalogue()
	g.numbers = newStudentNumbers(g.rng, cfg.Rows)
	g.personMul = uint64(g.between(1_000_001, 9_999_999)) | 1
	for g.personMul%5 == 0 {
		g.personMul += 2
	}
	g.personAdd = uint64(g.rng.intn(100_000_000))
	g.out = &batch{}
	g.reqBuf, g.respBuf = make([]byte, 0, 1024), make([]byte, 0, 1024)
	return g
}

func (g *gen) between(lo, hi int) int { return g.rng.between(lo, hi) }

// itemID mints a request item id (a v4 UUID, as the LMS's are) in the arena.
func (g *gen) itemID() []byte {
	return g.arena.close(appendUUID(g.arena.open(), g.rng.uuid()))
}

func (g *gen) otmID() string {
	b := make([]byte, 0, 40)
	b = append(b, "otm-"...)
	return string(appendUUID(b, g.rng.uuid()))
}

func (g *gen) kurID() string {
	b := make([]byte, 0, 43)
	b = append(b, "hy-kur-"...)
	return string(appendUUID(b, g.rng.uuid()))
}

// buildCatalogue creates the courses with their default instance and modules, the terms
// reaching back over the demo's history, and a Sisu realisation per module and term.
func (g *gen) buildCatalogue() {
	var terms []term
	for t := termOf(g.now.Add(-historyReach)); !t.start.After(g.now); t = termOf(t.end) {
		terms = append(terms, t)
	}
	born := terms[0].start.Add(-45 * 24 * time.Hour)
	g.born = born
	g.organization = g.rng.uuid()
	for ci := range catalogue {
		def := &catalogue[ci]
		c := &course{id: g.rng.uuid(), def: def, createdAt: born.Add(time.Duration(ci) * 37 * time.Hour), terms: terms, languageGroup: g.rng.uuid()}
		c.instance = &instance{id: g.rng.uuid(), createdAt: c.createdAt}
		order := int32(0)
		if len(def.modules) > 1 {
			c.intro = &module{id: g.rng.uuid(), course: c, def: &moduleDef{}, createdAt: c.createdAt}
			order = 1
		}
		for mi := range def.modules {
			md := &def.modules[mi]
			m := &module{
				id: g.rng.uuid(), course: c, def: md, order: order,
				createdAt:  c.createdAt.Add(time.Duration(mi+1) * time.Minute),
				configured: md.code != "" && md.credits > 0 && !md.codeRejected,
			}
			if order > 0 {
				m.name = md.name
			}
			order++
			if md.codeRejected {
				// Added to the course this term, after its other modules.
				m.createdAt = g.now.Add(-rejectedModuleAge)
			}
			m.courseUnitID = "hy-CU-" + itoa(g.between(110_000_000, 139_999_999)) + "-" + pick2(g.rng.chance(0.5), "2020-08-01", "2023-08-01")
			for _, t := range terms {
				nb := newObj(make([]byte, 0, 160))
				nb.str("fi", md.fi+", "+t.fi()+" "+itoa(t.year))
				nb.str("sv", md.sv+", "+t.sv()+" "+itoa(t.year))
				nb.str("en", md.en+", "+t.en()+" "+itoa(t.year))
				m.realisations = append(m.realisations, realisation{id: g.otmID(), assessmentItemID: g.otmID(), nameJSON: nb.end()})
			}
			// Suotar's configuration check runs daily; the last one was within the day.
			m.configID = g.rng.uuid()
			m.checkedAt = g.now.Add(-g.rng.dur(time.Hour, 23*time.Hour))
			m.idx = uint(len(g.modules))
			c.modules = append(c.modules, m)
			g.modules = append(g.modules, m)
		}
		g.courses = append(g.courses, c)
	}
	// Every course code's enrolment list is fetched over and over; the last fetch was within the
	// hour. A code Suotar does not accept lists nobody, and is not fetched.
	seen := map[string]bool{}
	for _, m := range g.modules {
		code := strings.TrimSpace(m.def.code)
		if code == "" || m.def.codeRejected || seen[code] {
			continue
		}
		seen[code] = true
		r := &roster{id: g.rng.uuid(), code: code, createdAt: m.createdAt, startedAt: g.now.Add(-g.rng.dur(5*time.Minute, 55*time.Minute))}
		r.durationMS = int32(g.between(300, 9000))
		r.fetchedAt = r.startedAt.Add(time.Duration(r.durationMS) * time.Millisecond)
		r.listed = int32(g.between(20, 400))
		r.fetchesToday = int32(g.between(1, 40))
		g.rosters = append(g.rosters, r)
	}
	for _, p := range g.staffDefs {
		u := &staffUser{id: g.rng.uuid7(born), roleID: g.rng.uuid(), name: p.Name, email: p.Email, createdAt: born}
		u.first, u.last, _ = strings.Cut(p.Name, " ")
		g.staff = append(g.staff, u)
	}
}

// rejectedModuleAge is how long ago the module whose code Suotar does not accept was added.
const rejectedModuleAge = 40 * day

func (c *course) termIndex(t time.Time) int {
	for i := len(c.terms) - 1; i > 0; i-- {
		if !t.Before(c.terms[i].start) {
			return i
		}
	}
	return 0
}

func (m *module) realisationAt(t time.Time) *realisation {
	return &m.realisations[m.course.termIndex(t)]
}

// moduleNeed narrows the modules a scenario can use.
type moduleNeed int

const (
	needConfigured     moduleNeed = iota // code and credits set
	needImprovable                       // configured, graded 0–5
	needPassFail                         // configured, pass/fail
	needMissingCode                      // no Sisu course code
	needMissingCredits                   // no credits
	needCodeRejected                     // the code Suotar does not accept
)

func (m *module) fits(n moduleNeed) bool {
	if m.def.codeRejected != (n == needCodeRejected) {
		return false
	}
	switch n {
	case needImprovable:
		return m.configured && !m.def.passFail
	case needPassFail:
		return m.configured && m.def.passFail
	case needMissingCode:
		return m.def.code == ""
	case needMissingCredits:
		return m.def.code != "" && m.def.credits == 0
	case needCodeRejected:
		return true
	}
	return m.configured
}

// pickModule draws a module the student has no completion on, by popularity.
func (g *gen) pickModule(s *student, n moduleNeed) *module {
	for range 12 {
		c := g.courses[g.pickCourse()]
		m := c.modules[g.pickWeighted(c.def.modules)]
		if m.fits(n) && s.taken&(1<<g.moduleIndex(m)) == 0 {
			return m
		}
	}
	for _, m := range g.modules { // rare needs: take the first that fits
		if m.fits(n) && s.taken&(1<<g.moduleIndex(m)) == 0 {
			return m
		}
	}
	return nil
}

func (g *gen) pickCourse() int {
	total := 0
	for i := range catalogue {
		total += catalogue[i].weight
	}
	n := g.rng.intn(total)
	for i := range catalogue {
		if n < catalogue[i].weight {
			return i
		}
		n -= catalogue[i].weight
	}
	return 0
}

func (g *gen) pickWeighted(ms []moduleDef) int {
	total := 0
	for i := range ms {
		total += ms[i].weight
	}
	n := g.rng.intn(total)
	for i := range ms {
		if n < ms[i].weight {
			return i
		}
		n -= ms[i].weight
	}
	return 0
}

func (g *gen) moduleIndex(m *module) uint { return m.idx }

// newStudent makes a student; withNumber links a verified student number and a Sisu person.
func (g *gen) newStudent(withNumber bool) *student {
	p := g.rng.person()
	s := &student{first: p.first, last: p.last, email: g.uniqueEmail(p.email)}
	// A few accounts have no name in the LMS: made before the LMS asked for one.
	s.noName = g.rng.chance(0.01)
	s.lang = "fi"
	switch {
	case p.swedish:
		s.lang = pick2(g.rng.chance(0.8), "sv", "fi")
	case p.international:
		s.lang = "en"
	case g.rng.chance(0.1):
		s.lang = "en"
	}
	s.openUni = g.rng.chance(0.25)
	if withNumber {
		s.number = g.numbers.take()
		s.personID = g.personID()
	}
	g.out.students = append(g.out.students, s)
	return s
}

// uniqueEmail returns email, or when a student already has it (in any letter case), the same
// address with a number added to its local part.
func (g *gen) uniqueEmail(email string) string {
	for {
		h := fnv.New64a()
		h.Write([]byte(strings.ToLower(email)))
		k := h.Sum64()
		if _, taken := g.emails[k]; !taken {
			g.emails[k] = struct{}{}
			return email
		}
		local, domain, _ := strings.Cut(email, "@")
		email = local + itoa(g.between(1, 999)) + "@" + domain
	}
}

// personID returns a distinct Sisu person id: hy-hlo-<9 digits> from a permutation, or for
// persons created in Sisu rather than migrated from Oodi, otm-<uuid>.
func (g *gen) personID() string {
	if g.rng.chance(0.15) {
		return g.otmID()
	}
	p := (g.personMul*g.personSeq + g.personAdd) % 100_000_000
	g.personSeq++
	return "hy-hlo-1" + pad8(p)
}

func pad8(n uint64) string {
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[:])
}

// studentFor returns a student with a linked number who can take a module of the need: the
// current student while they have completions left, else a new one.
func (g *gen) studentFor(n moduleNeed) (*student, *module) {
	if g.cur != nil && g.curLeft > 0 {
		if m := g.pickModule(g.cur, n); m != nil {
			g.curLeft--
			return g.cur, m
		}
	}
	g.cur = g.newStudent(true)
	// Many take one course; Full Stack Open and the programming MOOCs are taken a part at a time.
	g.curLeft = []int{0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 6}[g.rng.intn(12)]
	return g.cur, g.pickModule(g.cur, n)
}

// numberless returns a new student without a linked number (and no Sisu person known to us).
func (g *gen) numberless() (*student, *module) {
	s := g.newStudent(false)
	return s, g.pickModule(s, needConfigured)
}

// gradeFor draws a passing grade: pass/fail modules have none (NULL), the others 1–5, mostly
// good ones, as MOOC completers are.
func (g *gen) gradeFor(m *module, improvable bool) int32 {
	if m.def.passFail {
		return 0
	}
	if improvable {
		return int32(g.between(1, 4))
	}
	return int32(1 + g.rng.pick([]int{5, 10, 25, 30, 30}))
}

// begin creates the completion and its first ledger row, created at t (materialize runs a
// minute or less after the completion is saved).
func (g *gen) begin(s *student, m *module, created time.Time, grade int32) *life {
	done := created.Add(-g.rng.dur(5*time.Second, 70*time.Second))
	c := &completion{
		id: g.rng.uuid7(done), student: s, module: m, completionDate: done,
		createdAt: done, updatedAt: done, grade: grade, eligible: true, prereqs: true,
	}
	s.taken |= 1 << g.moduleIndex(m)
	if s.earliest.IsZero() || done.Before(s.earliest) {
		s.earliest = done
	}
	g.out.completions = append(g.out.completions, c)
	return g.attempt(c, 1, created)
}

// attempt creates ledger row number n for c, created at t.
func (g *gen) attempt(c *completion, n int32, created time.Time) *life {
	r := &reg{id: g.rng.uuid7(created), c: c, attempt: n, events: make([]event, 0, 10), ecGroup: groupCompleted, ecSource: ecSourceSchedule}
	g.out.regs = append(g.out.regs, r)
	l := &life{g: g, r: r}
	l.created(created)
	return l
}

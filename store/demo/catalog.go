package demo

import (
	"time"

	"regdesk/schedule"
)

// courseDef is one course of the demo catalogue and the modules that carry its Sisu codes.
//
// In the LMS every course has a default module: no name, order 0, holding whatever chapters no
// other module claims. A course of one credit-bearing module registers its credits on that
// default module (so the ledger shows a module without a name); a course of several gets a
// default module of its own, the course's introduction, which carries no credits, and its
// modules are named and numbered from 1.
type courseDef struct {
	name    string
	slug    string
	lang    string // courses.language_code, and what its completions record as their language
	modules []moduleDef
	weight  int // share of completions, relative
}

// moduleDef is a course module: the unit with a Sisu course code and credits. names are the
// realisation's fi/sv/en names as Sisu shows them.
type moduleDef struct {
	name     string
	code     string  // "" when the module was never given one (a configuration error)
	credits  float32 // 0 when not set (a configuration error)
	passFail bool    // graded on sis-hyl-hyv instead of sis-0-5
	openUni  bool    // students enrol through the Open University (AY codes)
	// codeRejected: Suotar's configuration check does not accept the module's code, so its
	// completions wait in pending (held for the course's setup) until someone fixes it. Only
	// its own scenario takes the module.
	codeRejected bool
	fi, sv, en   string
	weight       int // share of the course's completions, relative
}

// The catalogue: the Department of Computer Science's MOOCs as they look in the LMS. Codes and
// credits are real-looking, not a copy of the study guide.
var catalogue = []courseDef{
	{name: "Ohjelmoinnin MOOC 2025", slug: "ohjelmoinnin-mooc-2025", lang: "fi-FI", weight: 30, modules: []moduleDef{
		{name: "Ohjelmoinnin perusteet", code: "TKT10002", credits: 5, weight: 60,
			fi: "Ohjelmoinnin perusteet", sv: "Grunderna i programmering", en: "Introduction to Programming"},
		{name: "Ohjelmoinnin jatkokurssi", code: "TKT10003", credits: 5, weight: 40,
			fi: "Ohjelmoinnin jatkokurssi", sv: "Fortsättningskurs i programmering", en: "Advanced Course in Programming"},
	}},
	{name: "Python-ohjelmoinnin MOOC 2025", slug: "python-ohjelmoinnin-mooc-2025", lang: "fi-FI", weight: 18, modules: []moduleDef{
		{name: "Ohjelmoinnin perusteet (Python)", code: "AYTKT10002", credits: 5, openUni: true, weight: 65,
			fi: "Ohjelmoinnin perusteet", sv: "Grunderna i programmering", en: "Introduction to Programming"},
		{name: "Ohjelmoinnin jatkokurssi (Python)", code: "AYTKT10003", credits: 5, openUni: true, weight: 35,
			fi: "Ohjelmoinnin jatkokurssi", sv: "Fortsättningskurs i programmering", en: "Advanced Course in Programming"},
	}},
	{name: "Tietokantojen perusteet", slug: "tietokantojen-perusteet", lang: "fi-FI", weight: 8, modules: []moduleDef{
		{name: "Tietokantojen perusteet", code: "TKT10004", credits: 5, weight: 1,
			fi: "Tietokantojen perusteet", sv: "Grunderna i databaser", en: "Introduction to Databases"},
	}},
	{name: "Tietokoneen toiminta", slug: "tietokoneen-toiminta", lang: "fi-FI", weight: 4, modules: []moduleDef{
		{name: "Tietokoneen toiminta", code: "TKT10005", credits: 5, weight: 1,
			fi: "Tietokoneen toiminta", sv: "Datorns funktion", en: "Computer Organization"},
	}},
	{name: "Full Stack Open", slug: "fullstackopen", lang: "en-US", weight: 16, modules: []moduleDef{
		{name: "Full Stack -websovelluskehitys (osat 0–5)", code: "TKT21009", credits: 5, weight: 45,
			fi: "Full Stack -websovelluskehitys", sv: "Full stack-webbapplikationsutveckling", en: "Full Stack Web Development"},
		{name: "Full Stack -websovelluskehitys (osat 6–7)", code: "TKT21010", credits: 2, weight: 20,
			fi: "Full Stack -websovelluskehitys, jatko-osa", sv: "Full stack-webbapplikationsutveckling, fortsättning", en: "Full Stack Web Development, continuation"},
		{name: "GraphQL", code: "TKT21011", credits: 1, weight: 8,
			fi: "Full Stack: GraphQL", sv: "Full Stack: GraphQL", en: "Full Stack: GraphQL"},
		{name: "TypeScript", code: "TKT21012", credits: 1, weight: 9,
			fi: "Full Stack: TypeScript", sv: "Full Stack: TypeScript", en: "Full Stack: TypeScript"},
		{name: "React Native", code: "TKT21013", credits: 2, weight: 5,
			fi: "Full Stack: React Native", sv: "Full Stack: React Native", en: "Full Stack: React Native"},
		{name: "CI/CD", code: "TKT21014", credits: 1, weight: 5,
			fi: "Full Stack: CI/CD", sv: "Full Stack: CI/CD", en: "Full Stack: CI/CD"},
		{name: "Kontit", code: "TKT21015", credits: 1, weight: 4,
			fi: "Full Stack: kontit", sv: "Full Stack: containrar", en: "Full Stack: Containers"},
		// Added to the course before anyone gave it a Sisu code: its rows fail with
		// missing_uh_course_code until someone does.
		{name: "Relaatiotietokannat", code: "", credits: 1, weight: 4,
			fi: "Full Stack: relaatiotietokannat", sv: "Full Stack: relationsdatabaser", en: "Full Stack: Relational Databases"},
	}},
	{name: "Cyber Security Base 2025", slug: "cyber-security-base-2025", lang: "en-US", weight: 6, modules: []moduleDef{
		{name: "Securing Software", code: "AYTKT21018", credits: 5, openUni: true, weight: 70,
			fi: "Ohjelmistojen tietoturva", sv: "Säker programvara", en: "Securing Software"},
		// Credits were never entered: missing_ects_credits.
		{name: "Course Project I", code: "AYTKT21019", credits: 0, openUni: true, weight: 30,
			fi: "Tietoturvaprojekti I", sv: "Säkerhetsprojekt I", en: "Course Project I"},
		// Added this term with a code Suotar does not accept yet: its completions wait.
		{name: "Course Project II", code: "AYTKT21029", credits: 5, openUni: true, codeRejected: true,
			fi: "Tietoturvaprojekti II", sv: "Säkerhetsprojekt II", en: "Course Project II"},
	}},
	{name: "DevOps with Docker", slug: "devops-with-docker", lang: "en-US", weight: 5, modules: []moduleDef{
		{name: "DevOps with Docker", code: "AYTKT21020", credits: 2, openUni: true, weight: 70,
			fi: "DevOps with Docker", sv: "DevOps with Docker", en: "DevOps with Docker"},
		{name: "Docker Compose ja jatko-osa", code: "AYTKT21021", credits: 1, openUni: true, weight: 30,
			fi: "DevOps with Docker, jatko-osa", sv: "DevOps with Docker, fortsättning", en: "DevOps with Docker, continuation"},
	}},
	{name: "Elements of AI", slug: "elements-of-ai", lang: "en-US", weight: 9, modules: []moduleDef{
		{name: "Introduction to AI", code: "BSCS2001", credits: 2, passFail: true, weight: 1,
			fi: "Johdatus tekoälyyn", sv: "Introduktion till AI", en: "Introduction to AI"},
	}},
	{name: "Building AI", slug: "building-ai", lang: "en-US", weight: 4, modules: []moduleDef{
		{name: "Building AI", code: "BSCS2002", credits: 2, passFail: true, weight: 1,
			fi: "Tekoälysovellusten rakentaminen", sv: "Att bygga AI", en: "Building AI"},
	}},
	{name: "Ethics of AI", slug: "ethics-of-ai", lang: "en-US", weight: 3, modules: []moduleDef{
		{name: "Ethics of AI", code: "BSCS2003", credits: 2, passFail: true, weight: 1,
			fi: "Tekoälyn etiikka", sv: "AI-etik", en: "Ethics of AI"},
	}},
}

// course, module and instance are the catalogue with ids, as written to the database.
type course struct {
	id        [16]byte
	def       *courseDef
	createdAt time.Time
	modules   []*module // the credit-bearing modules
	// intro is the default module of a course with several credit-bearing ones: no name, no
	// credits, credit registration off. nil when the course's one module is its default.
	intro *module
	// instance is the course's default instance (no name), which every ledger row names.
	instance *instance
	// terms are the half years the course has run, oldest first; a module has a Sisu
	// realisation for each.
	terms         []term
	languageGroup [16]byte
}

type module struct {
	id        [16]byte
	course    *course
	def       *moduleDef
	name      string // "" for the course's default module (NULL)
	order     int32  // 0 exactly for the default module
	idx       uint   // position in the catalogue: the module's bit in student.taken
	createdAt time.Time
	// courseUnitID is the Sisu course unit the code resolves to (hy-CU-<n>-<version start>).
	courseUnitID string
	// realisations holds the module's Sisu realisation for each term, parallel to course.terms.
	realisations []realisation
	configured   bool // code and credits set, and the code accepted: rows can reach Sisu
	// configID is its course_module_suotar_configurations row; checkedAt when Suotar's
	// configuration check last looked at it.
	configID  [16]byte
	checkedAt time.Time
}

// instance is a course's default instance: the LMS's ledger still names one on every row.
type instance struct {
	id        [16]byte
	createdAt time.Time
}

// realisation is a Sisu course unit realisation: what a student enrols in.
type realisation struct {
	id               string // otm-<uuid>
	assessmentItemID string // otm-<uuid>
	nameJSON         []byte // {"fi":…,"sv":…,"en":…}
}

// term is a half year of teaching: spring runs January–July, autumn August–December.
type term struct {
	year   int
	autumn bool
	start  time.Time
	end    time.Time // exclusive
}

func termOf(t time.Time) term {
	y := t.Year()
	if t.Month() >= time.August {
		return term{year: y, autumn: true, start: time.Date(y, time.August, 1, 0, 0, 0, 0, helsinki), end: time.Date(y+1, time.January, 1, 0, 0, 0, 0, helsinki)}
	}
	return term{year: y, start: time.Date(y, time.January, 1, 0, 0, 0, 0, helsinki), end: time.Date(y, time.August, 1, 0, 0, 0, 0, helsinki)}
}

// names of a term in the three languages Sisu shows.
func (t term) fi() string { return pick2(t.autumn, "syksy", "kevät") }
func (t term) sv() string { return pick2(t.autumn, "hösten", "våren") }
func (t term) en() string { return pick2(t.autumn, "autumn", "spring") }

func pick2(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// helsinki is where Sisu's dates are days; the demo's terms and attainment dates follow it.
var helsinki = schedule.Helsinki()

// roster is a course code's enrolment list schedule (credit_registration_roster_schedules): when
// the pipeline last fetched the code's enrolments, and how many people they listed.
type roster struct {
	id                   [16]byte
	code                 string
	createdAt            time.Time
	startedAt, fetchedAt time.Time
	durationMS           int32
	listed               int32
	fetchesToday         int32
}
